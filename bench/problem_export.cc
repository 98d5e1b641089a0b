#include "bench/problem_export.h"

#include <cstdio>
#include <stdexcept>

#include "engine/common/io_error.h"

namespace csim::bench {
namespace {

constexpr const char* kFormat = "csim-contact-problems 1";

// Writes `values` (rows x row_shape, row-major) as a new dataset `name` of `group`.
void WriteDoubles(io::Hdf5Group& group, const std::string& name, const std::vector<double>& values,
                  const std::vector<hsize_t>& row_shape = {}) {
  hsize_t row = 1;
  for (hsize_t n : row_shape) row *= n;
  const hsize_t rows = values.size() / row;
  io::Hdf5Dataset d = group.CreateExtendible(name, io::Hdf5Type::kFloat64, row_shape,
                                             std::max<hsize_t>(rows, 1), /*gzip_level=*/0);
  d.AppendRows(values.data(), rows);
}

void WriteInts(io::Hdf5Group& group, const std::string& name, const std::vector<int32_t>& values,
               const std::vector<hsize_t>& row_shape = {}) {
  hsize_t row = 1;
  for (hsize_t n : row_shape) row *= n;
  const hsize_t rows = values.size() / row;
  io::Hdf5Dataset d = group.CreateExtendible(name, io::Hdf5Type::kInt32, row_shape,
                                             std::max<hsize_t>(rows, 1), /*gzip_level=*/0);
  d.AppendRows(values.data(), rows);
}

std::vector<double> ToStd(const Eigen::VectorXd& v) { return {v.data(), v.data() + v.size()}; }

Eigen::VectorXd ToEigen(const std::vector<double>& v) {
  return Eigen::Map<const Eigen::VectorXd>(v.data(), static_cast<Eigen::Index>(v.size()));
}

// Appends M row by row.
void AppendRowMajor(const Eigen::Ref<const Eigen::MatrixXd>& M, std::vector<double>* out) {
  for (Eigen::Index i = 0; i < M.rows(); ++i)
    for (Eigen::Index j = 0; j < M.cols(); ++j) out->push_back(M(i, j));
}

// Reads a rows x cols row-major matrix from `data` at *at, advancing *at.
Eigen::MatrixXd TakeRowMajor(const std::vector<double>& data, size_t* at, int rows, int cols) {
  Eigen::MatrixXd M(rows, cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) M(i, j) = data.at((*at)++);
  return M;
}

}  // namespace

std::string CaptureProblem(const solver::ContactProblem& problem, const Eigen::VectorXd& guess,
                           const solver::SapSolverResult& result, ExportedProblem* out) {
  for (int c = 0; c < problem.num_cliques(); ++c)
    if (!problem.has_A(c)) return "clique " + std::to_string(c) + " has no stored A (matrix-free)";
  ExportedProblem& p = *out;
  p.dt = problem.dt();
  p.clique_size.clear();
  p.A.clear();
  for (int c = 0; c < problem.num_cliques(); ++c) {
    p.clique_size.push_back(problem.clique_size(c));
    p.A.emplace_back(problem.A(c));
  }
  p.v_star = problem.v_star();
  p.v_guess = guess;
  p.contacts.clear();
  for (int k = 0; k < problem.num_constraints(); ++k) {
    const solver::ConstraintEntry& e = problem.entry(k);
    const auto* sap = dynamic_cast<const solver::SapFrictionConeConstraint*>(e.constraint);
    if (sap == nullptr)
      return "constraint " + std::to_string(k) + " is not a SAP friction-cone contact";
    ExportedContact c;
    c.clique = e.clique;
    for (int b = 0; b < e.num_cliques; ++b) c.jacobian[b] = problem.DenseJacobian(k, b);
    c.factored = e.point_contact >= 0;
    if (c.factored) c.point_contact = problem.point_contact(k);
    c.parameters = sap->parameters();
    c.delassus = e.delassus;
    c.R_t = sap->R_t();
    c.R_n = sap->R_n();
    c.v_hat_n = sap->v_hat_n();
    p.contacts.push_back(std::move(c));
  }
  p.v = result.v;
  p.gamma = result.gamma;
  p.v_c = result.v_c;
  p.sap_iterations = result.stats.iterations;
  p.sap_island_iterations = result.stats.mean_island_iterations;
  p.sap_momentum_error = result.stats.momentum_error;
  p.sap_termination = solver::SapTerminationName(result.stats.termination);
  p.sap_islands = result.stats.num_islands;
  return "";
}

void BuildProblem(const ExportedProblem& exported, solver::ContactProblem* problem) {
  problem->Clear(exported.dt);
  for (const Eigen::MatrixXd& A : exported.A) problem->AddClique(A);
  problem->SetFreeMotionVelocity(exported.v_star);
  for (const ExportedContact& c : exported.contacts) {
    const solver::SapFrictionConeConstraint constraint(c.parameters);
    if (c.factored) {
      // As the builder adds it: the Delassus estimate comes from the same recipe and data.
      problem->AddPointContact(c.clique[0], c.clique[1], c.point_contact, constraint);
    } else if (c.clique[1] < 0) {
      problem->AddConstraintWith(
          c.clique[0], [&](Eigen::Map<Eigen::MatrixXd> J) { J = c.jacobian[0]; }, constraint,
          c.delassus);
    } else {
      problem->AddConstraintWith(
          c.clique[0], c.clique[1],
          [&](Eigen::Map<Eigen::MatrixXd> J0, Eigen::Map<Eigen::MatrixXd> J1) {
            J0 = c.jacobian[0];
            J1 = c.jacobian[1];
          },
          constraint, c.delassus);
    }
  }
}

ProblemFileWriter::ProblemFileWriter(const std::string& file_name, const std::string& scene,
                                     const std::string& command,
                                     const solver::SapSolverParameters& parameters)
    : file_(io::Hdf5File::Create(file_name)) {
  file_.SetAttribute("format", kFormat);
  file_.SetAttribute("scene", scene);
  file_.SetAttribute("command", command);
  file_.SetAttribute("relative_tolerance", parameters.relative_tolerance);
  file_.SetAttribute("absolute_tolerance", parameters.absolute_tolerance);
  problems_ = file_.CreateGroup("problems");
}

void ProblemFileWriter::Append(const ExportedProblem& p) {
  char name[32];
  std::snprintf(name, sizeof name, "p%06d", count_++);
  io::Hdf5Group g = problems_.CreateGroup(name);
  g.SetAttribute("step", static_cast<int64_t>(p.step));
  g.SetAttribute("time", p.time);
  g.SetAttribute("dt", p.dt);
  g.SetAttribute("num_velocities", static_cast<int32_t>(p.num_velocities()));
  g.SetAttribute("num_constraints", static_cast<int32_t>(p.contacts.size()));
  g.SetAttribute("sap_iterations", static_cast<int32_t>(p.sap_iterations));
  g.SetAttribute("sap_island_iterations", p.sap_island_iterations);
  g.SetAttribute("sap_momentum_error", p.sap_momentum_error);
  g.SetAttribute("sap_solve_seconds", p.sap_solve_seconds);
  g.SetAttribute("sap_resolve_seconds", p.sap_resolve_seconds);
  g.SetAttribute("sap_termination", p.sap_termination);
  g.SetAttribute("sap_islands", static_cast<int32_t>(p.sap_islands));

  std::vector<double> A;
  for (const Eigen::MatrixXd& block : p.A) AppendRowMajor(block, &A);
  WriteInts(g, "clique_size", std::vector<int32_t>(p.clique_size.begin(), p.clique_size.end()));
  WriteDoubles(g, "A", A);
  WriteDoubles(g, "v_star", ToStd(p.v_star));
  WriteDoubles(g, "v_guess", ToStd(p.v_guess));
  WriteDoubles(g, "v", ToStd(p.v));
  WriteDoubles(g, "gamma", ToStd(p.gamma));
  WriteDoubles(g, "v_c", ToStd(p.v_c));

  std::vector<int32_t> clique, factored, was_stuck;
  std::vector<double> jacobian, R_WC, r_W, sign, bias;
  std::vector<double> mu, stiffness, tau_d, phi0, beta, sigma, delassus, R_t, R_n, v_hat_n;
  for (const ExportedContact& c : p.contacts) {
    clique.insert(clique.end(), {c.clique[0], c.clique[1]});
    for (int b = 0; b < 2; ++b)
      if (c.clique[b] >= 0) AppendRowMajor(c.jacobian[b], &jacobian);
    factored.push_back(c.factored ? 1 : 0);
    const solver::PointContactJacobian& f = c.point_contact;
    AppendRowMajor(c.factored ? Eigen::Matrix3d(f.R_WC) : Eigen::Matrix3d::Zero(), &R_WC);
    for (int b = 0; b < 2; ++b) {
      const Eigen::Vector3d r = c.factored ? f.r_W[b] : Eigen::Vector3d::Zero();
      r_W.insert(r_W.end(), {r.x(), r.y(), r.z()});
      sign.push_back(c.factored ? f.sign[b] : 0.0);
    }
    const solver::SapFrictionConeParameters& q = c.parameters;
    mu.push_back(q.mu);
    stiffness.push_back(q.stiffness);
    tau_d.push_back(q.dissipation_time);
    phi0.push_back(q.phi0);
    beta.push_back(q.near_rigid_threshold);
    sigma.push_back(q.stiction_sigma);
    bias.insert(bias.end(), {q.bias_velocity.x(), q.bias_velocity.y(), q.bias_velocity.z()});
    was_stuck.push_back(q.was_stuck ? 1 : 0);
    delassus.push_back(c.delassus);
    R_t.push_back(c.R_t);
    R_n.push_back(c.R_n);
    v_hat_n.push_back(c.v_hat_n);
  }
  WriteInts(g, "clique", clique, {2});
  WriteDoubles(g, "jacobian", jacobian);
  WriteInts(g, "factored", factored);
  WriteDoubles(g, "R_WC", R_WC, {3, 3});
  WriteDoubles(g, "r_W", r_W, {2, 3});
  WriteDoubles(g, "sign", sign, {2});
  WriteDoubles(g, "mu", mu);
  WriteDoubles(g, "stiffness", stiffness);
  WriteDoubles(g, "dissipation_time", tau_d);
  WriteDoubles(g, "phi0", phi0);
  WriteDoubles(g, "near_rigid_threshold", beta);
  WriteDoubles(g, "stiction_sigma", sigma);
  WriteDoubles(g, "bias_velocity", bias, {3});
  WriteInts(g, "was_stuck", was_stuck);
  WriteDoubles(g, "delassus", delassus);
  WriteDoubles(g, "R_t", R_t);
  WriteDoubles(g, "R_n", R_n);
  WriteDoubles(g, "v_hat_n", v_hat_n);
}

void ProblemFileWriter::Close() {
  problems_ = io::Hdf5Group();
  file_.Close();
}

namespace {

ExportedProblem ReadOne(const io::Hdf5Group& g) {
  ExportedProblem p;
  p.step = g.GetIntAttribute("step");
  p.time = g.GetDoubleAttribute("time");
  p.dt = g.GetDoubleAttribute("dt");
  p.sap_iterations = static_cast<int>(g.GetIntAttribute("sap_iterations"));
  p.sap_island_iterations = g.GetDoubleAttribute("sap_island_iterations");
  p.sap_momentum_error = g.GetDoubleAttribute("sap_momentum_error");
  p.sap_solve_seconds = g.GetDoubleAttribute("sap_solve_seconds");
  p.sap_resolve_seconds = g.GetDoubleAttribute("sap_resolve_seconds");
  p.sap_termination = g.GetStringAttribute("sap_termination");
  p.sap_islands = static_cast<int>(g.GetIntAttribute("sap_islands"));
  const auto doubles = [&](const char* name) { return g.OpenDataset(name).ReadDoubles(); };
  const auto ints = [&](const char* name) { return g.OpenDataset(name).ReadInts(); };

  for (int64_t n : ints("clique_size")) p.clique_size.push_back(static_cast<int>(n));
  const std::vector<double> A = doubles("A");
  size_t at = 0;
  for (int n : p.clique_size) p.A.push_back(TakeRowMajor(A, &at, n, n));
  p.v_star = ToEigen(doubles("v_star"));
  p.v_guess = ToEigen(doubles("v_guess"));
  p.v = ToEigen(doubles("v"));
  p.gamma = ToEigen(doubles("gamma"));
  p.v_c = ToEigen(doubles("v_c"));

  const std::vector<int64_t> clique = ints("clique"), factored = ints("factored"),
                             was_stuck = ints("was_stuck");
  const std::vector<double> jacobian = doubles("jacobian"), R_WC = doubles("R_WC"),
                            r_W = doubles("r_W"), sign = doubles("sign"), mu = doubles("mu"),
                            stiffness = doubles("stiffness"), tau_d = doubles("dissipation_time"),
                            phi0 = doubles("phi0"), beta = doubles("near_rigid_threshold"),
                            sigma = doubles("stiction_sigma"), bias = doubles("bias_velocity"),
                            delassus = doubles("delassus"), R_t = doubles("R_t"),
                            R_n = doubles("R_n"), v_hat_n = doubles("v_hat_n");
  const size_t m = factored.size();
  size_t j_at = 0;
  for (size_t k = 0; k < m; ++k) {
    ExportedContact c;
    c.clique = {static_cast<int>(clique[2 * k]), static_cast<int>(clique[2 * k + 1])};
    for (int b = 0; b < 2; ++b)
      if (c.clique[b] >= 0)
        c.jacobian[b] = TakeRowMajor(jacobian, &j_at, 3, p.clique_size.at(c.clique[b]));
    c.factored = factored[k] != 0;
    size_t r_at = 9 * k;
    c.point_contact.R_WC = TakeRowMajor(R_WC, &r_at, 3, 3);
    for (int b = 0; b < 2; ++b) {
      c.point_contact.r_W[b] = Eigen::Vector3d(r_W[6 * k + 3 * b], r_W[6 * k + 3 * b + 1],
                                               r_W[6 * k + 3 * b + 2]);
      c.point_contact.sign[b] = sign[2 * k + b];
    }
    solver::SapFrictionConeParameters& q = c.parameters;
    q.mu = mu[k];
    q.stiffness = stiffness[k];
    q.dissipation_time = tau_d[k];
    q.phi0 = phi0[k];
    q.near_rigid_threshold = beta[k];
    q.stiction_sigma = sigma[k];
    q.bias_velocity = Eigen::Vector3d(bias[3 * k], bias[3 * k + 1], bias[3 * k + 2]);
    q.was_stuck = was_stuck[k] != 0;
    c.delassus = delassus[k];
    c.R_t = R_t[k];
    c.R_n = R_n[k];
    c.v_hat_n = v_hat_n[k];
    p.contacts.push_back(std::move(c));
  }
  return p;
}

}  // namespace

std::vector<ExportedProblem> ReadProblemFile(const std::string& file_name) {
  io::Hdf5File file = io::Hdf5File::Open(file_name, io::Hdf5File::Mode::kReadOnly);
  if (!file.HasAttribute("format") || file.GetStringAttribute("format") != kFormat)
    throw IoError(file_name + ": not a contact-problem file (" + kFormat + ")");
  const io::Hdf5Group problems = file.OpenGroup("problems");
  std::vector<ExportedProblem> out;
  char name[32];
  for (int i = 0;; ++i) {
    std::snprintf(name, sizeof name, "p%06d", i);
    if (!problems.Exists(name)) break;
    out.push_back(ReadOne(problems.OpenGroup(name)));
  }
  return out;
}

}  // namespace csim::bench

// csim_export_problems (bench/problem_export.h): the contact problems of a run written to a
// file and read back. What the conic-solver study (tools/conic_solver_study.py) relies on:
// the file holds exactly the problem SAP solved (a fresh solver given the problem rebuilt
// from the file returns the step's solution bit for bit), and SAP's recorded solution is a
// point of SAP eq. 19's optimality conditions written with the file's R, v_hat and mu alone
// (gamma in the friction cone F, g = v_c + v_b - v_hat + R gamma in its dual F*, g . gamma
// = 0, and the balance of momentum to eps_r): the conic program the study gives CVXOPT is
// built from those same arrays (tools/python/tests/test_conic_solver_study.py checks it
// on that program's own matrices).

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "bench/problem_export.h"
#include "engine/integrator/contact_step.h"
#include "engine/io/scene_loader.h"
#include "engine/solver/sap_limit_constraint.h"
#include "tests/support/scene_stepping.h"

namespace csim::bench {
namespace {

// Boxes and spheres dropped into a corner of two walls: piles, stiction, sliding, impacts.
constexpr const char* kCorner = R"(csim: 1
name: export_corner
settings:
  time_step: 0.002
  duration: 1.0
materials:
  object: {stiffness: 1.0e8, dissipation_time: 0.002, friction: 1.0}
world:
  geometry:
    - {shape: halfspace, material: object}
    - {shape: box, size: [0.02, 0.6, 0.4], material: object, pose: {position: [-0.16, 0.0, 0.2]}}
    - {shape: box, size: [0.6, 0.02, 0.4], material: object, pose: {position: [0.0, -0.16, 0.2]}}
bodies:
  - {name: b0, density: 1000.0, geometry: [{shape: box, size: [0.1, 0.1, 0.1], material: object}], pose: {position: [-0.08, -0.08, 0.07], rpy: [0.1, 0.05, 0.2]}}
  - {name: s1, density: 1000.0, geometry: [{shape: sphere, radius: 0.05, material: object}], pose: {position: [-0.06, -0.07, 0.2]}}
  - {name: b2, density: 1000.0, geometry: [{shape: box, size: [0.1, 0.1, 0.1], material: object}], pose: {position: [-0.07, -0.05, 0.33], rpy: [0.3, -0.2, 0.1]}}
  - {name: s3, density: 1000.0, geometry: [{shape: sphere, radius: 0.05, material: object}], pose: {position: [0.03, -0.09, 0.46]}}
  - {name: b4, density: 1000.0, geometry: [{shape: box, size: [0.1, 0.1, 0.1], material: object}], pose: {position: [0.05, -0.08, 0.07], rpy: [-0.2, 0.1, 0.4]}}
  - {name: s5, density: 1000.0, geometry: [{shape: sphere, radius: 0.05, material: object}], pose: {position: [0.06, 0.02, 0.2]}}
)";

struct Captured {
  std::vector<ExportedProblem> problems;  // as captured, before the file
  std::string file;
  solver::SapSolverParameters parameters;
};

// Steps the corner pile and exports every `every`-th step's problem to a fresh file.
Captured RunAndExport(int steps, int every) {
  const io::LoadedScene scene = io::LoadSceneFromText(kCorner, "export_corner.yaml", {});
  const double dt = scene.settings.time_step;
  Captured out;
  out.parameters = scene.settings.solver;
  std::string pattern =
      (std::filesystem::temp_directory_path() / "csim_export_test_XXXXXX").string();
  REQUIRE(mkdtemp(pattern.data()) != nullptr);
  out.file = pattern + "/problems.h5";
  ProblemFileWriter writer(out.file, "export_corner", "test", scene.settings.solver);
  const auto export_step = [&](int i, const integrator::ContactStepWorkspace& cws) {
    if (i % every != 0 || cws.problem.num_constraints() == 0) return;
    ExportedProblem p;
    REQUIRE(CaptureProblem(cws.problem, cws.warm_start.guess, cws.result, &p).empty());
    p.step = i;
    p.time = (i - 1) * dt;
    p.sap_solve_seconds = 1e-6 * i;  // any value: it must come back as written
    writer.Append(p);
    out.problems.push_back(std::move(p));
  };
  testing::StepSceneWithContact(scene, steps, export_step);
  writer.Close();
  return out;
}

void RemoveFile(const std::string& file) {
  std::filesystem::remove_all(std::filesystem::path(file).parent_path());
}

}  // namespace

TEST_CASE("an exported problem read back and solved again reproduces the step's solve",
          "[bench][export]") {
  const Captured c = RunAndExport(300, 7);
  REQUIRE(c.problems.size() >= 35);
  const std::vector<ExportedProblem> read = ReadProblemFile(c.file);
  RemoveFile(c.file);
  REQUIRE(read.size() == c.problems.size());
  int sliding_or_apart = 0, on_the_world = 0;
  for (size_t i = 0; i < read.size(); ++i) {
    const ExportedProblem &p = read[i], &q = c.problems[i];
    CHECK(p.step == q.step);
    CHECK(p.sap_solve_seconds == q.sap_solve_seconds);
    CHECK(p.sap_termination == q.sap_termination);
    CHECK(p.sap_island_iterations == q.sap_island_iterations);
    REQUIRE(p.contacts.size() == q.contacts.size());
    CHECK(p.v_star == q.v_star);
    for (size_t k = 0; k < p.contacts.size(); ++k) {
      CHECK(p.contacts[k].R_n == q.contacts[k].R_n);
      CHECK(p.contacts[k].jacobian[0] == q.contacts[k].jacobian[0]);
      on_the_world += p.contacts[k].clique[1] < 0;
    }
    // A fresh solver on the rebuilt problem: the same solution, bit for bit.
    solver::ContactProblem problem;
    BuildProblem(p, &problem);
    solver::SapSolver sap(c.parameters);
    solver::SapSolverResult result;
    REQUIRE(sap.Solve(problem, p.v_guess, &result).ok());
    CHECK(result.v == q.v);
    CHECK(result.gamma == q.gamma);
    CHECK(result.stats.iterations == q.sap_iterations);
    CHECK(result.stats.momentum_error == q.sap_momentum_error);
    // The rebuilt constraints prepared the recorded regularization.
    for (int k = 0; k < problem.num_constraints(); ++k) {
      const auto& s = static_cast<const solver::SapFrictionConeConstraint&>(problem.constraint(k));
      CHECK(s.R_t() == p.contacts[k].R_t);
      CHECK(s.v_hat_n() == p.contacts[k].v_hat_n);
      const Eigen::Vector3d g = p.gamma.segment<3>(3 * k);
      sliding_or_apart += g[2] == 0.0 || std::hypot(g[0], g[1]) > 0.99 * p.contacts[k].parameters.mu * g[2];
    }
  }
  CHECK(on_the_world > 0);
  CHECK(sliding_or_apart > 0);  // not every contact stuck: the cone's boundary is exercised
}

TEST_CASE("SAP's recorded solution satisfies the optimality conditions of SAP eq. 19",
          "[bench][export]") {
  const Captured c = RunAndExport(200, 10);
  const std::vector<ExportedProblem> read = ReadProblemFile(c.file);
  RemoveFile(c.file);
  REQUIRE(!read.empty());
  for (const ExportedProblem& p : read) {
    // Balance of momentum, SAP eq. 32 over the participating velocities.
    Eigen::VectorXd j_c = Eigen::VectorXd::Zero(p.num_velocities());
    std::vector<int> offset(p.clique_size.size() + 1, 0);
    for (size_t a = 0; a < p.clique_size.size(); ++a) offset[a + 1] = offset[a] + p.clique_size[a];
    std::vector<bool> participates(p.clique_size.size(), false);
    double scale = 0.0;  // for the complementarity test: typical |g| |gamma|
    for (size_t k = 0; k < p.contacts.size(); ++k) {
      const ExportedContact& e = p.contacts[k];
      const Eigen::Vector3d gamma = p.gamma.segment<3>(3 * k);
      Eigen::Vector3d v_c = Eigen::Vector3d::Zero();
      for (int b = 0; b < 2; ++b) {
        if (e.clique[b] < 0) continue;
        const int a = e.clique[b], n = p.clique_size[a];
        participates[a] = true;
        v_c += e.jacobian[b] * p.v.segment(offset[a], n);
        j_c.segment(offset[a], n) += e.jacobian[b].transpose() * gamma;
      }
      CHECK((v_c - p.v_c.segment<3>(3 * k)).norm() <= 1e-12 * (1.0 + v_c.norm()));
      // gamma in F = {|gamma_t| <= mu gamma_n}; g in F* = {mu |g_t| <= g_n}; g . gamma = 0.
      const double mu = e.parameters.mu;
      const Eigen::Vector3d R(e.R_t, e.R_t, e.R_n), v_hat(0.0, 0.0, e.v_hat_n);
      const Eigen::Vector3d g = v_c + e.parameters.bias_velocity - v_hat + R.cwiseProduct(gamma);
      // The size of the terms g sums (g itself is their small difference in sliding).
      const double size_g = v_c.norm() + e.parameters.bias_velocity.norm() + v_hat.norm() +
                            R.cwiseProduct(gamma).norm();
      CHECK(gamma[2] >= 0.0);
      CHECK(std::hypot(gamma[0], gamma[1]) <= mu * gamma[2] * (1.0 + 1e-12) + 1e-300);
      CHECK(mu * std::hypot(g[0], g[1]) <= g[2] + 1e-12 * size_g);
      INFO("g " << g.transpose() << ", gamma " << gamma.transpose() << ", g.gamma " << g.dot(gamma));
      CHECK(std::abs(g.dot(gamma)) <= 1e-10 * size_g * gamma.norm() + 1e-300);
      scale += size_g * gamma.norm();
    }
    double grad2 = 0.0, p2 = 0.0, j2 = 0.0;
    for (size_t a = 0; a < p.clique_size.size(); ++a) {
      if (!participates[a]) continue;
      const int o = offset[a], n = p.clique_size[a];
      const Eigen::VectorXd Av = p.A[a] * p.v.segment(o, n);
      const Eigen::VectorXd grad = Av - p.A[a] * p.v_star.segment(o, n) - j_c.segment(o, n);
      const Eigen::VectorXd D = p.A[a].diagonal().cwiseSqrt().cwiseInverse();
      grad2 += D.cwiseProduct(grad).squaredNorm();
      p2 += D.cwiseProduct(Av).squaredNorm();
      j2 += D.cwiseProduct(j_c.segment(o, n)).squaredNorm();
    }
    const double e_m = std::sqrt(grad2) / std::sqrt(std::max(p2, j2));
    if (p.sap_termination == "optimality criterion")
      CHECK(e_m <= c.parameters.relative_tolerance);
    CHECK(e_m == Approx(p.sap_momentum_error).margin(1e-12).epsilon(1e-6));
    CHECK(scale > 0.0);
  }
}

TEST_CASE("a problem with another constraint kind is not exported", "[bench][export]") {
  solver::ContactProblem problem;
  problem.Clear(1e-3);
  const int c = problem.AddClique(Eigen::Matrix2d::Identity());
  problem.SetFreeMotionVelocity(Eigen::Vector2d(0.0, -1.0));
  solver::SapLimitParameters limit;
  limit.lower = 0.0;
  limit.upper = 1.0;
  solver::AddJointLimit(&problem, c, 1, limit);
  solver::SapSolver sap;
  solver::SapSolverResult result;
  REQUIRE(sap.Solve(problem, Eigen::Vector2d::Zero(), &result).ok());
  ExportedProblem p;
  CHECK(CaptureProblem(problem, Eigen::Vector2d::Zero(), result, &p) ==
        "constraint 0 is not a SAP friction-cone contact");
}

}  // namespace csim::bench

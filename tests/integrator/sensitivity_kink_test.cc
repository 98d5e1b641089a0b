// The kink (docs/design/sensitivities.md §3, design notes B8.4): a step whose contact sits
// exactly on SAP's stick/slip boundary. A sphere resting on compliant ground (at its static
// penetration, at rest) is pushed sideways at its centre by a constant force F; it rolls if
// it sticks, which takes |gamma_t| = 2/7 F dt, so the first step sticks for mu above a
// boundary mu* near 2/7 F / (m g) and slides below it. mu* is found by bisection on the
// region of the step's converged solution (each step solved to eps_r = 1e-13, eps_a = 0,
// the cost criterion off, dense factorization). Then:
//   - on each side, at mu+ = mu* (1 + 1e-9) and mu- = mu* (1 - 1e-9), the one-sided difference
//     of full steps away from the boundary, (x1(mu+ (1 + h)) - x1(mu+)) / (h mu+) and
//     (x1(mu-) - x1(mu- (1 - h))) / (h mu-) with h = 1e-6, matches the derivative of that
//     side's piece, the implicit function theorem there (TrajectorySensitivity, one
//     Advance): stiction's dx1/dmu = 0 exactly, sliding's is not;
//   - the two one-sided derivatives differ: it is a kink;
//   - the step is flagged: the contact's kink distance (CalcContactParameterDerivativesOf)
//     and the step's min_kink_distance are below the 1e-6 of /sensitivity/near_kink
//     (docs/output-format.md, "Extension: sensitivities");
//   - in a run with sensitivities (Simulate, Settings::sensitivities, an HDF5 file) the row
//     of that step has /sensitivity/near_kink = 1, and a run with 2 mu* has none;
//   - at the bracket's stuck end itself, where J v formed anew can round to sliding, the
//     chain given the solver's v_c (Advance's solver_v_c) takes the solver's region,
//     stiction, and stiction's dx1/dmu = 0.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/integrator/contact_step.h"
#include "engine/integrator/trajectory_sensitivity.h"
#include "engine/io/hdf5_file.h"
#include "engine/io/hdf5_recorder.h"
#include "engine/io/scene_loader.h"
#include "engine/multibody/configuration_tangent.h"
#include "engine/sim/simulate.h"
#include "engine/solver/contact_parameter_derivatives.h"
#include "tests/support/temp_dir.h"
#include "tests/support/tight_solver.h"

namespace csim::integrator {
namespace {

namespace fs = std::filesystem;
using Kind = SensitivityParameter::Kind;
using solver::ContactParameter;
using solver::ContactRegion;

// The threshold of /sensitivity/near_kink (docs/output-format.md, engine/io/hdf5_recorder.cc).
constexpr double kNearKink = 1e-6;
constexpr double kTolerance = 1e-5;


constexpr double kMass = 1.0, kRadius = 0.05, kStiffness = 1e5, kG = 9.81, kPush = 3.0;

// The sphere (1 kg, 5 cm) at rest at its static penetration on the ground, pushed along x at
// its centre by kPush newtons. Both geometries have the default material (stiffness k =
// 1e5 N/m), which the contact combines in series: k / 2, so the static penetration is
// 2 m g / k.
std::string PushedSphere(double mu) {
  char text[1024];
  std::snprintf(text, sizeof text, R"(
csim: 1
settings: {time_step: 1.0e-3, duration: 5.0e-3, output: {every: 1}}
materials:
  default: {stiffness: %.17g, dissipation_time: 1.0e-3, friction: %.17g}
world:
  geometry: [{shape: halfspace}]
bodies:
  - {name: ball, mass: %.17g, geometry: [{shape: sphere, radius: %.17g}],
     pose: {position: [0, 0, %.17g]}}
loads:
  - {body: ball, force: [%.17g, 0, 0]}
)",
                kStiffness, mu, kMass, kRadius, kRadius - 2.0 * kMass * kG / kStiffness, kPush);
  return text;
}

// The first step of the scene at `mu`: x1, the contact's derivatives at the converged
// solution (its region and kink distance) and, with `sensitivity`, one Advance of it (given
// the solver's v_c with `solver_v_c`, else forming J v itself).
struct FirstStep {
  multibody::State x0, x1;
  solver::ContactParameterDerivatives contact;
  Eigen::VectorXd ift;              // with sensitivities: (dq1/dmu, dv1/dmu) of one Advance
  double min_kink_distance = 1.0;   // with sensitivities: the step's, SensitivityStepInfo
  int chain_region = -1;            // with sensitivities: the region its derivative took
};

FirstStep Step(double mu, bool with_sensitivities = false, bool solver_v_c = false) {
  const io::LoadedScene scene = io::LoadSceneFromText(PushedSphere(mu), "scene.yaml", {});
  const multibody::Model& model = scene.model;
  const sim::Settings& s = scene.settings;
  const ThetaParameters theta{s.integrator.theta, s.integrator.theta_q, s.gyroscopic};
  const contact::ContactParameters cp = sim::ContactParametersFor(s);
  StepWorkspace ws = MakeStepWorkspace(model, TreeSolver::kAuto);
  ContactStepWorkspace cws(model);
  cws.solver.set_parameters(testing::TightSolverParameters());
  FirstStep step;
  step.x0 = multibody::State{0.0, model.InitialQ(), model.InitialV()};
  step.x1 = step.x0;
  const StepStatus status =
      StepWithContact(model, theta, {}, cp, s.time_step, false, step.x1, ws, cws);
  INFO(status.reason);
  REQUIRE(status.ok());
  REQUIRE(cws.problem.num_constraints() == 1);
  REQUIRE(solver::CalcContactParameterDerivativesOf(cws.problem, 0, cws.result.v_c.data(),
                                                    &step.contact));
  if (with_sensitivities) {
    TrajectorySensitivity chain(model, {{Kind::kContact, ContactParameter::kMu, -1}});
    chain.Reset();
    REQUIRE(chain.Advance(model, theta, {}, cp, s.time_step, step.x0, step.x1,
                          solver_v_c ? &cws.result.v_c : nullptr)
                .ok());
    step.ift.resize(2 * model.nv);
    step.ift << chain.dq().col(0), chain.dv().col(0);
    step.min_kink_distance = chain.last_step().min_kink_distance;
    REQUIRE(chain.contact_regions().size() == 1);
    step.chain_region = chain.contact_regions()[0];
  }
  return step;
}

// x1 of `a` (-) x1 of `b`: the configuration's tangent difference and the velocities'.
Eigen::VectorXd Difference(const FirstStep& a, const FirstStep& b) {
  const io::LoadedScene scene = io::LoadSceneFromText(PushedSphere(0.5), "scene.yaml", {});
  const int nv = scene.model.nv;
  Eigen::VectorXd d(2 * nv);
  multibody::ConfigurationDifference(scene.model, a.x1.q, b.x1.q, d.head(nv));
  d.tail(nv) = a.x1.v - b.x1.v;
  return d;
}

// The boundary mu*: [stuck, sliding] bracket of the first step's region, bisected until the
// two ends are adjacent at 1e-14 relative.
struct Bracket {
  double sliding, stuck;
};

Bracket FindBoundary() {
  Bracket b{0.01, 1.0};
  REQUIRE(Step(b.sliding).contact.region == ContactRegion::kSliding);
  REQUIRE(Step(b.stuck).contact.region == ContactRegion::kStiction);
  while (b.stuck - b.sliding > 1e-14 * b.stuck) {
    const double mid = 0.5 * (b.sliding + b.stuck);
    (Step(mid).contact.region == ContactRegion::kStiction ? b.stuck : b.sliding) = mid;
  }
  return b;
}

TEST_CASE("sensitivity kink: one-sided differences at the stick/slip boundary match each "
          "side's derivative", "[integrator][sensitivity]") {
  const Bracket b = FindBoundary();
  // Rolling: |gamma_t| = 2/7 F dt against gamma_n ~ m g dt, so mu* ~ 2/7 F / (m g) (the
  // stuck contact's creep and the step's sinking shift it a little).
  const double rolling = 2.0 / 7.0 * kPush / (kMass * kG);
  CHECK(std::abs(b.stuck / rolling - 1.0) < 0.01);
  // Each side's derivative is taken at delta = 1e-9 from the boundary, inside its piece:
  // at the bracket's ends themselves (1e-14 apart) the region is a matter of round-off, and
  // a chain that forms v_c = J v anew (Advance without the solver's v_c, as here) may
  // classify the contact otherwise than the solver's own v_c did (the last test case). The
  // one-sided differences then step away from the boundary by h = 1e-6, wholly within
  // that side.
  const double delta = 1e-9, h = 1e-6;
  const double mu_stuck = b.stuck * (1 + delta), mu_sliding = b.sliding * (1 - delta);
  const FirstStep stuck = Step(mu_stuck, true), above = Step(mu_stuck * (1 + h));
  const FirstStep sliding = Step(mu_sliding, true), below = Step(mu_sliding * (1 - h));
  const Eigen::VectorXd& ift_stuck = stuck.ift;
  const Eigen::VectorXd& ift_sliding = sliding.ift;
  const double stuck_kink = stuck.contact.kink_distance;
  REQUIRE(stuck.contact.region == ContactRegion::kStiction);
  REQUIRE(above.contact.region == ContactRegion::kStiction);
  REQUIRE(sliding.contact.region == ContactRegion::kSliding);
  REQUIRE(below.contact.region == ContactRegion::kSliding);
  CHECK(stuck.chain_region == static_cast<int>(ContactRegion::kStiction));
  CHECK(sliding.chain_region == static_cast<int>(ContactRegion::kSliding));
  const Eigen::VectorXd fd_above = Difference(above, stuck) / (h * mu_stuck);
  const Eigen::VectorXd fd_below = Difference(sliding, below) / (h * mu_sliding);
  const double scale = fd_below.norm();
  const double e_stuck = (ift_stuck - fd_above).norm() / scale;
  const double e_sliding = (ift_sliding - fd_below).norm() / scale;
  const double jump = (fd_below - fd_above).norm() / scale;
  std::printf("sensitivity kink: mu* = %.15g (2/7 F/(m g) = %.6g), |dx1/dmu| sliding side "
              "%.3e, rel. diff IFT vs one-sided FD: stuck %.1e, sliding %.1e; jump %.3f; kink "
              "distance %.1e (stuck), %.1e (sliding)\n",
              b.stuck, rolling, scale, e_stuck, e_sliding, jump, stuck_kink,
              sliding.contact.kink_distance);
  INFO("ift stuck " << ift_stuck.transpose() << "\nfd above " << fd_above.transpose()
                    << "\nift sliding " << ift_sliding.transpose() << "\nfd below "
                    << fd_below.transpose());
  // Friction holds the spin: dv_x/dmu and domega_y/dmu do not vanish on the sliding side.
  CHECK(scale > 1e-3);
  // Stiction does not read mu: its derivative is 0 exactly, and so is the difference up to
  // the solves' noise.
  CHECK(ift_stuck.norm() == 0.0);
  CHECK(e_stuck < kTolerance);
  CHECK(e_sliding < kTolerance);
  // A kink: the sides' derivatives differ by the whole of the sliding one.
  CHECK(jump > 0.5);
  // Flagged on both ends of the bracket.
  CHECK(stuck_kink < kNearKink);
  CHECK(sliding.contact.kink_distance < kNearKink);
  CHECK(stuck.min_kink_distance < kNearKink);
  CHECK(sliding.min_kink_distance < kNearKink);
  // Away from the boundary (mu 2 mu*) the same step is not near a kink.
  CHECK(Step(2.0 * b.stuck).contact.kink_distance > 1e-2);
}

TEST_CASE("sensitivity kink: at the bracket's stuck end the chain takes the solver's region",
          "[integrator][sensitivity]") {
  // At b.stuck the solver's v_c is in stiction by the bisection's construction, with a kink
  // distance ~1e-16: J v formed anew from the converged v can round to sliding, and the
  // chain would then return sliding's derivative for a step the solver took as stuck. Given
  // the solver's v_c, the chain's pieces, G and dgamma/dmu are the solver's: stiction, whose
  // impulse does not read mu, so dx1/dmu = 0 exactly.
  const Bracket b = FindBoundary();
  const FirstStep own = Step(b.stuck, true, /*solver_v_c=*/true);
  const FirstStep formed = Step(b.stuck, true, /*solver_v_c=*/false);
  std::printf("sensitivity kink, stuck end mu = %.17g: solver region %d (kink distance %.1e); "
              "chain region with the solver's v_c %d, with J v formed anew %d\n",
              b.stuck, static_cast<int>(own.contact.region), own.contact.kink_distance,
              own.chain_region, formed.chain_region);
  REQUIRE(own.contact.region == ContactRegion::kStiction);
  CHECK(own.chain_region == static_cast<int>(ContactRegion::kStiction));
  const int nv = static_cast<int>(own.ift.size()) / 2;
  CHECK(own.ift.tail(nv).norm() == 0.0);  // dv1/dmu: stiction's
  CHECK(own.ift.norm() == 0.0);           // and dq1/dmu
  CHECK(own.min_kink_distance < kNearKink);
}

using csim::testing::TempDir;

// /sensitivity/near_kink and /sensitivity/min_kink_distance of a run of the pushed sphere
// at `mu` with `--sensitivities materials.default.friction`, solved to eps_r = 1e-13.
void RunWithSensitivities(double mu, const std::string& path, std::vector<int64_t>* near_kink,
                          std::vector<double>* min_kink) {
  io::LoadedScene scene = io::LoadSceneFromText(
      PushedSphere(mu), "scene.yaml",
      {"settings.solver.relative_tolerance=1e-13", "settings.solver.absolute_tolerance=1e-300"});
  scene.settings.sensitivities = {"materials.default.friction"};
  {
    io::Hdf5Recorder recorder(path);
    sim::RunInfo info;
    info.model = &scene.model;
    info.settings = &scene.settings;
    info.scene_name = "pushed_sphere";
    const sim::RunResult result = sim::Simulate(scene.model, scene.settings, info, recorder, {});
    INFO(result.reason);
    REQUIRE(result.status == sim::RunStatus::kCompleted);
  }
  const io::Hdf5File file = io::Hdf5File::Open(path, io::Hdf5File::Mode::kReadOnly);
  *near_kink = file.OpenDataset("sensitivity/near_kink").ReadInts();
  *min_kink = file.OpenDataset("sensitivity/min_kink_distance").ReadDoubles();
}

TEST_CASE("sensitivity kink: a run at the stick/slip boundary flags its step near_kink",
          "[integrator][sensitivity]") {
  const Bracket b = FindBoundary();
  TempDir dir;
  std::vector<int64_t> near_kink, far_kink;
  std::vector<double> min_kink, far_min;
  RunWithSensitivities(b.stuck, dir.File("boundary.h5"), &near_kink, &min_kink);
  RunWithSensitivities(2.0 * b.stuck, dir.File("inside.h5"), &far_kink, &far_min);
  REQUIRE(near_kink.size() == 6);  // the initial row and five steps
  REQUIRE(far_kink.size() == 6);
  std::printf("sensitivity kink run: min kink distance of step 1 %.1e at mu*, %.1e at 2 mu*; "
              "near_kink rows %d at mu*, %d at 2 mu*\n",
              min_kink[1], far_min[1],
              static_cast<int>(std::count(near_kink.begin(), near_kink.end(), 1)),
              static_cast<int>(std::count(far_kink.begin(), far_kink.end(), 1)));
  CHECK(near_kink[0] == 0);  // the initial row: no step yet
  CHECK(min_kink[1] < kNearKink);
  CHECK(near_kink[1] == 1);
  for (const int64_t flag : far_kink) CHECK(flag == 0);
}

}  // namespace
}  // namespace csim::integrator

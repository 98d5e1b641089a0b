// The exact free-motion partials of lone free bodies (engine/integrator/free_body_partials.h):
//   (1) against central differences of CalcFreeMotion at retracted states: dv* and
//       dF = d[A(x0) (v - v*(x0))] at a fixed v, for theta = 0 with the gyroscopic torque
//       implicit and explicit and theta_q 0 and 1, on bodies that take every branch
//       (isotropic and centred, isotropic with the com off the origin, non-isotropic
//       centred and off-centre, a damped free joint, a free joint frame shifted off the
//       world origin) spinning at |w| dt up to 0.3;
//   (2) a Taylor test: the remainder of v* falls as e^2;
//   (3) a body whose rotation and velocity directions are zero gets exact zeros, and the
//       bodies' results add up to the whole direction's;
//   (4) AllLoneFreeBodies on models that are not lone free bodies;
// and Apply does not allocate.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "engine/integrator/free_body_partials.h"
#include "engine/integrator/implicit_gyroscopic.h"
#include "engine/integrator/theta_method.h"
#include "engine/io/scene_loader.h"
#include "engine/multibody/configuration_tangent.h"
#include "tests/support/allocation_counter.h"

namespace csim::integrator {
namespace {

using Eigen::VectorXd;

const char* kBodies = R"(
csim: 1
settings: {time_step: 1.0e-2}
bodies:
  - {name: cube, mass: 1.0, geometry: [{shape: box, size: [0.1, 0.1, 0.1]}]}
  - {name: ball, mass: 0.5, com: [0.02, -0.01, 0.03], inertia: [0.002, 0.002, 0.002, 0, 0, 0]}
  - {name: slab, mass: 2.0, geometry: [{shape: box, size: [0.3, 0.1, 0.05]}]}
  - {name: egg, mass: 0.8, geometry: [{shape: ellipsoid, radii: [0.05, 0.08, 0.12]}]}
  - {name: link, mass: 0.7, com: [0.05, 0.01, -0.02],
     inertia: [0.004, 0.0011, 0.0045, 0.0002, 0.0001, -0.0003]}
  - {name: damped, mass: 1.2, com: [0.0, 0.03, 0.01],
     inertia: [0.003, 0.005, 0.0065, -0.0004, 0.0002, 0.0001]}
  - {name: shifted, mass: 0.9, com: [0.01, 0.0, -0.04],
     inertia: [0.002, 0.003, 0.004, 0.0001, 0.0, 0.0002]}
joints:
  - {name: damped_joint, type: free, parent: world, child: damped,
     damping: [0.03, 0.02, 0.01, 1.0, 2.0, 0.5]}
  - {name: shifted_joint, type: free, parent: world, child: shifted,
     pose: {position: [0.2, 0.0, 0.1]}}
)";

constexpr double kDt = 1e-2;

// Random unit quaternions, positions and velocities, with spins up to |w| dt = 0.3.
multibody::State RandomState(const multibody::Model& model, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  multibody::State s{0.0, model.InitialQ(), model.InitialV()};
  for (const multibody::Joint& j : model.joints) {
    if (j.v_start < 0) continue;
    Eigen::Vector4d quat(u(rng), u(rng), u(rng), u(rng));
    s.q.segment<4>(j.q_start) = quat.normalized();
    s.q.segment<3>(j.q_start + 4) = Eigen::Vector3d(u(rng), u(rng), u(rng));
    const Eigen::Vector3d axis = Eigen::Vector3d(u(rng), u(rng), u(rng)).normalized();
    const double spin = (0.1 + 0.2 * (0.5 + 0.5 * u(rng))) / kDt;  // |w| dt in 0.1 ... 0.3
    s.v.segment<3>(j.v_start) = spin * axis;
    s.v.segment<3>(j.v_start + 3) = 2.0 * Eigen::Vector3d(u(rng), u(rng), u(rng));
  }
  return s;
}

// A as a dense matrix, from its blocks.
Eigen::MatrixXd DenseA(const StepWorkspace& ws, int nv) {
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(nv, nv);
  for (int k = 0; k < ws.A.num_blocks(); ++k) {
    const multibody::VelocityBlock& b = ws.A.range(k);
    A.block(b.start, b.start, b.size, b.size) = ws.A.block(k);
  }
  return A;
}

// The free motion at x0 (+) e D: v* and A(x).
struct Evaluation {
  VectorXd v_star;
  Eigen::MatrixXd A;
};

Evaluation FreeMotionAt(const multibody::Model& model, const ThetaParameters& p,
                        const multibody::State& s0, const VectorXd& dq, const VectorXd& dv0,
                        double e, StepWorkspace& ws) {
  multibody::State s = s0;
  multibody::RetractConfiguration(model, s0.q, e * dq, &s.q);
  s.v = s0.v + e * dv0;
  REQUIRE(CalcFreeMotion(model, p, {}, kDt, s, ws).ok());
  return {ws.v_star, DenseA(ws, model.nv)};
}

const ThetaParameters kSchemes[] = {
    {0.0, 1.0, Gyroscopic::kImplicit},
    {0.0, 0.0, Gyroscopic::kImplicit},
    {0.0, 1.0, Gyroscopic::kExplicit},
    {0.0, 0.0, Gyroscopic::kExplicit},
};

TEST_CASE("free body partials: dv* and dF match central differences of CalcFreeMotion",
          "[integrator][sensitivity]") {
  const io::LoadedScene scene = io::LoadSceneFromText(kBodies, "scene.yaml", {});
  const multibody::Model& model = scene.model;
  REQUIRE(AllLoneFreeBodies(model));
  const int nv = model.nv;
  StepWorkspace ws = MakeStepWorkspace(model, TreeSolver::kAuto);
  // Every branch of the implicit correction is taken: the ball (isotropic, com off the
  // origin: the com treatment alone), slab and egg (the midpoint alone), link and damped
  // (both); the cube (isotropic, centred) and the shifted joint frame keep the explicit step.
  std::vector<std::string> corrected;
  for (const GyroscopicBody& g : ws.implicit_gyroscopic_bodies)
    corrected.push_back(model.bodies[g.body].name + (g.isotropic ? " (isotropic)" : ""));
  CHECK(corrected == std::vector<std::string>{"ball (isotropic)", "slab", "egg", "link", "damped"});
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  double worst_v_star = 0.0, worst_F = 0.0, worst_A = 0.0;
  for (const ThetaParameters& p : kSchemes) {
    for (int trial = 0; trial < 3; ++trial) {
      const multibody::State s0 = RandomState(model, rng);
      const Evaluation nominal = FreeMotionAt(model, p, s0, VectorXd::Zero(nv),
                                              VectorXd::Zero(nv), 0.0, ws);
      FreeBodyFreeMotionPartials partials;
      PrepareFreeBodyPartials(model, p, kDt, s0, ws, &partials);
      // A's blocks are the code's.
      for (const auto& body : partials.bodies) {
        const Eigen::Matrix<double, 6, 6> A_code =
            nominal.A.block<6, 6>(body.v_start, body.v_start);
        worst_A = std::max(worst_A, (body.A - A_code).norm() / A_code.norm());
      }
      VectorXd v = nominal.v_star;
      for (int i = 0; i < nv; ++i) v[i] += 0.5 * u(rng);
      // Directions: each tangent coordinate alone, and two random ones.
      std::vector<std::pair<VectorXd, VectorXd>> directions;
      for (int i = 0; i < 2 * nv; ++i) {
        VectorXd dq = VectorXd::Zero(nv), dv0 = VectorXd::Zero(nv);
        (i < nv ? dq[i] : dv0[i - nv]) = 1.0;
        directions.emplace_back(dq, dv0);
      }
      for (int k = 0; k < 2; ++k) {
        VectorXd dq(nv), dv0(nv);
        for (int i = 0; i < nv; ++i) dq[i] = u(rng), dv0[i] = 10.0 * u(rng);
        directions.emplace_back(dq, dv0);
      }
      for (const auto& [dq, dv0] : directions) {
        const double e = 1e-6;
        const Evaluation plus = FreeMotionAt(model, p, s0, dq, dv0, e, ws);
        const Evaluation minus = FreeMotionAt(model, p, s0, dq, dv0, -e, ws);
        const VectorXd dv_star_fd = (plus.v_star - minus.v_star) / (2 * e);
        const VectorXd dF_fd =
            (plus.A * (v - plus.v_star) - minus.A * (v - minus.v_star)) / (2 * e);
        VectorXd dF(nv), dv_star(nv);
        ApplyFreeBodyPartials(partials, v, dq, dv0, dF, dv_star);
        // Per body, relative to the body's own derivative; a direction that moves it
        // little (a centred cube's rotation: zero but for rounding) is measured against a
        // hundredth of its momentum's scale instead, the differences' rounding being
        // eps |v*| / e.
        for (const auto& body : partials.bodies) {
          const int o = body.v_start;
          const double floor_v = 1e-2 * body.v_star.norm();
          const double floor_F = floor_v * body.A.norm();
          const double error_v = (dv_star - dv_star_fd).segment<6>(o).norm();
          const double error_F = (dF - dF_fd).segment<6>(o).norm();
          worst_v_star = std::max(
              worst_v_star, error_v / std::max(dv_star_fd.segment<6>(o).norm(), floor_v));
          worst_F = std::max(worst_F, error_F / std::max(dF_fd.segment<6>(o).norm(), floor_F));
        }
      }
    }
  }
  INFO("worst relative: dv* " << worst_v_star << ", dF " << worst_F << ", A " << worst_A);
  CHECK(worst_A < 1e-14);
  CHECK(worst_v_star < 1e-7);
  CHECK(worst_F < 1e-7);
}

TEST_CASE("free body partials: the remainder of v* falls as e^2", "[integrator][sensitivity]") {
  const io::LoadedScene scene = io::LoadSceneFromText(kBodies, "scene.yaml", {});
  const multibody::Model& model = scene.model;
  const int nv = model.nv;
  StepWorkspace ws = MakeStepWorkspace(model, TreeSolver::kAuto);
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (const ThetaParameters& p : kSchemes) {
    const multibody::State s0 = RandomState(model, rng);
    const Evaluation nominal =
        FreeMotionAt(model, p, s0, VectorXd::Zero(nv), VectorXd::Zero(nv), 0.0, ws);
    FreeBodyFreeMotionPartials partials;
    PrepareFreeBodyPartials(model, p, kDt, s0, ws, &partials);
    VectorXd dq(nv), dv0(nv);
    for (int i = 0; i < nv; ++i) dq[i] = u(rng), dv0[i] = 10.0 * u(rng);
    VectorXd dF(nv), dv_star(nv);
    ApplyFreeBodyPartials(partials, nominal.v_star, dq, dv0, dF, dv_star);
    std::vector<double> remainders;
    for (double e : {1e-2, 1e-3, 1e-4}) {
      const Evaluation x = FreeMotionAt(model, p, s0, dq, dv0, e, ws);
      remainders.push_back((x.v_star - nominal.v_star - e * dv_star).norm());
    }
    for (int k = 0; k + 1 < static_cast<int>(remainders.size()); ++k) {
      const double slope = std::log10(remainders[k] / remainders[k + 1]);
      INFO("slope " << slope << ", theta_q " << p.theta_q << ", gyroscopic "
                      << (p.gyroscopic == Gyroscopic::kImplicit ? "implicit" : "explicit")
                      << ", remainders " << remainders[k] << " -> " << remainders[k + 1]);
      CHECK(std::abs(slope - 2.0) < 0.1);
    }
  }
}

TEST_CASE("free body partials: a body the direction does not rotate or move gets exact zeros",
          "[integrator][sensitivity]") {
  const io::LoadedScene scene = io::LoadSceneFromText(kBodies, "scene.yaml", {});
  const multibody::Model& model = scene.model;
  const int nv = model.nv;
  StepWorkspace ws = MakeStepWorkspace(model, TreeSolver::kAuto);
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (const ThetaParameters& p : kSchemes) {
    const multibody::State s0 = RandomState(model, rng);
    REQUIRE(CalcFreeMotion(model, p, {}, kDt, s0, ws).ok());
    FreeBodyFreeMotionPartials partials;
    PrepareFreeBodyPartials(model, p, kDt, s0, ws, &partials);
    VectorXd v = ws.v_star;
    for (int i = 0; i < nv; ++i) v[i] += 0.5 * u(rng);
    VectorXd dq_all(nv), dv0_all(nv);
    for (int i = 0; i < nv; ++i) dq_all[i] = u(rng), dv0_all[i] = 10.0 * u(rng);
    VectorXd dF_all(nv), dv_star_all(nv);
    ApplyFreeBodyPartials(partials, v, dq_all, dv0_all, dF_all, dv_star_all);
    // Each body's direction alone: the others' results are exactly zero (the outputs start
    // as NaN, so each entry is written), and the moved body's are those of the whole
    // direction (the bodies do not couple).
    VectorXd dF_sum = VectorXd::Zero(nv), dv_star_sum = VectorXd::Zero(nv);
    for (const auto& moved : partials.bodies) {
      const int o = moved.v_start;
      VectorXd dq = VectorXd::Zero(nv), dv0 = VectorXd::Zero(nv);
      dq.segment<6>(o) = dq_all.segment<6>(o);
      dv0.segment<6>(o) = dv0_all.segment<6>(o);
      // Another body displaced, not rotated: nothing depends on its origin's position.
      const int other = (o + 6) % nv;
      dq.segment<3>(other + 3) = Eigen::Vector3d(1.0, -2.0, 0.5);
      VectorXd dF = VectorXd::Constant(nv, std::nan("")), dv_star = dF;
      ApplyFreeBodyPartials(partials, v, dq, dv0, dF, dv_star);
      for (const auto& body : partials.bodies) {
        if (body.v_start == o) continue;
        INFO("moved body at " << o << ", body at " << body.v_start);
        CHECK(dF.segment<6>(body.v_start).isZero(0.0));
        CHECK(dv_star.segment<6>(body.v_start).isZero(0.0));
      }
      dF_sum += dF;
      dv_star_sum += dv_star;
    }
    CHECK((dF_sum - dF_all).norm() <= 1e-13 * dF_all.norm());
    CHECK((dv_star_sum - dv_star_all).norm() <= 1e-13 * dv_star_all.norm());
  }
}

TEST_CASE("free body partials: Apply does not allocate", "[integrator][sensitivity]") {
  const io::LoadedScene scene = io::LoadSceneFromText(kBodies, "scene.yaml", {});
  const multibody::Model& model = scene.model;
  const int nv = model.nv;
  StepWorkspace ws = MakeStepWorkspace(model, TreeSolver::kAuto);
  std::mt19937 rng(3);
  const ThetaParameters p = kSchemes[0];
  const multibody::State s0 = RandomState(model, rng);
  REQUIRE(CalcFreeMotion(model, p, {}, kDt, s0, ws).ok());
  FreeBodyFreeMotionPartials partials;
  PrepareFreeBodyPartials(model, p, kDt, s0, ws, &partials);
  Eigen::MatrixXd D = Eigen::MatrixXd::Random(nv, 4), dF(nv, 2), dv_star(nv, 2);
  const std::size_t before = testing::AllocationCount();
  PrepareFreeBodyPartials(model, p, kDt, s0, ws, &partials);
  for (int k = 0; k < 2; ++k)
    ApplyFreeBodyPartials(partials, ws.v_star, D.col(2 * k), D.col(2 * k + 1), dF.col(k),
                          dv_star.col(k));
  CHECK(testing::AllocationCount() == before);
}

TEST_CASE("free body partials: AllLoneFreeBodies rejects trees and rotated joint frames",
          "[integrator][sensitivity]") {
  const auto lone = [](const char* yaml) {
    return AllLoneFreeBodies(io::LoadSceneFromText(yaml, "scene.yaml", {}).model);
  };
  CHECK(lone(kBodies));
  CHECK_FALSE(lone(R"(
csim: 1
bodies:
  - {name: l0, mass: 0.5, geometry: [{shape: capsule, radius: 0.02, length: 0.2}]}
joints:
  - {name: j0, type: revolute, parent: world, child: l0, axis: [0, 1, 0]}
)"));
  CHECK_FALSE(lone(R"(
csim: 1
bodies:
  - {name: b, mass: 0.5, geometry: [{shape: box, size: [0.1, 0.2, 0.3]}]}
joints:
  - {name: j, type: free, parent: world, child: b, pose: {rpy: [0.1, 0.0, 0.0]}}
)"));
  // A body welded to a free one: the free body is not lone.
  CHECK_FALSE(lone(R"(
csim: 1
bodies:
  - {name: a, mass: 0.5, geometry: [{shape: box, size: [0.1, 0.2, 0.3]}]}
  - {name: b, mass: 0.5, geometry: [{shape: sphere, radius: 0.1}]}
joints:
  - {name: weld, type: fixed, parent: a, child: b, pose: {position: [0, 0, 0.3]}}
)"));
  // An external load: an explicit force the partials leave out.
  CHECK_FALSE(lone(R"(
csim: 1
bodies:
  - {name: b, mass: 0.5, geometry: [{shape: sphere, radius: 0.1}]}
loads:
  - {body: b, force: [0, 0, 1]}
)"));
}

}  // namespace
}  // namespace csim::integrator


// bench/mjcf_writer.h: MuJoCo must simulate the scene csim does, or the benchmark's ratios
// compare different problems. The check is physical: a contact-free tree with every joint
// type the writer maps (hinges and a slide on tilted axes, a ball joint, a weld), joint
// frames turned and offset, off-centre centres of mass, full inertias and nonzero initial
// coordinates starts at the same world poses in both, and both simulators' semi-implicit
// Euler steps carry it along the same trajectory. Any wrong frame, axis, inertia or initial
// angle shows as a difference of order one; two correct mappings differ by round-off and by
// the two codes' different but consistent quaternion updates.

#include <catch2/catch.hpp>

#include <mujoco/mujoco.h>

#include <cmath>
#include <string>
#include <vector>

#include "bench/mjcf_writer.h"
#include "bench/mujoco_runner.h"
#include "engine/integrator/contact_step.h"
#include "engine/io/scene_loader.h"
#include "engine/multibody/kinematics.h"
#include "engine/multibody/position_update.h"
#include "engine/sim/simulate.h"

namespace csim::bench {
namespace {

const char* kTree = R"(csim: 1
name: mjcf_tree
settings: {time_step: 0.001, duration: 0.5, integrator: symplectic_euler}
bodies:
  - {name: a, mass: 1.2, com: [0.05, -0.02, 0.1], inertia: [0.020, 0.015, 0.010, 0.002, -0.001, 0.0015],
     geometry: [{shape: box, size: [0.1, 0.1, 0.2], collide: false}]}
  - {name: b, mass: 0.7, com: [0.0, 0.03, -0.08], inertia: [0.008, 0.006, 0.003, -0.0005, 0.0002, 0.0004]}
  - {name: c, mass: 0.4, com: [0.02, 0.0, 0.0], inertia: [0.002, 0.003, 0.0025, 0.0, 0.0003, 0.0]}
  - {name: d, mass: 0.3, com: [0.0, 0.0, 0.05], inertia: [0.001, 0.0012, 0.0008, 0.0001, 0.0, 0.0]}
  - {name: e, mass: 0.5, com: [-0.03, 0.01, -0.06], inertia: [0.004, 0.005, 0.002, 0.0003, 0.0, -0.0002]}
joints:
  - {name: ja, type: revolute, parent: world, child: a, axis: [0.6, 0.0, 0.8],
     pose: {position: [0.1, 0.2, 1.0], rpy: [0.0, 0.3, 0.0]}, initial: {q: [0.4]}}
  - {name: jb, type: ball, parent: a, child: b, pose: {position: [0.0, 0.1, -0.2]},
     initial: {q: [0.9238795325112867, 0.2, -0.3, 0.1]}}
  - {name: jc, type: prismatic, parent: b, child: c, axis: [0, 0.6, -0.8],
     pose: {position: [0.05, 0.0, -0.15], rpy: [-0.5, 0.2, 0.0]}, initial: {q: [0.03]}}
  - {name: jd, type: fixed, parent: c, child: d, pose: {position: [0.0, 0.04, 0.0], rpy: [0.0, 0.0, 1.0]}}
  - {name: je, type: revolute, parent: b, child: e, axis: [1, 0, 0],
     pose: {position: [-0.05, 0.0, -0.1]}, initial: {q: [-0.7]}}
)";

// The largest distance between a body's origin in csim (kin) and in MuJoCo, and the
// largest entry of the difference of their rotation matrices.
void PoseDifferences(const multibody::Model& model, const multibody::Workspace& kin,
                     const mjModel* m, const mjData* d, double* position, double* rotation) {
  *position = *rotation = 0.0;
  for (int b = 0; b < model.num_bodies(); ++b) {
    const int id = mj_name2id(m, mjOBJ_BODY, model.bodies[b].name.c_str());
    REQUIRE(id > 0);
    const Eigen::Map<const Eigen::Vector3d> p(d->xpos + 3 * id);
    const Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> R(d->xmat + 9 * id);
    *position = std::max(*position, (kin.X_WB[b].p - p).norm());
    *rotation = std::max(*rotation, (kin.X_WB[b].R - R).cwiseAbs().maxCoeff());
  }
}

struct Comparison {
  double start_position = 0.0, start_rotation = 0.0;  // at t = 0
  double end_position = 0.0, end_rotation = 0.0;      // after 0.5 s
  double travelled = 0.0;  // how far body e moved in csim: the motion is not small
};

// kTree with rotors on its hinges and slide: MuJoCo's armature, like csim's, adds to the
// diagonal of the mass matrix, so the two must still take the same steps.
std::string GearedTree() {
  std::string text = kTree;
  for (const char* joint : {"{name: ja,", "{name: jc,", "{name: je,"})
    text.insert(text.find(joint) + 1, "armature: 0.004, ");
  return text;
}

// Both simulators from the scene `tree`'s initial state for 0.5 s of swinging under gravity
// at time step dt, with semi-implicit Euler.
Comparison Compare(double dt, std::string text = kTree) {
  text.replace(text.find("time_step: 0.001"), 16, "time_step: " + std::to_string(dt));
  const io::LoadedScene scene = io::LoadSceneFromText(text, "tree.yaml", {});
  const multibody::Model& model = scene.model;
  MujocoRunner mujoco(WriteMjcf(model, scene.settings, MjcfOptions{}));
  const mjModel* m = mujoco.model();
  REQUIRE(m->nv == model.nv);  // hinge, ball (3), slide, hinge; the weld has none
  REQUIRE(m->opt.timestep == dt);
  mujoco.Forward();
  multibody::State s{0.0, model.InitialQ(), model.InitialV()};
  multibody::NormalizeQuaternions(model, &s.q);
  multibody::Workspace kin = multibody::MakeWorkspace(model);
  multibody::CalcKinematics(model, 0.0, s.q, s.v, kin);
  Comparison c;
  PoseDifferences(model, kin, m, mujoco.data(), &c.start_position, &c.start_rotation);
  const Eigen::Vector3d e0 = kin.X_WB[4].p;

  const integrator::ThetaParameters theta{scene.settings.integrator.theta,
                                          scene.settings.integrator.theta_q,
                                          scene.settings.gyroscopic};
  const contact::ContactParameters contact = sim::ContactParametersFor(scene.settings);
  integrator::StepWorkspace ws =
      integrator::MakeStepWorkspace(model, integrator::TreeSolver::kAuto);
  integrator::ContactStepWorkspace cws(model);
  const int steps = static_cast<int>(std::lround(0.5 / dt));
  for (int step = 0; step < steps; ++step) {
    REQUIRE(integrator::StepWithContact(model, theta, {}, contact, dt, false, s, ws, cws).ok());
    s.t = (step + 1) * dt;
    StepSample sample;
    REQUIRE(mujoco.Step(&sample));
  }
  multibody::CalcKinematics(model, s.t, s.q, s.v, kin);
  mujoco.Forward();
  PoseDifferences(model, kin, m, mujoco.data(), &c.end_position, &c.end_rotation);
  c.travelled = (kin.X_WB[4].p - e0).norm();
  return c;
}

TEST_CASE("MJCF writer: a tree starts at csim's poses and follows csim's trajectory") {
  const Comparison coarse = Compare(1e-3), fine = Compare(5e-4);
  INFO("body e moved " << coarse.travelled << " m; largest differences after 0.5 s at dt 1e-3 "
                       << "/ 5e-4: position " << coarse.end_position << " / " << fine.end_position
                       << " m, rotation entry " << coarse.end_rotation << " / "
                       << fine.end_rotation);
  // The same poses at t = 0: frames, axes and initial coordinates carried over.
  CHECK(coarse.start_position < 1e-12);
  CHECK(coarse.start_rotation < 1e-12);
  // The same trajectory: a small difference, and one that shrinks with the step like the
  // two schemes' discretization errors (first order: halves), where a wrong mass, inertia
  // or axis would leave a difference of the size of the motion at every step.
  CHECK(coarse.travelled > 0.1);
  CHECK(coarse.end_position < 1e-4 * coarse.travelled);
  CHECK(fine.end_position < 0.6 * coarse.end_position);
  CHECK(fine.end_rotation < 0.6 * coarse.end_rotation);
}

TEST_CASE("MJCF writer: joint armature is MuJoCo's, and the tree still follows csim's "
          "trajectory") {
  const Comparison coarse = Compare(1e-3, GearedTree()), fine = Compare(5e-4, GearedTree());
  const Comparison plain = Compare(1e-3);
  INFO("largest differences after 0.5 s at dt 1e-3 / 5e-4: position " << coarse.end_position
       << " / " << fine.end_position << " m; body e moved " << coarse.travelled << " m, "
       << plain.travelled << " m without armature");
  CHECK(coarse.start_position < 1e-12);
  // The rotors change the motion (by far more than the two codes differ) ...
  CHECK(std::abs(coarse.travelled - plain.travelled) > 100 * coarse.end_position);
  // ... and both simulators change it alike.
  CHECK(coarse.end_position < 1e-4 * coarse.travelled);
  CHECK(fine.end_position < 0.6 * coarse.end_position);
}

// Joint coordinates of a scene of revolute and prismatic joints run in csim and in MuJoCo
// side by side for `horizon` seconds at step dt, with MuJoCo's ctrl set every step as the
// benchmark does (ControlsAt). Returns the largest difference of any coordinate over the
// run (MuJoCo measures from the initial value) and, in *moved, the largest excursion of a
// coordinate from its start in csim.
double CoordinateDifference(const std::string& path, std::vector<std::string> overrides, double dt,
                            double horizon, double* moved) {
  overrides.push_back("settings.time_step=" + std::to_string(dt));
  overrides.push_back("settings.integrator=symplectic_euler");
  const io::LoadedScene scene = io::LoadScene(path, overrides);
  const multibody::Model& model = scene.model;
  MujocoRunner mujoco(WriteMjcf(model, scene.settings, MjcfOptions{}));
  const mjModel* m = mujoco.model();
  REQUIRE(m->nv == model.nv);
  REQUIRE(m->nu == static_cast<int>(model.actuators.size()));
  const integrator::ThetaParameters theta{scene.settings.integrator.theta,
                                          scene.settings.integrator.theta_q,
                                          scene.settings.gyroscopic};
  const contact::ContactParameters contact = sim::ContactParametersFor(scene.settings);
  integrator::StepWorkspace ws = integrator::MakeStepWorkspace(model, integrator::TreeSolver::kAuto);
  integrator::ContactStepWorkspace cws(model);
  multibody::State s{0.0, model.InitialQ(), model.InitialV()};
  const Eigen::VectorXd q0 = s.q;
  double difference = 0.0;
  *moved = 0.0;
  const int steps = static_cast<int>(std::lround(horizon / dt));
  for (int step = 0; step < steps; ++step) {
    REQUIRE(integrator::StepWithContact(model, theta, {}, contact, dt, false, s, ws, cws).ok());
    s.t = (step + 1) * dt;
    StepSample sample;
    REQUIRE(mujoco.Step(&sample, [&](double t0, double* ctrl) { ControlsAt(model, t0, dt, ctrl); }));
    for (int i = 0; i < model.nq; ++i) {
      difference = std::max(difference, std::abs(s.q[i] - q0[i] - mujoco.data()->qpos[i]));
      *moved = std::max(*moved, std::abs(s.q[i] - q0[i]));
    }
  }
  return difference;
}

TEST_CASE("MJCF writer: pd_arm's servos in MuJoCo follow csim's trajectory") {
  // scenes/pd_arm.yaml with its gains a tenth (kd from its damping ratio): slow servos that
  // both simulators resolve, MuJoCo's explicit PD and csim's implicit one then differ at
  // first order in dt. 0.5 s of the slow lift, with the gravity feed-forward and the
  // trajectory's targets through ctrl: a wrong gain, sign, offset or feed-forward shows as
  // a difference of the size of the motion.
  const std::string path = std::string(CSIM_SOURCE_DIR) + "/scenes/pd_arm.yaml";
  const std::vector<std::string> soft = {"actuators.shoulder_motor.kp=40",
                                         "actuators.elbow_motor.kp=20",
                                         "actuators.wrist_motor.kp=5"};
  double moved = 0.0, moved_fine = 0.0;
  const double coarse = CoordinateDifference(path, soft, 1e-3, 0.5, &moved);
  const double fine = CoordinateDifference(path, soft, 5e-4, 0.5, &moved_fine);
  INFO("largest joint excursion " << moved << " rad; largest difference csim - MuJoCo at dt 1e-3 / 5e-4: "
                                  << coarse << " / " << fine << " rad");
  CHECK(moved > 0.05);
  CHECK(coarse < 1e-2 * moved);
  CHECK(fine < 0.6 * coarse);
}

TEST_CASE("MJCF writer: four_bar's ball constraint holds the loop in MuJoCo as in csim") {
  // scenes/four_bar.yaml: one ball constraint closes a parallelogram. MuJoCo's connect is
  // soft (its default solref), csim's near-rigid, so the two agree to the constraint's
  // give, not to round-off; a wrong anchor or body would open the loop or jam it.
  const std::string path = std::string(CSIM_SOURCE_DIR) + "/scenes/four_bar.yaml";
  double moved = 0.0;
  const double difference = CoordinateDifference(path, {}, 1e-3, 1.0, &moved);
  INFO("largest joint excursion " << moved << " rad; largest difference " << difference << " rad");
  CHECK(moved > 0.5);
  CHECK(difference < 5e-3 * moved);
}

TEST_CASE("MJCF writer: what MuJoCo cannot be given is refused, not approximated") {
  const std::string base = R"(csim: 1
name: refused
settings: {time_step: 0.001}
bodies:
  - {name: a, mass: 1.0, inertia: [0.01, 0.01, 0.01, 0, 0, 0]}
joints:
)";
  for (const char* joint :
       {"  - {name: j, type: revolute, parent: world, child: a, limits: {lower: [-1], upper: [1]}}\n",
        "  - {name: j, type: revolute, parent: world, child: a, spring: {stiffness: [2.0], rest: [0.0]}}\n",
        "  - {name: j, type: planar, parent: world, child: a}\n",
        "  - {name: j, type: revolute, parent: world, child: a, initial: {q: [0.0], v: [1.0]}}\n"}) {
    const io::LoadedScene scene = io::LoadSceneFromText(base + joint, "refused.yaml", {});
    INFO(joint);
    CHECK_THROWS_AS(WriteMjcf(scene.model, scene.settings, MjcfOptions{}), std::invalid_argument);
  }
}

}  // namespace
}  // namespace csim::bench

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

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
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
                            double horizon, double* moved, double* final_difference = nullptr) {
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
  if (final_difference != nullptr) {
    *final_difference = 0.0;
    for (int i = 0; i < model.nq; ++i)
      *final_difference =
          std::max(*final_difference, std::abs(s.q[i] - q0[i] - mujoco.data()->qpos[i]));
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
  - {name: a, mass: 1.0, inertia: [0.01, 0.01, 0.01, 0, 0, 0], geometry: [{shape: sphere, radius: 0.1}]}
  - {name: b, mass: 1.0, inertia: [0.01, 0.01, 0.01, 0, 0, 0], geometry: [{shape: sphere, radius: 0.1}]}
  - {name: c, mass: 1.0, inertia: [0.01, 0.01, 0.01, 0, 0, 0], geometry: [{shape: sphere, radius: 0.1}]}
joints:
  - {name: jb, type: revolute, parent: a, child: b, pose: {position: [0, 0, -0.5]}}
)";
  for (const char* joint :
       {"  - {name: j, type: planar, parent: world, child: a}\n",
        "  - {name: j, type: revolute, parent: world, child: a, initial: {q: [0.0], v: [1.0]}}\n",
        // c may touch a in csim (a joint with collide: true) but MuJoCo filters parent and child.
        "  - {name: j, type: revolute, parent: world, child: a}\n"
        "  - {name: jc, type: revolute, parent: a, child: c, collide: true, pose: {position: [0.5, 0, 0]}}\n",
        // c hangs from b through a fixed joint: MuJoCo's weld of b and c is a's child, so it
        // filters a against c, which csim lets collide (they are not directly jointed).
        "  - {name: j, type: revolute, parent: world, child: a}\n"
        "  - {name: jc, type: fixed, parent: b, child: c, pose: {position: [0.5, 0, 0]}}\n"}) {
    std::string text = base + joint;
    if (text.find("name: jc") == std::string::npos)  // c free, away from the others
      text += "  - {name: jc, type: free, parent: world, child: c, initial: {q: [1, 0, 0, 0, 3, 0, 0]}}\n";
    const io::LoadedScene scene = io::LoadSceneFromText(text, "refused.yaml", {});
    INFO(text);
    CHECK_THROWS_AS(WriteMjcf(scene.model, scene.settings, MjcfOptions{}), std::invalid_argument);
  }
}

// A scene text written to a file of its own (meshes and overrides read files).
std::string WriteTempScene(const std::string& name, const std::string& text) {
  const std::string path = (std::filesystem::temp_directory_path() / name).string();
  std::ofstream(path) << text;
  return path;
}

// Every collision mesh of `model` at the initial state in csim (X_WB X_BG v) and in MuJoCo
// (geom_xpos + geom_xmat v over the compiled mesh's vertices, which MuJoCo has moved into
// the mesh's inertial frame): the largest distance from a vertex of either to the nearest
// vertex of the other, over all meshes; *meshes counts them.
double MeshPlacementError(const multibody::Model& model, MujocoRunner& mujoco, int* meshes) {
  const mjModel* m = mujoco.model();
  mujoco.Forward();
  const mjData* d = mujoco.data();
  multibody::Workspace kin = multibody::MakeWorkspace(model);
  multibody::CalcKinematics(model, 0.0, model.InitialQ(), model.InitialV(), kin);
  // The collision geometries in the writer's order: the world's, then each body's.
  std::vector<std::pair<const geometry::Geometry*, math::RigidTransform>> geoms;
  for (const geometry::Geometry& g : model.world_geometry)
    if (g.collide) geoms.push_back({&g, math::RigidTransform{}});
  for (int b = 0; b < model.num_bodies(); ++b)
    for (const geometry::Geometry& g : model.bodies[b].geometry)
      if (g.collide) geoms.push_back({&g, kin.X_WB[b]});
  REQUIRE(static_cast<int>(geoms.size()) == m->ngeom);
  double error = 0.0;
  *meshes = 0;
  for (int i = 0; i < m->ngeom; ++i) {
    const geometry::Geometry& g = *geoms[i].first;
    REQUIRE((m->geom_type[i] == mjGEOM_MESH) == (g.type == geometry::ShapeType::kMesh));
    if (g.type != geometry::ShapeType::kMesh) continue;
    ++*meshes;
    const math::RigidTransform X_WG = geoms[i].second * g.X_BG;
    std::vector<Eigen::Vector3d> csim_vertices, mujoco_vertices;
    for (const Eigen::Vector3d& v : g.mesh.vertices) csim_vertices.push_back(X_WG * v);
    const Eigen::Map<const Eigen::Vector3d> p(d->geom_xpos + 3 * i);
    const Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> R(d->geom_xmat + 9 * i);
    const int mesh = m->geom_dataid[i];
    for (int k = 0; k < m->mesh_vertnum[mesh]; ++k) {
      const float* v = m->mesh_vert + 3 * (m->mesh_vertadr[mesh] + k);
      mujoco_vertices.push_back(p + R * Eigen::Vector3d(v[0], v[1], v[2]));
    }
    auto farthest = [](const std::vector<Eigen::Vector3d>& from, const std::vector<Eigen::Vector3d>& to) {
      double worst = 0.0;
      for (const Eigen::Vector3d& a : from) {
        double nearest = INFINITY;
        for (const Eigen::Vector3d& b : to) nearest = std::min(nearest, (a - b).norm());
        worst = std::max(worst, nearest);
      }
      return worst;
    };
    error = std::max({error, farthest(csim_vertices, mujoco_vertices),
                      farthest(mujoco_vertices, csim_vertices)});
  }
  return error;
}

TEST_CASE("MJCF writer: file and inline meshes end where csim has them") {
  // An off-centre, skewed hexahedron (its centroid and principal axes far from its frame,
  // so MuJoCo moves its vertices a lot) from an OBJ file, scaled, on a turned hinge, and
  // an inline tetrahedron on the body and one in the world, each with a turned pose. A
  // geom pose that ignored MuJoCo's recentring would be off by centimetres.
  const std::string obj = WriteTempScene("csim_mjcf_hexahedron.obj",
                                         "v 0.01 0.02 0.00\nv 0.09 0.03 0.01\nv 0.10 0.08 0.00\n"
                                         "v 0.02 0.07 0.02\nv 0.03 0.00 0.06\nv 0.10 0.02 0.07\n"
                                         "v 0.12 0.09 0.05\nv 0.04 0.06 0.08\n"
                                         "f 1 2 3 4\nf 5 8 7 6\nf 1 5 6 2\nf 2 6 7 3\nf 3 7 8 4\nf 4 8 5 1\n");
  const std::string tetrahedron =
      "vertices: [[0.0, 0.0, 0.0], [0.1, 0.01, 0.0], [0.02, 0.06, 0.01], [0.03, 0.02, 0.09]], "
      "triangles: [[0, 1, 2], [0, 1, 3], [1, 2, 3], [0, 2, 3]]";
  const std::string path = WriteTempScene("csim_mjcf_meshes.yaml", R"(csim: 1
name: mjcf_meshes
settings: {time_step: 0.001}
world:
  geometry:
    - {shape: mesh, )" + tetrahedron + R"(, pose: {position: [0.5, 0.2, 0.1], rpy: [0.4, 0.1, -0.6]}}
bodies:
  - name: rock
    mass: 0.5
    inertia: [0.002, 0.003, 0.0025, 0.0001, 0.0, -0.0002]
    geometry:
      - {shape: mesh, file: csim_mjcf_hexahedron.obj, scale: [1.5, 1.0, 0.8],
         pose: {position: [0.03, -0.02, 0.05], rpy: [0.3, -0.2, 0.7]}}
      - {shape: mesh, )" + tetrahedron + R"(, pose: {position: [-0.05, 0.04, 0.0], rpy: [-1.0, 0.5, 0.2]}}
joints:
  - {name: hinge, type: revolute, parent: world, child: rock, axis: [0.6, 0, 0.8],
     pose: {position: [0, 0, 1], rpy: [0.2, 0.3, 0]}, initial: {q: [0.4]}}
)");
  const io::LoadedScene scene = io::LoadScene(path, {});
  const std::string mjcf = WriteMjcf(scene.model, scene.settings, MjcfOptions{});
  INFO(mjcf);
  MujocoRunner mujoco(mjcf);
  REQUIRE(mujoco.model()->nmesh == 3);
  int meshes = 0;
  const double error = MeshPlacementError(scene.model, mujoco, &meshes);
  INFO("largest vertex distance csim - MuJoCo " << error << " m");
  CHECK(meshes == 3);
  CHECK(error < 1e-6);  // MuJoCo keeps its vertices as floats
  // MuJoCo did move them: its geom frames are not csim's.
  const Eigen::Map<const Eigen::Vector3d> p(mujoco.model()->geom_pos + 3 * 1);
  CHECK((p - scene.model.bodies[0].geometry[0].X_BG.p).norm() > 0.01);
}

TEST_CASE("MJCF writer: a mesh dropped on the ground rests at csim's height in MuJoCo") {
  // The hexahedron's hull (a free body) falls 5 cm onto the ground plane and settles on a
  // face: its resting height shows that MuJoCo collides the hull where csim does (MuJoCo's
  // soft contact sinks by about a millimetre at its default solref and solimp).
  WriteTempScene("csim_mjcf_hexahedron2.obj",
                 "v 0.01 0.02 0.00\nv 0.09 0.03 0.01\nv 0.10 0.08 0.00\nv 0.02 0.07 0.02\n"
                 "v 0.03 0.00 0.06\nv 0.10 0.02 0.07\nv 0.12 0.09 0.05\nv 0.04 0.06 0.08\n"
                 "f 1 2 3 4\nf 5 8 7 6\nf 1 5 6 2\nf 2 6 7 3\nf 3 7 8 4\nf 4 8 5 1\n");
  const std::string path = WriteTempScene("csim_mjcf_mesh_drop.yaml", R"(csim: 1
name: mjcf_mesh_drop
settings: {time_step: 0.001, integrator: symplectic_euler}
world:
  geometry: [{shape: halfspace}]
bodies:
  - name: rock
    mass: 0.5
    geometry:
      - {shape: mesh, file: csim_mjcf_hexahedron2.obj, pose: {position: [-0.06, -0.05, -0.04], rpy: [0.1, 0.05, 0.3]}}
joints:
  - {name: rock_free, type: free, parent: world, child: rock, initial: {q: [1, 0, 0, 0, 0, 0, 0.1]}}
)");
  const io::LoadedScene scene = io::LoadScene(path, {});
  const multibody::Model& model = scene.model;
  MujocoRunner mujoco(WriteMjcf(model, scene.settings, MjcfOptions{}));
  const integrator::ThetaParameters theta{scene.settings.integrator.theta,
                                          scene.settings.integrator.theta_q,
                                          scene.settings.gyroscopic};
  const contact::ContactParameters contact = sim::ContactParametersFor(scene.settings);
  integrator::StepWorkspace ws = integrator::MakeStepWorkspace(model, integrator::TreeSolver::kAuto);
  integrator::ContactStepWorkspace cws(model);
  multibody::State s{0.0, model.InitialQ(), model.InitialV()};
  for (int step = 0; step < 1000; ++step) {
    REQUIRE(integrator::StepWithContact(model, theta, {}, contact, 1e-3, false, s, ws, cws).ok());
    s.t = (step + 1) * 1e-3;
    StepSample sample;
    REQUIRE(mujoco.Step(&sample));
  }
  const double csim_z = s.q[6], mujoco_z = mujoco.data()->qpos[2];
  INFO("resting height of the body origin: csim " << csim_z << " m, MuJoCo " << mujoco_z << " m");
  CHECK(csim_z < 0.09);  // it fell and landed
  CHECK(std::abs(csim_z - mujoco_z) < 3e-3);
  CHECK(Eigen::Map<const Eigen::Vector3d>(mujoco.data()->qvel).norm() < 1e-2);
}

TEST_CASE("MJCF writer: limits and springs are MuJoCo's range and stiffness") {
  // A hinge pendulum starting at q = 0.1 rad, with a spring toward 0.5 rad too weak to hold
  // it, swings down into its lower limit -0.2; a slide on it, limited on both sides, runs
  // down the tilted arm into its upper limit 0.05. MuJoCo measures qpos from
  // the initial value, so its range and springref are shifted by it. Both simulators carry
  // the pendulum into the limit and hold it there; MuJoCo's limit is soft (it sinks in by
  // a few milliradians at its default solref), csim's near-rigid.
  const std::string path = WriteTempScene("csim_mjcf_limits.yaml", R"(csim: 1
name: mjcf_limits
settings: {time_step: 0.001, integrator: symplectic_euler}
bodies:
  - {name: arm, mass: 1.0, com: [0.3, 0, 0], inertia: [0.001, 0.01, 0.01, 0, 0, 0]}
  - {name: slider, mass: 0.2, inertia: [0.001, 0.001, 0.001, 0, 0, 0]}
joints:
  - {name: hinge, type: revolute, parent: world, child: arm, axis: [0, -1, 0],
     pose: {position: [0, 0, 1]}, initial: {q: [0.1]},
     limits: {lower: [-0.2], upper: [0.3]}, spring: {stiffness: [3.0], rest: [0.5]}, damping: 0.05}
  - {name: slide, type: prismatic, parent: arm, child: slider, axis: [1, 0, 0],
     pose: {position: [0.3, 0, 0]}, initial: {q: [0.02]}, limits: {lower: [-0.05], upper: [0.05]}}
)");
  const io::LoadedScene scene = io::LoadScene(path, {});
  const multibody::Model& model = scene.model;
  MujocoRunner mujoco(WriteMjcf(model, scene.settings, MjcfOptions{}));
  const mjModel* m = mujoco.model();
  REQUIRE(m->njnt == 2);
  CHECK(m->jnt_limited[0] == 1);
  CHECK(m->jnt_range[0] == Approx(-0.3).margin(1e-15));
  CHECK(m->jnt_range[1] == Approx(0.2).margin(1e-15));
  CHECK(m->jnt_range[2] == Approx(-0.07).margin(1e-15));
  CHECK(m->jnt_range[3] == Approx(0.03).margin(1e-15));
  CHECK(m->jnt_stiffness[0] == 3.0);
  CHECK(m->qpos_spring[0] == Approx(0.4).margin(1e-15));
  double moved = 0.0, final_difference = 0.0;
  const double difference = CoordinateDifference(path, {}, 1e-3, 1.0, &moved, &final_difference);
  // Both hit the limits (hinge 0.3 and slide 0.03 from the start) and rest there: they
  // differ in the bounce off them (MuJoCo's soft limit), not where they end.
  INFO("largest joint excursion " << moved << "; largest difference csim - MuJoCo " << difference
                                  << ", at the end " << final_difference);
  CHECK(moved > 0.15);
  CHECK(difference < 0.05);
  CHECK(final_difference < 2e-3);
}

TEST_CASE("MJCF writer: csim's collision filter is MuJoCo's through excludes") {
  // Two free boxes excluded by the scene's collision_filter, a free ball in a group with
  // one of them, a hinged arm (no free joint: csim keeps it off the ground) and its child.
  const std::string text = R"(csim: 1
name: mjcf_filter
settings: {time_step: 0.001}
world:
  geometry: [{shape: halfspace}]
bodies:
  - {name: a, mass: 1.0, geometry: [{shape: box, size: [0.1, 0.1, 0.1]}]}
  - {name: b, mass: 1.0, geometry: [{shape: box, size: [0.1, 0.1, 0.1]}]}
  - {name: c, mass: 1.0, geometry: [{shape: sphere, radius: 0.05}]}
  - {name: arm, mass: 1.0, geometry: [{shape: sphere, radius: 0.05}]}
  - {name: hand, mass: 1.0, geometry: [{shape: sphere, radius: 0.05}]}
joints:
  - {name: ja, type: free, parent: world, child: a, initial: {q: [1, 0, 0, 0, 0, 0, 0.2]}}
  - {name: jb, type: free, parent: world, child: b, initial: {q: [1, 0, 0, 0, 0.5, 0, 0.2]}}
  - {name: jc, type: free, parent: world, child: c, initial: {q: [1, 0, 0, 0, 1, 0, 0.2]}}
  - {name: shoulder, type: revolute, parent: world, child: arm, pose: {position: [2, 0, 1]}}
  - {name: wrist, type: revolute, parent: arm, child: hand, pose: {position: [0.3, 0, 0]}}
collision_filter:
  exclude: [[a, b]]
  groups: [[b, c, hand]]
)";
  const io::LoadedScene scene = io::LoadSceneFromText(text, "filter.yaml", {});
  const std::string mjcf = WriteMjcf(scene.model, scene.settings, MjcfOptions{});
  INFO(mjcf);
  MujocoRunner mujoco(mjcf);
  const mjModel* m = mujoco.model();
  // a-b, b-c, b-hand, c-hand, world-arm; not arm-hand (MuJoCo's parent filter has it).
  // MuJoCo's signature of a pair is (body1 + 1) << 16 + body2 + 1.
  std::vector<std::pair<std::string, std::string>> excluded;
  for (int i = 0; i < m->nexclude; ++i) {
    const int signature = m->exclude_signature[i];
    excluded.emplace_back(mj_id2name(m, mjOBJ_BODY, (signature >> 16) - 1),
                          mj_id2name(m, mjOBJ_BODY, (signature & 0xFFFF) - 1));
  }
  std::sort(excluded.begin(), excluded.end());
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"a", "b"}, {"b", "c"}, {"b", "hand"}, {"c", "hand"}, {"world", "arm"}};
  CHECK(excluded == expected);
}

TEST_CASE("MJCF writer: the Fetch pick-and-place scene in MuJoCo", "[mjcf]") {
  // scenes/fetch_pick_place.yaml, the benchmark's robot scene: the Fetch imported from
  // Debian's MJCF (tools/fetch-models.sh unpacks it into the source tree's build/models,
  // where scenes/models/fetch.xml looks) with its convex collision meshes, limits, a spring,
  // armature, damping, 9 PD servos and the model's collision filter. MuJoCo must compile
  // it, every mesh must sit where csim has it, and csim's excluded pairs must be excluded.
  const std::string root = CSIM_SOURCE_DIR;
  const std::string command =
      "'" + root + "/tools/fetch-models.sh' '" + root + "/build/models' >/dev/null 2>&1";
  REQUIRE(std::system(command.c_str()) == 0);
  const io::LoadedScene scene = io::LoadScene(root + "/scenes/fetch_pick_place.yaml", {});
  const multibody::Model& model = scene.model;
  MujocoRunner mujoco(WriteMjcf(model, scene.settings, MjcfOptions{}));
  const mjModel* m = mujoco.model();
  CHECK(m->nv == model.nv);
  CHECK(m->nu == static_cast<int>(model.actuators.size()));
  int meshes = 0;
  const double error = MeshPlacementError(model, mujoco, &meshes);
  INFO(meshes << " meshes; largest vertex distance csim - MuJoCo " << error << " m");
  CHECK(meshes >= 10);
  CHECK(error < 1e-5);  // floats, over a metre of robot
  CHECK(m->nexclude > 0);
  // The first steps in both: MuJoCo's servos hold the arm as csim's do (no warning, and the
  // arm's joints stay within a milliradian of csim's over 0.1 s).
  const integrator::ThetaParameters theta{scene.settings.integrator.theta,
                                          scene.settings.integrator.theta_q,
                                          scene.settings.gyroscopic};
  const contact::ContactParameters contact = sim::ContactParametersFor(scene.settings);
  integrator::StepWorkspace ws = integrator::MakeStepWorkspace(model, integrator::TreeSolver::kAuto);
  integrator::ContactStepWorkspace cws(model);
  multibody::State s{0.0, model.InitialQ(), model.InitialV()};
  const Eigen::VectorXd q0 = s.q;
  const double dt = scene.settings.time_step;
  double difference = 0.0;
  for (int step = 0; step < 100; ++step) {
    REQUIRE(integrator::StepWithContact(model, theta, {}, contact, dt, false, s, ws, cws).ok());
    s.t = (step + 1) * dt;
    StepSample sample;
    REQUIRE(mujoco.Step(&sample, [&](double t0, double* ctrl) { ControlsAt(model, t0, dt, ctrl); }));
    for (const multibody::Joint& j : model.joints)
      if (j.type == multibody::JointType::kRevolute && j.q_start >= 0)
        difference = std::max(difference, std::abs(s.q[j.q_start] - q0[j.q_start] -
                                                    mujoco.data()->qpos[j.q_start]));
  }
  INFO("largest arm joint difference over 0.1 s " << difference << " rad");
  CHECK(difference < 1e-3);
}

}  // namespace
}  // namespace csim::bench

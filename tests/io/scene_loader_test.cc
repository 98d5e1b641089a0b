// Scene loading (engine/io/scene_loader.h): a valid scene with every joint type and shape,
// the mass rules, and every rejection of scene-format.md "Errors" with its exact location.
// Scenes are written inline; line 1 is the line right after R"(.

#include "engine/io/scene_loader.h"

#include <cstdio>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include "engine/common/input_error.h"
#include "engine/common/io_error.h"
#include "tests/support/scene_errors.h"

namespace csim::io {
namespace {

constexpr double kPi = 3.14159265358979323846;

using test::CheckRejected;
using test::LoadError;
using test::OneBody;

const char* kFullScene = R"(csim: 1
name: all
settings:
  time_step: 0.002
  integrator: {theta: 0.6, theta_q: 0.5}
  contact_model: sap
  gravity: [0, 0, -1]
  output: {every: 2}
materials:
  default: {friction: 0.3}
  steel: {stiffness: .inf, friction: 0.8}
world:
  geometry:
    - {shape: halfspace}
bodies:
  - name: link2
    mass: 1
    geometry: [{shape: capsule, radius: 0.05, length: 0.3}]
  - name: link1
    density: 1000
    geometry: [{shape: cylinder, radius: 0.05, length: 0.4, material: steel}]
  - name: base
    mass: 2
    geometry:
      - {shape: box, size: [1, 1, 0.1]}
      - {shape: halfspace}
  - name: cart
    mass: 1
    geometry: [{shape: ellipsoid, radii: [0.1, 0.2, 0.3]}]
  - name: puck
    mass: 0.5
    inertia: [0.01, 0.01, 0.01, 0, 0, 0]
  - name: ball
    mass: 0.5
    geometry: [{shape: sphere, radius: 0.1}]
    pose: {position: [0, 0, 1]}
    velocity: {linear: [1, 0, 0], angular: [0, 0, 2]}
  - name: rock
    mass: 1
    x-note: annotations are allowed
    geometry: [{shape: mesh, file: unit_cube.obj, scale: 0.1}]
joints:
  - {name: weld, type: fixed, parent: world, child: base}
  - {name: hinge, type: revolute, parent: base, child: link1, axis: [0, 0, 2], initial: {q: 0.3, v: [0.1]}}
  - {name: shoulder, type: ball, parent: link1, child: link2, initial: {q: [2, 0, 0, 0]}}
  - name: slider
    type: prismatic
    parent: world
    child: cart
    axis: [1, 0, 0]
    prescribed: {type: sine, amplitude: 0.2, frequency: 1}
  - {name: plane, type: planar, parent: world, child: puck, initial: {q: [1, 2, 0.5]}, damping: [0.1, 0.1, 0.2], limits: {lower: [-1, -1, -1], upper: [1, 2, 3]}, spring: {stiffness: [1, 2, 3]}}
)";

LoadedScene LoadFull() {
  return LoadSceneFromText(kFullScene, std::string(CSIM_SOURCE_DIR) + "/tests/data/all.yaml", {});
}

TEST_CASE("a scene with every joint type and shape loads in topological order", "[loader]") {
  const LoadedScene s = LoadFull();
  const multibody::Model& m = s.model;
  CHECK(s.name == "all");
  CHECK(s.yaml_text == kFullScene);
  REQUIRE(m.num_bodies() == 7);
  const std::vector<std::string> order = {"base", "link1", "link2", "cart",
                                          "puck", "ball", "rock"};
  for (int i = 0; i < 7; ++i) {
    CHECK(m.bodies[i].name == order[i]);
    CHECK(m.joints[i].child == i);
    CHECK(m.parent[i] < i);
  }
  CHECK(m.parent == std::vector<int>{-1, 0, 1, -1, -1, -1, -1});
  CHECK(m.joints[5].name == "ball");
  CHECK(m.joints[5].type == multibody::JointType::kFree);
  CHECK(m.nq == 1 + 4 + 3 + 7 + 7);
  CHECK(m.nv == 1 + 3 + 3 + 6 + 6);
  const std::vector<int> q_start = {-1, 0, 1, -1, 5, 8, 15};
  const std::vector<int> v_start = {-1, 0, 1, -1, 4, 7, 13};
  for (int i = 0; i < 7; ++i) {
    CHECK(m.joints[i].q_start == q_start[i]);
    CHECK(m.joints[i].v_start == v_start[i]);
  }
}

TEST_CASE("initial state, axes and force elements of the full scene", "[loader]") {
  const multibody::Model m = LoadFull().model;
  const Eigen::VectorXd q = m.InitialQ(), v = m.InitialV();
  CHECK(q[0] == 0.3);
  CHECK(v[0] == 0.1);
  CHECK(q.segment(1, 4).isApprox(Eigen::Vector4d(1, 0, 0, 0)));  // normalised
  CHECK(q.segment(5, 3).isApprox(Eigen::Vector3d(1, 2, 0.5)));
  Eigen::VectorXd ball_q(7), ball_v(6);
  ball_q << 1, 0, 0, 0, 0, 0, 1;
  ball_v << 0, 0, 2, 1, 0, 0;
  CHECK(q.segment(8, 7).isApprox(ball_q));
  CHECK(v.segment(7, 6).isApprox(ball_v));
  CHECK(m.joints[1].axis.isApprox(Eigen::Vector3d::UnitZ()));
  CHECK(m.joints[3].prescribed);
  CHECK(m.joints[3].motion.amplitude[0] == 0.2);
  CHECK(m.joints[4].damping.isApprox(Eigen::Vector3d(0.1, 0.1, 0.2)));
  CHECK(m.joints[4].upper.isApprox(Eigen::Vector3d(1, 2, 3)));
  CHECK(m.joints[4].spring_rest.isZero());
}

TEST_CASE("materials, settings and mass rules of the full scene", "[loader]") {
  const LoadedScene s = LoadFull();
  const multibody::Model& m = s.model;
  CHECK(m.default_material == 0);
  CHECK(std::isinf(m.materials[1].stiffness));
  CHECK(m.bodies[0].geometry[0].material == 0);  // no `material`: the default
  CHECK(m.bodies[1].geometry[0].material == 1);
  CHECK(m.gravity.isApprox(Eigen::Vector3d(0, 0, -1)));
  CHECK(s.settings.time_step == 0.002);
  CHECK(s.settings.integrator.name == "theta");
  CHECK(s.settings.integrator.theta == 0.6);
  CHECK(s.settings.contact_model == sim::ContactModel::kSap);
  CHECK(s.settings.output.file == "all.h5");
  CHECK(s.settings.output.every == 2);
  CHECK(m.bodies[1].mass == Approx(1000 * kPi * 0.05 * 0.05 * 0.4));  // density
  CHECK(m.bodies[5].inertia(0, 0) == Approx(0.4 * 0.5 * 0.01));     // mass scaled
  CHECK(m.bodies[4].inertia(2, 2) == 0.01);                          // explicit
  CHECK(m.bodies[6].com.isApprox(Eigen::Vector3d::Constant(0.05)));  // mesh, scaled
  CHECK(m.bodies[6].inertia(0, 0) == Approx(1.0 / 6 * 0.01));
}

TEST_CASE("defaults: name from the file stem, settings from the format", "[loader]") {
  const LoadedScene s = LoadSceneFromText(
      "csim: 1\nbodies: [{name: b, mass: 2, geometry: [{shape: box, size: [1, 2, 3]}]}]\n",
      "scenes/drop.yaml", {});
  CHECK(s.name == "drop");
  CHECK(s.settings.output.file == "drop.h5");
  CHECK(s.settings.time_step == 1e-3);
  CHECK(s.settings.integrator.name == "symplectic_euler");
  CHECK(s.settings.solver.predict_stiction);
  CHECK(s.settings.solver.prediction_iterations == 20);
  CHECK(s.settings.solver.predict_crossings);
  CHECK(s.settings.solver.defer_separated);
  CHECK(s.model.gravity.isApprox(Eigen::Vector3d(0, 0, -9.81)));
  CHECK(s.model.default_material == -1);
  CHECK(s.model.bodies[0].geometry[0].material == -1);
  CHECK(s.model.bodies[0].inertia(0, 0) == Approx(2.0 / 12 * (4 + 9)));
}

TEST_CASE("solver settings: prediction and warm start are read", "[loader]") {
  const LoadedScene s = LoadSceneFromText(
      "csim: 1\nsettings: {solver: {predict_stiction: false, prediction_iterations: 3, "
      "warm_start: previous, predict_crossings: false, defer_separated: false}}\n",
      "t.yaml", {});
  CHECK_FALSE(s.settings.solver.predict_stiction);
  CHECK_FALSE(s.settings.solver.predict_crossings);
  CHECK_FALSE(s.settings.solver.defer_separated);
  CHECK(s.settings.solver.prediction_iterations == 3);
  CHECK(s.settings.solver.warm_start == solver::WarmStart::kPrevious);
}

TEST_CASE("delassus_estimate and tree_solver: every name is read, others are refused", "[loader]") {
  const LoadedScene defaults = LoadSceneFromText("csim: 1\n", "t.yaml", {});
  CHECK(defaults.settings.delassus_estimate == contact::DelassusEstimate::kArticulated);
  CHECK(defaults.settings.tree_solver == integrator::TreeSolver::kAuto);
  const LoadedScene s = LoadSceneFromText(
      "csim: 1\nsettings: {delassus_estimate: diagonal, tree_solver: dense}\n", "t.yaml", {});
  CHECK(s.settings.delassus_estimate == contact::DelassusEstimate::kDiagonal);
  CHECK(s.settings.tree_solver == integrator::TreeSolver::kDense);
  const LoadedScene a = LoadSceneFromText("csim: 1\nsettings: {tree_solver: articulated}\n",
                                          "t.yaml", {});
  CHECK(a.settings.tree_solver == integrator::TreeSolver::kArticulated);
  CheckRejected("csim: 1\nsettings:\n  tree_solver: sparse\n", 3, 16,
                "unknown tree solver 'sparse' (expected auto, dense or articulated)");
  CheckRejected("csim: 1\nsettings:\n  delassus_estimate: exact\n", 3, 22,
                "unknown Delassus estimate 'exact' (expected articulated or diagonal)");
}

TEST_CASE("gyroscopic: implicit by default, explicit on request, others refused", "[loader]") {
  CHECK(LoadSceneFromText("csim: 1\n", "t.yaml", {}).settings.gyroscopic ==
        integrator::Gyroscopic::kImplicit);
  CHECK(LoadSceneFromText("csim: 1\nsettings: {gyroscopic: explicit}\n", "t.yaml", {})
            .settings.gyroscopic == integrator::Gyroscopic::kExplicit);
  CHECK(LoadSceneFromText("csim: 1\nsettings: {gyroscopic: implicit}\n", "t.yaml", {})
            .settings.gyroscopic == integrator::Gyroscopic::kImplicit);
  CheckRejected("csim: 1\nsettings:\n  gyroscopic: midpoint\n", 3, 15,
                "unknown gyroscopic torque 'midpoint' (expected implicit or explicit)");
}

TEST_CASE("contact models: every name of the format is read, with its stiction tolerance",
          "[loader]") {
  const std::pair<const char*, sim::ContactModel> models[] = {
      {"sap", sim::ContactModel::kSap},
      {"lagged", sim::ContactModel::kLagged},
      {"lagged_regularized", sim::ContactModel::kLaggedRegularized},
      {"similar", sim::ContactModel::kSimilar}};
  for (const auto& [name, model] : models) {
    const LoadedScene s = LoadSceneFromText(std::string("csim: 1\nsettings: {contact_model: ") +
                                                name + ", stiction_tolerance: 2.0e-5}\n",
                                            "t.yaml", {});
    CHECK(s.settings.contact_model == model);
    CHECK(s.settings.stiction_tolerance == 2.0e-5);
  }
  CheckRejected("csim: 1\nsettings: {stiction_tolerance: 0}\n", 2, 32, "must be positive");
}

TEST_CASE("explicit com shifts the geometric inertia (parallel axis)", "[loader]") {
  const LoadedScene s = LoadSceneFromText(OneBody(R"(    mass: 2
    com: [0, 0, 0.5]
    geometry: [{shape: sphere, radius: 0.1}]
)"), "t.yaml", {});
  const double i = 0.4 * 2 * 0.01;
  CHECK(s.model.bodies[0].inertia(0, 0) == Approx(i + 2 * 0.25));
  CHECK(s.model.bodies[0].inertia(2, 2) == Approx(i));
}

TEST_CASE("LoadScene reads a file, an unreadable one is an I/O error", "[loader]") {
  CHECK_THROWS_AS(LoadScene("/nonexistent/scene.yaml", {}), IoError);
  CHECK_THROWS_AS(LoadScene(CSIM_SOURCE_DIR, {}), IoError);
  const std::string path = "scene_loader_test_drop.yaml";
  const std::string text = "csim: 1  # comment kept\nbodies: []\n";
  std::ofstream(path) << text;
  const LoadedScene s = LoadScene(path, {});
  std::remove(path.c_str());
  CHECK(s.name == "scene_loader_test_drop");
  CHECK(s.file == path);
  CHECK(s.yaml_text == text);
  CHECK(s.model.num_bodies() == 0);
}

TEST_CASE("rejects unknown keys, missing keys and bad versions", "[loader]") {
  CheckRejected("csim: 1\nbodie: []\n", 2, 1, "unknown key 'bodie'");
  CheckRejected(OneBody("    mas: 1\n"), 4, 5, "unknown key 'mas'");
  CheckRejected("csim: 1\nsettings: {time_step: 0.1, solver: {max_iter: 3}}\n", 2, 37,
                "unknown key 'max_iter'");
  CheckRejected("bodies: []\n", 1, 1, "missing required key 'csim'");
  CheckRejected("csim: 2\n", 1, 7, "unsupported scene format version 2");
  CheckRejected("csim: 1\nbodies:\n  - mass: 1\n", 3, 5, "missing required key 'name'");
  CheckRejected("csim: 1\nbodies: [{name: a, mass: 1, geometry: [{shape: sphere}]}]\n", 2, 40,
                "missing required key 'radius'");
  CheckRejected("csim: 1\nname: a\nname: b\n", 3, 1, "duplicate key 'name'");
  CheckRejected("csim: 1\nbodies: [\n", 3, 1, "invalid YAML");
}

TEST_CASE("rejects wrong types and non-finite numbers", "[loader]") {
  CheckRejected(OneBody("    mass: heavy\n"), 4, 11, "expected a number");
  CheckRejected(OneBody("    mass: .inf\n"), 4, 11, "finite");
  CheckRejected(OneBody("    mass: 1\n    geometry: [{shape: sphere, radius: .nan}]\n"), 5, 40,
                "finite");
  CheckRejected(OneBody("    mass: 1\n    geometry: {shape: sphere}\n"), 5, 15, "expected a list");
  CheckRejected("csim: 1\nsettings: {gravity: [0, -9.81]}\n", 2, 21, "expected 3 numbers");
  CheckRejected("csim: 1\nsettings: {output: {contacts: maybe}}\n", 2, 31, "true or false");
  CheckRejected("csim: 1\nsettings: {solver: {max_iterations: 2.5}}\n", 2, 37, "integer");
  CheckRejected("csim: 1\nmaterials: {m: {friction: .inf}}\n", 2, 27, "finite");
  CheckRejected("csim: 1\nsettings: {integrator: rk4}\n", 2, 24, "unknown integrator");
  CheckRejected("csim: 1\nsettings: {integrator: {theta: 1.5, theta_q: 0}}\n", 2, 32, "[0, 1]");
  CheckRejected("csim: 1\nsettings: {contact_model: soft}\n", 2, 27, "unknown contact model");
  CheckRejected(OneBody("    mass: 1\n    geometry: [{shape: cone, radius: 1}]\n"), 5, 24,
                "unknown shape 'cone'");
  CheckRejected(OneBody("    mass: 1\n    geometry: [{shape: sphere, radius: 1, size: 2}]\n"),
                5, 43, "unknown key 'size'");
}

TEST_CASE("rejects YAML that yaml-cpp would misread", "[loader]") {
  // An unclosed quote swallowed the rest of the file, invalid mass included, into the
  // name; the scene then ran with no bodies. Escaped quotes do not close a string.
  CheckRejected("csim: 1\nname: \"oops\nbodies:\n  - {name: b, mass: -1}\n", 2, 7,
                "double-quoted string is never closed");
  CheckRejected("csim: 1\nbodies: []\nname: 'it''s\n", 3, 7,
                "single-quoted string is never closed");
  CheckRejected("csim: 1\nname: \"a \\\"b\\\"\nbodies: []\n", 2, 7, "never closed");
  CHECK(LoadSceneFromText("csim: 1\nname: \"a \\\"b\\\" c\"\n", "t.yaml", {}).name ==
        "a \"b\" c");
  CHECK(LoadSceneFromText("csim: 1\nname: 'it''s'\n", "t.yaml", {}).name == "it's");
  // yaml-cpp's Load keeps the first document and drops the rest.
  CheckRejected("csim: 1\nbodies: []\n---\nbodies: oops\n", 4, 1, "a second one starts here");
  // A NUL byte is named by its code, not taken for an "unknown escape character".
  CheckRejected(std::string("csim: 1\nname: ab\0cd\n", 21), 2, 9, "0x00");
  CheckRejected("csim: 1\n\x01\n", 2, 1, "control character 0x01");
  CheckRejected("csim: 1\nname: " + std::string(100000, '['), 2, 1, "nested deeper");
}

TEST_CASE("aliases: reuse works, a cycle or an exponential expansion is rejected", "[loader]") {
  const LoadedScene scene = LoadSceneFromText(
      "csim: 1\nbodies:\n  - {name: a, mass: 1, geometry: &g [{shape: sphere, radius: 0.1}]}\n"
      "  - {name: b, mass: 2, geometry: *g, pose: {position: [1, 0, 0]}}\n",
      "t.yaml", {});
  CHECK(scene.model.bodies[1].geometry.size() == 1);
  // An alias inside its own anchor: every walk over the tree would recurse until SIGSEGV.
  CheckRejected("csim: 1\nx-a: &a [*a]\n", 2, 6, "refers to a node that contains it");
  CheckRejected("csim: 1\nsettings: &s {duration: 0.1, x-self: *s}\n", 2, 11,
                "refers to a node that contains it");
  // 9 aliases per level over 12 levels: 9^12 nodes, a walk that never ends.
  std::string bomb = "csim: 1\nx-0: &l0 [0]\n";
  for (int level = 1; level <= 12; ++level) {
    const std::string prev = "*l" + std::to_string(level - 1);
    bomb += "x-" + std::to_string(level) + ": &l" + std::to_string(level) + " [";
    for (int k = 0; k < 9; ++k) bomb += prev + (k < 8 ? ", " : "]\n");
  }
  CHECK(LoadError(bomb).message().find("more than 2000000 nodes") != std::string::npos);
}

TEST_CASE("numbers and flags are plain scalars, an empty value is located at its key",
          "[loader]") {
  CheckRejected(OneBody("    mass: \"0.5\"\n"), 4, 11, "quoted string '0.5'");
  CheckRejected("csim: '1'\n", 1, 7, "expected an integer, got the quoted string");
  CheckRejected("csim: 1\nsettings: {output: {contacts: 'true'}}\n", 2, 31, "quoted string");
  // yaml-cpp marks an empty value where the next key starts, one line down.
  CheckRejected(OneBody("    mass:\n    geometry: [{shape: sphere, radius: 0.1}]\n"), 4, 5,
                "expected a number, got nothing (bodies[0].mass)");
}

TEST_CASE("rejects a scene name that is not a plain file stem and a step count overflow",
          "[loader]") {
  CheckRejected("csim: 1\nname: ../elsewhere\n", 2, 7, "must not contain '/'");
  CheckRejected("csim: 1\nname: ''\n", 2, 7, "must not be empty");
  CheckRejected("csim: 1\nname: \"a\\0b\"\n", 2, 7, "control characters");
  // duration / time_step = 1e19 steps would overflow the step counter into a 1-step run
  // reported as completed.
  CheckRejected("csim: 1\nsettings: {duration: 0.01, time_step: 1.0e-21}\n", 2, 39,
                "more than a run can count");
  CHECK(LoadSceneFromText("csim: 1\nsettings: {duration: 1.0e6, time_step: 1.0e-9}\n",
                          "t.yaml", {}).settings.duration == 1.0e6);
}

TEST_CASE("rejects non-positive quantities", "[loader]") {
  CheckRejected(OneBody("    mass: 0\n    geometry: [{shape: sphere, radius: 1}]\n"), 4, 11,
                "must be positive");
  CheckRejected(OneBody("    mass: 1\n    geometry: [{shape: sphere, radius: -1}]\n"), 5, 40,
                "must be positive");
  CheckRejected(OneBody("    mass: 1\n    geometry: [{shape: box, size: [1, 0, 1]}]\n"), 5, 39,
                "must be positive");
  CheckRejected(OneBody("    mass: 1\n    geometry: [{shape: capsule, radius: 1, length: 0}]\n"),
                5, 52, "must be positive");
  CheckRejected("csim: 1\nsettings: {time_step: 0}\n", 2, 23, "must be positive");
  CheckRejected("csim: 1\nsettings:\n  duration: -1\n", 3, 13, "must be positive");
  CheckRejected("csim: 1\nsettings: {output: {every: 0}}\n", 2, 28, "every must be >= 1");
  CheckRejected("csim: 1\nsettings: {output: {compression: 10}}\n", 2, 34,
                "compression must be a gzip level from 0 (none) to 9");
  CheckRejected("csim: 1\nsettings: {output: {compression: -1}}\n", 2, 34,
                "compression must be a gzip level from 0 (none) to 9");
  CheckRejected("csim: 1\nsettings: {solver: {prediction_iterations: 0}}\n", 2, 44,
                "prediction_iterations must be >= 1");
}

TEST_CASE("rejects bad mass and inertia", "[loader]") {
  CheckRejected(OneBody("    mass: 1\n    inertia: [1, 1, -0.02, 0, 0, 0]\n"), 5, 14,
                "inertia is not positive definite (eigenvalues -0.02, 1, 1)");
  CheckRejected(OneBody("    mass: 1\n    inertia: [1, 1, 3, 0, 0, 0]\n"), 5, 14,
                "triangle inequality");
  CheckRejected(OneBody("    mass: 1\n"), 4, 11, "inertia is unknown");
  CheckRejected(OneBody("    mass: 1\n    geometry: [{shape: sphere, radius: 1, collide: false}]\n"),
                4, 11, "inertia is unknown");
  CheckRejected(OneBody("    com: [0, 0, 0]\n"), 3, 5, "needs a mass or a density");
  CheckRejected(OneBody("    density: 1\n"), 4, 14, "density needs collision geometry");
  CheckRejected(OneBody("    mass: 1\n    density: 2\n"), 5, 14, "not both");
}

TEST_CASE("rejects duplicate and unknown names", "[loader]") {
  const std::string two = "csim: 1\nbodies:\n  - {name: a, mass: 1, inertia: [1, 1, 1, 0, 0, 0]}\n"
                          "  - {name: b, mass: 1, inertia: [1, 1, 1, 0, 0, 0]}\n";
  CheckRejected("csim: 1\nbodies:\n  - {name: a, mass: 1, inertia: [1, 1, 1, 0, 0, 0]}\n"
                "  - {name: a, mass: 1, inertia: [1, 1, 1, 0, 0, 0]}\n",
                4, 12, "duplicate body name 'a'");
  CheckRejected(two + "joints:\n  - {name: j, type: fixed, parent: world, child: a}\n"
                      "  - {name: j, type: fixed, parent: world, child: b}\n",
                7, 12, "duplicate joint name 'j'");
  CheckRejected(two + "joints:\n  - {name: b, type: fixed, parent: world, child: a}\n", 4, 12,
                "free joint of body 'b'");
  CheckRejected("csim: 1\nmaterials:\n  m: {}\n  m: {}\n", 4, 3, "duplicate key 'm'");
  CheckRejected(two + "joints:\n  - {name: j, type: fixed, parent: c, child: a}\n", 6, 36,
                "unknown body 'c'");
  CheckRejected(two + "joints:\n  - {name: j, type: fixed, parent: a, child: d}\n", 6, 46,
                "unknown body 'd'");
  CheckRejected(OneBody("    mass: 1\n    geometry: [{shape: sphere, radius: 1, material: x}]\n"),
                5, 53, "unknown material 'x'");
  CheckRejected(two + "joints:\n  - {name: j, type: hinge, parent: a, child: b}\n", 6, 21,
                "unknown joint type 'hinge'");
}

TEST_CASE("rejects cycles and bodies with two parents", "[loader]") {
  const std::string three = "csim: 1\nbodies:\n"
                            "  - {name: a, mass: 1, inertia: [1, 1, 1, 0, 0, 0]}\n"
                            "  - {name: b, mass: 1, inertia: [1, 1, 1, 0, 0, 0]}\n"
                            "  - {name: c, mass: 1, inertia: [1, 1, 1, 0, 0, 0]}\n";
  CheckRejected(three + "joints:\n"
                        "  - {name: j1, type: fixed, parent: a, child: b}\n"
                        "  - {name: j2, type: fixed, parent: b, child: a}\n",
                7, 37, "closes a cycle");
  CheckRejected(three + "joints:\n"
                        "  - {name: j1, type: fixed, parent: a, child: c}\n"
                        "  - {name: j2, type: fixed, parent: b, child: c}\n",
                8, 47, "already the child of joint 'j1'");
  CheckRejected(three + "joints:\n  - {name: j1, type: fixed, parent: a, child: a}\n", 7, 47,
                "to itself");
  CheckRejected(three + "joints:\n  - {name: j1, type: fixed, parent: a, child: world}\n", 7, 47,
                "world cannot be the child");
}

/// Two bodies, and one joint `j` from world to `a` given by `joint` (a flow-map body).
std::string OneJoint(const std::string& joint) {
  return "csim: 1\nbodies:\n  - {name: a, mass: 1, inertia: [1, 1, 1, 0, 0, 0]}\n"
         "joints:\n  - {name: j, parent: world, child: a, " + joint + "}\n";
}

TEST_CASE("rejects invalid joint options", "[loader]") {
  // In OneJoint, the joint options start at column 40 of line 5.
  CheckRejected(OneJoint("type: revolute, axis: [0, 0, 0]"), 5, 62, "axis must not be zero");
  CheckRejected(OneJoint("type: ball, axis: [0, 0, 1]"), 5, 58, "only on revolute and prismatic");
  CheckRejected(OneJoint("type: revolute, limits: {lower: 1, upper: 0}"), 5, 64,
                "lower limit 1.000000 is above upper limit 0.000000");
  CheckRejected(OneJoint("type: ball, spring: {stiffness: 1}"), 5, 60,
                "not on ball joints");
  CheckRejected(OneJoint("type: free, limits: {lower: [0], upper: [1]}"), 5, 60, "not on free");
  CheckRejected(OneJoint("type: fixed, damping: 1"), 5, 62, "no coordinates to damp");
  CheckRejected(OneJoint("type: revolute, initial: {q: [1, 2]}"), 5, 69, "expected 1 numbers");
  CheckRejected(OneJoint("type: ball, initial: {q: [0, 0, 0, 0]}"), 5, 65, "quaternion must not");
  CheckRejected(OneJoint("type: revolute, prescribed: {type: sine, amplitude: 1, frequency: 1}, "
                         "initial: {q: 0}"),
                5, 119, "prescribed joint takes no initial");
  CheckRejected(OneJoint("type: revolute, prescribed: {type: square, amplitude: 1, frequency: 1}"),
                5, 75, "unknown prescribed motion");
  CheckRejected(OneJoint("type: revolute, damping: [-1]"), 5, 66, "must not be negative");
}

TEST_CASE("reads joint armature and friction per coordinate", "[loader]") {
  const LoadedScene one = LoadSceneFromText(OneJoint("type: revolute, armature: 0.5, friction: 2"),
                                            "t.yaml", {});
  CHECK(one.model.joints[0].armature == Eigen::VectorXd::Constant(1, 0.5));
  CHECK(one.model.joints[0].friction == Eigen::VectorXd::Constant(1, 2.0));
  CHECK(one.model.HasJointFriction());
  const LoadedScene planar = LoadSceneFromText(
      OneJoint("type: planar, armature: [0.1, 0.2, 0.3], friction: [0, 1, 0]"), "t.yaml", {});
  CHECK(planar.model.joints[0].armature == Eigen::Vector3d(0.1, 0.2, 0.3));
  CHECK(planar.model.joints[0].friction == Eigen::Vector3d(0, 1, 0));
  // Zero friction everywhere is no friction.
  CHECK_FALSE(LoadSceneFromText(OneJoint("type: revolute, friction: 0"), "t.yaml", {})
                  .model.HasJointFriction());
  CHECK_FALSE(LoadSceneFromText(OneJoint("type: revolute"), "t.yaml", {}).model.HasJointFriction());
}

TEST_CASE("rejects invalid joint armature and friction", "[loader]") {
  // In OneJoint, the joint options start at column 40 of line 5.
  CheckRejected(OneJoint("type: revolute, armature: -1"), 5, 66, "must not be negative");
  CheckRejected(OneJoint("type: revolute, friction: [-2]"), 5, 67, "must not be negative");
  CheckRejected(OneJoint("type: revolute, friction: .nan"), 5, 66, "expected a finite number");
  CheckRejected(OneJoint("type: revolute, armature: .inf"), 5, 66, "expected a finite number");
  CheckRejected(OneJoint("type: planar, friction: [1, 2]"), 5, 64, "expected 3 numbers");
  CheckRejected(OneJoint("type: planar, armature: 1"), 5, 64, "expected a list of 3 numbers");
  CheckRejected(OneJoint("type: fixed, armature: 1"), 5, 63, "not on fixed joints");
  CheckRejected(OneJoint("type: ball, friction: [1, 1, 1]"), 5, 62, "not on ball joints");
  CheckRejected(OneJoint("type: free, armature: [1, 1, 1, 1, 1, 1]"), 5, 62, "not on free joints");
  CheckRejected(OneJoint("type: revolute, prescribed: {type: sine, amplitude: 1, frequency: 1}, "
                         "friction: 1"),
                5, 120, "friction is not allowed on a prescribed joint");
  CheckRejected(OneJoint("type: revolute, armature: 1, "
                         "prescribed: {type: sine, amplitude: 1, frequency: 1}"),
                5, 66, "armature is not allowed on a prescribed joint");
}

TEST_CASE("rejects free-body state on a jointed body", "[loader]") {
  CheckRejected("csim: 1\nbodies:\n  - name: a\n    mass: 1\n    inertia: [1, 1, 1, 0, 0, 0]\n"
                "    velocity: {linear: [1, 0, 0]}\n"
                "joints:\n  - {name: j, type: revolute, parent: world, child: a}\n",
                6, 15, "set its initial state there");
  CheckRejected(OneBody("    mass: 1\n    geometry: [{shape: sphere, radius: 1}]\n"
                        "    pose: {quaternion: [0, 0, 0, 0]}\n"),
                6, 24, "quaternion must not be zero");
}

TEST_CASE("halfspaces only on the world and on welded bodies", "[loader]") {
  const std::string base = "csim: 1\nbodies:\n  - name: a\n    mass: 1\n"
                           "    inertia: [1, 1, 1, 0, 0, 0]\n"
                           "    geometry: [{shape: halfspace}]\n";
  CheckRejected(base, 6, 24, "halfspace is allowed only on the world");
  CheckRejected(base + "joints:\n  - {name: j, type: revolute, parent: world, child: a}\n", 6, 24,
                "body 'a' can move");
  const LoadedScene welded = LoadSceneFromText(
      base + "  - {name: b, mass: 1, inertia: [1, 1, 1, 0, 0, 0], geometry: [{shape: halfspace}]}\n"
             "joints:\n  - {name: j, type: fixed, parent: world, child: a}\n"
             "  - {name: k, type: fixed, parent: a, child: b}\n",
      "t.yaml", {});
  CHECK(welded.model.nq == 0);
}

TEST_CASE("rejects a mesh file that cannot be read", "[loader]") {
  CheckRejected(OneBody("    mass: 1\n    geometry: [{shape: mesh, file: missing.obj}]\n"), 5, 36,
                "cannot read mesh file 'missing.obj'");
}

}  // namespace
}  // namespace csim::io

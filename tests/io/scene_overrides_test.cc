// `--set PATH=VALUE` overrides (engine/io/scene_overrides.h, cli.md): values change, the
// run's yaml_text shows them, and bad overrides are located in the override text.

#include "engine/io/scene_overrides.h"

#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "engine/common/input_error.h"
#include "engine/io/scene_loader.h"

namespace csim::io {
namespace {

const char* kScene = R"(csim: 1
materials:
  steel: {friction: 0.8}
bodies:
  - name: ball
    mass: 1
    geometry: [{shape: sphere, radius: 0.1, material: steel}]
  - name: cart
    mass: 1
    geometry: [{shape: box, size: [0.2, 0.2, 0.2]}]
joints:
  - {name: slider, type: prismatic, parent: world, child: cart, axis: [1, 0, 0]}
)";

LoadedScene Load(const std::vector<std::string>& overrides) {
  return LoadSceneFromText(kScene, "scene.yaml", overrides);
}

/// The InputError raised by loading kScene with `overrides`.
InputError OverrideError(const std::vector<std::string>& overrides) {
  try {
    Load(overrides);
  } catch (const InputError& e) {
    return e;
  }
  FAIL("the overrides were accepted");
  throw std::logic_error("unreachable");
}

/// Checks the error of the single override `arg` is at column `col` of "--set arg".
void CheckRejected(const std::string& arg, int col, const std::string& what) {
  const InputError e = OverrideError({arg});
  INFO(e.what());
  CHECK(e.where().file == "--set " + arg);
  CHECK(e.where().line == 1);
  CHECK(e.where().column == col);
  CHECK(e.message().find(what) != std::string::npos);
}

TEST_CASE("without overrides the scene text is kept verbatim", "[overrides]") {
  const LoadedScene s = Load({});
  CHECK(s.yaml_text == kScene);
  CHECK(s.overrides.empty());
}

TEST_CASE("list items are addressed by name or by index", "[overrides]") {
  const LoadedScene s = Load({"bodies.ball.mass=2", "bodies.1.mass=3"});
  CHECK(s.model.bodies[0].mass == 2.0);
  CHECK(s.model.bodies[1].mass == 3.0);
  CHECK(s.overrides == std::vector<std::string>{"bodies.ball.mass=2", "bodies.1.mass=3"});
  CHECK(s.yaml_text.find("mass: 2") != std::string::npos);
  CHECK(s.yaml_text.find("mass: 3") != std::string::npos);
  // The emitted text is itself a scene that loads to the same values.
  const LoadedScene again = LoadSceneFromText(s.yaml_text, "again.yaml", {});
  CHECK(again.model.bodies[0].mass == 2.0);
}

TEST_CASE("overrides reach joints, materials and settings", "[overrides]") {
  const LoadedScene s = Load({"joints.slider.initial.q=[0.2]", "materials.steel.friction=0.3",
                              "settings.solver.relative_tolerance=1e-8"});
  CHECK(s.model.joints[1].q_initial[0] == 0.2);
  CHECK(s.model.materials[0].friction == 0.3);
  CHECK(s.settings.solver.relative_tolerance == 1e-8);
  CHECK(s.yaml_text.find("relative_tolerance: 1e-8") != std::string::npos);
}

TEST_CASE("later overrides win and whole subtrees can be replaced", "[overrides]") {
  const LoadedScene s = Load({"settings.time_step=0.01", "settings.time_step=0.02",
                              "bodies.ball.geometry=[{shape: sphere, radius: 0.2}]"});
  CHECK(s.settings.time_step == 0.02);
  CHECK(s.model.bodies[0].geometry[0].size[0] == 0.2);
  CHECK(s.model.bodies[0].geometry[0].material == -1);
}

TEST_CASE("bad override paths are located in the argument", "[overrides]") {
  CheckRejected("bodies.ball.mass", 1, "PATH=VALUE");
  CheckRejected("bodies.bal.mass=2", 8, "no item named 'bal' in 'bodies'");
  CheckRejected("bodies.7.mass=2", 8, "no item named '7'");
  CheckRejected("bodies.ball.mass.x=1", 18, "cannot index 'x'");
  CheckRejected("bodies..mass=1", 8, "empty element");
  CheckRejected("bodies.ball.mass=[1,", 18, "not valid YAML");
}

TEST_CASE("list indices may be written in brackets, as error messages print them",
          "[overrides]") {
  const LoadedScene scene = Load({"bodies[1].geometry[0].size=[0.4, 0.4, 0.4]",
                                  "bodies[0].mass=3"});
  CHECK(scene.model.bodies[0].mass == 3.0);
  CHECK(scene.yaml_text.find("0.4, 0.4, 0.4") != std::string::npos);
  CheckRejected("bodies[x].mass=1", 7, "expected a list index");
  CheckRejected("bodies[0.mass=1", 7, "expected a list index");
  CheckRejected("bodies[0]x.mass=1", 10, "expected '.' or '['");
  CheckRejected("bodies[7].mass=1", 8, "no item named '7'");
}

TEST_CASE("an override changes materials but does not invent a misspelt one", "[overrides]") {
  CheckRejected("materials.stel.friction=0.3", 11, "no material named 'stel'");
  CheckRejected("materials.stel={friction: 0.3}", 11, "no material named 'stel'");
  CHECK(Load({"materials.steel.friction=0.3"}).yaml_text.find("0.3") != std::string::npos);
  // `default` is the one a scene may lack and still want (scene-format.md, materials).
  CHECK(Load({"materials.default.friction=0.2"}).yaml_text.find("default") !=
        std::string::npos);
}

TEST_CASE("an override value is one well-formed YAML document", "[overrides]") {
  CheckRejected("name=\"oops", 11, "not valid YAML");  // yaml-cpp sees this one itself
  // ...but not inside a block map, where the string swallowed the following keys. The
  // column is counted as if the value were on one line (overrides have line 1 only).
  CheckRejected("settings=\n  duration: 1\n  x: \"oops\n  y: 2\n", 15, "never closed");
  CheckRejected("settings.time_step=0.001\n---\n2", 20, "more than one document");
  CheckRejected(std::string("name=a\0b", 8), 7, "0x00");
}

TEST_CASE("an override blocked by the scene's own mistake blames the scene", "[overrides]") {
  // `settings: [1]` is the scene's mistake, not "no item named 'output'" at the -o override.
  try {
    LoadSceneFromText("csim: 1\nsettings: [1]\n", "s.yaml", {"settings.output.file=x.h5"});
    FAIL("accepted");
  } catch (const InputError& e) {
    INFO(e.what());
    CHECK(e.where().file == "s.yaml");
    CHECK(e.where().line == 2);
    CHECK(e.where().column == 11);
    CHECK(e.message().find("expected a map, got a list (settings)") != std::string::npos);
  }
  // ...or the earlier override that did it.
  const InputError e = OverrideError({"settings=3", "settings.duration=2"});
  INFO(e.what());
  CHECK(e.where().file == "--set settings=3");
  CHECK(e.message().find("expected a map, got '3' (settings)") != std::string::npos);
  // An override that is wrong by itself is still the one named.
  CHECK(OverrideError({"settings.duration=2", "bodies.nobody.mass=1"}).where().file ==
        "--set bodies.nobody.mass=1");
}

TEST_CASE("errors inside an override value point at the override", "[overrides]") {
  CheckRejected("bodies.ball.mass=-1", 18, "must be positive");
  const std::string arg = "bodies.ball.geometry=[{shape: sphere, radius: 0}]";
  CheckRejected(arg, static_cast<int>(arg.find("0}")) + 1, "must be positive");
  CheckRejected("settings.integrator=rk4", 21, "unknown integrator");
  // With several overrides, the one that brought the bad value is named; list items
  // without a `name` are reached by index, and the column is the bad element's.
  const InputError e = OverrideError({"settings.time_step=0.1", "bodies.cart.mass=0"});
  CHECK(e.where().file == "--set bodies.cart.mass=0");
  const std::string size = "bodies.cart.geometry.0.size=[0, 1, 1]";
  const InputError f = OverrideError({"settings.time_step=0.1", size});
  CHECK(f.where().file == "--set " + size);
  CHECK(f.where().column == static_cast<int>(size.find("0,")) + 1);
  // A key the override created (here `foo` under a created settings.solver) is named too.
  CheckRejected("settings.solver.foo=1", 21, "unknown key 'foo'");
}

TEST_CASE("errors in untouched parts of an overridden scene keep file locations",
          "[overrides]") {
  const std::string scene = "csim: 1\nbodies:\n  - {name: a, mass: -1}\n";
  try {
    LoadSceneFromText(scene, "s.yaml", {"settings.duration=2"});
    FAIL("accepted");
  } catch (const InputError& e) {
    CHECK(e.where().file == "s.yaml");
    CHECK(e.where().line == 3);
    CHECK(e.where().column == 21);
  }
}

}  // namespace
}  // namespace csim::io

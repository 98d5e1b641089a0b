#include "engine/sim/sensitivity_paths.h"

#include <charconv>
#include <cmath>

#include "engine/common/comma_separated.h"
#include "engine/common/input_error.h"

namespace csim::sim {
namespace {

using integrator::SensitivityParameter;
using Kind = SensitivityParameter::Kind;

constexpr const char* kAccepted =
    "accepted: materials.NAME.friction, materials.NAME.dissipation_time, "
    "materials.NAME.hunt_crossley, materials.NAME.stiffness, bodies.NAME.mass, "
    "joints.NAME.q[i], joints.NAME.v[i]";

[[noreturn]] void Fail(const std::string& path, const std::string& why) {
  throw InputError({"--sensitivities", 0, 0}, "'" + path + "' " + why + " (" + kAccepted + ")");
}

// "q[3]" -> ('q', 3); false when not of that form.
bool ParseCoordinate(const std::string& s, char* which, int* index) {
  if (s.size() < 4 || (s[0] != 'q' && s[0] != 'v') || s[1] != '[' || s.back() != ']')
    return false;
  const char* first = s.data() + 2;
  const char* last = s.data() + s.size() - 1;
  const auto [end, error] = std::from_chars(first, last, *index);
  if (error != std::errc() || end != last || *index < 0) return false;
  *which = s[0];
  return true;
}

SensitivityParameter Material(const multibody::Model& model, const std::string& path,
                              const std::string& name, const std::string& field) {
  SensitivityParameter p;
  p.kind = Kind::kMaterial;
  if (field == "friction") {
    p.contact = solver::ContactParameter::kMu;
  } else if (field == "dissipation_time") {
    p.contact = solver::ContactParameter::kDissipationTime;
  } else if (field == "hunt_crossley") {
    p.contact = solver::ContactParameter::kHuntCrossley;
  } else if (field == "stiffness") {
    p.contact = solver::ContactParameter::kStiffness;
  } else {
    Fail(path, "names no material parameter with a sensitivity");
  }
  p.index = -2;
  for (size_t m = 0; m < model.materials.size(); ++m)
    if (model.materials[m].name == name) p.index = static_cast<int>(m);
  if (p.index == -2) {
    if (name != "default") Fail(path, "names no material of the scene");
    p.index = -1;  // the built-in default material
  }
  if (p.contact == solver::ContactParameter::kStiffness) {
    const geometry::Material built_in;
    const double k = (p.index >= 0 ? model.materials[p.index] : built_in).stiffness;
    if (!std::isfinite(k))
      Fail(path, "is not differentiable: stiffness .inf has no derivative (it selects the "
                 "near-rigid rule, docs/design/sensitivities.md §7.3)");
  }
  return p;
}

SensitivityParameter BodyMass(const multibody::Model& model, const std::string& path,
                              const std::string& name, const std::string& field) {
  if (field != "mass") Fail(path, "names no body parameter with a sensitivity");
  for (int b = 0; b < model.num_bodies(); ++b) {
    if (model.bodies[b].name != name) continue;
    // The column is the derivative of what `--set bodies.NAME.mass=M` changes, which a
    // density body refuses.
    if (model.bodies[b].mass_source == multibody::MassSource::kDensity)
      Fail(path, "names a body whose mass comes from its density (it has no mass entry to "
                 "change)");
    SensitivityParameter p;
    p.kind = Kind::kBodyMass;
    p.index = b;
    return p;
  }
  Fail(path, "names no body of the scene");
}

}  // namespace

SensitivityParameter ParseSensitivityPath(const multibody::Model& model,
                                          const std::string& path) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    const size_t dot = path.find('.', start);
    parts.push_back(path.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  if (parts.size() != 3 || parts[1].empty() || parts[2].empty())
    Fail(path, "is not a parameter path");
  if (parts[0] == "materials") return Material(model, path, parts[1], parts[2]);
  if (parts[0] == "bodies") return BodyMass(model, path, parts[1], parts[2]);
  if (parts[0] != "joints") Fail(path, "is not a parameter path");
  char which = 0;
  int index = 0;
  if (!ParseCoordinate(parts[2], &which, &index)) Fail(path, "is not a parameter path");
  for (const multibody::Joint& joint : model.joints) {
    if (joint.name != parts[1]) continue;
    if (joint.v_start < 0)
      Fail(path, "names a joint without coordinates (fixed or prescribed)");
    // q[i] is a tangent coordinate (size nv): a quaternion's three rotation tangents.
    if (index >= joint.nv)
      Fail(path, "is out of range: joint '" + joint.name + "' has " + std::to_string(joint.nv) +
                     " velocity (tangent) coordinates, indexed from 0");
    SensitivityParameter p;
    p.kind = which == 'q' ? Kind::kInitialPosition : Kind::kInitialVelocity;
    p.index = joint.v_start + index;
    return p;
  }
  Fail(path, "names no joint of the scene (a free body's joint is named after the body)");
}

std::vector<std::string> SplitSensitivityPaths(const std::vector<std::string>& arguments) {
  return SplitCommaSeparated(arguments, [](const std::string& argument) {
    throw InputError({"--sensitivities", 0, 0},
                     "empty parameter path in '" + argument + "' (" + kAccepted + ")");
  });
}

std::vector<SensitivityParameter> ParseSensitivityPaths(const multibody::Model& model,
                                                        const std::vector<std::string>& paths) {
  std::vector<SensitivityParameter> out;
  for (size_t i = 0; i < paths.size(); ++i) {
    for (size_t k = 0; k < i; ++k)
      if (paths[k] == paths[i]) Fail(paths[i], "is given twice");
    out.push_back(ParseSensitivityPath(model, paths[i]));
  }
  return out;
}

}  // namespace csim::sim

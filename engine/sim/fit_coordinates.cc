#include "engine/sim/fit_coordinates.h"

#include <string>

#include "engine/common/input_error.h"

namespace csim::sim {

FitCoordinates DescribeCoordinates(const multibody::Model& model) {
  FitCoordinates c;
  c.rotation.assign(model.nv, false);
  c.q_index.assign(model.nv, -1);
  c.joint.assign(model.nv, -1);
  for (size_t j = 0; j < model.joints.size(); ++j) {
    const multibody::Joint& joint = model.joints[j];
    if (joint.v_start < 0) continue;
    for (int k = 0; k < joint.nv; ++k) {
      const int i = joint.v_start + k;
      c.joint[i] = static_cast<int>(j);
      switch (joint.type) {
        case multibody::JointType::kRevolute:
          c.rotation[i] = true;
          c.q_index[i] = joint.q_start + k;
          break;
        case multibody::JointType::kPrismatic:
          c.q_index[i] = joint.q_start + k;
          break;
        case multibody::JointType::kPlanar:  // x, y, angle
          c.rotation[i] = k == 2;
          c.q_index[i] = joint.q_start + k;
          break;
        case multibody::JointType::kBall:
          c.rotation[i] = true;
          break;
        case multibody::JointType::kFree:  // q [quaternion; position], v [angular; linear]
          c.rotation[i] = k < 3;
          if (k >= 3) c.q_index[i] = joint.q_start + k + 1;
          break;
        default:
          break;
      }
    }
  }
  return c;
}

ObservedCoordinates SelectObservedCoordinates(const multibody::Model& model,
                                              const FitCoordinates& coordinates,
                                              const TrajectoryFitOptions& options) {
  ObservedCoordinates observed;
  observed.joint.assign(model.joints.size(), options.observe.empty());
  for (const std::string& name : options.observe) {
    const int j = model.FindJoint(name);
    if (j < 0)
      throw InputError({"--observe", 0, 0}, "'" + name + "' names no joint of the scene (a "
                                            "free body's joint is named after the body)");
    if (model.joints[j].v_start < 0)
      throw InputError({"--observe", 0, 0}, "'" + name + "' is a joint without coordinates "
                                            "(fixed or prescribed): nothing to observe");
    if (observed.joint[j]) throw InputError({"--observe", 0, 0}, "'" + name + "' is given twice");
    observed.joint[j] = true;
  }
  for (int i = 0; i < model.nv; ++i)
    if (coordinates.joint[i] >= 0 && observed.joint[coordinates.joint[i]])
      observed.index.push_back(i);
  observed.weight.resize(observed.index.size());
  for (size_t o = 0; o < observed.index.size(); ++o)
    observed.weight[o] = 1.0 / (coordinates.rotation[observed.index[o]] ? options.sigma_angle
                                                                         : options.sigma_position);
  return observed;
}

}  // namespace csim::sim

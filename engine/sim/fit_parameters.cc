#include "engine/sim/fit_parameters.h"

#include <cmath>

#include "engine/common/input_error.h"
#include "engine/math/rotation.h"
#include "engine/multibody/configuration_tangent.h"
#include "engine/sim/fit_messages.h"
#include "engine/sim/sensitivity_paths.h"

namespace csim::sim {
namespace {

using integrator::SensitivityParameter;

bool IsInitialState(const SensitivityParameter& p) {
  return p.kind == SensitivityParameter::Kind::kInitialPosition ||
         p.kind == SensitivityParameter::Kind::kInitialVelocity;
}

bool IsGiven(const std::vector<FitParameter>& params, const std::string& path) {
  for (const FitParameter& p : params)
    if (p.path == path) return true;
  return false;
}

// --fit-initial-state: every joint's q[k] and v[k] that --param does not name already.
void AddEveryInitialCoordinate(const multibody::Model& model,
                               std::vector<FitParameter>* initial_state) {
  for (const multibody::Joint& joint : model.joints) {
    if (joint.v_start < 0) continue;
    for (const char* which : {"q", "v"}) {
      for (int k = 0; k < joint.nv; ++k) {
        FitParameter param;
        param.path = "joints." + joint.name + "." + which + "[" + std::to_string(k) + "]";
        param.initial_q = which[0] == 'q';
        param.initial_v = !param.initial_q;
        param.coordinate = joint.v_start + k;
        if (!IsGiven(*initial_state, param.path)) initial_state->push_back(param);
      }
    }
  }
}

// The offset of `joint` (free or ball) in run `run`, if any of its q[0..2] is fitted there.
bool FindRotationOffset(const multibody::Joint& joint, const std::vector<FitParameter>& params,
                        int run, const std::vector<int>& columns, RotationOffset* rot) {
  rot->right = joint.type == multibody::JointType::kBall;
  bool any = false;
  for (int a = 0; a < 3; ++a) {
    rot->param[a] = rot->column[a] = -1;
    for (size_t c = 0; c < columns.size(); ++c) {
      if (columns[c] < 0) continue;  // another offset's tangent, no parameter
      const FitParameter& param = params[columns[c]];
      if (param.run == run && param.initial_q && param.coordinate == joint.v_start + a) {
        rot->param[a] = columns[c];
        rot->column[a] = static_cast<int>(c);
        any = true;
      }
    }
  }
  return any;
}

}  // namespace

RequestedParameters ParseFitParameters(const multibody::Model& model,
                                       const TrajectoryFitOptions& options) {
  RequestedParameters requested;
  for (const std::string& path : options.parameters) {
    SensitivityParameter parsed;
    try {
      parsed = ParseSensitivityPath(model, path);
    } catch (const InputError& error) {
      RefuseParameter(error.message());
    }
    FitParameter param;
    param.path = path;
    if (IsInitialState(parsed)) {
      param.initial_q = parsed.kind == SensitivityParameter::Kind::kInitialPosition;
      param.initial_v = !param.initial_q;
      param.coordinate = parsed.index;
      requested.initial_state.push_back(param);
    } else {
      requested.shared.push_back(param);
    }
  }
  if (options.fit_initial_state) AddEveryInitialCoordinate(model, &requested.initial_state);
  return requested;
}

double SharedStartValue(const multibody::Model& model, const std::string& path) {
  // The parsed path names the value (ParseSensitivityPath accepted it before).
  const SensitivityParameter p = ParseSensitivityPath(model, path);
  if (p.kind == SensitivityParameter::Kind::kBodyMass) return model.bodies[p.index].mass;
  if (p.kind != SensitivityParameter::Kind::kMaterial) return std::nan("");
  // Material -1 is the built-in default material (materials.default).
  const geometry::Material material =
      p.index >= 0 && p.index < static_cast<int>(model.materials.size())
          ? model.materials[p.index]
          : geometry::Material{};
  switch (p.contact) {
    case solver::ContactParameter::kMu:
      return material.friction;
    case solver::ContactParameter::kDissipationTime:
      return material.dissipation_time;
    case solver::ContactParameter::kHuntCrossley:
      return material.hunt_crossley;
    case solver::ContactParameter::kStiffness:
      return material.stiffness;
    default:
      return std::nan("");
  }
}

std::vector<RotationOffset> AddRotationOffsets(const multibody::Model& model,
                                               const std::vector<FitParameter>& params,
                                               int run, std::vector<int>* columns,
                                               std::vector<std::string>* paths) {
  std::vector<RotationOffset> rotations;
  for (const multibody::Joint& joint : model.joints) {
    const bool ball = joint.type == multibody::JointType::kBall;
    if (joint.v_start < 0 || (!ball && joint.type != multibody::JointType::kFree)) continue;
    RotationOffset rot;
    if (!FindRotationOffset(joint, params, run, *columns, &rot)) continue;
    for (int a = 0; a < 3; ++a) {
      if (rot.column[a] >= 0) continue;
      rot.column[a] = static_cast<int>(columns->size());
      columns->push_back(-1);
      paths->push_back("joints." + joint.name + ".q[" + std::to_string(a) + "]");
    }
    rotations.push_back(rot);
  }
  return rotations;
}

Eigen::Matrix3d RotationJacobian(const Eigen::Vector3d& d, bool right) {
  const Eigen::Matrix3d K = math::Skew(right ? Eigen::Vector3d(-d) : d);
  const double a = d.norm();
  if (a < 1e-8) return Eigen::Matrix3d::Identity() + 0.5 * K + K * K / 6.0;
  return Eigen::Matrix3d::Identity() + (1.0 - std::cos(a)) / (a * a) * K +
         (a - std::sin(a)) / (a * a * a) * K * K;
}

void ApplyRotationOffsets(const std::vector<RotationOffset>& rotations,
                          const Eigen::VectorXd& p, Eigen::MatrixXd* S) {
  for (const RotationOffset& rot : rotations) {
    // The offset's columns through the rotation's Jacobian (the tangent columns themselves
    // are not parameters' columns any more).
    Eigen::Vector3d delta = Eigen::Vector3d::Zero();
    for (int a = 0; a < 3; ++a)
      if (rot.param[a] >= 0) delta[a] = p[rot.param[a]];
    const Eigen::Matrix3d J = RotationJacobian(delta, rot.right);
    Eigen::MatrixXd tangent(S->rows(), 3);
    for (int a = 0; a < 3; ++a) tangent.col(a) = S->col(rot.column[a]);
    const Eigen::MatrixXd offset = tangent * J;
    for (int a = 0; a < 3; ++a)
      if (rot.param[a] >= 0) S->col(rot.column[a]) = offset.col(a);
  }
}

void InitialStateAt(const multibody::Model& model, const FitCoordinates& coordinates,
                    const std::vector<FitParameter>& params, const std::vector<int>& columns,
                    const Eigen::VectorXd& q_ref, const Eigen::VectorXd& v_ref,
                    const Eigen::VectorXd& p, Eigen::VectorXd* q0, Eigen::VectorXd* v0) {
  // First the rotation offsets, a retraction from q_ref ...
  Eigen::VectorXd delta = Eigen::VectorXd::Zero(v_ref.size());
  for (int j : columns) {
    if (j < 0) continue;
    const FitParameter& param = params[j];
    if (param.initial_q && coordinates.q_index[param.coordinate] < 0)
      delta[param.coordinate] = p[j];
  }
  *q0 = q_ref;
  if (!delta.isZero(0.0)) {
    q0->resize(q_ref.size());
    multibody::RetractConfiguration(model, q_ref, delta, q0);
  }
  // ... then the coordinates that are set outright.
  *v0 = v_ref;
  for (int j : columns) {
    if (j < 0) continue;
    const FitParameter& param = params[j];
    if (param.initial_q && coordinates.q_index[param.coordinate] >= 0)
      (*q0)[coordinates.q_index[param.coordinate]] = p[j];
    if (param.initial_v) (*v0)[param.coordinate] = p[j];
  }
}

}  // namespace csim::sim

#include "engine/sim/settings.h"

namespace csim::sim {

bool NamedIntegrator(const std::string& name, IntegratorSettings* out) {
  struct Named { const char* name; double theta, theta_q; };
  static const Named kSchemes[] = {{"explicit_euler", 0.0, 0.0},
                                   {"symplectic_euler", 0.0, 1.0},
                                   {"implicit_euler", 1.0, 1.0},
                                   {"midpoint", 0.5, 0.5}};
  for (const Named& s : kSchemes) {
    if (name == s.name) {
      *out = {s.name, s.theta, s.theta_q};
      return true;
    }
  }
  return false;
}

const char* ContactModelName(ContactModel model) {
  switch (model) {
    case ContactModel::kSap: return "sap";
    case ContactModel::kLagged: return "lagged";
    case ContactModel::kLaggedRegularized: return "lagged_regularized";
    case ContactModel::kSimilar: return "similar";
  }
  return "unknown";
}

bool ParseContactModel(const std::string& name, ContactModel* out) {
  for (ContactModel m : {ContactModel::kSap, ContactModel::kLagged,
                         ContactModel::kLaggedRegularized, ContactModel::kSimilar}) {
    if (name == ContactModelName(m)) {
      *out = m;
      return true;
    }
  }
  return false;
}

}  // namespace csim::sim

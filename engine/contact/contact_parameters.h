#pragma once
// Scene-wide contact settings the problem builder needs (the contact layer sits below
// sim/, so it takes this plain struct rather than sim::Settings). Defaults equal
// scene-format.md's.

namespace csim::contact {

/// Which constraint a point contact becomes (scene-format.md settings.contact_model).
enum class ContactModelKind {
  kSap,                ///< SapFrictionConeConstraint (math.md §2-§3)
  kLagged,             ///< SapHuntCrossleyConstraint, lagged, eps_s = v_s (math.md §6.6)
  kLaggedRegularized,  ///< lagged, eps_s = max(v_s, mu sigma w n0) ([ICF] eq. 44)
  kSimilar,            ///< SapHuntCrossleyConstraint, similar, eps_s = v_s (math.md §6.7)
};

/// Where a contact's Delassus estimate w comes from (scene-format.md
/// settings.delassus_estimate; contact_problem_builder.h says why).
enum class DelassusEstimate {
  kArticulated,  ///< [P]'s exact per-tree blocks on articulated trees, Drake's elsewhere
  kDiagonal,     ///< Drake's diagonal-of-A recipe everywhere (math.md 3.3)
};

struct ContactParameters {
  double near_rigid_threshold = 1.0;  ///< beta [1] of the near-rigid rule (SAP eq. 29)
  double stiction_sigma = 1.0e-3;     ///< sigma [1]: R_t = sigma w (SAP eq. 30)
  double contact_margin = 1.0e-3;     ///< [m] pairs closer than this enter with phi0 > 0
  ContactModelKind model = ContactModelKind::kSap;
  double stiction_tolerance = 1.0e-4;  ///< v_s [m/s] of the Hunt & Crossley models
  /// theta_q [1] of the integrator's position update q = q0 + dt N v^theta_q, which the
  /// Hunt & Crossley models' gap prediction follows (SapHuntCrossleyParameters).
  double position_theta = 1.0;
  DelassusEstimate delassus = DelassusEstimate::kArticulated;
};

}  // namespace csim::contact

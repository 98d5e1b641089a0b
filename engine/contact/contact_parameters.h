#pragma once
// The scene's contact settings and what the problem builder reads. The contact layer sits
// below sim/, so sim::Settings embeds ContactSettings rather than the other way round: the
// defaults of these settings keys are defined here.

#include <limits>

namespace csim::contact {

/// settings.contact_model: which constraint a point contact becomes.
enum class ContactModel {
  kSap,                ///< `sap`: SapFrictionConeConstraint (docs/design/contact-models.md §2)
  kLagged,             ///< `lagged`: SapHuntCrossleyConstraint, eps_s = v_s (docs/design/contact-models.md §3.6)
  kLaggedRegularized,  ///< `lagged_regularized`: eps_s = max(v_s, mu sigma w n0) ([ICF] eq. 44)
  kSimilar,            ///< `similar`: SapHuntCrossleyConstraint, eps_s = v_s (docs/design/contact-models.md §3.7)
};

/// settings.delassus_estimate: where a contact's Delassus estimate w comes from
/// (contact_problem_builder.h says why).
enum class DelassusEstimate {
  kArticulated,  ///< `articulated`: [P]'s exact per-tree blocks on trees, Drake's elsewhere
  kDiagonal,     ///< `diagonal`: Drake's diagonal-of-A recipe everywhere (docs/design/sap-problem.md §4)
};

/// settings.contact_surface: how a hydroelastic contact surface's polygons become
/// constraints (docs/design/hydroelastic.md).
enum class ContactSurfaceKind {
  kPolygon,   ///< `polygon`: one point constraint per polygon, at its area centroid
  kTriangle,  ///< `triangle`: one per triangle of the fan about each polygon's centroid
};

/// The contact keys of the scene's settings, field for key.
struct ContactSettings {
  ContactModel contact_model = ContactModel::kSap;
  double near_rigid_threshold = 1.0;   ///< beta [1] of the near-rigid rule (SAP eq. 29)
  double stiction_sigma = 1.0e-3;      ///< sigma [1]: R_t = sigma w (SAP eq. 30)
  double stiction_tolerance = 1.0e-4;  ///< v_s [m/s] of the Hunt & Crossley models
  double contact_margin = 1.0e-3;      ///< [m] pairs closer than this enter with phi0 > 0
  DelassusEstimate delassus_estimate = DelassusEstimate::kArticulated;
  ContactSurfaceKind contact_surface = ContactSurfaceKind::kPolygon;
};

/// What ContactProblemBuilder::Build reads: the scene's contact settings and the
/// integrator's theta_q, which the Hunt & Crossley models' gap prediction follows.
struct ContactParameters : ContactSettings {
  /// theta_q [1] of settings.integrator; no default of its own (sim::ContactParametersFor).
  double position_theta = std::numeric_limits<double>::quiet_NaN();
};

}  // namespace csim::contact

#pragma once
// Scene-wide contact settings the problem builder needs (the contact layer sits below
// sim/, so it takes this plain struct rather than sim::Settings). Defaults equal
// scene-format.md's.

namespace csim::contact {

struct ContactParameters {
  double near_rigid_threshold = 1.0;  ///< beta [1] of the near-rigid rule (SAP eq. 29)
  double stiction_sigma = 1.0e-3;     ///< sigma [1]: R_t = sigma w (SAP eq. 30)
  double contact_margin = 1.0e-3;     ///< [m] pairs closer than this enter with phi0 > 0
};

}  // namespace csim::contact

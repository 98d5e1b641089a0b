#pragma once
// Derivatives of one contact's impulse gamma(v_c; p) with respect to its physical parameters p
// at a fixed contact velocity v_c, with the contact's region and its distance to the nearest
// region boundary (docs/design/sensitivities.md §2-§3). They are the per-contact part of
// dr/dp|_v, r(v) = A (v - v*) - J^T gamma(J v; p), which the implicit function theorem at a
// step's optimum turns into H dv/dp = -dr/dp|_v (docs/design/sensitivities.md §1).
//
// The derivatives follow the branch the constraint's Calc takes at v_c, chosen by the same
// region test (the friction cone's ClassifyFrictionCone for SAP, NormalImpulse's clamp for
// Hunt & Crossley), and the branches Prepare took for the per-step data (the near-rigid max,
// the max of eps_s, the clamps of n0): at a non-smooth point they are the one-sided derivative
// of the piece the solver uses. Everything Prepare derives from a parameter is accounted for
// (R_n and v_hat_n for SAP; k x(v), n0 and eps_s for Hunt & Crossley).
//
// Design choice: free functions over the two prepared contact kinds, not a virtual method of
// Constraint. Why: the parameters differ per kind (tau_d for SAP, d for Hunt & Crossley), the
// other kinds (limits, PD, joint friction, holonomic) have none of them, and the solver never
// needs the derivatives; the step-sensitivity pass that does (step_sensitivity.h,
// docs/design/sensitivities.md §5) walks the problem's contacts and tells their kinds.

#include <Eigen/Dense>

#include "engine/solver/sap_friction_cone_constraint.h"
#include "engine/solver/sap_hunt_crossley_constraint.h"

namespace csim::solver {

/// Where a contact is at v_c; the values are those of `/contacts/region`
/// (docs/design/sensitivities.md §3).
enum class ContactRegion {
  kNone = 0,      ///< gamma = 0 on a neighbourhood of v_c: no contact impulse at all
  kStiction = 1,  ///< SAP: y inside the cone (region I); H&C: slip within eps_s (StuckAt)
  kSliding = 2,   ///< SAP: region II; H&C: slip beyond eps_s
};

/// d gamma / d p at fixed v_c for one contact, in the contact frame [t1, t2, n] (3 values
/// each, gamma in [N s]). A parameter the kind does not read has zero derivatives.
struct ContactParameterDerivatives {
  ContactRegion region = ContactRegion::kNone;
  /// Dimensionless distance >= 0 of v_c to the nearest boundary between the pieces of
  /// Calc's gamma (docs/design/sensitivities.md §3): SAP, the sine of the angle between the
  /// un-projected impulse y and the nearest boundary of its cone region; Hunt & Crossley, the
  /// relative distance of the normal impulse's argument to its clamp v_hat. 0 on a boundary.
  double kink_distance = 0.0;
  /// H&C: the normal impulse's argument (u_n, or z for `similar`) is at or past v_hat, where
  /// the (.)_+ clamps make n = 0. SAP: region == kNone.
  bool normal_clamped = true;
  /// The normal compliance does not come from k: SAP's R_n is the near-rigid term of SAP
  /// eq. 29; H&C's k is the near-rigid value of an infinite stiffness. d/dk = 0 then.
  bool near_rigid = false;
  Eigen::Vector3d d_mu = Eigen::Vector3d::Zero();                ///< d gamma / d mu [N s]
  Eigen::Vector3d d_stiffness = Eigen::Vector3d::Zero();         ///< d gamma / d k [m s]
  Eigen::Vector3d d_dissipation_time = Eigen::Vector3d::Zero();  ///< SAP: d / d tau_d [N]
  Eigen::Vector3d d_hunt_crossley = Eigen::Vector3d::Zero();     ///< H&C: d / d d [N m]
  Eigen::Vector3d d_phi0 = Eigen::Vector3d::Zero();              ///< d gamma / d phi0 [N s/m]
};

/// The derivatives of the SAP contact's gamma at v_c (3 values, without the bias, as Calc)
/// with respect to mu, k, tau_d and phi0 (docs/design/sensitivities.md §2.1). Precondition:
/// c was prepared. Never allocates.
ContactParameterDerivatives CalcContactParameterDerivatives(const SapFrictionConeConstraint& c,
                                                            const double* v_c);

/// The derivatives of the Hunt & Crossley contact's gamma at v_c (3 values, without the bias,
/// as Calc) with respect to mu, k, d and phi0, for `lagged`, `lagged_regularized` and
/// `similar` (docs/design/sensitivities.md §2.2). Precondition: c was prepared. Never
/// allocates.
ContactParameterDerivatives CalcContactParameterDerivatives(const SapHuntCrossleyConstraint& c,
                                                            const double* v_c);

/// The piece of a contact's gamma at v_c alone: the region, kink distance and normal clamp
/// that CalcContactParameterDerivatives reports at the same v_c (the same tests, the same
/// values), without the parameter derivatives. For a caller that only tells pieces apart:
/// the chain's matching of its perturbed assemblies (trajectory_sensitivity.h) asks this of
/// every contact of every perturbed assembly, where the derivatives would cost five times
/// the region test. Never allocates.
struct ContactPiece {
  ContactRegion region = ContactRegion::kNone;
  double kink_distance = 0.0;
  bool normal_clamped = true;
};

/// The SAP contact's piece at v_c (3 values, as CalcContactParameterDerivatives). Without
/// with_kink_distance the kink distance (a few square roots) is not formed: left 0.
ContactPiece CalcContactPiece(const SapFrictionConeConstraint& c, const double* v_c,
                              bool with_kink_distance = true);

/// The Hunt & Crossley contact's piece at v_c (3 values, as CalcContactParameterDerivatives);
/// with_kink_distance as for SAP.
ContactPiece CalcContactPiece(const SapHuntCrossleyConstraint& c, const double* v_c,
                              bool with_kink_distance = true);

}  // namespace csim::solver

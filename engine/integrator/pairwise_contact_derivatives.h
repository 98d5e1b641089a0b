#pragma once
// The constraint part of a step's optimality residual,
//   r_C(v; x0) = -sum_c J_c(x0)^T gamma_c(J_c(x0) v; data_c(x0)),
// differentiated along a state direction D = (dq0, dv0) at fixed v, pair of geometries by
// pair (docs/design/sensitivities.md §6.3), for the steps whose every constraint is a point
// contact between lone free bodies, or a lone free body and the world: the clutter of
// manipulation scenes, balls, dropped tools.
//
// Why: the general rule (trajectory_sensitivity.h) differences the whole assembly, two per
// column: free motion, broad phase, every narrow phase, every constraint and the residual,
// each a step's worth of work. A contact's term of r_C depends only on its point, normal
// and phi0 (the narrow phase of its pair at the two bodies' poses), the levers from the
// bodies' origins, the Delassus estimate (A's diagonal, which rotates with a lone free body
// under theta = 0, and the levers) and, for the lagged Hunt & Crossley normal impulse, the
// normal velocity at the start. So the chain rule runs through those by hand:
// - Linearize, once a step: each contact's impulse and its derivatives with respect to its
//   contact velocity (-G, the solver's own Hessian), phi0 (closed form,
//   contact_parameter_derivatives.h), w (closed form in SAP's stiction and no-contact
//   regions, where gamma goes as 1 / w or is 0; else central differences of the constraint
//   alone) and v_n0 (central differences), at the solver's v_c, on the piece the solver is
//   on (§3's policy).
// - AddDerivative, per column: the point, normal and phi0 of every pair with a contact
//   that carries an impulse, in closed form where the narrow phase is one of material
//   points (AnalyticPoints: a box, mesh, sphere or capsule on a halfspace of the world, two
//   spheres, a sphere and a box), else by central differences of the pair's narrow phase
//   alone (geometry::CalcPairContacts at the perturbed poses, the pair's margin of the
//   nominal build); then the contact's term in closed form. The contact identities are the
//   manifold's point order, as the builder keys them; a differenced pair must have the
//   nominal number of points, else it is redone at h / 10, h / 100, h / 1000, then taken
//   one-sided from the side that matches (second order), or, when neither does, from the
//   points moving with their bodies (first order in phi0 for smooth shapes; flagged
//   unmatched). A contact in SAP's no-contact region has no term and no derivative: its
//   pair is not differenced at all.
// The free motion's part, A (v - v*), is not differenced: free_body_partials.h.

#include <vector>

#include <Eigen/Dense>

#include "engine/contact/contact_parameters.h"
#include "engine/geometry/contact_shape.h"
#include "engine/geometry/point_contact.h"
#include "engine/integrator/contact_step.h"
#include "engine/math/spatial.h"
#include "engine/multibody/model.h"
#include "engine/solver/contact_parameter_derivatives.h"
#include "engine/solver/step_sensitivity.h"

namespace csim::integrator {

class PairwiseContactDerivatives {
 public:
  /// A contact point's derivative along a direction: of its point [m], unit normal and
  /// phi0 [m] (per unit of the direction's step).
  struct PointDerivative {
    Eigen::Vector3d p = Eigen::Vector3d::Zero(), n = Eigen::Vector3d::Zero();
    double phi0 = 0.0;
  };

  /// The collision shapes of `model` (every spec that collides), made once.
  explicit PairwiseContactDerivatives(const multibody::Model& model);

  /// Per chunk of columns: a pair's perturbed points and their derivatives.
  struct Scratch {
    std::vector<geometry::PointContact> plus, minus, near;
    std::vector<PointDerivative> points;
  };

  /// Reads the nominal step's contacts (its build `nominal`, the kinds per constraint of its
  /// problem) and says whether the rule covers the step: a model of lone free bodies
  /// (AllLoneFreeBodies) and every constraint a point contact, factored
  /// (solver::PointContactJacobian), of a SAP or Hunt & Crossley kind, from the narrow phase
  /// (no hydroelastic polygon), without a known velocity. Allocation free once warmed up.
  bool Prepare(const contact::ContactParameters& parameters, const ContactStepWorkspace& nominal,
               const std::vector<solver::ContactKind>& kind);

  /// Each contact's impulse and its partial derivatives at the solver's contact velocities
  /// v_c (of the nominal problem's rows) and the solution v, once a step after Prepare;
  /// state0 the step's start, nominal_ws the nominal free motion's workspace (the kinematics
  /// the build read), derivatives each contact constraint's parameter derivatives at v_c
  /// (solver::CalcContactParameterDerivatives; d_phi0 is read). Allocation free once warmed
  /// up.
  void Linearize(const ContactStepWorkspace& nominal, const StepWorkspace& nominal_ws, double dt,
                 const multibody::State& state0, const Eigen::VectorXd& v,
                 const Eigen::VectorXd& v_c,
                 const std::vector<solver::ContactParameterDerivatives>& derivatives);

  /// Whether the model is one the rule can cover (AllLoneFreeBodies): Prepare may accept
  /// its steps under theta = 0.
  bool covers_model() const { return lone_free_bodies_; }

  /// Whether the closed-form pairs take their derivative (default) or are differenced like
  /// the others: for a test that compares the two.
  void set_analytic_geometry(bool on) { analytic_geometry_ = on; }

  struct Outcome {
    int one_sided = 0;  ///< pairs differenced one-sided (the other side's narrow phase had
                        ///< another number of points at every step tried)
    int unmatched = 0;  ///< pairs whose both sides had another number of points
  };

  /// Adds d r_C / d x0 D (nv) at the fixed v to `dr`, the narrow phases differenced at the
  /// step h0 of the general rule (docs/design/sensitivities.md §6.2). The arguments as
  /// Linearize's, which must have run for this step.
  Outcome AddDerivative(const ContactStepWorkspace& nominal, const StepWorkspace& nominal_ws,
                        const multibody::State& state0, const Eigen::VectorXd& v,
                        const Eigen::Ref<const Eigen::VectorXd>& dq,
                        const Eigen::Ref<const Eigen::VectorXd>& dv0, double h0,
                        Scratch& scratch, Eigen::Ref<Eigen::VectorXd> dr) const;

 private:
  // How a pair's points move (AnalyticPoints).
  enum class Geometry { kDifferenced, kOnHalfspace, kSphereSphere, kSphereBox };
  // One geometry pair of the nominal build: its contacts are builder contacts
  // [first, first + count), each with its constraint (or -1).
  struct Pair {
    int geometry_a = -1, geometry_b = -1;
    int body_a = -1, body_b = -1;    // -1: the world
    int v_a = -1, v_b = -1;          // first velocity of the body's free joint
    int first = 0, count = 0;
    double margin = 0.0;             // the pair's margin in the nominal build [m]
    bool active = false;             // some contact has a term or a derivative (Linearize)
    Geometry geometry = Geometry::kDifferenced;
    int side = 0;                    // kOnHalfspace: the halfspace's; kSphereBox: the sphere's
    double radius = 0.0;             // kOnHalfspace: the other shape's rounding [m]
  };
  // A constrained contact at the step's solution (Linearize).
  struct ContactLinearization {
    Eigen::Matrix3d R = Eigen::Matrix3d::Identity();  // its frame [t1 t2 n], world
    Eigen::Vector3d f = Eigen::Vector3d::Zero();      // R gamma [N s], on B, world
    Eigen::Vector3d vel = Eigen::Vector3d::Zero();    // of B's point over A's, at v [m/s]
    Eigen::Vector3d vel0 = Eigen::Vector3d::Zero();   // the same at the start
    // Levers from the origins of the bodies with velocities, in the builder's clique order
    // (A then B), to the point [m].
    Eigen::Vector3d lever[2] = {Eigen::Vector3d::Zero(), Eigen::Vector3d::Zero()};
    Eigen::Matrix3d dgamma_dvc = Eigen::Matrix3d::Zero();  // -G
    Eigen::Vector3d dgamma_dphi0 = Eigen::Vector3d::Zero();
    Eigen::Vector3d dgamma_dw = Eigen::Vector3d::Zero();
    Eigen::Vector3d dgamma_dvn0 = Eigen::Vector3d::Zero();  // lagged H&C only
    bool active = false;  // any of the above moves r_C
  };
  // The pair's points at x0 + s D (s a signed step) into `points`; false when they are not
  // as many as the nominal ones.
  bool PerturbedPoints(const Pair& pair, const StepWorkspace& nominal_ws,
                       const Eigen::Ref<const Eigen::VectorXd>& dq, double s,
                       std::vector<geometry::PointContact>* points) const;

  // The points' derivatives of a pair whose Geometry is a closed form, into `dpoint`; false
  // where the closed form does not hold (a sphere's centre inside the box).
  bool AnalyticPoints(const Pair& pair, const std::vector<geometry::PointContact>& contacts,
                      const StepWorkspace& nominal_ws, const Eigen::Ref<const Eigen::VectorXd>& dq,
                      std::vector<PointDerivative>& dpoint) const;

  std::vector<geometry::ContactShape> shapes_;  // of the colliding specs
  std::vector<int> shape_of_;                  // per collision spec: into shapes_, or -1
  std::vector<math::RigidTransform> X_BG_;     // per collision spec
  bool lone_free_bodies_;                      // the model's, AllLoneFreeBodies (free_body_partials.h)
  std::vector<int> body_v_start_;              // per body: its joint's first velocity
  std::vector<Pair> pairs_;                    // of the prepared step
  std::vector<ContactLinearization> linear_;   // per constraint of the linearized step
  bool analytic_geometry_ = true;
  std::vector<solver::ContactKind> kind_;      // per constraint of the prepared step
};

}  // namespace csim::integrator

#pragma once
// The constraint part of a step's optimality residual,
//   r_C(v; x0) = -sum_c J_c(x0)^T gamma_c(J_c(x0) v; data_c(x0)),
// differentiated along a state direction D = (dq0, dv0) at fixed v, pair of geometries by
// pair (docs/design/sensitivities.md §6.3-§6.4), for the steps whose every constraint is a
// point contact between bodies the rule covers, or one and the world: lone free bodies (the
// clutter of manipulation scenes, balls, dropped tools) and fixed-axis bodies (pucks,
// sliders, wheels on an axle: fixed_axis_partials.h). A body's twist at its origin, in world
// axes, is a constant map of its velocities, (w, v_o) = T v_b: the identity for a lone free
// body, its joint's axes for a fixed-axis one (BodyMap).
//
// Why: the general rule (trajectory_sensitivity.h) differences the whole assembly, two per
// column: free motion, broad phase, every narrow phase, every constraint and the residual,
// each a step's worth of work. A contact's term of r_C depends only on its point, normal
// and phi0 (the narrow phase of its pair at the two bodies' poses), the levers from the
// bodies' origins, the Delassus estimate (A's diagonal, which rotates with a lone free body
// under theta = 0; a fixed-axis body's A, constant; and the levers) and, for the lagged Hunt
// & Crossley normal impulse, the normal velocity at the start. So the chain rule runs through those by hand:
// - Linearize, once a step: each contact's impulse and its derivatives with respect to its
//   contact velocity (-G, the solver's own Hessian), phi0 (closed form,
//   contact_parameter_derivatives.h), w (closed form in SAP's stiction and no-contact
//   regions, where gamma goes as 1 / w or is 0; else central differences of the constraint
//   alone) and v_n0 (central differences), at the solver's v_c, on the piece the solver is
//   on (§3's policy).
// - AddDerivative, per column: the point, normal and phi0 of every pair with a contact
//   that carries an impulse, in closed form where the narrow phase has one
//   (contact_point_derivatives.h: shapes on a halfspace of the world, two spheres, a sphere
//   and a box, two boxes), else by central differences of the pair's narrow phase
//   alone (geometry::CalcPairContacts at the perturbed poses, the pair's margin of the
//   nominal build); then the contact's term in closed form. The contact identities are the
//   manifold's point order, as the builder keys them; a differenced pair must have the
//   nominal number of points, else it is redone at h / 10, h / 100, h / 1000, then taken
//   one-sided from the side that matches (second order), or, when neither does, from the
//   points moving with their bodies (first order in phi0 for smooth shapes; flagged
//   unmatched). A contact in SAP's no-contact region has no term and no derivative: its
//   pair is not differenced at all.
// The free motion's part, A (v - v*), is not differenced: free_body_partials.h and
// fixed_axis_partials.h.

#include <vector>

#include <Eigen/Dense>

#include "engine/contact/contact_parameters.h"
#include "engine/geometry/contact_shape.h"
#include "engine/geometry/point_contact.h"
#include "engine/integrator/contact_point_derivatives.h"
#include "engine/integrator/contact_step.h"
#include "engine/math/spatial.h"
#include "engine/multibody/model.h"
#include "engine/solver/contact_parameter_derivatives.h"
#include "engine/solver/step_sensitivity.h"

namespace csim::integrator {

class PairwiseContactDerivatives {
 public:
  /// The collision shapes of `model` (every spec that collides), made once.
  explicit PairwiseContactDerivatives(const multibody::Model& model);

  /// Per chunk of columns: a pair's perturbed points and their derivatives.
  struct Scratch {
    std::vector<geometry::PointContact> plus, minus, near;
    std::vector<ContactPointDerivative> points;
  };

  /// Reads the nominal step's contacts (its build `nominal`, the kinds per constraint of its
  /// problem) and says whether the rule covers the step: a model the rule covers
  /// (covers_model), under theta = 0 if it has a lone free body, and every constraint a
  /// point contact of a SAP or Hunt & Crossley kind, from the narrow phase (no hydroelastic
  /// polygon), without a known velocity. Allocation free once warmed up.
  bool Prepare(const contact::ContactParameters& parameters, double theta,
               const ContactStepWorkspace& nominal, const std::vector<solver::ContactKind>& kind);

  /// Each contact's impulse and its partial derivatives at the solver's contact velocities
  /// v_c (of the nominal problem's rows) and the solution v, once a step after Prepare;
  /// state0 the step's start, kinematics those the build read at q0 (ProblemKinematics),
  /// derivatives each contact constraint's parameter derivatives at v_c
  /// (solver::CalcContactParameterDerivatives; d_phi0 is read). Returns false, and the step
  /// is not the rule's, when a contact's Delassus estimate is not the one the rule
  /// differentiates (the problem's w differs from its recipe's beyond rounding: an
  /// estimate this rule does not know). Allocation free once warmed up.
  bool Linearize(const ContactStepWorkspace& nominal, const multibody::Workspace& kinematics,
                 double dt, const multibody::State& state0, const Eigen::VectorXd& v,
                 const Eigen::VectorXd& v_c,
                 const std::vector<solver::ContactParameterDerivatives>& derivatives);

  /// Whether the model is one the rule can cover (AllPairwiseBodies): Prepare may accept
  /// its steps, under theta = 0 when it has a lone free body.
  bool covers_model() const { return covers_model_; }
  /// Whether the rule may take steps under this theta (covers_model, and theta = 0 when a
  /// lone free body needs it).
  bool covers(double theta) const { return covers_model_ && (theta == 0.0 || !any_free_); }

  /// Whether the closed-form pairs take their derivative (default) or are differenced like
  /// the others: for a test that compares the two.
  void set_analytic_geometry(bool on) { analytic_geometry_ = on; }

  struct Outcome {
    int one_sided = 0;  ///< pairs differenced one-sided (the other side's narrow phase had
                        ///< another number of points at every step tried)
    int unmatched = 0;  ///< pairs whose both sides had another number of points
  };

  /// Adds d r_C / d x0 D (nv) at the fixed v to `dr`, the narrow phases differenced at the
  /// step h0 of the general rule (docs/design/sensitivities.md §6.2). nominal and kinematics
  /// as Linearize's, which must have run for this step (it keeps what it read of the state
  /// and v).
  Outcome AddDerivative(const ContactStepWorkspace& nominal, const multibody::Workspace& kinematics,
                        const Eigen::Ref<const Eigen::VectorXd>& dq,
                        const Eigen::Ref<const Eigen::VectorXd>& dv0, double h0,
                        Scratch& scratch, Eigen::Ref<Eigen::VectorXd> dr) const;

 private:
  // How a body's velocities move it: its twist (w, v_o) at its origin, in world axes, is
  // T v.segment(v_start, nv); T the identity for a lone free body (identity), else
  // FixedAxisTwistMap. v_start = -1: no velocities (the world, welded or prescribed).
  struct BodyMap {
    int v_start = -1, nv = 0;
    bool identity = false;
    Eigen::Matrix<double, 6, Eigen::Dynamic, 0, 6, 6> T;
  };
  using Vector6 = Eigen::Matrix<double, 6, 1>;
  // The twist of body map m for the velocities (or tangent) x (nv of the model). Inline, a
  // template on x's expression: it runs for every side of every moving pair and column.
  template <typename Vector>
  static Vector6 Twist(const BodyMap& m, const Vector& x) {
    if (m.identity) return x.template segment<6>(m.v_start);
    return m.T * x.segment(m.v_start, m.nv);
  }
  // Whether x (nv of the model) is nonzero on body map m's velocities.
  template <typename Vector>
  static bool Moves(const BodyMap& m, const Vector& x) {
    if (m.identity) return x.template segment<6>(m.v_start).any();
    return x.segment(m.v_start, m.nv).any();
  }
  // One geometry pair of the nominal build: its contacts are builder contacts
  // [first, first + count), each with its constraint (or -1).
  struct Pair {
    int geometry_a = -1, geometry_b = -1;
    int body_a = -1, body_b = -1;    // -1: the world
    int v_a = -1, v_b = -1;          // first velocity of the body (BodyMap), -1 without
    int first = 0, count = 0;
    double margin = 0.0;             // the pair's margin in the nominal build [m]
    bool active = false;             // some contact has a term or a derivative (Linearize)
    PairForm form;                   // its points' closed form, if any
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
    // A contact with a fixed-axis body: its Delassus estimate in the general form
    // W = sum_x J_x C_x J_x^T (C_x = A_x^-1 or its diagonal), J_x = T_v - [r_x]x T_w the
    // point's Jacobian; per side Z_x = T_w C_x J_x^T, so that a lever's change dr moves W by
    // -[dr]x Z_x + Z_x^T [dr]x (and a free body's turn by its C's derivative).
    bool general_delassus = false;
    Eigen::Matrix3d W = Eigen::Matrix3d::Zero();
    Eigen::Matrix3d Z[2] = {Eigen::Matrix3d::Zero(), Eigen::Matrix3d::Zero()};
  };
  // The pair's points at x0 + s D (s a signed step) into `points`; false when they are not
  // as many as the nominal ones.
  // pose_tangent: the bodies' twists of dq (A, B).
  bool PerturbedPoints(const Pair& pair, const multibody::Workspace& kinematics,
                       const Vector6* pose_tangent, double s,
                       std::vector<geometry::PointContact>* points) const;

  std::vector<geometry::ContactShape> shapes_;  // of the colliding specs
  std::vector<int> shape_of_;                  // per collision spec: into shapes_, or -1
  std::vector<math::RigidTransform> X_BG_;     // per collision spec
  bool covers_model_ = false;                  // AllPairwiseBodies (fixed_axis_partials.h)
  bool any_free_ = false;                      // some body is a lone free body
  bool diagonal_delassus_ = false;             // the prepared step's estimate is the diagonal recipe
  std::vector<BodyMap> body_map_;              // per body
  // Per body, of the linearized step (Linearize, for the bodies of its pairs): its twist at
  // v and at the start, and, for a body in a contact with a fixed-axis body, the C of its
  // side of the Delassus estimate.
  std::vector<Vector6> twist_, twist0_;
  std::vector<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, 6, 6>> delassus_C_;
  std::vector<char> delassus_C_ready_;
  std::vector<Pair> pairs_;                    // of the prepared step
  std::vector<ContactLinearization> linear_;   // per constraint of the linearized step
  bool analytic_geometry_ = true;
  std::vector<solver::ContactKind> kind_;      // per constraint of the prepared step
};

}  // namespace csim::integrator

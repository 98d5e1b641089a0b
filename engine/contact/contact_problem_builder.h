#pragma once
// Builds the SAP contact problem of one step from the model, the kinematics at the start
// of the step and the free motion (CONTRIBUTING.md §4: the adapter between multibody and a
// solver that knows nothing of it; docs/design/conventions.md §2, docs/design/time-step.md §5,
// docs/design/sap-problem.md §3, docs/design/joint-limits.md).
//
//   cliques      one per tree with velocities, A block = A[tree, tree]
//   contacts     one constraint per point contact, of the kind ContactParameters::contact_model
//                names (SapFrictionConeConstraint for SAP, SapHuntCrossleyConstraint for
//                the Hunt & Crossley models, with the normal velocity at (q0, v0)), Jacobian
//                J_i = R_WC^T (J_Bc - J_Ac) split into its trees' column blocks; the known
//                motion of prescribed joints enters as the bias v_b = R_WC^T (v_Bc - v_Ac)
//                minus the part J_i v0 that the unknowns carry
//   joint limits one SapLimitConstraint per limited coordinate whose limit is within the
//                activation window of docs/design/joint-limits.md §1 (or already violated)
//   joint friction one SapJointFrictionConstraint per coordinate with a friction limit,
//                every step (docs/design/actuators-and-constraints.md §3), with the
//                diagonal-of-A estimate w = 1/A_jj as the limits
//   holonomic    one SapHolonomicConstraint per scene constraint that can act
//                (holonomic_constraint_builder.h)
// Each body widens settings.contact_margin for its own pairs by the distance it can cover
// within the step, (dt + tau_d,max) max(mu_max, 1) v_b, with v_b its fastest material
// point. This covers approach (no tunnelling at large time steps) and SAP's gliding gap
// (dt + tau_d) mu |v_t| of a sliding body (docs/design/sap-problem.md §5), which a fixed margin
// would cut, letting the body drop out of contact and be launched back by the speculative
// constraint when it returns. Bodies at rest keep the plain margin, so a settled pile pays nothing.
// Delassus estimate w of a contact on an articulated tree (one that is not a lone free body):
// [P]'s per-tree recipe (docs/design/sap-problem.md §4), W = sum over the contact's trees of
// J_t A_t^-1 J_t^T: on a tree the free motion factored densely (below the articulated-body
// threshold), from that factor and the contact's point Jacobian; on the others, with each
// body's J_b A^-1 J_b^T from the articulated-body factor in O(bodies) a step
// (ArticulatedBodySolver::InverseOperationalInertias). A lone free body's
// side keeps Drake's diagonal-of-A term, as do contacts between free bodies (the clutter)
// and joint limits. Why not Drake's recipe there: diag(A) in joint coordinates misjudges a
// long chain's contacts by several times (a mid-chain joint carries half the rope), and w
// sets the near-rigid stiffness and the friction regularization; on ropes dropped onto the
// floor Drake's recipe takes more Newton iterations (results/floor_rope.md,
// tools/floor_rope_study.py). A contact between two bodies
// of one tree sums the two bodies' blocks (the coupling term between them is left out: a
// larger w, a softer contact). settings.delassus_estimate = diagonal restores Drake's.
// Contacts between two objects that both lack velocities (world, welded or purely
// prescribed bodies) are reported by the geometry but cannot be resolved and are skipped.
// Stiction memory: after each solve, RememberStiction keeps the identities (geometry pair,
// point of its manifold) of the contacts that ended stuck (SAP: in the stiction region;
// Hunt & Crossley: slip within eps_s, SapHuntCrossleyConstraint::StuckAt); the next Build
// marks the same contacts was_stuck, the solver's warm start of the active set
// (sap_solver.h; of the Hunt & Crossley kinds only `lagged` offers a prediction).

#include <memory>
#include <vector>

#include <Eigen/Dense>

#include "engine/contact/articulated_clique_solver.h"
#include "engine/contact/contact_parameters.h"
#include "engine/contact/hydroelastic_contacts.h"
#include "engine/contact/holonomic_constraint_builder.h"
#include "engine/contact/material_combination.h"
#include "engine/geometry/collision_world.h"
#include "engine/math/spatial.h"
#include "engine/multibody/articulated_body.h"
#include "engine/multibody/model.h"
#include "engine/multibody/tree_topology.h"
#include "engine/multibody/workspace.h"
#include "engine/solver/contact_problem.h"
#include "engine/solver/sap_friction_cone_constraint.h"
#include "engine/solver/sap_hunt_crossley_constraint.h"
#include "engine/solver/sap_solver.h"

namespace csim::contact {

/// One contact of a step, for the recorder (output-format.md /contacts).
struct ContactReport {
  int body_a = -1, body_b = -1;                        ///< -1 world
  Eigen::Vector3d p_WC = Eigen::Vector3d::Zero();      ///< contact point, world [m]
  Eigen::Vector3d nhat_AB_W = Eigen::Vector3d::UnitZ();///< unit normal from A into B
  double phi0 = 0.0;                                   ///< signed distance at q0 [m]
  Eigen::Vector3d force_on_b_W = Eigen::Vector3d::Zero();  ///< gamma / dt in world [N]
  double slip_speed = 0.0;                             ///< |v_t| at the solution [m/s]
  /// The slip at which the step's regularized friction turns from stiction to sliding
  /// [m/s] ([ICF] sec. VII-E, VIII): SAP mu sigma w gamma_n (gamma_n at the solution), the
  /// Hunt & Crossley models their eps_s (SapHuntCrossleyConstraint::epsilon_s).
  double stiction_tolerance = 0.0;
  /// A hydroelastic polygon's contact surface in hydroelastic().surfaces() and its area
  /// [m^2]; -1 and 0 for a point contact.
  int surface = -1;
  double area = 0.0;
};

/// Inputs of one build: the state at the start of the step and the free motion.
struct StepInputs {
  double dt = 0.0;                         ///< [s]
  const multibody::Workspace* kinematics;  ///< CalcKinematics at (t0, q0, v0)
  const Eigen::VectorXd* q0;               ///< (nq)
  const Eigen::VectorXd* v0;               ///< (nv)
  const Eigen::VectorXd* v_star;           ///< (nv) free-motion velocity
  const multibody::BlockDiagonalMatrix* A;  ///< (nv, nv) SPD, one block per tree
  /// (nv) A's diagonal terms besides M's (integrator::StepWorkspace::A_diagonal_terms), for
  /// the Delassus estimate of contacts on articulated trees; null means none.
  const Eigen::VectorXd* A_diagonal_terms = nullptr;
  /// Per body: its tree's block of A is solved by the articulated-body recursions
  /// (integrator::StepWorkspace::articulated_body); null means none.
  const std::vector<bool>* articulated_body = nullptr;
  /// A's M was formed at *kinematics (theta = 0): the contact solve may then factor such a
  /// tree's Newton block by the recursions too (articulated_clique_solver.h).
  bool A_at_kinematics = false;
  /// Per block of A: the free motion's L D L^T factor of a dense block
  /// (integrator::StepWorkspace::A_factor; empty for the other blocks), for the Delassus
  /// estimate of contacts on small trees; null means none, and the articulated-body
  /// recursions give that estimate for every tree.
  const std::vector<Eigen::MatrixXd>* A_factor = nullptr;
};

class ContactProblemBuilder {
 public:
  /// Builds the collision world and the per-model constants once.
  explicit ContactProblemBuilder(const multibody::Model& model);

  /// Finds the contacts at the start of the step and fills `problem` (cleared first).
  /// Allocation free once the largest problem seen so far has been built.
  void Build(const multibody::Model& model, const ContactParameters& parameters,
             const StepInputs& in, solver::ContactProblem* problem);

  /// The contacts of the last Build with the forces and slip of the solve `result`.
  void Report(const solver::ContactProblem& problem, const solver::SapSolverResult& result,
              double dt, std::vector<ContactReport>* out) const;

  /// The joints' friction efforts of the solve `result` of the last Build into *effort (nv,
  /// model order): gamma / dt [N or N m] on each coordinate with friction, 0 on the others.
  /// Allocation free once *effort has the model's size.
  void ReportJointFriction(const solver::ContactProblem& problem,
                           const solver::SapSolverResult& result, double dt,
                           Eigen::VectorXd* effort) const;
  /// Whether the model has a coordinate with joint friction (Build adds its constraints).
  bool has_joint_friction() const { return !friction_dofs_.empty(); }

  /// The holonomic constraints' impulses of the solve `result` of the last Build
  /// (HolonomicConstraintBuilder::Report).
  void ReportHolonomic(const solver::ContactProblem& problem,
                       const solver::SapSolverResult& result, Eigen::VectorXd* impulse) const {
    holonomic_.Report(problem, result, impulse);
  }
  /// Whether the model has holonomic constraints (Build adds them).
  bool has_holonomic() const { return !holonomic_.empty(); }

  /// Records which contacts of the last Build ended the solve `result` in stiction, for the
  /// next Build's prediction (see the top of this file). Allocation free once warmed up.
  void RememberStiction(const solver::ContactProblem& problem,
                        const solver::SapSolverResult& result);

  /// Which bodies' blocks of A (the integrator's articulated ones, `articulated_body`) the
  /// next Build reads: all of them unless A_at_kinematics (theta = 0); then only those of
  /// lone free bodies, since every other articulated tree gets a clique solver and a
  /// matrix-free clique (solver::ContactProblem::AddMatrixFreeClique), so the integrator
  /// need not form its block (integrator::FormArticulatedBlocks). Allocation free once
  /// *need has the model's size.
  void BodiesNeedingA(const std::vector<bool>& articulated_body, bool A_at_kinematics,
                      std::vector<bool>* need) const;

  /// Point contacts of the last Build, in the geometry layer's order (by geometry pair),
  /// hydroelastic polygons included (hydroelastic_contacts.h).
  /// Identity of a point contact across steps: its geometry pair and its index within the
  /// pair's manifold (the geometry layer emits a pair's points contiguously, in a
  /// deterministic order).
  struct ContactKey {
    int geometry_a = -1, geometry_b = -1, point = 0;
    bool operator<(const ContactKey& o) const {
      return geometry_a != o.geometry_a ? geometry_a < o.geometry_a
             : geometry_b != o.geometry_b ? geometry_b < o.geometry_b
                                          : point < o.point;
    }
  };
  /// Per contact of the last Build (contacts()): its identity, and the index of its
  /// constraint in the problem (-1: skipped, both sides without velocities). For matching
  /// the contacts of two builds (integrator/trajectory_sensitivity.h).
  const std::vector<ContactKey>& contact_keys() const { return key_; }
  int contact_constraint(int i) const { return contact_constraint_[i]; }
  const std::vector<geometry::PointContact>& contacts() const { return contacts_; }
  /// The frame R_WC = [t1 t2 n] (ContactFrame) of contact i of the last Build that has a
  /// constraint (contact_constraint(i) >= 0).
  const Eigen::Matrix3d& contact_frame(int i) const { return R_WC_[i]; }
  /// Per body, the widening of the contact margin of its pairs in the last Build [m] (see
  /// the top of this file): a pair's margin is contact_margin plus its bodies' entries.
  const std::vector<double>& extra_margins() const { return extra_margin_; }
  /// For contact i of contacts(): its polygon in hydroelastic().polygon_contacts(), or -1.
  int polygon_of_contact(int i) const { return polygon_[i]; }
  /// The contact surfaces of the last Build.
  const HydroelasticContacts& hydroelastic() const { return hydro_; }
  const multibody::TreeTopology& topology() const { return topology_; }
  /// Wall time of the collision query (pose update, broad and narrow phase) of the last
  /// Build [s].
  double collision_seconds() const { return collision_seconds_; }
  /// Times the collision query of each Build (collision_seconds); off by default (0 s).
  void set_time_collision(bool on) { time_collision_ = on; }
  /// Pair counts of the collision query of the last Build (collision_world.h).
  const geometry::CollisionCounts& collision_counts() const { return world_.counts(); }

 private:
  void AddCliques(const multibody::Model& model, const StepInputs& in,
                  solver::ContactProblem* problem);
  void AddContacts(const multibody::Model& model, const ContactParameters& parameters,
                   const StepInputs& in, solver::ContactProblem* problem);
  void AddContact(const multibody::Model& model, const ContactParameters& parameters,
                  const StepInputs& in, int i, solver::ContactProblem* problem);
  // The constraint parameters of contact i of the last collision query, from its combined
  // material m: SAP's friction cone, or a Hunt & Crossley contact with the normal velocity
  // at (q0, v0).
  solver::SapFrictionConeParameters SapParametersFor(const CombinedMaterial& m,
                                                     const ContactParameters& parameters,
                                                     int i) const;
  solver::SapHuntCrossleyParameters HuntCrossleyParametersFor(const multibody::Model& model,
                                                              const CombinedMaterial& m,
                                                              const ContactParameters& parameters,
                                                              const StepInputs& in, int i) const;
  // Adds `constraint` (a contact kind) for contact c with its Jacobian: factored between
  // free bodies, else from the tree blocks Ja, Jb, views of J_a_ and J_b_ (Jb is overwritten
  // with Jb - Ja when one tree holds both bodies), with Delassus estimate w (0: the
  // problem's diagonal-of-A recipe).
  template <class Kind>
  void EmitContact(const geometry::PointContact& c, int tree_a, int tree_b, bool factored,
                   const Eigen::Matrix3d& R_WC, Eigen::Ref<Eigen::Matrix3Xd> Ja,
                   Eigen::Ref<Eigen::Matrix3Xd> Jb, const StepInputs& in, const Kind& constraint,
                   double w, solver::ContactProblem* problem);
  // w of a contact with tree blocks Ja, Jb (world axes, before Jb - Ja) when one of its
  // trees is articulated (see the top of this file), else 0.
  double TreeContactDelassus(const multibody::Model& model, const StepInputs& in,
                             const geometry::PointContact& c, int tree_a, int tree_b,
                             const Eigen::Ref<const Eigen::Matrix3Xd>& Ja,
                             const Eigen::Ref<const Eigen::Matrix3Xd>& Jb,
                             const solver::ContactProblem& problem);
  // Prepares the clique solvers of the step's articulated trees (see StepInputs) and marks
  // them active (clique_solver_active_).
  void PrepareCliqueSolvers(const multibody::Model& model, const StepInputs& in);
  // The body of contact c (not factored) on a tree with an active clique solver, when that
  // tree is the only one c touches (the other side the world or a body outside every tree);
  // else -1. Such a contact's Jacobian is W B_body for the tree's clique solver.
  int CliqueSolverBody(const geometry::PointContact& c, int tree_a, int tree_b) const;
  // Whether contact c on `body` (CliqueSolverBody; -1: no) has neither side with a known
  // velocity and the articulated Delassus estimate: then it is added as a body contact
  // (ContactProblem::AddBodyContact), W B_body alone, without its dense point Jacobian,
  // which nothing needs and which would be a large share of a long rope's step.
  bool IsBodyContact(const geometry::PointContact& c, int body,
                     const ContactParameters& parameters) const;
  // W of W B_body for contact c on `body` of its one tree (the body A side when tree_b < 0).
  Eigen::Matrix<double, 3, 6> BodyContactMap(const StepInputs& in, const geometry::PointContact& c,
                                             int body, int tree_b,
                                             const Eigen::Matrix3d& R_WC) const;
  // Declares constraint k, contact c on `body` (CliqueSolverBody; -1: nothing to declare),
  // as W B_body beside its dense Jacobian, for that tree's clique solver.
  void AddBodyJacobian(const StepInputs& in, const geometry::PointContact& c, int body,
                       int tree_b, const Eigen::Matrix3d& R_WC, int k,
                       solver::ContactProblem* problem) const;
  // Body b's term J_b A^-1 J_b^T at world point p (3 x 3, world axes) from omega_.
  Eigen::Matrix3d BodyDelassus(const StepInputs& in, int b, const Eigen::Vector3d& p_W) const;
  // Adds J A_t^-1 J^T to *W for a contact point on `tree` with point Jacobian J (its tree
  // block, world axes) when the free motion factored that tree's block of A densely
  // (StepInputs::A_factor) and J was formed; returns false, adding nothing, otherwise.
  bool AddDenseTreeDelassus(const StepInputs& in, int tree,
                            const Eigen::Ref<const Eigen::Matrix3Xd>& J, Eigen::Matrix3d* W);
  void AddJointLimits(const multibody::Model& model, const StepInputs& in,
                      solver::ContactProblem* problem) const;
  // One SapJointFrictionConstraint per entry of friction_dofs_, noting its index in
  // friction_constraint_.
  void AddJointFriction(solver::ContactProblem* problem);
  // The point Jacobian of p_W on body b (in a tree) on its tree's columns, world axes.
  void TreeBlock(const multibody::Model& model, const StepInputs& in, int b,
                 const Eigen::Vector3d& p_W, Eigen::Ref<Eigen::Matrix3Xd> J) const;
  // Velocity of point p_W of body b that the unknowns do not carry (prescribed joints on
  // its path to the root, or a body outside every tree); J_tree is b's tree block of the
  // point Jacobian when b is in a tree.
  Eigen::Vector3d KnownVelocity(const multibody::Model& model, const StepInputs& in, int b,
                                const Eigen::Vector3d& p_W,
                                const Eigen::Ref<const Eigen::Matrix3Xd>& J_tree) const;
  // Whether KnownVelocity can be nonzero: body b (-1: the world) is outside every tree or
  // has a prescribed joint on its path to the root. Otherwise the unknowns carry all of
  // it (total - J_tree v0 would only add round-off).
  bool HasKnownVelocity(int b) const {
    return b >= 0 && (topology_.body_tree[b] < 0 || moved_by_prescribed_[b]);
  }

  geometry::CollisionWorld world_;
  ContactModel last_model_ = ContactModel::kSap;  ///< of the last Build
  multibody::TreeTopology topology_;
  std::vector<geometry::Material> spec_material_;  ///< material of each collision spec
  std::vector<geometry::PointContact> contacts_;   ///< of the last Build
  /// Per contact of the last Build: its polygon in hydro_.polygon_contacts(), -1 for a
  /// point contact of the narrow phase.
  std::vector<int> polygon_;
  std::vector<geometry::PointContact> point_contacts_;  ///< the narrow phase's, before merging
  HydroelasticContacts hydro_;                     ///< the contact surfaces' polygons
  std::vector<int> contact_constraint_;            ///< constraint index per contact, -1 skipped
  std::vector<Eigen::Matrix3d> R_WC_;              ///< contact frames [t1 t2 n] per contact
  std::vector<Eigen::Vector3d> bias_C_;            ///< v_b per contact, contact frame
  /// Fills extra_margin_ for the step (see the top of this file).
  void CalcExtraMargins(const StepInputs& in);
  /// contacts_ and polygon_ from the narrow phase's point_contacts_ and hydro_'s polygons.
  void MergeContacts();
  /// beta of contact i: the setting's, or its polygon's share of its patch's
  /// (hydroelastic_contacts.h).
  double NearRigidThreshold(const ContactParameters& parameters, int i) const {
    return polygon_[i] >= 0 ? hydro_.polygon_contacts()[polygon_[i]].near_rigid_threshold
                            : parameters.near_rigid_threshold;
  }

  std::vector<ContactKey> key_;                    ///< per contact of the last Build
  std::vector<ContactKey> stuck_;                  ///< sorted: in stiction after the last solve
  std::vector<char> was_stuck_;                    ///< per contact of this Build: in stuck_

  std::vector<char> free_root_;                    ///< per body: the root of its tree on a free
                                                   ///< joint with world-aligned velocities, the
                                                   ///< tree's only velocities
  std::vector<char> moved_by_prescribed_;          ///< per body: a prescribed joint on its
                                                   ///< path to the root
  std::vector<double> extra_margin_;               ///< per body, this step [m]
  std::vector<double> body_radius_;                ///< max distance of collision geometry
                                                   ///< from the body origin [m]
  double max_dissipation_time_ = 0.0;              ///< over all material pairs [s]
  double max_friction_ = 0.0;                      ///< over all material pairs [1]
  int max_tree_nv_ = 0;
  double collision_seconds_ = 0.0;                 ///< of the last Build [s]
  bool time_collision_ = false;                    ///< see set_time_collision
  /// Two or more geometries collide: else no pair can touch (a robot without collision
  /// geometry), and the step skips the collision query with its poses and margins.
  bool can_collide_ = false;
  Eigen::Matrix3Xd J_a_, J_b_;                     ///< (3, max_tree_nv) scratch
  Eigen::Matrix<double, Eigen::Dynamic, 3> A_inverse_JT_;  ///< (max_tree_nv, 3) scratch
  // Delassus estimate on articulated trees (see the top of this file).
  std::vector<int> articulated_tree_root_;         ///< the roots of those trees
  std::vector<bool> articulated_tree_body_;        ///< per body: in a tree that is not a lone
                                                   ///< free body
  multibody::ArticulatedBodySolver tree_solver_;   ///< over those bodies
  std::vector<math::Matrix6> omega_;               ///< per body: J_b A^-1 J_b^T, body axes
  bool omega_current_ = false;                     ///< omega_ is this Build's
  bool omega_valid_ = false;                       ///< its factorization succeeded
  Eigen::VectorXd no_diagonal_terms_;              ///< (nv) zeros
  // Newton blocks of articulated trees (articulated_clique_solver.h), made on first use.
  std::vector<std::unique_ptr<ArticulatedCliqueSolver>> clique_solvers_;  ///< per tree
  std::vector<char> clique_solver_active_;         ///< per tree: registered this Build
  Eigen::MatrixXd J_limit_;                        ///< (2, max_tree_nv) scratch
  /// A coordinate with joint friction: its index in v, its tree, its limit.
  struct FrictionDof {
    int dof = -1, tree = -1;
    double friction = 0.0;  ///< f_s [N or N m] > 0
  };
  std::vector<FrictionDof> friction_dofs_;         ///< in v order, from the model
  std::vector<int> friction_constraint_;           ///< per friction_dofs_ entry: its
                                                   ///< constraint index in the last Build
  Eigen::VectorXd A_diagonal_;                     ///< (max_tree_nv) a matrix-free clique's diag(A)
  HolonomicConstraintBuilder holonomic_;           ///< the scene's constraints
};

/// The contact frame R_WC = [t1 t2 n] of a unit normal n (right-handed; t1 = n x e / |n x e|
/// with e the coordinate axis least aligned with n, t2 = n x t1: a deterministic function of
/// n, smooth wherever that axis stays the same).
Eigen::Matrix3d ContactFrame(const Eigen::Vector3d& n);

}  // namespace csim::contact

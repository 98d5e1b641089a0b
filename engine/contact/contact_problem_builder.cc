#include "engine/contact/contact_problem_builder.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <tuple>

#include "engine/common/check.h"
#include "engine/contact/collision_setup.h"
#include "engine/contact/material_combination.h"
#include "engine/multibody/jacobians.h"
#include "engine/solver/dense_ldlt.h"
#include "engine/solver/sap_friction_cone_constraint.h"
#include "engine/solver/sap_hunt_crossley_constraint.h"
#include "engine/solver/sap_joint_friction_constraint.h"
#include "engine/solver/sap_limit_constraint.h"

namespace csim::contact {
namespace {

using Eigen::Matrix3d;
using Eigen::Vector3d;
using multibody::Model;

geometry::Material MaterialOf(const Model& model, const geometry::Geometry& g) {
  return g.material >= 0 ? model.materials[g.material] : geometry::Material{};
}

// Radius of a sphere about the geometry frame's origin that contains the shape [m].
double BoundingRadius(const geometry::Geometry& g) {
  using geometry::ShapeType;
  const Vector3d& s = g.size;
  switch (g.type) {
    case ShapeType::kSphere: return s[0];
    case ShapeType::kBox: return 0.5 * s.norm();
    case ShapeType::kCylinder: return std::hypot(s[0], 0.5 * s[1]);
    case ShapeType::kCapsule: return s[0] + 0.5 * s[1];
    case ShapeType::kEllipsoid: return s.maxCoeff();
    case ShapeType::kHalfspace: return 0.0;
    case ShapeType::kMesh: {
      double r = 0.0;
      for (const Vector3d& v : g.mesh.vertices) r = std::max(r, v.norm());
      return r;
    }
  }
  return 0.0;
}

int MaxTreeVelocities(const multibody::TreeTopology& topology) {
  int n = 0;
  for (int t = 0; t < topology.num_trees(); ++t) n = std::max(n, topology.tree_nv[t]);
  return n;
}

// out = R_WC^T J, or -R_WC^T J when `negate`, J a tree's block of a point Jacobian
// (3 x tree velocities). A free body's block (6 columns: every contact of the clutter)
// takes a fixed-size product, since the build forms one or two per contact, every step.
void RotateToContactFrame(const Matrix3d& R_WC, const Eigen::Ref<const Eigen::Matrix3Xd>& J,
                          bool negate, Eigen::Map<Eigen::MatrixXd> out) {
  if (J.cols() == 6) {
    Eigen::Map<Eigen::Matrix<double, 3, 6>> out6(out.data());
    out6.noalias() = R_WC.transpose() * J.leftCols<6>();
    if (negate) out6 = -out6;
  } else {  // a small tree's block: column by column, fixed-size products
    const Matrix3d R_CW = negate ? Matrix3d(-R_WC.transpose()) : Matrix3d(R_WC.transpose());
    for (int j = 0; j < J.cols(); ++j)
      Eigen::Map<Vector3d>(out.data() + 3 * j).noalias() = R_CW * J.col(j);
  }
}

// Phi = R_WB [-[r_B]x  I] (3 x 6): the world velocity of the material point of a body at
// p_W from the body's spatial velocity [w; v of its origin] in its own axes, r_B the point
// in those axes.
Eigen::Matrix<double, 3, 6> BodyPointMap(const math::RigidTransform& X_WB, const Vector3d& p_W) {
  const Vector3d r_B = X_WB.R.transpose() * (p_W - X_WB.p);
  Eigen::Matrix<double, 3, 6> Phi;
  Phi.leftCols<3>() << 0.0, r_B.z(), -r_B.y(), -r_B.z(), 0.0, r_B.x(), r_B.y(), -r_B.x(), 0.0;
  Phi.rightCols<3>().setIdentity();
  return X_WB.R * Phi;
}

}  // namespace

Matrix3d ContactFrame(const Vector3d& n) {
  int least = 0;
  n.cwiseAbs().minCoeff(&least);
  const Vector3d t1 = n.cross(Vector3d::Unit(least)).normalized();
  Matrix3d R;
  R << t1, n.cross(t1), n;
  return R;
}

ContactProblemBuilder::ContactProblemBuilder(const Model& model)
    : world_(MakeCollisionWorld(model)), topology_(multibody::CalcTreeTopology(model)) {
  int colliding = 0;
  for (const geometry::CollisionObjectSpec& spec : MakeCollisionSpecs(model)) {
    spec_material_.push_back(MaterialOf(model, spec.geometry));
    colliding += spec.geometry.collide ? 1 : 0;
  }
  can_collide_ = colliding >= 2;
  hydro_ = HydroelasticContacts(model, spec_material_);
  max_tree_nv_ = MaxTreeVelocities(topology_);
  body_radius_.assign(model.num_bodies(), 0.0);
  extra_margin_.assign(model.num_bodies(), 0.0);
  for (int b = 0; b < model.num_bodies(); ++b)
    for (const geometry::Geometry& g : model.bodies[b].geometry)
      if (g.collide) body_radius_[b] = std::max(body_radius_[b], g.X_BG.p.norm() + BoundingRadius(g));
  // Worst case over every pair of materials that can meet (each with itself included),
  // over the distinct materials: over every pair of geometries it would be quadratic in
  // their number, a slow start-up for scenes of many thousands of bodies.
  std::vector<geometry::Material> materials = spec_material_;
  const auto key = [](const geometry::Material& m) {
    return std::tie(m.stiffness, m.dissipation_time, m.hunt_crossley, m.friction);
  };
  std::sort(materials.begin(), materials.end(),
            [&](const auto& a, const auto& b) { return key(a) < key(b); });
  materials.erase(std::unique(materials.begin(), materials.end(),
                              [&](const auto& a, const auto& b) { return key(a) == key(b); }),
                  materials.end());
  for (const geometry::Material& a : materials)
    for (const geometry::Material& b : materials) {
      const CombinedMaterial m = CombineMaterials(a, b);
      max_dissipation_time_ = std::max(max_dissipation_time_, m.dissipation_time);
      max_friction_ = std::max(max_friction_, m.friction);
    }
  moved_by_prescribed_.assign(model.num_bodies(), 0);
  for (int b = 0; b < model.num_bodies(); ++b)
    for (int i = b; i >= 0 && !moved_by_prescribed_[b]; i = model.parent[i])
      moved_by_prescribed_[b] = model.joints[i].prescribed;
  free_root_.assign(model.num_bodies(), 0);
  for (int b = 0; b < model.num_bodies(); ++b) {
    const multibody::Joint& joint = model.joints[b];
    const int tree = topology_.body_tree[b];
    // Its velocities are (w, v) in world axes, v that of the body origin, only when the
    // joint frame is not rotated against the world (multibody/joint_motion.cc, Free).
    free_root_[b] = model.parent[b] < 0 && joint.type == multibody::JointType::kFree &&
                    joint.v_start >= 0 && tree >= 0 && topology_.tree_nv[tree] == 6 &&
                    joint.X_PJ.R == Matrix3d::Identity();
  }
  // Each body's tree root in one pass: parent(b) < b (multibody/model.h).
  std::vector<int> tree_root(model.num_bodies());
  articulated_tree_body_.assign(model.num_bodies(), false);
  for (int b = 0; b < model.num_bodies(); ++b) {
    const int tree = topology_.body_tree[b], p = model.parent[b];
    tree_root[b] = p >= 0 && topology_.body_tree[p] == tree ? tree_root[p] : b;
    if (tree < 0) continue;
    articulated_tree_body_[b] = !free_root_[tree_root[b]];
    if (articulated_tree_body_[b] && tree_root[b] == b) articulated_tree_root_.push_back(b);
  }
  tree_solver_ = multibody::ArticulatedBodySolver(model, articulated_tree_body_);
  omega_.assign(model.num_bodies(), math::Matrix6::Zero());
  clique_solvers_.resize(topology_.num_trees());
  clique_solver_active_.assign(topology_.num_trees(), 0);
  no_diagonal_terms_.setZero(model.nv);
  for (auto* J : {&J_a_, &J_b_}) J->setZero(3, max_tree_nv_);
  A_inverse_JT_.setZero(max_tree_nv_, 3);
  A_diagonal_.setZero(max_tree_nv_);
  J_limit_.setZero(2, max_tree_nv_);
  for (int b = 0; b < model.num_bodies(); ++b) {
    const multibody::Joint& joint = model.joints[b];  // body b's inboard joint
    if (joint.v_start < 0 || joint.friction.size() != joint.nv) continue;
    for (int k = 0; k < joint.nv; ++k)
      if (joint.friction[k] > 0.0)
        friction_dofs_.push_back({joint.v_start + k, topology_.body_tree[b], joint.friction[k]});
  }
  friction_constraint_.assign(friction_dofs_.size(), -1);
  holonomic_ = HolonomicConstraintBuilder(model, topology_);
}

void ContactProblemBuilder::Build(const Model& model, const ContactParameters& parameters,
                                  const StepInputs& in, solver::ContactProblem* problem) {
  problem->Clear(in.dt);
  last_model_ = parameters.contact_model;
  omega_current_ = false;  // formed on the first contact on an articulated tree
  AddCliques(model, in, problem);
  problem->SetFreeMotionVelocity(*in.v_star);
  AddContacts(model, parameters, in, problem);
  AddJointLimits(model, in, problem);
  AddJointFriction(problem);
  holonomic_.Add(model, *in.kinematics, *in.q0, *in.v0, problem);
}

void ContactProblemBuilder::PrepareCliqueSolvers(const Model& model, const StepInputs& in) {
  for (int root : articulated_tree_root_) clique_solver_active_[topology_.body_tree[root]] = 0;
  if (!in.A_at_kinematics || in.articulated_body == nullptr) return;
  for (int root : articulated_tree_root_) {
    const int t = topology_.body_tree[root];
    // A tree's bodies share its block of A, so its root speaks for it.
    if (!(*in.articulated_body)[root]) continue;
    if (!clique_solvers_[t])
      clique_solvers_[t] = std::make_unique<ArticulatedCliqueSolver>(model, topology_, t);
    clique_solvers_[t]->Prepare(in.kinematics, in.A_diagonal_terms);
    clique_solver_active_[t] = 1;
  }
}

void ContactProblemBuilder::BodiesNeedingA(const std::vector<bool>& articulated_body,
                                           bool A_at_kinematics, std::vector<bool>* need) const {
  need->assign(articulated_body.size(), false);
  for (size_t b = 0; b < articulated_body.size(); ++b)
    (*need)[b] = articulated_body[b] && (!A_at_kinematics || !articulated_tree_body_[b]);
}

int ContactProblemBuilder::CliqueSolverBody(const geometry::PointContact& c, int tree_a,
                                            int tree_b) const {
  if ((tree_a >= 0) == (tree_b >= 0)) return -1;  // two trees, or one holding both bodies
  const int tree = tree_a >= 0 ? tree_a : tree_b;
  return clique_solver_active_[tree] ? (tree_a >= 0 ? c.body_a : c.body_b) : -1;
}

void ContactProblemBuilder::AddBodyJacobian(const StepInputs& in, const geometry::PointContact& c,
                                            int body, int tree_b, const Matrix3d& R_WC, int k,
                                            solver::ContactProblem* problem) const {
  if (body >= 0) problem->SetBodyJacobian(k, body, BodyContactMap(in, c, body, tree_b, R_WC));
}

Eigen::Matrix<double, 3, 6> ContactProblemBuilder::BodyContactMap(const StepInputs& in,
                                                                  const geometry::PointContact& c,
                                                                  int body, int tree_b,
                                                                  const Matrix3d& R_WC) const {
  // v_c = R_WC^T (v_B - v_A) at the point: + for body B, - for body A.
  const Eigen::Matrix<double, 3, 6> Phi = BodyPointMap(in.kinematics->X_WB[body], c.p_WC);
  return (tree_b >= 0 ? 1.0 : -1.0) * (R_WC.transpose() * Phi);
}

bool ContactProblemBuilder::IsBodyContact(const geometry::PointContact& c, int body,
                                          const ContactParameters& parameters) const {
  // The articulated estimate reads omega_ for the body, not the Jacobian; a known velocity
  // needs J v0 for the bias.
  return body >= 0 && articulated_tree_body_[body] &&
         parameters.delassus_estimate == DelassusEstimate::kArticulated &&
         !HasKnownVelocity(c.body_a) && !HasKnownVelocity(c.body_b);
}

void ContactProblemBuilder::AddCliques(const Model& model, const StepInputs& in,
                                      solver::ContactProblem* problem) {
  PrepareCliqueSolvers(model, in);
  // Trees are numbered in velocity order, so clique offsets equal tree offsets. A tree with
  // a clique solver is matrix-free: its block of A was not formed (BodiesNeedingA).
  for (int t = 0; t < topology_.num_trees(); ++t) {
    const int start = topology_.tree_v_start[t], n = topology_.tree_nv[t];
    if (clique_solver_active_[t]) {
      clique_solvers_[t]->ADiagonal(A_diagonal_.data());
      problem->AddMatrixFreeClique(n, A_diagonal_.data(), clique_solvers_[t].get());
    } else {
      problem->AddClique(in.A->sub(start, start, n, n));
    }
  }
}

void ContactProblemBuilder::AddContacts(const Model& model, const ContactParameters& parameters,
                                        const StepInputs& in, solver::ContactProblem* problem) {
  const auto start = time_collision_ ? std::chrono::steady_clock::now()
                                     : std::chrono::steady_clock::time_point{};
  if (can_collide_) {
    world_.UpdatePoses(in.kinematics->X_WB);
    CalcExtraMargins(in);
    if (hydro_.empty()) {
      world_.FindContacts(parameters.contact_margin, extra_margin_, &contacts_);
      polygon_.assign(contacts_.size(), -1);
    } else {
      world_.FindContacts(parameters.contact_margin, extra_margin_, &point_contacts_);
      hydro_.Calc(world_, parameters);
      MergeContacts();
    }
  } else {
    contacts_.clear();
    polygon_.clear();
  }
  if (time_collision_)
    collision_seconds_ =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const size_t n = contacts_.size();
  contact_constraint_.assign(n, -1);
  key_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const geometry::PointContact& c = contacts_[i];
    const bool same_pair = i > 0 && contacts_[i - 1].geometry_a == c.geometry_a &&
                           contacts_[i - 1].geometry_b == c.geometry_b;
    key_[i] = {c.geometry_a, c.geometry_b, same_pair ? key_[i - 1].point + 1 : 0};
  }
  // Which contacts ended the last solve stuck. FindContacts sorts its output by geometry
  // pair, then by the point order of the pair's manifold, so key_ is sorted (checked), and
  // stuck_, taken from the last Build's key_ in order, is too: one merge walk finds them, in
  // linear time where a binary search per contact would cost a log factor.
  CSIM_CHECK(std::is_sorted(key_.begin(), key_.end()));
  was_stuck_.assign(n, 0);
  size_t s = 0;
  for (size_t i = 0; i < n && s < stuck_.size(); ++i) {
    while (s < stuck_.size() && stuck_[s] < key_[i]) ++s;
    was_stuck_[i] = s < stuck_.size() && !(key_[i] < stuck_[s]);
  }
  if (R_WC_.size() < n) {
    R_WC_.resize(n);
    bias_C_.resize(n);
  }
  for (size_t i = 0; i < n; ++i) AddContact(model, parameters, in, static_cast<int>(i), problem);
}

void ContactProblemBuilder::MergeContacts() {
  // Both lists are sorted by geometry pair, and a pair is in one or the other: a merge by
  // pair keeps contacts_ sorted as AddContacts needs.
  const std::vector<geometry::PointContact>& polygons = hydro_.contacts();
  contacts_.clear();
  polygon_.clear();
  size_t p = 0, h = 0;
  const auto pair_less = [](const geometry::PointContact& x, const geometry::PointContact& y) {
    return x.geometry_a != y.geometry_a ? x.geometry_a < y.geometry_a : x.geometry_b < y.geometry_b;
  };
  while (p < point_contacts_.size() || h < polygons.size()) {
    if (h == polygons.size() ||
        (p < point_contacts_.size() && pair_less(point_contacts_[p], polygons[h]))) {
      contacts_.push_back(point_contacts_[p++]);
      polygon_.push_back(-1);
    } else {
      contacts_.push_back(polygons[h]);
      polygon_.push_back(static_cast<int>(h++));
    }
  }
}

void ContactProblemBuilder::CalcExtraMargins(const StepInputs& in) {
  const multibody::Workspace& kin = *in.kinematics;
  const double reach_per_speed = (in.dt + max_dissipation_time_) * std::max(max_friction_, 1.0);
  for (size_t b = 0; b < body_radius_.size(); ++b) {
    const double v_b = kin.V_B[b].tail<3>().norm() + kin.V_B[b].head<3>().norm() * body_radius_[b];
    extra_margin_[b] = reach_per_speed * v_b;
  }
}

void ContactProblemBuilder::TreeBlock(const Model& model, const StepInputs& in, int b,
                                      const Vector3d& p_W, Eigen::Ref<Eigen::Matrix3Xd> J) const {
  if (free_root_[b]) {
    // A lone free body's velocities are its angular velocity and its origin's velocity in
    // world axes (multibody/joint_motion.cc): column k moves the point at e_k x r, or e_k,
    // with r from the body's origin. The same as the general loop below, without its six
    // spatial transforms.
    const Vector3d r = p_W - in.kinematics->X_WB[b].p;
    J.leftCols<3>() << 0.0, r.z(), -r.y(), -r.z(), 0.0, r.x(), r.y(), -r.x(), 0.0;
    J.rightCols<3>().setIdentity();
    return;
  }
  multibody::CalcPointJacobianColumns(model, *in.kinematics, b, p_W,
                                      topology_.tree_v_start[topology_.body_tree[b]], J);
}

Vector3d ContactProblemBuilder::KnownVelocity(const Model& model, const StepInputs& in, int b,
                                              const Vector3d& p_W,
                                              const Eigen::Ref<const Eigen::Matrix3Xd>& J_tree) const {
  if (!HasKnownVelocity(b)) return Vector3d::Zero();
  const int tree = topology_.body_tree[b];
  // Outside every tree the body moves only as its prescribed joints say: all is known.
  if (tree < 0) return multibody::CalcPointVelocity(model, *in.kinematics, b, p_W);
  // Total point velocity at (q0, v0) minus what the unknowns carry, J_tree v0.
  const Vector3d total = multibody::CalcPointVelocity(model, *in.kinematics, b, p_W);
  return total - J_tree * in.v0->segment(topology_.tree_v_start[tree], topology_.tree_nv[tree]);
}

void ContactProblemBuilder::AddContact(const Model& model, const ContactParameters& parameters,
                                       const StepInputs& in, int i, solver::ContactProblem* problem) {
  const geometry::PointContact& c = contacts_[i];
  const int tree_a = c.body_a >= 0 ? topology_.body_tree[c.body_a] : -1;
  const int tree_b = c.body_b >= 0 ? topology_.body_tree[c.body_b] : -1;
  if (tree_a < 0 && tree_b < 0) return;  // nothing can move: not resolvable
  const Matrix3d R_WC = ContactFrame(c.nhat_AB_W);
  R_WC_[i] = R_WC;
  contact_constraint_[i] = problem->num_constraints();
  // Between free bodies, or a free body and the world or a body outside every tree, the
  // Jacobian is known in factored form (solver::PointContactJacobian) and no point
  // Jacobian is formed: the unknowns carry a free body's velocity entirely, so only a body
  // outside every tree has a known velocity, which needs no Jacobian either.
  const bool factored = tree_a != tree_b && (tree_a < 0 || free_root_[c.body_a]) &&
                        (tree_b < 0 || free_root_[c.body_b]);
  const CombinedMaterial m =
      polygon_[i] >= 0 ? hydro_.polygon_contacts()[polygon_[i]].material
                       : CombineMaterials(spec_material_[c.geometry_a], spec_material_[c.geometry_b]);
  const int body = factored ? -1 : CliqueSolverBody(c, tree_a, tree_b);
  if (IsBodyContact(c, body, parameters)) {
    const double w = TreeContactDelassus(model, in, c, tree_a, tree_b, J_a_.leftCols(0),
                                         J_b_.leftCols(0), *problem);
    if (w > 0.0) {  // else (no valid omega) the dense path and the diagonal recipe below
      bias_C_[i].setZero();
      const int tree = topology_.body_tree[body];
      const Eigen::Matrix<double, 3, 6> W = BodyContactMap(in, c, body, tree_b, R_WC);
      if (parameters.contact_model == ContactModel::kSap) {
        problem->AddBodyContact(
            tree, body, W, solver::SapFrictionConeConstraint(SapParametersFor(m, parameters, i)), w);
      } else {
        problem->AddBodyContact(
            tree, body, W,
            solver::SapHuntCrossleyConstraint(HuntCrossleyParametersFor(model, m, parameters, in, i)),
            w);
      }
      return;
    }
  }
  auto Ja = J_a_.leftCols(tree_a >= 0 && !factored ? topology_.tree_nv[tree_a] : 0);
  auto Jb = J_b_.leftCols(tree_b >= 0 && !factored ? topology_.tree_nv[tree_b] : 0);
  if (Ja.cols() > 0) TreeBlock(model, in, c.body_a, c.p_WC, Ja);
  if (Jb.cols() > 0) TreeBlock(model, in, c.body_b, c.p_WC, Jb);
  // Most contacts are between bodies whose velocity the unknowns carry entirely (or the
  // world): no known part, and no product with R_WC to form.
  if (HasKnownVelocity(c.body_a) || HasKnownVelocity(c.body_b)) {
    bias_C_[i] = R_WC.transpose() * (KnownVelocity(model, in, c.body_b, c.p_WC, Jb) -
                                     KnownVelocity(model, in, c.body_a, c.p_WC, Ja));
  } else {
    bias_C_[i].setZero();
  }
  const double w = factored || parameters.delassus_estimate == DelassusEstimate::kDiagonal
                       ? 0.0
                       : TreeContactDelassus(model, in, c, tree_a, tree_b, Ja, Jb, *problem);
  const int k = problem->num_constraints();
  if (parameters.contact_model == ContactModel::kSap) {
    EmitContact(c, tree_a, tree_b, factored, R_WC, Ja, Jb, in,
                solver::SapFrictionConeConstraint(SapParametersFor(m, parameters, i)), w, problem);
  } else {
    EmitContact(c, tree_a, tree_b, factored, R_WC, Ja, Jb, in,
                solver::SapHuntCrossleyConstraint(HuntCrossleyParametersFor(model, m, parameters, in, i)),
                w, problem);
  }
  AddBodyJacobian(in, c, body, tree_b, R_WC, k, problem);
}

Matrix3d ContactProblemBuilder::BodyDelassus(const StepInputs& in, int b,
                                             const Vector3d& p_W) const {
  const Eigen::Matrix<double, 3, 6> Phi = BodyPointMap(in.kinematics->X_WB[b], p_W);
  return Phi * omega_[b] * Phi.transpose();
}

double ContactProblemBuilder::TreeContactDelassus(const Model& model, const StepInputs& in,
                                                  const geometry::PointContact& c, int tree_a,
                                                  int tree_b,
                                                  const Eigen::Ref<const Eigen::Matrix3Xd>& Ja,
                                                  const Eigen::Ref<const Eigen::Matrix3Xd>& Jb,
                                                  const solver::ContactProblem& problem) {
  const bool on_a = tree_a >= 0 && articulated_tree_body_[c.body_a];
  const bool on_b = tree_b >= 0 && articulated_tree_body_[c.body_b];
  if (!on_a && !on_b) return 0.0;
  Matrix3d W = Matrix3d::Zero();
  // A lone free body's side: Drake's diagonal-of-A term (its clique is its tree).
  const auto diagonal_term = [&](int tree, const Eigen::Ref<const Eigen::Matrix3Xd>& J) {
    const Eigen::Map<const Eigen::Matrix<double, 6, 1>> inverse_diagonal(
        problem.inverse_diagonal_of_A(tree));
    W.noalias() += J.leftCols<6>() * inverse_diagonal.asDiagonal() * J.leftCols<6>().transpose();
  };
  // An articulated tree's side: J A_t^-1 J^T from the free motion's factor of a small tree's
  // block, else from omega_, whose recursions pass once a step over every such tree.
  const auto tree_term = [&](int body, int tree, const Eigen::Ref<const Eigen::Matrix3Xd>& J) {
    if (AddDenseTreeDelassus(in, tree, J, &W)) return true;
    if (!omega_current_) {
      const Eigen::VectorXd& d = in.A_diagonal_terms ? *in.A_diagonal_terms : no_diagonal_terms_;
      omega_valid_ = tree_solver_.Factor(model, *in.kinematics, d);
      if (omega_valid_) tree_solver_.InverseOperationalInertias(model, *in.kinematics, &omega_);
      omega_current_ = true;
    }
    if (!omega_valid_) return false;  // the recipe's estimate (A itself is checked elsewhere)
    W += BodyDelassus(in, body, c.p_WC);
    return true;
  };
  if (on_a) {
    if (!tree_term(c.body_a, tree_a, Ja)) return 0.0;
  } else if (tree_a >= 0) {
    diagonal_term(tree_a, Ja);
  }
  if (on_b) {
    if (!tree_term(c.body_b, tree_b, Jb)) return 0.0;
  } else if (tree_b >= 0) {
    diagonal_term(tree_b, Jb);
  }
  return W.norm() / 3.0;
}

bool ContactProblemBuilder::AddDenseTreeDelassus(const StepInputs& in, int tree,
                                                const Eigen::Ref<const Eigen::Matrix3Xd>& J,
                                                Matrix3d* W) {
  const int n = topology_.tree_nv[tree];
  if (in.A_factor == nullptr || J.cols() != n) return false;
  const Eigen::MatrixXd& factor = (*in.A_factor)[in.A->block_of(topology_.tree_v_start[tree])];
  // An articulated block or a six block has no dense factor (it is empty).
  if (factor.rows() != n) return false;
  auto Y = A_inverse_JT_.topRows(n);
  Y = J.transpose();
  for (int k = 0; k < 3; ++k) solver::DenseLdltSolveInPlace(factor.data(), n, Y.col(k).data());
  W->noalias() += J * Y;
  return true;
}

solver::SapFrictionConeParameters ContactProblemBuilder::SapParametersFor(
    const CombinedMaterial& m, const ContactParameters& parameters, int i) const {
  solver::SapFrictionConeParameters p;
  p.mu = m.friction;
  p.stiffness = m.stiffness;
  p.dissipation_time = m.dissipation_time;
  p.phi0 = contacts_[i].phi0;
  p.near_rigid_threshold = NearRigidThreshold(parameters, i);
  p.stiction_sigma = parameters.stiction_sigma;
  p.bias_velocity = bias_C_[i];
  p.was_stuck = was_stuck_[i];
  return p;
}

solver::SapHuntCrossleyParameters ContactProblemBuilder::HuntCrossleyParametersFor(
    const Model& model, const CombinedMaterial& m, const ContactParameters& parameters,
    const StepInputs& in, int i) const {
  const geometry::PointContact& c = contacts_[i];
  solver::SapHuntCrossleyParameters p;
  p.approximation = parameters.contact_model == ContactModel::kSimilar
                        ? solver::HuntCrossleyApproximation::kSimilar
                        : solver::HuntCrossleyApproximation::kLagged;
  p.mu = m.friction;
  p.stiffness = m.stiffness;
  p.hunt_crossley = m.hunt_crossley;
  p.phi0 = c.phi0;
  // The normal relative velocity at (q0, v0), known part included (docs/design/contact-models.md
  // §3.5): the total velocities of the two material points at the contact (zero for the world).
  p.v_n0 = c.nhat_AB_W.dot(multibody::CalcPointVelocity(model, *in.kinematics, c.body_b, c.p_WC) -
                           multibody::CalcPointVelocity(model, *in.kinematics, c.body_a, c.p_WC));
  p.stiction_tolerance = parameters.stiction_tolerance;
  p.position_theta = parameters.position_theta;
  // Only lagged_regularized widens eps_s with the impulse ([ICF] eq. 44); similar keeps v_s.
  p.stiction_sigma = parameters.contact_model == ContactModel::kLaggedRegularized
                         ? parameters.stiction_sigma
                         : 0.0;
  p.near_rigid_threshold = NearRigidThreshold(parameters, i);
  p.bias_velocity = bias_C_[i];
  p.was_stuck = was_stuck_[i];
  return p;
}

template <class Kind>
void ContactProblemBuilder::EmitContact(const geometry::PointContact& c, int tree_a, int tree_b,
                                        bool factored, const Matrix3d& R_WC,
                                        Eigen::Ref<Eigen::Matrix3Xd> Ja,
                                        Eigen::Ref<Eigen::Matrix3Xd> Jb, const StepInputs& in,
                                        const Kind& constraint, double w,
                                        solver::ContactProblem* problem) {
  if (factored) {
    // From the body's origin to the contact point.
    const auto lever = [&](int body) -> Vector3d { return c.p_WC - in.kinematics->X_WB[body].p; };
    solver::PointContactJacobian f;
    f.R_WC = R_WC;
    if (tree_a >= 0 && tree_b >= 0) {
      f.r_W = {lever(c.body_a), lever(c.body_b)};
      f.sign = {-1.0, 1.0};
      problem->AddPointContact(tree_a, tree_b, f, constraint);
    } else if (tree_b >= 0) {
      f.r_W[0] = lever(c.body_b);
      problem->AddPointContact(tree_b, -1, f, constraint);
    } else {
      f.r_W[0] = lever(c.body_a);
      f.sign[0] = -1.0;
      problem->AddPointContact(tree_a, -1, f, constraint);
    }
    return;
  }
  // v_c = R_WC^T (v_Bc - v_Ac): each tree's block is R_WC^T (J_b - J_a) on its columns,
  // with J_a = 0 on a tree that holds only B and J_b = 0 on one that holds only A. The
  // blocks are written straight into the problem's storage.
  // One tree holding both bodies: its block is R_WC^T (J_b - J_a), formed in place (a
  // difference inside the product would be a heap temporary).
  if (tree_a == tree_b) Jb -= Ja;
  if (tree_a == tree_b || tree_a < 0) {
    problem->AddConstraintWith(
        tree_b, [&](Eigen::Map<Eigen::MatrixXd> J) { RotateToContactFrame(R_WC, Jb, false, J); },
        constraint, w);
  } else if (tree_b < 0) {
    problem->AddConstraintWith(
        tree_a,
        [&](Eigen::Map<Eigen::MatrixXd> J) { RotateToContactFrame(R_WC, Ja, true, J); },
        constraint, w);
  } else {
    problem->AddConstraintWith(
        tree_a, tree_b,
        [&](Eigen::Map<Eigen::MatrixXd> J_a, Eigen::Map<Eigen::MatrixXd> J_b) {
          RotateToContactFrame(R_WC, Ja, true, J_a);
          RotateToContactFrame(R_WC, Jb, false, J_b);
        },
        constraint, w);
  }
}

void ContactProblemBuilder::RememberStiction(const solver::ContactProblem& problem,
                                             const solver::SapSolverResult& result) {
  stuck_.clear();
  for (size_t i = 0; i < contacts_.size(); ++i) {
    const int k = contact_constraint_[i];
    if (k < 0) continue;
    const solver::ConstraintEntry& e = problem.entry(k);
    const double* v_c = result.v_c.data() + e.row_offset;
    // AddContact made every contact of the step the model's kind.
    bool stuck;
    if (last_model_ == ContactModel::kSap) {
      const auto& cone = static_cast<const solver::SapFrictionConeConstraint&>(*e.constraint);
      stuck = cone.RegionAt(v_c) == solver::FrictionConeRegion::kStiction;
    } else {
      stuck = static_cast<const solver::SapHuntCrossleyConstraint&>(*e.constraint).StuckAt(v_c);
    }
    if (stuck) stuck_.push_back(key_[i]);
  }
  // Sorted: a subsequence of key_, which AddContacts checked is sorted.
}

void ContactProblemBuilder::AddJointLimits(const Model& model, const StepInputs& in,
                                           solver::ContactProblem* problem) const {
  for (int j = 0; j < model.num_bodies(); ++j) {
    const multibody::Joint& joint = model.joints[j];
    if (joint.v_start < 0 || joint.lower.size() != joint.nv || joint.nq != joint.nv) continue;
    const int tree = topology_.body_tree[j];
    for (int k = 0; k < joint.nv; ++k) {
      const int dof = joint.v_start + k;
      const double q0 = (*in.q0)[joint.q_start + k];
      // Activation window of docs/design/joint-limits.md §1: a limit enters when it could be
      // reached within two steps at the larger of the current and free-motion speeds (or is
      // violated).
      const double window = 2 * in.dt * std::max(std::abs((*in.v0)[dof]), std::abs((*in.v_star)[dof]));
      solver::SapLimitParameters p;
      p.q0 = q0;
      if (q0 - joint.lower[k] <= window) p.lower = joint.lower[k];
      if (joint.upper[k] - q0 <= window) p.upper = joint.upper[k];
      if (std::isinf(p.lower) && std::isinf(p.upper)) continue;
      solver::AddJointLimit(problem, tree, dof - topology_.tree_v_start[tree], p);
    }
  }
}

void ContactProblemBuilder::AddJointFriction(solver::ContactProblem* problem) {
  for (size_t i = 0; i < friction_dofs_.size(); ++i) {
    const FrictionDof& f = friction_dofs_[i];
    solver::SapJointFrictionParameters p;
    p.friction = f.friction;
    friction_constraint_[i] = problem->num_constraints();
    solver::AddJointFriction(problem, f.tree, f.dof - topology_.tree_v_start[f.tree], p);
  }
}

void ContactProblemBuilder::ReportJointFriction(const solver::ContactProblem& problem,
                                                const solver::SapSolverResult& result, double dt,
                                                Eigen::VectorXd* effort) const {
  effort->setZero();
  // The generalized impulse of a friction row on its coordinate is +gamma
  // (sap_joint_friction_constraint.h).
  for (size_t i = 0; i < friction_dofs_.size(); ++i) {
    const int row = problem.entry(friction_constraint_[i]).row_offset;
    (*effort)[friction_dofs_[i].dof] = result.gamma[row] / dt;
  }
}

void ContactProblemBuilder::Report(const solver::ContactProblem& problem,
                                   const solver::SapSolverResult& result, double dt,
                                   std::vector<ContactReport>* out) const {
  out->clear();
  for (size_t i = 0; i < contacts_.size(); ++i) {
    const int k = contact_constraint_[i];
    if (k < 0) continue;
    const geometry::PointContact& c = contacts_[i];
    const int row = problem.entry(k).row_offset;
    const Vector3d gamma = result.gamma.segment<3>(row);
    const Vector3d v_c = result.v_c.segment<3>(row) + bias_C_[i];
    ContactReport r;
    r.body_a = c.body_a;
    r.body_b = c.body_b;
    r.p_WC = c.p_WC;
    r.nhat_AB_W = c.nhat_AB_W;
    r.phi0 = c.phi0;
    r.force_on_b_W = R_WC_[i] * gamma / dt;
    r.slip_speed = v_c.head<2>().norm();
    // AddContact made every contact of the step the model's kind (as RememberStiction).
    const solver::Constraint& constraint = *problem.entry(k).constraint;
    r.stiction_tolerance =
        last_model_ == ContactModel::kSap
            ? static_cast<const solver::SapFrictionConeConstraint&>(constraint)
                  .StictionTolerance(gamma[2])
            : static_cast<const solver::SapHuntCrossleyConstraint&>(constraint).epsilon_s();
    if (polygon_[i] >= 0) {
      const PolygonContact& p = hydro_.polygon_contacts()[polygon_[i]];
      r.surface = p.surface;
      r.area = p.area;
    }
    out->push_back(r);
  }
}

}  // namespace csim::contact

#pragma once
// The problem the SAP solver consumes (docs/design/time-step.md §5, docs/design/sap-problem.md
// §1.3): minimise   ell_p(v) = 1/2 ||v - v*||_A^2 + sum_k ell_k(J_k v)          (SAP eq. 24)
// It knows nothing of multibody (CONTRIBUTING.md §4):
//   - dt [s];
//   - cliques (independent trees): clique c owns the contiguous velocities
//     v[offset(c) .. offset(c) + size(c)) and a dense SPD block A_c (size x size); A is
//     block diagonal;
//   - v* (nv), the free-motion velocity;
//   - constraints, each acting on one or two cliques with a dense Jacobian block per clique
//     (n_k x size(c)); the stacked rows define gamma's layout (constraint order).
// Cliques must be added before the constraints that reference them: a constraint is
// prepared (Constraint::Prepare with dt and its Delassus estimate, docs/design/sap-problem.md §4)
// as soon as it is added, so the problem is always ready to solve.
//
// A contact between rigid bodies (3 rows on cliques of 6) may instead come with its
// Jacobian in factored form (PointContactJacobian): the solver's products with J and
// J^T G J use it, and no dense block is stored (forming and zeroing one for every contact
// of every step is work the solver does not need); PointContactBlock forms one on request.
// A clique may carry a CliqueSolver, and a contact on it alone a BodyJacobian (W of
// J = W B_body) beside its dense block, or instead of it (AddBodyContact), for the Newton
// matrix's faster factorization and the solver's O(bodies) products with J
// (clique_solver.h).
//
// Storage: A blocks, v*, Jacobian blocks live in flat std::vector<double> buffers, and the
// constraint objects in one pool per kind; Clear() resets sizes but keeps all capacity, so a
// problem rebuilt every step with the same (or smaller) sizes does not allocate.

#include <algorithm>
#include <array>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include <Eigen/Dense>

#include "engine/common/check.h"
#include "engine/solver/clique_solver.h"
#include "engine/solver/constraint.h"
#include "engine/solver/stiction_prediction.h"

namespace csim::solver {

/// Where one constraint sits in the problem.
struct ConstraintEntry {
  Constraint* constraint = nullptr;  ///< owned by the problem's pool of its kind
  /// The same object's prediction interface, or null for a kind without one.
  const StictionPrediction* prediction = nullptr;
  int num_rows = 0;                  ///< n_k
  int row_offset = 0;                ///< first row in the stacked constraint vectors
  int num_cliques = 0;               ///< 1 or 2
  std::array<int, 2> clique{{-1, -1}};           ///< clique indices (second -1 if one)
  std::array<int, 2> jacobian_offset{{-1, -1}};  ///< into the Jacobian buffer
  double delassus = 0.0;             ///< w_k [1/kg] used by Prepare (docs/design/sap-problem.md §4)
  int point_contact = -1;            ///< its PointContactJacobian, or -1 (dense only)
  int body_jacobian = -1;            ///< its BodyJacobian, or -1 (SetBodyJacobian)
  /// For a constraint on one coordinate (coordinate_constraint.h): that coordinate's index
  /// inside its clique, else -1 (MarkCoordinateConstraint).
  int coordinate = -1;
  /// With coordinate >= 0: the kind, TypeKey<T>() of the constraint's class, so that a
  /// solver fast path can recognise the kinds it knows without RTTI; else null.
  const void* coordinate_kind = nullptr;
};

/// A one-clique constraint's Jacobian as W B_body (clique_solver.h): the dense block is
/// stored as well; this factored form is for the clique's CliqueSolver.
struct BodyJacobian {
  int body = -1;                     ///< the CliqueSolver's body index
  Eigen::Matrix<double, 3, 6> W;     ///< 3-row constraints only
};

/// The Jacobian of a point contact on cliques of six velocities (w, v) that move the
/// point at v + w x r: a rigid body's angular velocity and the velocity of the point r
/// away from the contact point, both in world axes. Block b is
///   J_b = sign[b] R^T [-[r_b]x  I]   (3 x 6),
/// with R = R_WC the contact frame (columns t1, t2, n) and sign +1 for the body the
/// normal points into (B) and -1 for the other (A). With it, J v is one cross product and
/// one rotation per contact, J^T gamma the same, and J^T G J a third of the dense
/// product's flops (newton_system.cc): the clutter's every contact is of this kind.
struct PointContactJacobian {
  Eigen::Matrix3d R_WC;
  std::array<Eigen::Vector3d, 2> r_W;  ///< from the clique's reference point to the contact point [m]
  std::array<double, 2> sign{{1.0, 1.0}};
};

/// Type-erased pool of constraint objects of one kind (implementation detail).
class ConstraintPoolBase {
 public:
  virtual ~ConstraintPoolBase() = default;
  virtual void Clear() = 0;
  const void* key = nullptr;  ///< identifies the kind (TypeKey<T>())
};

/// Address unique to T, used to find T's pool without RTTI.
template <class T>
const void* TypeKey() {
  static const char key = 0;
  return &key;
}

/// Pool of constraints of kind T with stable addresses; re-used by assignment after Clear().
template <class T>
class ConstraintPool final : public ConstraintPoolBase {
 public:
  void Clear() override { used_ = 0; }
  /// Stores a copy of `c`; allocates only when the pool grows. Returns the stored object.
  T* Add(const T& c) {
    if (used_ == static_cast<int>(items_.size())) {
      items_.push_back(std::make_unique<T>(c));
    } else {
      *items_[used_] = c;
    }
    return items_[used_++].get();
  }

 private:
  std::vector<std::unique_ptr<T>> items_;
  int used_ = 0;
};

class ContactProblem {
 public:
  ContactProblem() = default;
  ContactProblem(const ContactProblem&) = delete;
  ContactProblem& operator=(const ContactProblem&) = delete;

  /// Empties the problem and sets the time step dt [s] > 0; keeps every capacity.
  void Clear(double dt);

  /// Appends a clique with SPD block A (m x m, m >= 1). Returns its index; its velocities
  /// follow those of the previous clique. Sets v* of the new dofs to zero.
  int AddClique(const Eigen::Ref<const Eigen::MatrixXd>& A);
  /// Appends a clique of `size` velocities whose A_c is known only through `solver` (an
  /// articulated tree: products by CliqueSolver::MultiplyA, the block on request by FormA)
  /// and its diagonal A_diagonal (size values, positive). Why: forming a long tree's dense
  /// block of A every step (the composite rigid-body pass and the copy) is a large share of
  /// a long rope's step, while the contact solve needs it only in islands that cannot hand
  /// their Newton matrix to the solver (NewtonSystem forms it there).
  int AddMatrixFreeClique(int size, const double* A_diagonal, CliqueSolver* solver);

  /// Sets the free-motion velocity v* (num_velocities()). Call after all AddClique.
  void SetFreeMotionVelocity(const Eigen::Ref<const Eigen::VectorXd>& v_star);

  /// Adds a constraint on one clique with Jacobian block J (n_k x size(clique)), copies
  /// `c` into the pool of kind T, prepares it and returns the stored object.
  template <class T>
  T& AddConstraint(int clique, const Eigen::Ref<const Eigen::MatrixXd>& J, const T& c) {
    return AddConstraintWith(clique, [&](Eigen::Map<Eigen::MatrixXd> block) { block = J; }, c);
  }

  /// As above, the Jacobian block written in place by fill(Eigen::Map<MatrixXd> J), which
  /// receives a zeroed n_k x size(clique) block (allocation-free construction). A positive
  /// `delassus` [1/kg] replaces the diagonal-of-A estimate w (the caller's better one; see
  /// FinishEntry).
  template <class T, class Fill>
  T& AddConstraintWith(int clique, Fill&& fill, const T& c, double delassus = 0.0) {
    T* stored = Pool<T>().Add(c);
    const int index = AppendEntry(stored, PredictionOf(stored), clique, -1);
    fill(MutableJacobian(index, 0));
    FinishEntry(index, delassus);
    return *stored;
  }

  /// Adds a constraint coupling cliques c0 != c1 with blocks J0 (n_k x size(c0)) and
  /// J1 (n_k x size(c1)): v_c = J0 v_c0 + J1 v_c1.
  template <class T>
  T& AddConstraint(int c0, const Eigen::Ref<const Eigen::MatrixXd>& J0, int c1,
                   const Eigen::Ref<const Eigen::MatrixXd>& J1, const T& c) {
    T* stored = Pool<T>().Add(c);
    const int index = AppendEntry(stored, PredictionOf(stored), c0, c1);
    MutableJacobian(index, 0) = J0;
    MutableJacobian(index, 1) = J1;
    FinishEntry(index);
    return *stored;
  }

  /// As above, the two Jacobian blocks written in place by fill(Eigen::Map<MatrixXd> J0,
  /// Eigen::Map<MatrixXd> J1), which receives them zeroed (no copy through a temporary: the
  /// contact build adds every contact this way, every step); `delassus` as above.
  template <class T, class Fill>
  T& AddConstraintWith(int c0, int c1, Fill&& fill, const T& c, double delassus = 0.0) {
    T* stored = Pool<T>().Add(c);
    const int index = AppendEntry(stored, PredictionOf(stored), c0, c1);
    fill(MutableJacobian(index, 0), MutableJacobian(index, 1));
    FinishEntry(index, delassus);
    return *stored;
  }

  /// Adds a 3-row constraint on one clique (c1 = -1) or two cliques of six velocities whose
  /// Jacobian is `f` (block b of clique b); it stores no dense block (PointContactBlock).
  template <class T>
  T& AddPointContact(int c0, int c1, const PointContactJacobian& f, const T& c) {
    T* stored = Pool<T>().Add(c);
    const int index =
        AppendEntry(stored, PredictionOf(stored), c0, c1, /*dense_jacobian=*/false);
    SetPointContactJacobian(index, f);
    FinishEntry(index);
    return *stored;
  }
  /// Adds a 3-row constraint on clique c alone whose Jacobian is W B_body in the coordinates
  /// of c's CliqueSolver (set before: SetCliqueSolver), and stores no dense block: the
  /// solver's products with J go through the clique's body maps, and an island whose Newton
  /// matrix cannot be handed to the CliqueSolver forms the block (FormBodyJacobianBlock).
  /// Why: forming and rotating the dense 3 x size rows of every contact of a long rope, and
  /// scanning them for their nonzero columns, is a large share of its step, and a clique
  /// with a CliqueSolver rarely needs them. `delassus` > 0 is
  /// required (the diagonal-of-A recipe reads the dense block).
  template <class T>
  T& AddBodyContact(int c, int body, const Eigen::Matrix<double, 3, 6>& W, const T& constraint,
                    double delassus) {
    CSIM_CHECK(clique_solver_[c] != nullptr && delassus > 0.0);
    T* stored = Pool<T>().Add(constraint);
    const int index =
        AppendEntry(stored, PredictionOf(stored), c, -1, /*dense_jacobian=*/false);
    SetBodyJacobian(index, body, W);
    FinishEntry(index, delassus);
    return *stored;
  }
  /// Adds a constraint on coordinate `dof` of clique `clique` alone whose row r is
  /// c.CoordinateRowSign(r) e_dof^T (coordinate_constraint.h), with the Delassus estimate
  /// `delassus` > 0, marked as of kind TypeKey<T>() (MarkCoordinateConstraint). The same
  /// entry, dense rows and prepared constraint as AddConstraintWith with FillCoordinateRows
  /// followed by MarkCoordinateConstraint, built in one pass: the rows are zeroed once and
  /// the entry is written in place. Why: a robot's PD servos add one such row per joint
  /// every step, and on a contact-free arm the generic path's calls were a visible share of
  /// the actuators' cost (results/robots_bench.md).
  template <class T>
  T& AddCoordinateRows(int clique, int dof, const T& c, double delassus) {
    CSIM_CHECK(clique >= 0 && clique < num_cliques() && dof >= 0 && dof < clique_size_[clique]);
    CSIM_CHECK(delassus > 0.0);
    T* stored = Pool<T>().Add(c);
    const int n = stored->num_rows(), m = clique_size_[clique];
    CSIM_CHECK(n >= 1);
    ConstraintEntry& e = entries_.emplace_back();
    e.constraint = stored;
    e.prediction = PredictionOf(stored);
    e.num_rows = n;
    e.row_offset = num_rows_;
    e.num_cliques = 1;
    e.clique = {{clique, -1}};
    e.jacobian_offset[0] = static_cast<int>(jacobian_size_);
    const size_t size = static_cast<size_t>(n) * m;
    jacobian_size_ += size;
    if (jacobian_data_.size() < jacobian_size_) GrowJacobianData();
    double* J = jacobian_data_.data() + e.jacobian_offset[0];
    std::fill_n(J, size, 0.0);
    for (int r = 0; r < n; ++r) J[r + static_cast<size_t>(dof) * n] = stored->CoordinateRowSign(r);
    e.coordinate = dof;
    e.coordinate_kind = TypeKey<T>();
    e.delassus = delassus;
    num_rows_ += n;
    max_rows_ = std::max(max_rows_, n);
    stored->Prepare(dt_, delassus);
    return *stored;
  }
  /// Records that constraint k (one clique, every row +-e_dof^T) acts on coordinate `dof` of
  /// its clique alone and is of kind `kind` (TypeKey<T>()): see AddCoordinateConstraint.
  void MarkCoordinateConstraint(int k, int dof, const void* kind) {
    ConstraintEntry& e = entries_[k];
    CSIM_CHECK(e.num_cliques == 1 && dof >= 0 && dof < clique_size_[e.clique[0]]);
    e.coordinate = dof;
    e.coordinate_kind = kind;
  }
  /// Whether constraint k's Jacobian blocks are stored dense (jacobian(), jacobian_block()):
  /// not for point contacts (AddPointContact) and body contacts (AddBodyContact).
  bool has_dense_jacobian(int k) const { return entries_[k].jacobian_offset[0] >= 0; }
  /// The dense block (3 x size of its clique, column-major at J) of a constraint with a
  /// BodyJacobian, formed through its clique's CliqueSolver (CliqueSolver::BodyJacobianRows).
  /// O(bodies of the clique). Must not allocate.
  void FormBodyJacobianBlock(int k, double* J) const;
  /// Declares that the dense Jacobian of entry k (one clique, 3 rows) equals W B_body in the
  /// coordinates of that clique's CliqueSolver (see clique_solver.h).
  void SetBodyJacobian(int k, int body, const Eigen::Matrix<double, 3, 6>& W);
  const BodyJacobian& body_jacobian(int k) const {
    return body_jacobians_[entries_[k].body_jacobian];
  }
  /// A faster factorization of clique c's block of the Newton matrix (not owned; null: none).
  /// Cleared by Clear().
  void SetCliqueSolver(int c, CliqueSolver* solver);
  CliqueSolver* clique_solver(int c) const { return clique_solver_[c]; }

  /// Entry k's factored Jacobian. Precondition: entry(k).point_contact >= 0.
  const PointContactJacobian& point_contact(int k) const {
    return point_contacts_[entries_[k].point_contact];
  }

  double dt() const { return dt_; }
  int num_cliques() const { return static_cast<int>(clique_size_.size()); }
  int num_velocities() const { return num_velocities_; }
  int clique_size(int c) const { return clique_size_[c]; }
  int clique_offset(int c) const { return clique_offset_[c]; }
  /// A_c (size x size). Precondition: has_A(c). Inline, as jacobian() below.
  Eigen::Map<const Eigen::MatrixXd> A(int c) const {
    CSIM_CHECK(A_offset_[c] >= 0);
    return {A_data_.data() + A_offset_[c], clique_size_[c], clique_size_[c]};
  }
  /// Whether A_c is stored (AddClique), not known through the clique's solver alone
  /// (AddMatrixFreeClique).
  bool has_A(int c) const { return A_offset_[c] >= 0; }
  /// A_c as a dense matrix, formed by the clique's solver when not stored (a copy: for tests
  /// and diagnostics).
  Eigen::MatrixXd DenseA(int c) const;
  /// v* (num_velocities()).
  Eigen::Map<const Eigen::VectorXd> v_star() const;
  /// diag(A_c)^{-1} of clique c, its size() values: formed once per clique by AddClique
  /// (the Delassus estimate of every point contact on the clique needs it).
  const double* inverse_diagonal_of_A(int c) const {
    return inverse_diagonal_A_.data() + clique_offset_[c];
  }

  int num_constraints() const { return static_cast<int>(entries_.size()); }
  int num_constraint_rows() const { return num_rows_; }
  /// Largest n_k over the constraints (0 when there are none).
  int max_constraint_rows() const { return max_rows_; }
  const ConstraintEntry& entry(int k) const { return entries_[k]; }
  const Constraint& constraint(int k) const { return *entries_[k].constraint; }
  /// Jacobian block b (0 or 1) of constraint k: n_k x size(entry(k).clique[b]), stored
  /// dense. Precondition: has_dense_jacobian(k) (for the others see PointContactBlock,
  /// FormBodyJacobianBlock, or DenseJacobian for any constraint).
  /// Inline: the solver asks for blocks per constraint per Newton iteration and line-search
  /// step, too often for an out-of-line call.
  Eigen::Map<const Eigen::MatrixXd> jacobian(int k, int b) const {
    const ConstraintEntry& e = entries_[k];
    CSIM_CHECK(b < e.num_cliques && e.jacobian_offset[b] >= 0);
    return {jacobian_data_.data() + e.jacobian_offset[b], e.num_rows, clique_size_[e.clique[b]]};
  }
  /// Block b of point contact k formed from its factored Jacobian: sign_b R^T [-[r_b]x I].
  /// Precondition: entry(k).point_contact >= 0, b < entry(k).num_cliques.
  Eigen::Matrix<double, 3, 6> PointContactBlock(int k, int b) const;
  /// Block b of any constraint k as a dense matrix (a copy: for tests and diagnostics).
  Eigen::MatrixXd DenseJacobian(int k, int b) const;
  /// The stored block's first entry (column-major), for fixed-size kernels that know its
  /// shape; b < entry(k).num_cliques and a dense block (not a point contact) are the
  /// caller's to guarantee.
  const double* jacobian_block(int k, int b) const {
    return jacobian_data_.data() + entries_[k].jacobian_offset[b];
  }

 private:
  template <class T>
  ConstraintPool<T>& Pool() {
    for (auto& pool : pools_)
      if (pool->key == TypeKey<T>()) return static_cast<ConstraintPool<T>&>(*pool);
    pools_.push_back(std::make_unique<ConstraintPool<T>>());
    pools_.back()->key = TypeKey<T>();
    return static_cast<ConstraintPool<T>&>(*pools_.back());
  }
  // Kind T's prediction interface, or null when T has none.
  template <class T>
  static const StictionPrediction* PredictionOf(const T* c) {
    if constexpr (std::is_base_of_v<StictionPrediction, T>) {
      return c;
    } else {
      return nullptr;
    }
  }
  // Records the entry for `c` (with its prediction interface, or null) on cliques c0 (and
  // c1 >= 0) and, with dense_jacobian, reserves zeroed storage for its Jacobian blocks.
  int AppendEntry(Constraint* c, const StictionPrediction* prediction, int c0, int c1,
                  bool dense_jacobian = true);
  // Grows jacobian_data_ to at least jacobian_size_ entries (doubling, as GrowTo).
  void GrowJacobianData();
  // Sets entry k's Delassus estimate w (the given one when positive, else the diagonal-of-A
  // recipe) and calls Prepare(dt, w).
  void FinishEntry(int k, double delassus = 0.0);
  Eigen::Map<Eigen::MatrixXd> MutableJacobian(int k, int b);
  // Records f for entry k.
  void SetPointContactJacobian(int k, const PointContactJacobian& f);

  double dt_ = 0.0;
  int num_velocities_ = 0;
  int num_rows_ = 0;
  int max_rows_ = 0;
  std::vector<int> clique_size_;
  std::vector<int> clique_offset_;
  std::vector<int> A_offset_;        // offset of A_c in A_data_
  std::vector<double> A_data_;       // column-major blocks; the first A_size_ in use
  size_t A_size_ = 0;
  std::vector<double> v_star_;       // the first num_velocities_ in use
  std::vector<double> inverse_diagonal_A_;  // 1 / A_ii by velocity; the first num_velocities_
  std::vector<double> jacobian_data_;  // column-major blocks; the first jacobian_size_ in use
  size_t jacobian_size_ = 0;
  std::vector<ConstraintEntry> entries_;
  std::vector<PointContactJacobian> point_contacts_;
  std::vector<BodyJacobian> body_jacobians_;
  std::vector<CliqueSolver*> clique_solver_;  // per clique
  std::vector<std::unique_ptr<ConstraintPoolBase>> pools_;
};

}  // namespace csim::solver

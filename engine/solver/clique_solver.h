#pragma once
// A clique whose block of the Newton matrix, H_c = A_c + sum_k J_k^T G_k J_k over the
// constraints on it alone, has a faster factorization than the dense Cholesky, because A_c
// has structure the solver cannot see (an articulated tree: M + diag(d) in joint
// coordinates) and every constraint's Jacobian factors through it:
//   - a body term: J_k = W_k B_b, with B_b the map from the clique's velocities to body b's
//     spatial velocity and W_k (n_k x 6) given; then J_k^T G J_k = B_b^T (W^T G W) B_b;
//   - a velocity term: J_k = s e_j^T (one velocity j); then J_k^T G J_k = (s^T G s) e_j e_j^T.
// The solver (newton_system.h) hands such an island's terms to the clique's CliqueSolver
// instead of assembling H_c, and solves with it. It knows nothing of bodies: `body` is the
// implementer's index, W and B are in the implementer's coordinates (ContactProblem keeps
// W per constraint, SetBodyJacobian). Exactness is the implementer's to guarantee: it must
// factor exactly A_c + those terms.
//
// The same maps B_b serve the solver's products with J: J_k x = W_k (B_b x) and
// J_k^T gamma = B_b^T (W_k^T gamma), summed over the clique's body Jacobians. Through the
// clique's own recursions these cost O(bodies + constraints) per product instead of the
// dense rows' O(constraints size), which dominates a long rope lying on the floor.

#include <Eigen/Dense>

namespace csim::solver {

class CliqueSolver {
 public:
  virtual ~CliqueSolver() = default;
  /// Starts a new H_c = A_c (drops the terms of the last factorization).
  virtual void ClearTerms() = 0;
  /// H_c += B_b^T K B_b, K symmetric positive semidefinite (6 x 6).
  virtual void AddBodyTerm(int body, const Eigen::Matrix<double, 6, 6>& K) = 0;
  /// H_c += g e_j e_j^T, j a velocity of the clique (0-based), g >= 0.
  virtual void AddVelocityTerm(int j, double g) = 0;
  /// Factorizes H_c; false if it is not positive definite. Must not allocate.
  virtual bool Factor() = 0;
  /// x = H_c^-1 x on the clique's velocities (x points at the first). Must not allocate.
  virtual void Solve(double* x) = 0;

  /// out = A_c x on the clique's velocities (x, out point at the first; no overlap). Must
  /// not allocate. Why: the solver forms A v and A dv at every Newton iteration, and the
  /// dense product with a tree's block costs O(size^2) where the tree's recursions cost
  /// O(bodies).
  virtual void MultiplyA(const double* x, double* out) = 0;
  /// A_c, size x size, column-major at out (for the islands that need the block itself:
  /// ContactProblem::AddMatrixFreeClique). Must not allocate.
  virtual void FormA(double* out) = 0;
  /// V_b = B_b x for every body of the clique (x points at its first velocity), kept for
  /// body_velocity(). Must not allocate.
  virtual void CalcBodyVelocities(const double* x) = 0;
  /// B_b x of the last CalcBodyVelocities.
  virtual const Eigen::Matrix<double, 6, 1>& body_velocity(int body) const = 0;
  /// Sets every body's force F_b to zero.
  virtual void ClearBodyForces() = 0;
  /// F_body += F.
  virtual void AddBodyForce(int body, const Eigen::Matrix<double, 6, 1>& F) = 0;
  /// out += sum_b B_b^T F_b on the clique's velocities (out points at the first); the
  /// forces are then undefined until the next ClearBodyForces. Must not allocate.
  virtual void ApplyBodyForces(double* out) = 0;
  /// J = W B_body (3 x size, column-major at J): the dense rows of a body Jacobian, for the
  /// islands that cannot use the maps above (ContactProblem::AddBodyContact). Must not
  /// allocate.
  virtual void BodyJacobianRows(int body, const Eigen::Matrix<double, 3, 6>& W, double* J) = 0;
};

}  // namespace csim::solver

#pragma once
// Per-constraint scalar Delassus estimate w (docs/design/sap-problem.md §4), Drake's recipe:
//   W_k = sum_{c in cliques(k)} J_{k,c} diag(A_c)^{-1} J_{k,c}^T     (n_k x n_k)
//   w_k = ||W_k||_F / n_k                                             [1/kg]
// Only the diagonal of A is used (no factorization, O(n_k^2 m_c) per block). Examples: a free
// point mass m with a 3-row contact gives w = sqrt(3)/(3 m); a one-dof limit (one or two
// rows +-e_j) gives w = 1/A_jj.
//
// The paper ([P] §V) uses the full tree inverse and ||W||_F / 3; we follow Drake because its
// tests and tolerances were tuned with this cheaper estimate (docs/design/sap-problem.md §4.3).

#include <Eigen/Dense>

namespace csim::solver {

/// w for a constraint acting on one clique: A0 (m x m, only its diagonal is read, > 0) and
/// J0 (n x m). Returns ||J0 diag(A0)^{-1} J0^T||_F / n [1/kg]. Never allocates.
double EstimateDelassus(const Eigen::Ref<const Eigen::MatrixXd>& A0,
                        const Eigen::Ref<const Eigen::MatrixXd>& J0);

/// w for a constraint acting on two cliques: W = J0 diag(A0)^{-1} J0^T +
/// J1 diag(A1)^{-1} J1^T (J0, J1 with the same number of rows n). Never allocates.
double EstimateDelassus(const Eigen::Ref<const Eigen::MatrixXd>& A0,
                        const Eigen::Ref<const Eigen::MatrixXd>& J0,
                        const Eigen::Ref<const Eigen::MatrixXd>& A1,
                        const Eigen::Ref<const Eigen::MatrixXd>& J1);

/// The same recipe from the cliques' inverse diagonals, for cliques whose A is not stored
/// (ContactProblem::AddMatrixFreeClique): J0 (n x m0) with diag(A0)^{-1} at
/// inverse_diagonal0 (m0 values), and, when J1 is not null, J1 (n x m1) with
/// inverse_diagonal1. Never allocates.
double EstimateDelassusFromInverseDiagonal(const Eigen::Ref<const Eigen::MatrixXd>& J0,
                                           const double* inverse_diagonal0,
                                           const Eigen::Ref<const Eigen::MatrixXd>* J1 = nullptr,
                                           const double* inverse_diagonal1 = nullptr);

/// w for a constraint of num_rows >= 1 rows, each +-e_j^T on the same coordinate j of one
/// clique (coordinate_constraint.h), from inverse_A_jj = 1 / A_jj (as the clique keeps it,
/// ContactProblem::inverse_diagonal_of_A). Every entry of W is +-1/A_jj, so the recipe's
/// value is w = 1/A_jj; it is evaluated here with the generic routines' own arithmetic (the
/// same n^2 squares summed in the same order), so that the result is bit-identical to
/// EstimateDelassus on the dense rows, in O(n^2) instead of O(n^2 m). Never allocates.
double EstimateCoordinateDelassus(int num_rows, double inverse_A_jj);

/// w for a 3-row point contact on one or two cliques of six velocities (w, v) whose blocks
/// are sign R^T [-[r]x I] (PointContactJacobian in contact_problem.h): diag(A_c)^{-1} (six
/// values, all > 0) and r_c per clique, num_cliques of them (1 or 2). Then W = R^T (sum_c M_c) R
/// with M_c = X_c D_w X_c^T + D_v, X_c = -[r_c]x and diag(A_c)^{-1} = (D_w, D_v); a rotation
/// leaves the Frobenius norm unchanged, so w = ||sum_c M_c||_F / 3 needs neither R nor the
/// dense blocks: about 40 flops per clique against 126 for the 3 x 6 product. Equals
/// EstimateDelassus on the dense blocks up to round-off. Never allocates.
double EstimatePointContactDelassus(int num_cliques, const double* const* inverse_diagonal,
                                    const Eigen::Vector3d* r);

/// The derivative of EstimatePointContactDelassus along inverse_diagonal + s
/// d_inverse_diagonal and r + s dr at s = 0 [1/kg per unit of s]: <M, dM>_F / (3 ||M||_F) with
/// M = sum_c M_c. For the sensitivities' chain rule (pairwise_contact_derivatives.h). Never
/// allocates.
double EstimatePointContactDelassusDerivative(int num_cliques,
                                              const double* const* inverse_diagonal,
                                              const double* const* d_inverse_diagonal,
                                              const Eigen::Vector3d* r,
                                              const Eigen::Vector3d* dr);

}  // namespace csim::solver

#pragma once
// The theta-method two-stage time step of the SAP paper (docs/design/time-step.md, P-6 ... P-18).
//
// Stage 1 finds the free-motion velocity v* with m(v*) = 0, where
//   m(v) = M(q_theta) (v - v0) - dt k(q_theta, v_theta)                     (P-14)
// and k = -bias(q, v) + joint springs and dampers + external loads (the last explicit, at the
// step's start: multibody/external_loads.h). With theta = 0 this is explicit
// (one Cholesky of M(q0)); with theta > 0 it is solved by Newton's method with the SPD
// matrix A of P-15 as the Jacobian approximation (the paper shows dm/dv = A + O(dt)).
// Stage 2, the contact solve (contact_step.h), minimises the convex cost around v*, with A.
// Without constraints v = v*. Finally q = q0 + dt N(q_theta) v_theta_q (P-12).

#include <limits>
#include <vector>

#include <Eigen/Dense>

#include "engine/common/step_status.h"
#include "engine/integrator/implicit_gyroscopic.h"
#include "engine/integrator/step_options.h"
#include "engine/multibody/articulated_body.h"
#include "engine/multibody/model.h"
#include "engine/multibody/state.h"
#include "engine/multibody/tree_topology.h"
#include "engine/multibody/workspace.h"
#include "engine/solver/sap_solver_parameters.h"

namespace csim::integrator {

/// theta weights q and v inside the forces and N; theta_q weights the velocity of the
/// position update (docs/design/time-step.md §2). Named schemes: explicit Euler (0, 0), symplectic
/// Euler (0, 1), implicit Euler (1, 1), midpoint (1/2, 1/2).
/// No defaults: settings.integrator and settings.gyroscopic give them (sim/settings.h).
struct ThetaParameters {
  double theta = std::numeric_limits<double>::quiet_NaN();    ///< [1] in [0, 1]
  double theta_q = std::numeric_limits<double>::quiet_NaN();  ///< [1] in [0, 1]
  Gyroscopic gyroscopic;
};

/// Stopping rule of the free-motion Newton iteration (docs/design/time-step.md §3, suggested
/// there): |D m| <= relative_tolerance * (|D M v| + |D M v0| + |D dt k|) + absolute_tolerance, with
/// D = diag(M)^(-1/2), so the test is dimensionless per coordinate and independent of units,
/// and measured against the momenta, the scale of the round-off in m.
///
/// Round-off floor: the residual of a long chain cannot always reach relative_tolerance.
/// In joint coordinates a link's absolute velocity is a sum over its ancestors' joint
/// velocities, each times a lever of up to the chain's length, so the rounding of m grows
/// like n^2 eps: on long ropes of ball-jointed links (testing::BallChain) the scaled
/// residual stops falling far above relative_tolerance, and meets it only by chance (the
/// 100-link rope of theta_method_test.cc). So the iteration also stops once it has
/// stalled, no new smallest residual in stalled_iterations iterations, at a residual of at
/// most stalled_tolerance, the contact solve's default eps_r: it certifies its momentum
/// error to that level, and further iterations would only sample the rounding. A
/// contracting iteration, however slowly, makes a new smallest residual at every iteration
/// and is never taken for a stalled one; if it is still contracting at max_iterations, it is
/// accepted at the same bar (stalled_tolerance) and fails only above it. Why: A leaves out
/// the velocity derivatives of the Coriolis and gyroscopic forces, so the iteration
/// contracts linearly, and slowly when links spin fast about an axis of small inertia (a
/// long rope of thin capsules rolling on a floor under midpoint).
struct FreeMotionSettings {
  double relative_tolerance = 1e-12;   ///< [1]
  double absolute_tolerance = 1e-14;   ///< [sqrt(kg) m/s]
  /// [1], relative like relative_tolerance
  double stalled_tolerance = solver::SapSolverParameters{}.relative_tolerance;
  int stalled_iterations = 3;          ///< iterations without a new smallest residual
  int max_iterations = 50;             ///< Newton iterations before the step fails
};

/// Scratch of one step; sized by MakeStepWorkspace, reused every step.
struct StepWorkspace {
  multibody::Workspace mb;       ///< kinematics and dynamics at the last evaluation
  Eigen::VectorXd K_diag;        ///< (nv) joint stiffnesses, constant [N/m, N m/rad]
  Eigen::VectorXd D_diag;        ///< (nv) joint damping, constant [N s/m, N m s/rad]
  Eigen::VectorXd v_star;        ///< (nv) free-motion velocity (CalcFreeMotion)
  multibody::BlockDiagonalMatrix A;  ///< (nv, nv) SPD matrix of P-15 at v* (CalcFreeMotion),
                                     ///< one block per tree like M
  std::vector<Eigen::MatrixXd> A_factor;  ///< lower triangle: L D L^T factor of each dense
                                          ///< block k of A that is not 6 x 6
                                          ///< (solver::DenseLdltInPlace), else empty
  std::vector<Eigen::Matrix<double, 6, 6>> A_six;    ///< lower triangle: Cholesky factor of
                                                     ///< each 6 x 6 block k of A (a free body,
                                                     ///< solver::CholeskySix), else unused
  std::vector<bool> articulated;  ///< per block of A: solved by A_articulated, not factored
  std::vector<bool> articulated_body, dense_body;  ///< per body: in an articulated block or not
  multibody::ArticulatedBodySolver A_articulated;  ///< A's solve and M's products on the
                                                   ///< articulated blocks
  bool any_articulated = false;   ///< some block is articulated
  std::vector<char> form_block;   ///< per block of A: FormArticulatedBlocks' scratch
  /// Lone free bodies whose gyroscopic torque Gyroscopic::kImplicit treats
  /// (ImplicitGyroscopicBodies).
  std::vector<GyroscopicBody> implicit_gyroscopic_bodies;
  Eigen::VectorXd A_diagonal_terms;  ///< (nv) c_K K + c_D D of the last factorization (A's
                                     ///< diagonal terms besides M's)
  Eigen::VectorXd q_end, q_theta, v_theta, v_bar;  ///< (nq), (nq), (nv), (nv)
  Eigen::VectorXd k;             ///< (nv) non-constraint forces k(q_theta, v_theta) [N, N m]
  Eigen::VectorXd k_loads;       ///< (nv) external loads' J^T w at (t0, q0), part of k [N, N m]
                                 ///< (multibody::CalcExternalLoadForces); zero without loads
  Eigen::VectorXd residual;      ///< (nv) momentum residual m(v) [N s, N m s]
  Eigen::VectorXd scale;         ///< (nv) diag(M)^(-1/2)
  Eigen::VectorXd work;          ///< (nv) scratch
  int iterations = 0;            ///< Newton iterations of the last free-motion solve (0 for
                                 ///< theta = 0: one direct solve)
  double momentum_error = 0.0;   ///< |D m| / (|D M v| + |D M v0| + |D dt k|) at v*
};

/// A workspace for `model`, each tree solved with A as `tree_solver` says.
StepWorkspace MakeStepWorkspace(const multibody::Model& model, TreeSolver tree_solver);

/// Stage 1: fills ws.v_star and ws.A (and its factor) from the state at the start of the
/// step. The articulated blocks of M and A are formed once, at the end (the iteration
/// needs only O(bodies) products and solves with them), unless form_articulated_blocks is
/// false: then they are left as they were, for a caller that forms the ones it reads
/// (FormArticulatedBlocks). Returns kNotConverged or kNonFinite with a reason on failure.
/// Allocation free.
StepStatus CalcFreeMotion(const multibody::Model& model, const ThetaParameters& params,
                          const FreeMotionSettings& settings, double dt,
                          const multibody::State& state0, StepWorkspace& ws,
                          bool form_articulated_blocks = true);

/// The blocks of M and A of the articulated trees holding a body with bodies[b] true, at
/// the last evaluation (after CalcFreeMotion): one composite rigid-body pass over those
/// bodies. Why selective: under theta = 0 the contact solve handles the other trees through
/// their recursions (contact::ContactProblemBuilder::BodiesNeedingA), and forming a long
/// rope's block is a large share of its step. Allocation free.
void FormArticulatedBlocks(const multibody::Model& model, const std::vector<bool>& bodies,
                           StepWorkspace& ws);

/// Last stage: q = q0 + dt N(q_theta) (theta_q v + (1 - theta_q) v0), exactly (see
/// multibody::IntegratePositions). Allocation free.
void AdvancePositions(const multibody::Model& model, const ThetaParameters& params, double dt,
                      const multibody::State& state0, const Eigen::VectorXd& v,
                      StepWorkspace& ws, Eigen::VectorXd* q);

/// One whole step without constraints: v = v*, then positions; state advanced in place
/// (t += dt). On failure the state is left unchanged.
StepStatus StepFreeMotion(const multibody::Model& model, const ThetaParameters& params,
                          const FreeMotionSettings& settings, double dt,
                          multibody::State& state, StepWorkspace& ws);

}  // namespace csim::integrator

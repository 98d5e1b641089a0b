#pragma once
// Contact problems written to a file and read back (csim_export_problems,
// docs/design/conic_comparison.md): the problems SAP solved in a run, with SAP's solution,
// for another solver to solve the same convex problem (tools/conic_solver_study.py, CVXOPT)
// and for csim to solve again from the file.
//
// A problem is the step's solver::ContactProblem as the solver sees it (sap_solver.h): the
// time step, every clique's dense A_c, v*, and each constraint's cliques, Jacobian and
// physical parameters, plus the guess the step started from and the step's solution and
// statistics. Only what SAP eq. 19 needs is kept; the solver's own state (its workspaces, its
// stiction memory beyond each contact's was_stuck flag) is not, and needs not be: a fresh
// SapSolver given the rebuilt problem and the guess returns the step's solution bit for bit
// (tests/bench/problem_export_test.cc), as bench/paired_solve.h relies on too.
//
// Scope: SAP friction-cone contacts (SapFrictionConeConstraint) on cliques with a stored
// A_c, which is every problem of the clutter. Problems with another constraint kind (joint
// limits, Hunt & Crossley contacts, actuators) or a matrix-free clique are refused
// (CaptureProblem says why): their conic form is not the one of the study.
//
// File layout (HDF5; each array a dataset of the shape stated, 1-D when none is; blocks
// stored one after the other are flattened row by row; h5py reads it as it is):
//   /                    attributes: format ("csim-contact-problems 1"), scene, command,
//                        relative_tolerance, absolute_tolerance (the solver's eps_r, eps_a)
//   /problems/p000000    one group per problem, in step order, attributes: step, time [s],
//                        dt [s], num_velocities, num_constraints, sap_iterations,
//                        sap_island_iterations (the work in whole-problem iterations),
//                        sap_momentum_error (SAP eq. 32 as the solver reported it),
//                        sap_solve_seconds (the step's own SapSolver::Solve, timed by the
//                        step's stage clock; csim_export_problems keeps the fastest over its
//                        --runs simulations), sap_resolve_seconds (fastest re-solve, or -1),
//                        sap_termination, sap_islands
//     clique_size        (cliques) int
//     A                  the A_c blocks one after the other, each size x size [kg, kg m^2]
//     v_star, v_guess, v (num_velocities): v*, the step's guess, SAP's solution
//     gamma, v_c         (3 m): SAP's impulses [N s] and J v (no bias) [m/s], rows t1 t2 n
//     clique             (m, 2) int: the constraint's cliques (second -1: one clique)
//     jacobian           every constraint's blocks one after the other, block b of
//                        constraint k 3 x size(clique[b]), in the contact frame
//     factored           (m) int: 1 when the step added it as a PointContactJacobian
//     R_WC (m, 3, 3), r_W (m, 2, 3) [m], sign (m, 2): that factored form (zeros if not)
//     mu, stiffness [N/m], dissipation_time [s], phi0 [m], near_rigid_threshold,
//     stiction_sigma, was_stuck (int), delassus w [1/kg]   (m each)
//     bias_velocity      (m, 3) [m/s]
//     R_t, R_n [1/kg], v_hat_n [m/s]   (m each): as the constraint prepared them

#include <array>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "engine/io/hdf5_file.h"
#include "engine/solver/contact_problem.h"
#include "engine/solver/sap_friction_cone_constraint.h"
#include "engine/solver/sap_solver.h"

namespace csim::bench {

/// One SAP friction-cone contact of an exported problem.
struct ExportedContact {
  std::array<int, 2> clique{{-1, -1}};
  /// Dense blocks, 3 x size(clique[b]), in the contact frame (rows t1, t2, n).
  std::array<Eigen::MatrixXd, 2> jacobian;
  bool factored = false;                    ///< added as a PointContactJacobian
  solver::PointContactJacobian point_contact;  ///< valid when factored
  solver::SapFrictionConeParameters parameters;
  double delassus = 0.0;                    ///< w [1/kg] the constraint was prepared with
  double R_t = 0.0, R_n = 0.0, v_hat_n = 0.0;  ///< as prepared [1/kg, 1/kg, m/s]
};

/// One step's contact problem, its guess and SAP's solution of it.
struct ExportedProblem {
  long step = 0;      ///< step number (1 = the first step)
  double time = 0.0;  ///< time at the step's start [s]
  double dt = 0.0;    ///< [s]
  std::vector<int> clique_size;
  std::vector<Eigen::MatrixXd> A;  ///< per clique, size x size
  Eigen::VectorXd v_star, v_guess;
  std::vector<ExportedContact> contacts;
  // SAP's solve of it.
  Eigen::VectorXd v, gamma, v_c;
  int sap_iterations = 0;
  /// Island iterations weighted by the island's share of the velocities: the Newton work
  /// in whole-problem factorizations (SapSolverStats::mean_island_iterations).
  double sap_island_iterations = 0.0;
  double sap_momentum_error = 0.0;
  double sap_solve_seconds = 0.0;     ///< the step's own solve [s] (fastest of the runs)
  double sap_resolve_seconds = -1.0;  ///< fastest re-solve [s], -1 if none
  std::string sap_termination;
  int sap_islands = 0;

  int num_velocities() const { return static_cast<int>(v_star.size()); }
};

/// Copies `problem` (solved from `guess` into `result`) into *out. Returns "" on success, or
/// why the problem cannot be exported (another constraint kind, a matrix-free clique).
std::string CaptureProblem(const solver::ContactProblem& problem, const Eigen::VectorXd& guess,
                           const solver::SapSolverResult& result, ExportedProblem* out);

/// Rebuilds the exported problem into *problem (cleared first): the same cliques and
/// constraints in the same order, each contact added as the step added it (factored or
/// dense, with its Delassus estimate), so the constraints prepare the same R and v_hat.
void BuildProblem(const ExportedProblem& exported, solver::ContactProblem* problem);

/// Appends problems to a new file (the layout above). Throws csim::IoError on failure.
class ProblemFileWriter {
 public:
  /// Creates (truncates) `file_name` and writes the root attributes.
  ProblemFileWriter(const std::string& file_name, const std::string& scene,
                    const std::string& command, const solver::SapSolverParameters& parameters);
  void Append(const ExportedProblem& p);
  int count() const { return count_; }
  /// Closes the file; throws if that fails.
  void Close();

 private:
  io::Hdf5File file_;
  io::Hdf5Group problems_;
  int count_ = 0;
};

/// Every problem of a file written by ProblemFileWriter, in order. Throws csim::IoError.
std::vector<ExportedProblem> ReadProblemFile(const std::string& file_name);

}  // namespace csim::bench

#pragma once
// The velocity each contact solve starts from (SapSolverParameters::extrapolate_warm_start,
// scene setting solver.warm_start). The guess changes only the path of the Newton iteration,
// never its solution or stopping criterion.
//
// `previous`: v0, the velocity at the start of the step (the SAP paper's choice).
// `extrapolated`: per clique (tree of the contact problem), the linear extrapolation
//   v0 + (v0 - v_-1) where that tree's velocity increment was steady over the last two
//   steps, and v0 where it was not:
//     extrapolate tree c  iff  ||d0 - d1||_{A_c} <= tolerance * ||d0||_{A_c},
//     d0 = v0 - v_-1,  d1 = v_-1 - v_-2,
//   with A_c the tree's block of the step's linearized dynamics matrix (the norm of kinetic
//   energy, so linear and angular rates are weighed consistently).
// Why per tree and why the test: the extrapolation predicts the next velocity change equals
// the last one. That is exact for free flight and uniform sliding or rolling, and saves
// Newton iterations there, but after an impact or a stick-slip switch it applies the last
// step's impulse a second time. Measured on clutter-40 with walls (dt 2e-3), piles that had
// settled were started by the blanket extrapolation at a relative momentum residual near 1
// (a body that had just been hit) and then took 6-11 Newton iterations. With the test
// (tolerance 0.35), over six piles: mean iterations 2.83 -> 2.74 overall and 1.37 -> 1.22
// over the last 5 s (worst pile 1.60 -> 1.33); 80 objects without walls 3.05 -> 2.95 and
// 1.34 -> 1.10 over the last second; 160 objects without walls unchanged (tools/
// iteration_study.py, csim_bench). The steady case computes 2 v0 - v_-1, the very
// arithmetic of the previous blanket rule.
// Rejected: choosing v0 or the extrapolation per island by the SAP cost at each (more
// iterations: the cost at a guess does not predict the Newton path); extrapolating every
// tree (above).
//
// Memory: the history keeps its capacity; no allocation once sized (one vector per step).

#include <Eigen/Dense>

#include "engine/solver/contact_problem.h"

namespace csim::integrator {

/// The velocities at the start of the last two successful steps, for the warm start.
class WarmStartHistory {
 public:
  /// Forgets the history (after a failed step: the next guess is v0).
  void Reset() { count_ = 0; }

  /// Records v0, the velocity at the start of a step that succeeded.
  void Push(const Eigen::VectorXd& v0);

  /// Writes the guess for a step starting at v0 (size nv) into *guess. With
  /// `extrapolate` false, or fewer than two recorded steps, the guess is v0; otherwise the
  /// per-tree rule above with `tolerance` [1] >= 0, the trees and their A_c blocks read from
  /// `problem` (cliques cover the velocities in order). No allocation once *guess is sized.
  void CalcGuess(const solver::ContactProblem& problem, const Eigen::VectorXd& v0,
                 bool extrapolate, double tolerance, Eigen::VectorXd* guess) const;

  /// Number of recorded steps that the guess can use (0, 1 or 2).
  int count() const { return count_; }

 private:
  Eigen::VectorXd v_1_, v_2_;  // v at the start of the last and the second-to-last step
  int count_ = 0;              // how many of v_1_, v_2_ are valid
};

}  // namespace csim::integrator

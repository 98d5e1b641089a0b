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
// each a step's worth of work. A pair's contribution to r_C depends only on the two bodies'
// poses (and, for the lagged Hunt & Crossley normal impulse, their velocities at the start):
// so each pair is re-evaluated alone at x0 +- h D, in its twelve coordinates. What a pair
// re-evaluates is what the builder does for it (contact_problem_builder.cc): the narrow
// phase of the pair (geometry::CalcPairContacts at the perturbed poses, the pair's margin of
// the nominal build), each point's contact frame (contact::ContactFrame), levers from the
// bodies' origins, the Delassus estimate of the point contact from A's diagonal rotated
// with the body (A = X(R) M_B X(R)^T for a lone free body under theta = 0, so its diagonal
// at R' = dR R is that of X(dR) A X(dR)^T), the constraint made from the nominal one's
// parameters with the perturbed phi0 (and the lagged v_n0), prepared, and evaluated at the
// perturbed J v. The contact identities are the manifold's point order, as the builder
// keys them; a perturbed pair must have the nominal points and every point on its nominal
// piece (SAP's region, Hunt & Crossley's normal clamp), else it is redone at h / 10, h /
// 100, h / 1000 (a pair's evaluation costs one narrow phase: no prediction is needed), then
// taken one-sided from the side that matches (second order, at min(the last step, h / 10)
// and half of it), or central across the pieces when neither does (flagged, as the
// general rule flags it).
// The free motion's part, A (v - v*), is not differenced: free_body_partials.h.

#include <vector>

#include <Eigen/Dense>

#include "engine/contact/contact_parameters.h"
#include "engine/geometry/contact_shape.h"
#include "engine/geometry/point_contact.h"
#include "engine/integrator/contact_step.h"
#include "engine/math/spatial.h"
#include "engine/multibody/model.h"
#include "engine/solver/step_sensitivity.h"

namespace csim::integrator {

class PairwiseContactDifferences {
 public:
  using Vector12 = Eigen::Matrix<double, 12, 1>;

  /// The collision shapes of `model` (every spec that collides), made once.
  explicit PairwiseContactDifferences(const multibody::Model& model);

  /// Per chunk of columns: a pair's perturbed points.
  struct Scratch {
    std::vector<geometry::PointContact> points;
  };

  /// Reads the nominal step's contacts (its build `nominal`, the kinds per constraint of its
  /// problem) and says whether the rule covers the step: a model of lone free bodies
  /// (AllLoneFreeBodies) and every constraint a point contact, factored
  /// (solver::PointContactJacobian), of a SAP or Hunt & Crossley kind, from the narrow phase
  /// (no hydroelastic polygon), without a known velocity. Allocation free once warmed up.
  bool Prepare(const contact::ContactParameters& parameters, const ContactStepWorkspace& nominal,
               const std::vector<solver::ContactKind>& kind);

  struct Outcome {
    int one_sided = 0;  ///< pairs differenced one-sided (their other side left the pieces)
    int unmatched = 0;  ///< pairs whose both sides left the pieces at every step tried
  };

  /// Adds d r_C / d x0 D (nv) at the fixed v to `dr`, at the step h0 of the general rule
  /// (docs/design/sensitivities.md §6.2). state0 is the nominal step's start, dt its step;
  /// nominal_ws the nominal free motion's workspace (the kinematics the build read).
  Outcome AddDerivative(const ContactStepWorkspace& nominal, const StepWorkspace& nominal_ws,
                        double dt, const multibody::State& state0, const Eigen::VectorXd& v,
                        const Eigen::Ref<const Eigen::VectorXd>& dq,
                        const Eigen::Ref<const Eigen::VectorXd>& dv0, double h0,
                        const std::vector<int>& piece, Scratch& scratch,
                        Eigen::Ref<Eigen::VectorXd> dr) const;

 private:
  // One geometry pair of the nominal build: its contacts are builder contacts
  // [first, first + count), each with its constraint (or -1).
  struct Pair {
    int geometry_a = -1, geometry_b = -1;
    int body_a = -1, body_b = -1;    // -1: the world
    int v_a = -1, v_b = -1;          // first velocity of the body's free joint
    int first = 0, count = 0;
    double margin = 0.0;             // the pair's margin in the nominal build [m]
  };
  // The pair's contribution to r_C at x0 + s D (s a signed step), 6 values per body (torque
  // about its origin, force; world axes), into g; false when its points or their pieces are
  // not the nominal ones.
  bool EvaluatePair(const Pair& pair, const ContactStepWorkspace& nominal,
                    const StepWorkspace& nominal_ws, double dt, const Eigen::VectorXd& v0,
                    const Eigen::VectorXd& v, const Eigen::Ref<const Eigen::VectorXd>& dq,
                    const Eigen::Ref<const Eigen::VectorXd>& dv0, double s,
                    const std::vector<int>& piece, Scratch& scratch, Vector12* g) const;

  std::vector<geometry::ContactShape> shapes_;  // of the colliding specs
  std::vector<int> shape_of_;                  // per collision spec: into shapes_, or -1
  std::vector<math::RigidTransform> X_BG_;     // per collision spec
  bool lone_free_bodies_;                      // the model's, AllLoneFreeBodies (free_body_partials.h)
  std::vector<int> body_v_start_;              // per body: its joint's first velocity
  std::vector<Pair> pairs_;                    // of the prepared step
  std::vector<solver::ContactKind> kind_;      // per constraint of the prepared step
};

}  // namespace csim::integrator

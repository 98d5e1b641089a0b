// ContactProblem: layout of cliques, v*, constraints and Jacobian blocks; constraints are
// prepared with their Delassus estimate when added; Clear() keeps capacity so a rebuilt
// problem does not allocate.

#include "engine/solver/contact_problem.h"

#include <catch2/catch.hpp>

#include <cmath>

#include "engine/solver/delassus_estimate.h"
#include "engine/solver/sap_friction_cone_constraint.h"
#include "engine/solver/sap_limit_constraint.h"
#include "tests/support/allocation_counter.h"

namespace csim::solver {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

// Builds: clique 0 (3 dofs, mass 2), clique 1 (2 dofs), a contact on clique 0, a contact
// between cliques 0 and 1, and a limit on dof 1 of clique 1.
void Build(ContactProblem* problem, const MatrixXd& J01) {
  problem->Clear(0.01);
  problem->AddClique(2.0 * MatrixXd::Identity(3, 3));
  problem->AddClique((MatrixXd(2, 2) << 4.0, 1.0, 1.0, 3.0).finished());
  problem->SetFreeMotionVelocity((VectorXd(5) << 1, 2, 3, 4, 5).finished());
  SapFrictionConeParameters contact;
  contact.near_rigid_threshold = 1.0;
  contact.stiction_sigma = 1.0e-3;
  contact.stiffness = 1e4;
  problem->AddConstraint(0, MatrixXd::Identity(3, 3), SapFrictionConeConstraint(contact));
  problem->AddConstraint(0, -MatrixXd::Identity(3, 3), 1, J01, SapFrictionConeConstraint(contact));
  SapLimitParameters limit;
  limit.lower = -1.0;
  limit.upper = 1.0;
  AddJointLimit(problem, 1, 1, limit);
}

TEST_CASE("Contact problem layout", "[solver]") {
  ContactProblem problem;
  const MatrixXd J01 = (MatrixXd(3, 2) << 1, 0, 0, 1, 0.5, 0.5).finished();
  Build(&problem, J01);
  CHECK(problem.num_cliques() == 2);
  CHECK(problem.num_velocities() == 5);
  CHECK(problem.clique_offset(1) == 3);
  CHECK(problem.clique_size(1) == 2);
  CHECK(problem.A(1)(0, 1) == 1.0);
  CHECK(problem.v_star()[4] == 5.0);
  CHECK(problem.num_constraints() == 3);
  CHECK(problem.num_constraint_rows() == 8);
  CHECK(problem.max_constraint_rows() == 3);
  CHECK(problem.entry(1).num_cliques == 2);
  CHECK(problem.entry(1).row_offset == 3);
  CHECK(problem.entry(2).row_offset == 6);
  CHECK(problem.jacobian(1, 1) == J01);
  CHECK(problem.jacobian(1, 0) == -MatrixXd::Identity(3, 3));
  CHECK(problem.jacobian(2, 0) == (MatrixXd(2, 2) << 0, 1, 0, -1).finished());
  // Delassus estimates (docs/design/sap-problem.md §4) and Prepare() at insertion.
  CHECK(problem.entry(0).delassus == Approx(std::sqrt(3.0) / 3.0 / 2.0));
  CHECK(problem.entry(2).delassus == Approx(1.0 / 3.0));
  const auto& contact = static_cast<const SapFrictionConeConstraint&>(problem.constraint(0));
  CHECK(contact.R_t() == Approx(1e-3 * problem.entry(0).delassus));
}

TEST_CASE("Contact problem rebuilt after Clear does not allocate", "[solver]") {
  ContactProblem problem;
  const MatrixXd J01 = (MatrixXd(3, 2) << 1, 0, 0, 1, 0.5, 0.5).finished();
  const MatrixXd A0 = 2.0 * MatrixXd::Identity(3, 3);
  Build(&problem, J01);
  Build(&problem, J01);  // warm: every buffer and pool has its capacity
  SapFrictionConeParameters contact;
  contact.near_rigid_threshold = 1.0;
  contact.stiction_sigma = 1.0e-3;
  contact.stiffness = 1e4;
  const SapFrictionConeConstraint prototype(contact);
  const VectorXd v_star = VectorXd::Ones(3);
  const MatrixXd I3 = MatrixXd::Identity(3, 3);
  const std::size_t before = testing::AllocationCount();
  problem.Clear(0.02);
  problem.AddClique(A0);
  problem.SetFreeMotionVelocity(v_star);
  problem.AddConstraint(0, I3, prototype);
  problem.AddConstraint(0, I3, prototype);
  const std::size_t after = testing::AllocationCount();
  CHECK(after - before == 0);
  CHECK(problem.num_constraints() == 2);
  CHECK(problem.dt() == 0.02);
}

TEST_CASE("Contact problem: a point contact's Delassus estimate uses each clique's own A",
          "[solver]") {
  // Three free bodies with different diagonal mass blocks; point contacts between bodies 2
  // and 0, and between body 1 and the world. Each estimate must equal the dense estimate of
  // its own blocks, so a diagonal taken from the wrong clique (or the wrong velocity offset)
  // fails.
  ContactProblem problem;
  problem.Clear(0.01);
  const double masses[3] = {0.5, 2.0, 7.0};
  for (double m : masses) {
    MatrixXd A = MatrixXd::Zero(6, 6);
    A.diagonal() << 0.01 * m, 0.02 * m, 0.03 * m, m, m, m;
    A(0, 1) = A(1, 0) = 0.001 * m;  // off-diagonal entries do not enter the estimate
    problem.AddClique(A);
  }
  problem.SetFreeMotionVelocity(VectorXd::Zero(18));
  SapFrictionConeParameters contact;
  contact.near_rigid_threshold = 1.0;
  contact.stiction_sigma = 1.0e-3;
  contact.stiffness = 1e4;
  PointContactJacobian pair;
  pair.R_WC = Eigen::AngleAxisd(0.4, Eigen::Vector3d(1, -1, 2).normalized()).toRotationMatrix();
  pair.r_W = {Eigen::Vector3d(0.1, -0.05, 0.02), Eigen::Vector3d(-0.03, 0.2, 0.07)};
  pair.sign = {-1.0, 1.0};
  problem.AddPointContact(2, 0, pair, SapFrictionConeConstraint(contact));
  PointContactJacobian single = pair;
  single.r_W[0] = Eigen::Vector3d(0.0, 0.04, -0.12);
  problem.AddPointContact(1, -1, single, SapFrictionConeConstraint(contact));
  CHECK(problem.entry(0).delassus ==
        Approx(EstimateDelassus(problem.A(2), problem.DenseJacobian(0, 0), problem.A(0),
                                problem.DenseJacobian(0, 1)))
            .epsilon(1e-14));
  CHECK(problem.entry(1).delassus ==
        Approx(EstimateDelassus(problem.A(1), problem.DenseJacobian(1, 0))).epsilon(1e-14));
}

}  // namespace
}  // namespace csim::solver

#include "engine/solver/constraint.h"

#include <algorithm>
#include <cmath>

namespace csim::solver {

double Constraint::CalcAlong(const double* v_c, const double* dv_c, double* gamma,
                             double* curvature, int* piece, double* scratch) const {
  const double cost = Calc(v_c, gamma, scratch, piece);
  const int n = num_rows();
  double sum = 0.0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) sum += dv_c[i] * scratch[j * n + i] * dv_c[j];
  *curvature = sum;
  return cost;
}

namespace {

// SAP eq. 29: the period of the contact oscillator is capped at beta * dt.
double NearRigidTerm(double beta, double delassus) {
  constexpr double kFourPiSquared = 4.0 * M_PI * M_PI;
  return beta * beta / kFourPiSquared * delassus;
}

// Compliant regime (docs/design/sap-problem.md §3.1): 1 / (dt k (dt + tau_d)); k = inf gives 0.
double CompliantTerm(double dt, double k, double tau_d) { return 1.0 / (dt * k * (dt + tau_d)); }

}  // namespace

double NearRigidRegularization(double dt, double k, double tau_d, double beta,
                               double delassus) {
  return std::max(NearRigidTerm(beta, delassus), CompliantTerm(dt, k, tau_d));
}

bool NearRigidTermWins(double dt, double k, double tau_d, double beta, double delassus) {
  // std::max(a, b) returns a unless a < b.
  return !(NearRigidTerm(beta, delassus) < CompliantTerm(dt, k, tau_d));
}

}  // namespace csim::solver

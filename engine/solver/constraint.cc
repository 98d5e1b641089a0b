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

double NearRigidRegularization(double dt, double k, double tau_d, double beta,
                               double delassus) {
  constexpr double kFourPiSquared = 4.0 * M_PI * M_PI;
  // SAP eq. 29: the period of the contact oscillator is capped at beta * dt.
  const double R_near_rigid = beta * beta / kFourPiSquared * delassus;
  // Compliant regime (docs/design/sap-problem.md §3.1): 1 / (dt k (dt + tau_d)); k = inf gives 0.
  const double R_compliant = 1.0 / (dt * k * (dt + tau_d));
  return std::max(R_near_rigid, R_compliant);
}

}  // namespace csim::solver

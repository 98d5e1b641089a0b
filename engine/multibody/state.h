#pragma once
// The state of a run: exactly what /state records and what a restart restores.

#include <Eigen/Dense>

namespace csim::multibody {

struct State {
  double t = 0.0;       ///< time [s]
  Eigen::VectorXd q;    ///< (nq) generalised positions, scene-format.md coordinates
  Eigen::VectorXd v;    ///< (nv) generalised velocities
};

}  // namespace csim::multibody

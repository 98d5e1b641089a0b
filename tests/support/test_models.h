#pragma once
// Models built by hand for tests (no YAML), and exponential local coordinates around a
// configuration, so that derivatives with respect to q can be taken by finite differences
// for every joint type, quaternions included.

#include <random>

#include <Eigen/Dense>

#include "engine/multibody/model.h"

namespace csim::testing {

/// A random forest of n bodies mixing every joint type: revolute, prismatic, planar, ball,
/// free, fixed, and (when with_prescribed) prescribed revolute joints. Random parents,
/// joint frames, masses, centres of mass and inertias. Deterministic for a given seed.
multibody::Model RandomTree(int n, unsigned seed, bool with_prescribed = true);

/// Gives every revolute, prismatic and planar joint that owns coordinates a random armature
/// in [0.05, 1] per coordinate (the joints the loader allows it on); returns the armatures
/// assembled in v order (nv), zero elsewhere.
Eigen::VectorXd AddRandomArmature(multibody::Model* model, std::mt19937& rng);

/// Random unit quaternions where the model has them, random values elsewhere.
Eigen::VectorXd RandomQ(const multibody::Model& model, std::mt19937& rng);
Eigen::VectorXd RandomV(const multibody::Model& model, std::mt19937& rng);

/// q(xi): local coordinates xi (nv) around q0. Scalar joints: q0 + xi. Free joint:
/// exp(xi_w) (x) quat0 and p0 + xi_v. Ball joint: quat0 (x) exp(xi_w). At xi = 0, xi_dot = v.
Eigen::VectorXd Retract(const multibody::Model& model, const Eigen::VectorXd& q0,
                        const Eigen::VectorXd& xi);

/// v = E(xi) xi_dot: the generalised velocity of the path q(xi(t)) (SO(3) left Jacobian
/// for free joints, right Jacobian for ball joints, identity elsewhere).
Eigen::VectorXd LocalToVelocity(const multibody::Model& model, const Eigen::VectorXd& xi,
                                const Eigen::VectorXd& xi_dot);

/// A single pendulum: point-like bob of mass m [kg] on a massless rod of length L [m],
/// revolute about the world y axis, hanging along -z at q = 0; gravity g [m/s^2].
multibody::Model Pendulum(double m, double L, double g, double theta0);

/// A body of mass m on a prismatic x joint with a spring k [N/m], no gravity.
multibody::Model SpringMass(double m, double k, double x0);

/// A free body with principal inertias (I1, I2, I3) [kg m^2], no gravity, spinning at w0
/// [rad/s] (world frame) from the identity orientation.
multibody::Model FreeBody(const Eigen::Vector3d& principal, const Eigen::Vector3d& w0);

/// A hanging rope: n capsule-like links of length L [m] and mass m [kg] (transverse inertia
/// m L^2 / 100, axial m L^2 / 1000) joined by ball joints, the first to the world at height
/// n L + 0.5; gravity 9.81 along -z. The first joint starts tilted by `tilt` [rad] about y,
/// every other one by 0.02 rad about a horizontal axis, so the released rope swings out of
/// its plane and twists.
multibody::Model BallChain(int n, double m, double L, double tilt);

}  // namespace csim::testing

// scenes/mug_on_table.yaml: a rigid mug of 16 primitives (foot disk, 12 wall staves, a
// handle on +x) resting on a compliant table (slab: p = (E / H) depth). Oracles: the foot's
// bottom face, fanned into n triangles from its centre (one contact each, at its centroid,
// carrying its exact pressure integral), sunk delta at its centre and tilted phi toward
// the handle, carries p = (E / H)(delta + phi x); so
//  - force balance: (E / H) A delta = m g, A the n-gon's area (its first moment is zero);
//  - moment balance about the centre of mass, which the tilt moves z_c phi further out:
//    (E / H) phi I = m g (x_c + z_c phi), I = (2/9) A R^2 cos^2(pi / n) the second moment of
//    the triangles' centroids (each of area A / n at radius (2/3) R cos(pi / n));
//  - equilibrium: the surface carries m g, with its centre of pressure under the centre of
//    mass, and nothing drifts.
// The dipped side faces of the foot carry a little normal force and friction, bounded
// analytically below; it is what the depth and tilt are allowed to stray by.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "engine/hydroelastic/compliant_meshes.h"
#include "tests/scenes/scene_run.h"

namespace csim::scenes {
namespace {

TEST_CASE("scenes/mug_on_table.yaml: the mug sinks m g H / (E A) into the soft table, tilts "
          "toward its handle by m g x_c / ((E / H) I - m g z_c) with its centre of pressure "
          "under its centre of mass, and does not drift",
          "[scenes]") {
  const SceneRun run = RunSceneFile("mug_on_table.yaml");
  const double m = 0.3, g = 9.81, E = 1e7, H = 0.05, mu = 0.5;

  // The centre of mass, from the geometry at uniform density (body frame: the centre of the
  // foot's bottom face). The wall's 12 staves are symmetric about the axis.
  const double R = 0.04, foot = 0.008, hint = 0.016;
  const double V_foot = kPi * R * R * foot;             // centred at z = foot / 2
  const double V_wall = 12 * 0.0045 * 0.018 * 0.087;    // centred at z = 0.0515
  const double V_arm = 0.021 * 0.012 * 0.008;           // x = 0.049, z = 0.026 and 0.076
  const double V_grip = 0.008 * 0.012 * 0.058;          // x = 0.0635, z = 0.051
  const double V = V_foot + V_wall + 2 * V_arm + V_grip;
  const double x_c = (2 * V_arm * 0.049 + V_grip * 0.0635) / V;
  const double z_c =
      (V_foot * foot / 2 + V_wall * 0.0515 + V_arm * (0.026 + 0.076) + V_grip * 0.051) / V;
  REQUIRE(x_c == Approx(4.1014e-3).epsilon(1e-4));  // the header's figures
  REQUIRE(z_c == Approx(37.250e-3).epsilon(1e-4));

  // The foot's bottom face: an n-gon with a vertex on +x, fanned from its centre.
  const int n = hydroelastic::RimVertexCount(R, hint);
  REQUIRE(n == 16);
  const double A = 0.5 * n * R * R * std::sin(2 * kPi / n);
  const double I = 2.0 / 9.0 * A * R * R * std::pow(std::cos(kPi / n), 2);
  const double d_rest = m * g * H / (E * A);
  const double tilt_stiffness = E / H * I - m * g * z_c;  // [N m / rad], > 0: stable
  const double phi_rest = m * g * x_c / tilt_stiffness;
  REQUIRE(d_rest == Approx(3.0041e-6).epsilon(1e-4));
  REQUIRE(phi_rest == Approx(3.6036e-5).epsilon(1e-4));

  // The side faces of the foot on the handle side dip into the slab (on the other side the
  // slab's slope along their normal is negative and they are skipped): each of the n / 2
  // faces of length 2 R sin(pi / n) carries at most (E / H) d_max^2 / 2 per unit length,
  // d_max the deepest point's depth, and friction on them at most mu times that. That
  // bounds the vertical force and the moment about the centre of mass they take off the
  // bottom face, and so how far delta and phi may stray from the closed forms.
  const double side = 2 * R * std::sin(kPi / n);
  const double d_max = 1.01 * (d_rest + phi_rest * R);  // 1% over, for the tolerances below
  const double N_side = E / H * d_max * d_max / 2 * (n / 2) * side;
  const double d_tolerance = (mu + phi_rest) * N_side * H / (E * A);
  const double phi_tolerance =
      N_side * ((mu + phi_rest) * (R + 2 * x_c) + 2 * d_max) / tilt_stiffness;
  // Tight enough to tell the triangles' I from the 16-gon's (the tilts are 12% apart): the
  // 16-gon's I = (n R^4 / 24) sin(2 pi / n) (2 + cos(2 pi / n)).
  const double I_polygon = n * std::pow(R, 4) / 24 * std::sin(2 * kPi / n) *
                           (2 + std::cos(2 * kPi / n));
  REQUIRE(phi_tolerance < 0.01 * (phi_rest - m * g * x_c / (E / H * I_polygon - m * g * z_c)));

  const int mug = run.Body("mug");
  const sim::Row& last = run.rows.back();
  const Eigen::Matrix3d R_WB = BodyRotation(last, mug);
  const double d = -last.body_position(2, mug);
  const double phi = std::atan2(R_WB(0, 2), R_WB(2, 2));  // about y; > 0: +x down
  INFO("depth " << d << " m (closed form " << d_rest << "), tilt " << phi << " rad (closed form "
                << phi_rest << ")");
  CHECK(std::abs(d - d_rest) < d_tolerance);
  CHECK(std::abs(phi - phi_rest) < phi_tolerance);

  // One surface, the table's, carrying the weight with its centre of pressure under the
  // centre of mass: the moment about the centre of mass vanishes.
  REQUIRE(last.surfaces.size() == 1);
  const sim::SurfaceRow& s = last.surfaces[0];
  REQUIRE(((s.body_a == -1 && s.body_b == mug) || (s.body_a == mug && s.body_b == -1)));
  const Eigen::Vector3d F = s.body_b == mug ? s.force : Eigen::Vector3d(-s.force);
  const Eigen::Vector3d M = s.body_b == mug ? s.moment : Eigen::Vector3d(-s.moment);
  CHECK(F.z() == Approx(m * g).epsilon(1e-9));
  CHECK(F.head<2>().norm() < 1e-9 * m * g);
  const Eigen::Vector3d com_W =
      last.body_position.col(mug) + R_WB * Eigen::Vector3d(x_c, 0, z_c);
  CHECK((M + (s.centroid - com_W).cross(F)).norm() < 1e-9 * m * g * x_c);
  const double x_pressure = s.centroid.x() - M.y() / F.z();
  const double y_pressure = s.centroid.y() + M.x() / F.z();
  CHECK(std::abs(x_pressure - com_W.x()) < 1e-9 * x_c);
  CHECK(std::abs(y_pressure - com_W.y()) < 1e-9 * x_c);
  CHECK(x_pressure == Approx(x_c).epsilon(1e-3));  // toward the handle
  // Its area: the bottom face, plus the dipped side faces (at most side * d_max each).
  CHECK(s.area > A);
  CHECK(s.area < A + (n / 2) * side * d_max);

  // No drift, no roll or yaw over the run; after settling (~0.2 s) it moves by less than
  // 0.1% of its depth and tilt per second.
  double shift = 0.0, roll = 0.0, yaw = 0.0, speed = 0.0, spin = 0.0;
  for (const sim::Row& row : run.rows) {
    const Eigen::Matrix3d R_row = BodyRotation(row, mug);
    shift = std::max(shift, row.body_position.col(mug).head<2>().norm());
    roll = std::max(roll, std::abs(R_row(2, 1)));
    yaw = std::max(yaw, std::abs(R_row(1, 0)));
    if (row.time < 0.5) continue;
    speed = std::max(speed, row.body_linear_velocity.col(mug).norm());
    spin = std::max(spin, row.body_angular_velocity.col(mug).norm());
  }
  CHECK(shift < 1e-3 * d_rest);
  CHECK(roll < 1e-9);
  CHECK(yaw < 1e-9);
  CHECK(speed < 1e-3 * d_rest);  // [m/s]
  CHECK(spin < 1e-3 * phi_rest);  // [rad/s]
}

}  // namespace
}  // namespace csim::scenes

// scenes/soft_box_stack.yaml: three compliant boxes (medial-axis fields, exact on their tets)
// stacked on a rigid floor, each centred on the one below. Oracles:
//  - equilibrium: at rest each contact surface carries the weight of the boxes above it;
//  - floor: the bottom box pressed a depth d carries (E / h) 4 (a - d)(b - d) d (as in
//    soft_box_on_floor_test), which at rest is the whole stack's weight;
//  - box on box (upper U, half sizes a, b, slope g_U = E_U / h_U; lower L, slope g_L;
//    overlap delta): the equal-pressure surface is a flat rectangle |x| <= a - s,
//    |y| <= b - s, s = delta g_L / (g_U + g_L), at p = g_U s, and strips sloping at g_U / g_L
//    out to U's edges, where p = g_U (distance to U's side); over U's footprint p = g_U min(s,
//    a - |x|, b - |y|), whose integral (the normal forces' vertical sum: each polygon's
//    A p0 is its exact pressure integral) is F(delta) = g_U 4 [a b s - (a + b) s^2 / 2 +
//    s^3 / 3], the strips' share F_strip = g_U [2 (a + b) s^2 - 8 s^3 / 3]. The rest of the
//    weight is friction on the strips, which the boxes slide down while settling: at most
//    mu tan(theta) F_strip, tan(theta) = g_U / g_L.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "tests/scenes/scene_run.h"

namespace csim::scenes {
namespace {

constexpr double kG = 9.81, kMu = 0.5, kDt = 1e-3, kTauD = 0.02;

struct Box {
  const char* name;
  double m, a, b, c, E;  // mass [kg], half sizes [m], modulus [Pa]
  double Slope() const { return E / std::min({a, b, c}); }  // g = E / h [Pa/m]
};

// The box-box closed forms of the header, upper box U on lower box L.
struct Interface {
  Box U, L;
  double S(double delta) const { return delta * L.Slope() / (U.Slope() + L.Slope()); }
  double Force(double delta) const {
    const double s = S(delta);
    return U.Slope() * 4 * (U.a * U.b * s - (U.a + U.b) * s * s / 2 + s * s * s / 3);
  }
  double StripForce(double delta) const {
    const double s = S(delta);
    return U.Slope() * (2 * (U.a + U.b) * s * s - 8 * s * s * s / 3);
  }
  double Stiffness(double delta) const {  // dF / d(delta)
    const double s = S(delta);
    return U.Slope() * 4 * (U.a - s) * (U.b - s) * L.Slope() / (U.Slope() + L.Slope());
  }
  double TanTheta() const { return U.Slope() / L.Slope(); }  // the strips' slope
  double Area(double delta) const {
    const double s = S(delta);
    const double flat = 4 * (U.a - s) * (U.b - s);
    return flat + (4 * U.a * U.b - flat) * std::sqrt(1 + TanTheta() * TanTheta());
  }
};

// The root of increasing f on [0, hi] where f = target.
template <typename F>
double Bisect(const F& f, double target, double hi) {
  double lo = 0.0;
  for (int i = 0; i < 200; ++i) (f(0.5 * (lo + hi)) < target ? lo : hi) = 0.5 * (lo + hi);
  return 0.5 * (lo + hi);
}

// The surface between bodies i and j (-1 the world) of a row; REQUIREs exactly one.
const sim::SurfaceRow& SurfaceBetween(const sim::Row& row, int i, int j) {
  const sim::SurfaceRow* found = nullptr;
  int count = 0;
  for (const sim::SurfaceRow& s : row.surfaces) {
    if ((s.body_a == i && s.body_b == j) || (s.body_a == j && s.body_b == i)) {
      found = &s;
      ++count;
    }
  }
  INFO("surfaces between bodies " << i << " and " << j);
  REQUIRE(count == 1);
  return *found;
}

TEST_CASE("scenes/soft_box_stack.yaml: every surface carries the weight above it, the bottom "
          "box rests at (E / h) 4 (a - d)(b - d) d = M g, each box-box surface's pressure "
          "integrates to the springs-in-series closed form, and nothing slides or tips",
          "[scenes]") {
  const SceneRun run = RunSceneFile("soft_box_stack.yaml");
  const std::vector<Box> boxes = {{"bottom", 2.0, 0.12, 0.08, 0.03, 2e5},
                                  {"middle", 1.5, 0.09, 0.06, 0.03, 1e5},
                                  {"top", 1.0, 0.06, 0.04, 0.03, 5e4}};
  const sim::Row& last = run.rows.back();
  std::vector<int> id;
  for (const Box& box : boxes) id.push_back(run.Body(box.name));
  const auto weight_from = [&](size_t k) {  // of boxes k and above [N]
    double w = 0.0;
    for (size_t j = k; j < boxes.size(); ++j) w += boxes[j].m * kG;
    return w;
  };
  REQUIRE(last.surfaces.size() == 3);  // floor-bottom, bottom-middle, middle-top

  {  // The floor carries the whole stack at the closed-form depth.
    const Box& B = boxes[0];
    const double W = weight_from(0);
    const auto force = [&](double d) { return B.Slope() * 4 * (B.a - d) * (B.b - d) * d; };
    const double d_rest = Bisect(force, W, 0.01);  // F is increasing on [0, 0.01]
    REQUIRE(d_rest == Approx(1.7306e-4).epsilon(1e-4));  // the header's figure
    const double d = B.c - last.body_position(2, id[0]);
    CHECK(d == Approx(d_rest).epsilon(1e-6));
    const sim::SurfaceRow& s = SurfaceBetween(last, -1, id[0]);
    const Eigen::Vector3d f = s.body_b == id[0] ? s.force : Eigen::Vector3d(-s.force);
    CHECK(f.z() == Approx(W).epsilon(1e-6));
    CHECK(f.head<2>().norm() < 1e-6 * W);
    CHECK(s.area == Approx(4 * (B.a - d) * (B.b - d)).epsilon(1e-9));
    CHECK((s.centroid.head<2>() - last.body_position.col(id[0]).head<2>()).norm() < 1e-8);
    CHECK(s.moment.norm() < 1e-6);
  }

  // Each box-box interface: the weight above, the closed-form pressure integral, the rest
  // within the strips' stiction.
  for (size_t k = 1; k < boxes.size(); ++k) {
    INFO("the interface under the " << boxes[k].name << " box");
    const Interface face{boxes[k], boxes[k - 1]};
    const int upper = id[k], lower = id[k - 1];
    const double W = weight_from(k);
    const double delta = last.body_position(2, lower) + face.L.c + face.U.c -
                         last.body_position(2, upper);
    const double delta_rest = Bisect([&](double x) { return face.Force(x); }, W, 0.01);
    INFO("overlap " << delta << " m, closed-form rest overlap " << delta_rest << " m");
    const sim::SurfaceRow& s = SurfaceBetween(last, lower, upper);
    // Equilibrium: the surface's force on the upper box is the weight above.
    const Eigen::Vector3d f = s.body_b == upper ? s.force : Eigen::Vector3d(-s.force);
    CHECK(f.z() == Approx(W).epsilon(1e-6));
    CHECK(f.head<2>().norm() < 1e-6 * W);
    // The polygons: flat ones and strips at the slope g_U / g_L, nothing else; their
    // normal forces' vertical sum (sign-free: compressive f.n times |n_z|) is F(delta),
    // up to the polygons' Kelvin-Voigt damping of the stiction creep, about k (dt + tau_d) v
    // with k = dF/d(delta) and v the boxes' relative vertical speed (allowed twice that).
    const double cos_theta = 1 / std::sqrt(1 + face.TanTheta() * face.TanTheta());
    double normal_z = 0.0;
    int strips = 0;
    for (int c = s.first_contact; c < s.first_contact + s.num_contacts; ++c) {
      const sim::ContactRow& q = last.contacts[c];
      const double nz = std::abs(q.normal.z());
      const bool flat = nz > 1 - 1e-9, strip = std::abs(nz - cos_theta) < 1e-6;
      CHECK((flat || strip));
      strips += strip ? 1 : 0;
      normal_z += q.force.dot(q.normal) * nz;
    }
    CHECK(strips > 0);
    const double creep = std::abs(last.body_linear_velocity(2, upper) -
                                  last.body_linear_velocity(2, lower));
    const double damping = 2 * face.Stiffness(delta) * (kDt + kTauD) * creep;
    CHECK(std::abs(normal_z - face.Force(delta)) < damping + 1e-7 * W);
    CHECK(s.area == Approx(face.Area(delta)).epsilon(1e-7));
    // The rest of the weight is friction on the strips: at most mu sin(theta) of their
    // normal force, (F_strip + its share of the damping) / cos(theta); the flat polygons'
    // friction is horizontal (up to the boxes' tilt, ~1e-7 rad).
    const double stiction = kMu * face.TanTheta() * (face.StripForce(delta) + damping);
    CHECK(std::abs(f.z() - normal_z) < stiction + 1e-6 * W);
    // So the overlap rests where the closed form carries the weight, to within that.
    CHECK(std::abs(face.Force(delta) - W) < stiction + damping + 1e-6 * W);
    CHECK(stiction < 4e-3 * W);  // a small allowance: 0.12% and 0.33% of the weight here
    // Centred under the upper box, no moment about its centroid.
    CHECK((s.centroid.head<2>() - last.body_position.col(upper).head<2>()).norm() < 1e-7);
    CHECK(s.moment.norm() < 1e-6);
  }

  // Nothing slides, tips or drifts.
  for (size_t k = 0; k < boxes.size(); ++k) {
    INFO(boxes[k].name);
    const int b = id[k];
    double largest_shift = 0.0;
    for (const sim::Row& row : run.rows)
      largest_shift = std::max(largest_shift, row.body_position.col(b).head<2>().norm());
    CHECK(largest_shift < 1e-7);
    const Eigen::Matrix3d R = BodyRotation(last, b);
    CHECK(std::hypot(R(0, 2), R(1, 2)) < 1e-6);  // tilt
    CHECK(std::abs(R(1, 0)) < 1e-6);             // yaw
    CHECK(last.body_linear_velocity.col(b).norm() < 1e-6);  // stiction creep ~6e-8 m/s
    CHECK(last.body_angular_velocity.col(b).norm() < 1e-6);
  }
}

}  // namespace
}  // namespace csim::scenes

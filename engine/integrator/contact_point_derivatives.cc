#include "engine/integrator/contact_point_derivatives.h"

#include <cmath>

#include "engine/geometry/support_feature.h"

namespace csim::integrator {

using Eigen::Matrix3d;
using Eigen::Vector3d;

namespace {

// geometry::PlaneFeatureContacts' point: midway between a support point p_O and its projection
// on the plane (n out of the halfspace), phi0 p_O's height; p_O moving by dp_O.
ContactPointDerivative OverPlane(const Vector3d& n, const Vector3d& dp_O) {
  ContactPointDerivative d;
  d.phi0 = n.dot(dp_O);
  d.p = dp_O - 0.5 * d.phi0 * n;
  return d;  // the plane's normal does not turn
}

}  // namespace

PairForm ClosedFormOf(const geometry::ContactShape& a, bool a_fixed,
                      const geometry::ContactShape& b, bool b_fixed) {
  using geometry::ShapeType;
  PairForm form;
  const ShapeType type[2] = {a.type(), b.type()};
  const bool fixed[2] = {a_fixed, b_fixed};
  const geometry::ContactShape* shape[2] = {&a, &b};
  for (int x = 0; x < 2; ++x) {
    const ShapeType other = type[1 - x];
    if (type[x] == ShapeType::kHalfspace && fixed[x] &&
        (other == ShapeType::kBox || other == ShapeType::kMesh || other == ShapeType::kSphere ||
         other == ShapeType::kCapsule)) {
      form.form = ContactPointForm::kOnHalfspace;
      form.side = x;
      form.radius = other == ShapeType::kSphere || other == ShapeType::kCapsule
                        ? shape[1 - x]->radius()
                        : 0.0;
    }
    if (type[x] == ShapeType::kHalfspace && fixed[x] && other == ShapeType::kCylinder) {
      form.form = ContactPointForm::kCylinderOnHalfspace;
      form.side = x;
    }
    if (type[x] == ShapeType::kSphere && other == ShapeType::kBox) {
      form.form = ContactPointForm::kSphereBox;
      form.side = x;
    }
  }
  if (type[0] == ShapeType::kSphere && type[1] == ShapeType::kSphere)
    form.form = ContactPointForm::kSphereSphere;
  if (type[0] == ShapeType::kBox && type[1] == ShapeType::kBox) form.form = ContactPointForm::kBoxBox;
  return form;
}

bool ClosedFormPointDerivatives(const PairForm& form, const PairSide side[2],
                                const geometry::PointContact* contacts, int count,
                                ContactPointDerivative* dpoint) {
  auto motion = [&](int x, const Vector3d& p) { return MaterialPointMotion(side[x], p); };
  auto turn = [&](int x) -> Vector3d { return side[x].tangent.head<3>(); };
  switch (form.form) {
    case ContactPointForm::kDifferenced:
      return false;
    case ContactPointForm::kOnHalfspace: {
      // geometry::PlaneFeatureContacts: each point is the midpoint of a support point p_O of
      // the other shape and its projection on the plane, phi0 = its height; p_O + r n (n out
      // of the halfspace) is a material point (a vertex, a sphere's or a cap's centre).
      const int other = 1 - form.side;
      for (int m = 0; m < count; ++m) {
        const geometry::PointContact& c = contacts[m];
        const Vector3d n = form.side == 0 ? c.nhat_AB_W : Vector3d(-c.nhat_AB_W);
        const Vector3d p_O = c.p_WC + 0.5 * c.phi0 * n;
        dpoint[m] = OverPlane(n, motion(other, p_O + form.radius * n));
      }
      return true;
    }
    case ContactPointForm::kCylinderOnHalfspace: {
      // geometry::CylinderFeature along d = -n (n out of the halfspace): lying on its side,
      // the two rims' points c +- L/2 a + r u; tilted, the lower rim's c + s L/2 a + r u; u =
      // radial / |radial|, radial = d - (d . a) a. Each contact is the midpoint of such a
      // support point p_O and its projection on the plane, as for kOnHalfspace, but p_O
      // slides along its rim as the axis a turns: d p_O = d c + s L/2 d a + r d u, d a =
      // d theta x a. Standing on a cap (a rim polygon placed along u) is differenced.
      const int other = 1 - form.side;
      const geometry::ContactShape& shape = *side[other].shape;
      const math::RigidTransform X_WG = side[other].X_WG;
      const Vector3d n = form.side == 0 ? contacts[0].nhat_AB_W
                                        : Vector3d(-contacts[0].nhat_AB_W);
      const Vector3d a = X_WG.R.col(2), d = -n;
      const double c = a.dot(d);
      const Vector3d radial = d - c * a;
      const double radial_norm = radial.norm();
      if (std::abs(c) >= geometry::kFeatureCosTolerance || !(radial_norm > 1e-6)) return false;
      const Vector3d u = radial / radial_norm;
      const Vector3d da = turn(other).cross(a);
      const Vector3d dradial = -d.dot(da) * a - c * da;
      const Vector3d du = (dradial - u.dot(dradial) * u) / radial_norm;
      const Vector3d dcentre = motion(other, X_WG.p);
      for (int m = 0; m < count; ++m) {
        const geometry::PointContact& contact = contacts[m];
        const Vector3d p_O = contact.p_WC + 0.5 * contact.phi0 * n;
        const double s = a.dot(p_O - X_WG.p) < 0.0 ? -1.0 : 1.0;  // which rim
        dpoint[m] =
            OverPlane(n, dcentre + (0.5 * s * shape.length()) * da + shape.radius() * du);
      }
      return true;
    }
    case ContactPointForm::kBoxBox: {
      // geometry::BoxBox and ClipFeatures: every point is the midpoint of p_A on A's support
      // feature and p_B on B's with p_B - p_A = phi0 n, n SAT's axis: a face normal of one
      // box (turning with it), or the unit cross product of an edge direction of each (its
      // variation that of e_A x e_B, normalized; GJK's normal of boxes apart across a corner
      // is differenced).
      // Each p_x lies on an affine set of its box, fixed in it: a vertex, an edge's line or a
      // face's plane, p_x = o_x + U_x s_x, U_x the box's free axes there (those where p_x is
      // not on a face, k_x of them), and k_A + k_B = 2 for a point of the clipped patch (a
      // vertex over a face, two edges crossing). So (s_A, s_B, phi0) solves the 3 x 3 system
      //   [-U_A  U_B  -n] (s_A, s_B, phi0) = o_A - o_B,
      // whose variation along the direction (o_x, U_x and n turning with their bodies) gives
      // d(s_A, s_B, phi0), then d p_x = d o_x + dU_x s_x + U_x d s_x. A point on other sets
      // (k_A + k_B != 2: an edge on a face's plane, two vertices) leaves the pair differenced.
      const math::RigidTransform X[2] = {side[0].X_WG, side[1].X_WG};
      const Vector3d half[2] = {0.5 * side[0].shape->size(),
                                0.5 * side[1].shape->size()};
      const Vector3d n = contacts[0].nhat_AB_W;
      constexpr double kSameAxis = 1e-12;  // 1 - |cos| of n and a candidate axis
      Vector3d dn = Vector3d::Zero();
      bool found = false;
      for (int x = 0; x < 2 && !found; ++x)
        for (int i = 0; i < 3 && !found; ++i)
          if (std::abs(X[x].R.col(i).dot(n)) >= 1.0 - kSameAxis) {
            dn = turn(x).cross(n);
            found = true;
          }
      for (int i = 0; i < 3 && !found; ++i)
        for (int j = 0; j < 3 && !found; ++j) {
          const Vector3d L = X[0].R.col(i).cross(X[1].R.col(j));
          const double length = L.norm();
          if (!(length > 1e-6) || std::abs(L.dot(n)) < (1.0 - kSameAxis) * length) continue;
          // n = sign L / |L|: dn = sign (I - n n^T) dL / |L| = (I - n n^T) dL / (n . L).
          const Vector3d dL = turn(0).cross(X[0].R.col(i)).cross(X[1].R.col(j)) +
                              X[0].R.col(i).cross(turn(1).cross(X[1].R.col(j)));
          dn = (dL - n.dot(dL) * n) / n.dot(L);
          found = true;
        }
      if (!found) return false;
      for (int m = 0; m < count; ++m) {
        const geometry::PointContact& contact = contacts[m];
        if (contact.nhat_AB_W != n) return false;  // one normal per manifold
        const Vector3d p[2] = {contact.p_WC - 0.5 * contact.phi0 * n,
                               contact.p_WC + 0.5 * contact.phi0 * n};
        Matrix3d M;
        Vector3d o[2];
        int free_axis[2][3], k[2] = {0, 0}, column = 0;
        for (int x = 0; x < 2; ++x) {
          Vector3d local = X[x].R.transpose() * (p[x] - X[x].p);
          const double tolerance = 1e-9 * half[x].maxCoeff();
          for (int i = 0; i < 3; ++i) {
            if (std::abs(std::abs(local[i]) - half[x][i]) <= tolerance) continue;  // on a face
            free_axis[x][k[x]++] = i;
            local[i] = 0.0;
          }
          o[x] = X[x] * local;
        }
        if (k[0] + k[1] != 2) return false;
        for (int x = 0; x < 2; ++x)
          for (int j = 0; j < k[x]; ++j)
            M.col(column++) = (x == 0 ? -1.0 : 1.0) * X[x].R.col(free_axis[x][j]);
        M.col(2) = -n;
        const Eigen::PartialPivLU<Matrix3d> lu(M);
        if (!(std::abs(lu.determinant()) > 1e-9)) return false;
        // The solution's coordinates: s_x along the free axes, phi0 last.
        Vector3d solution;
        column = 0;
        for (int x = 0; x < 2; ++x)
          for (int j = 0; j < k[x]; ++j)
            solution[column++] = X[x].R.col(free_axis[x][j]).dot(p[x] - o[x]);
        solution[2] = contact.phi0;
        Matrix3d dM;
        column = 0;
        for (int x = 0; x < 2; ++x)
          for (int j = 0; j < k[x]; ++j)
            dM.col(column++) =
                (x == 0 ? -1.0 : 1.0) * turn(x).cross(X[x].R.col(free_axis[x][j]));
        dM.col(2) = -dn;
        const Vector3d do_[2] = {motion(0, o[0]), motion(1, o[1])};
        const Vector3d dsolution = lu.solve(do_[0] - do_[1] - dM * solution);
        Vector3d dp[2] = {do_[0], do_[1]};
        column = 0;
        for (int x = 0; x < 2; ++x)
          for (int j = 0; j < k[x]; ++j, ++column) {
            const Vector3d axis = X[x].R.col(free_axis[x][j]);
            dp[x] += turn(x).cross(axis) * solution[column] + axis * dsolution[column];
          }
        ContactPointDerivative& dm = dpoint[m];
        dm.phi0 = dsolution[2];
        dm.p = 0.5 * (dp[0] + dp[1]);
        dm.n = dn;
      }
      return true;
    }
    case ContactPointForm::kSphereSphere: {
      // geometry::SphereSphere: n = d / |d|, d = c_B - c_A, phi0 = |d| - r_A - r_B, the point
      // midway between the witnesses c_A + r_A n and c_B - r_B n.
      const Vector3d c_a = side[0].X_WG.p, c_b = side[1].X_WG.p;
      const double r_a = side[0].shape->radius();
      const double r_b = side[1].shape->radius();
      const double distance = (c_b - c_a).norm();
      if (!(distance > 0.0)) return false;
      const Vector3d n = (c_b - c_a) / distance;
      const Vector3d dc_a = motion(0, c_a), dc_b = motion(1, c_b);
      const Vector3d dd = dc_b - dc_a;
      ContactPointDerivative& d = dpoint[0];
      d.n = (dd - n.dot(dd) * n) / distance;
      d.phi0 = n.dot(dd);
      d.p = 0.5 * (dc_a + dc_b + (r_a - r_b) * d.n);
      return true;
    }
    case ContactPointForm::kSphereBox: {
      // geometry::SphereBox with the centre outside the box: q = the centre c clamped to the
      // box (box frame), n_box = (c - q) / |c - q| from the box to the sphere, phi0 =
      // |c - q| - r, the point midway between c - r n_box and the box's q. Along the
      // direction the clamped coordinates of q stay put and the free ones follow c.
      const int s = form.side, b = 1 - s;
      const math::RigidTransform X_WG = side[b].X_WG;
      const Vector3d c_W = side[s].X_WG.p;
      const double r = side[s].shape->radius();
      const Vector3d half = 0.5 * side[b].shape->size();
      const Vector3d c = X_WG.R.transpose() * (c_W - X_WG.p);
      const Vector3d q = c.cwiseMax(-half).cwiseMin(half);
      const double distance = (c - q).norm();
      if (!(distance > 0.0)) return false;  // the centre inside: the deepest face's form
      const Vector3d n_box = (c - q) / distance;
      const Vector3d dc_W = motion(s, c_W);
      const Vector3d theta = turn(b);
      const Vector3d dc = X_WG.R.transpose() * (dc_W - motion(b, X_WG.p) -
                                                theta.cross(c_W - X_WG.p));
      Vector3d dd = Vector3d::Zero(), dq_box = Vector3d::Zero();
      for (int i = 0; i < 3; ++i) (q[i] == c[i] ? dq_box[i] : dd[i]) = dc[i];
      const Vector3d dn_box = (dd - n_box.dot(dd) * n_box) / distance;
      // The derivative of n from the sphere into the box, -R n_box, in world axes.
      const Vector3d dn = -(theta.cross(X_WG.R * n_box) + X_WG.R * dn_box);
      const Vector3d w = X_WG * q;
      ContactPointDerivative& d = dpoint[0];
      d.phi0 = n_box.dot(dd);
      d.p = 0.5 * (dc_W + r * dn + motion(b, w) + X_WG.R * dq_box);
      d.n = s == 0 ? dn : Vector3d(-dn);
      return true;
    }
  }
  return false;
}


}  // namespace csim::integrator

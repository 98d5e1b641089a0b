#include "engine/geometry/mass_properties.h"

#include <cmath>

namespace csim::geometry {
namespace {

constexpr double kPi = 3.14159265358979323846;

/// Solid with the given mass and principal moments about a com at the origin.
MassProperties Principal(double mass, double ixx, double iyy, double izz) {
  MassProperties p;
  p.mass = mass;
  p.inertia = Eigen::Vector3d(ixx, iyy, izz).asDiagonal();
  return p;
}

MassProperties Sphere(double r) {
  const double m = 4.0 / 3.0 * kPi * r * r * r;
  const double i = 0.4 * m * r * r;
  return Principal(m, i, i, i);
}

MassProperties Box(const Eigen::Vector3d& s) {
  const double m = s.prod();
  const Eigen::Vector3d sq = s.cwiseProduct(s);
  return Principal(m, m / 12 * (sq.y() + sq.z()), m / 12 * (sq.x() + sq.z()),
                   m / 12 * (sq.x() + sq.y()));
}

MassProperties Cylinder(double r, double length) {
  const double m = kPi * r * r * length;
  const double transverse = m * (3 * r * r + length * length) / 12;
  return Principal(m, transverse, transverse, 0.5 * m * r * r);
}

MassProperties Ellipsoid(const Eigen::Vector3d& radii) {
  const double m = 4.0 / 3.0 * kPi * radii.prod();
  const Eigen::Vector3d sq = radii.cwiseProduct(radii);
  return Principal(m, m / 5 * (sq.y() + sq.z()), m / 5 * (sq.x() + sq.z()),
                   m / 5 * (sq.x() + sq.y()));
}

/// A cylinder of length L between the cap centres plus two hemispheres. Each hemisphere's
/// com lies 3r/8 beyond its cap centre, so at distance L/2 + 3r/8 from the capsule's centre.
MassProperties Capsule(double r, double length) {
  const MassProperties cylinder = Cylinder(r, length);
  const double m_h = 2.0 / 3.0 * kPi * r * r * r;  // one hemisphere
  const double d = 0.5 * length + 3.0 / 8.0 * r;
  const double transverse_h = 83.0 / 320.0 * m_h * r * r + m_h * d * d;
  const double axial_h = 0.4 * m_h * r * r;
  return Principal(cylinder.mass + 2 * m_h, cylinder.inertia(0, 0) + 2 * transverse_h,
                   cylinder.inertia(1, 1) + 2 * transverse_h,
                   cylinder.inertia(2, 2) + 2 * axial_h);
}

}  // namespace

MassProperties UnitMeshMassProperties(const ConvexMesh& mesh) {
  // Integrals over signed tetrahedra (origin, a, b, c): volume, first and second moments.
  double volume = 0.0;
  Eigen::Vector3d first = Eigen::Vector3d::Zero();
  Eigen::Matrix3d second = Eigen::Matrix3d::Zero();  // integral of x x^T dV
  for (const Eigen::Vector3i& t : mesh.triangles) {
    const Eigen::Vector3d& a = mesh.vertices[t[0]];
    const Eigen::Vector3d& b = mesh.vertices[t[1]];
    const Eigen::Vector3d& c = mesh.vertices[t[2]];
    const double v = a.dot(b.cross(c)) / 6.0;
    const Eigen::Vector3d s = a + b + c;
    volume += v;
    first += v * s / 4.0;
    second += v / 20.0 *
              (a * a.transpose() + b * b.transpose() + c * c.transpose() + s * s.transpose());
  }
  MassProperties p;
  if (volume <= 0.0) return p;
  p.mass = volume;
  p.com = first / volume;
  const Eigen::Matrix3d I_origin = second.trace() * Eigen::Matrix3d::Identity() - second;
  // Inverse parallel-axis shift from the origin to the centre of mass.
  p.inertia = I_origin - ShiftInertia(Eigen::Matrix3d::Zero(), volume, p.com,
                                      Eigen::Vector3d::Zero());
  return p;
}

MassProperties UnitShapeMassProperties(const Geometry& geometry) {
  const Eigen::Vector3d& s = geometry.size;
  switch (geometry.type) {
    case ShapeType::kSphere: return Sphere(s[0]);
    case ShapeType::kBox: return Box(s);
    case ShapeType::kCylinder: return Cylinder(s[0], s[1]);
    case ShapeType::kCapsule: return Capsule(s[0], s[1]);
    case ShapeType::kEllipsoid: return Ellipsoid(s);
    case ShapeType::kMesh: return UnitMeshMassProperties(geometry.mesh);
    case ShapeType::kHalfspace: return {};
  }
  return {};
}

MassProperties Transform(const MassProperties& props_G, const math::RigidTransform& X_BG) {
  MassProperties out;
  out.mass = props_G.mass;
  out.com = X_BG * props_G.com;
  out.inertia = X_BG.R * props_G.inertia * X_BG.R.transpose();
  return out;
}

Eigen::Matrix3d ShiftInertia(const Eigen::Matrix3d& I_com, double mass,
                             const Eigen::Vector3d& com, const Eigen::Vector3d& p) {
  const Eigen::Vector3d d = com - p;
  return I_com + mass * (d.squaredNorm() * Eigen::Matrix3d::Identity() - d * d.transpose());
}

MassProperties Combine(const MassProperties& a, const MassProperties& b) {
  MassProperties out;
  out.mass = a.mass + b.mass;
  if (out.mass <= 0.0) return out;
  out.com = (a.mass * a.com + b.mass * b.com) / out.mass;
  out.inertia = ShiftInertia(a.inertia, a.mass, a.com, out.com) +
                ShiftInertia(b.inertia, b.mass, b.com, out.com);
  return out;
}

MassProperties ScaledToMass(const MassProperties& props, double mass) {
  MassProperties out = props;
  out.mass = mass;
  if (props.mass > 0.0) out.inertia = props.inertia * (mass / props.mass);
  return out;
}

MassProperties UnitGeometryMassProperties(const std::vector<Geometry>& geometry) {
  MassProperties total;
  for (const Geometry& g : geometry) {
    if (!g.collide || g.type == ShapeType::kHalfspace) continue;
    total = Combine(total, Transform(UnitShapeMassProperties(g), g.X_BG));
  }
  return total;
}

}  // namespace csim::geometry

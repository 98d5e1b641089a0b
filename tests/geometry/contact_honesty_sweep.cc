#include "tests/geometry/contact_honesty_sweep.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <random>
#include <sstream>

#include "engine/geometry/contact_shape.h"
#include "engine/geometry/narrow_phase.h"
#include "engine/math/rotation.h"
#include "tests/geometry/reference_signed_distance.h"

namespace csim::geometry::test {
namespace {

using Eigen::Vector3d;
using math::RigidTransform;

constexpr double kPi = 3.14159265358979323846;
constexpr int kMaxReports = 5;

class Sampler {
 public:
  explicit Sampler(uint64_t seed) : rng_(seed) {}
  double Uniform(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng_); }
  double LogUniform(double lo, double hi) { return std::exp(Uniform(std::log(lo), std::log(hi))); }
  int Index(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  bool Chance(double p) { return Uniform(0.0, 1.0) < p; }
  Vector3d Direction() {
    std::normal_distribution<double> g;
    Vector3d d(g(rng_), g(rng_), g(rng_));
    while (d.norm() < 1e-9) d = Vector3d(g(rng_), g(rng_), g(rng_));
    return d.normalized();
  }
  Eigen::Matrix3d Rotation() { return math::RotationAboutAxis(Direction(), Uniform(-kPi, kPi)); }

 private:
  std::mt19937_64 rng_;
};

// Convex meshes, centred on their frame: boxes, octahedra and n-gon prisms, each stretched
// along its axes.
ConvexMesh PrismMesh(int sides, double radius, double height) {
  ConvexMesh m;
  for (int k = 0; k < sides; ++k) {
    const double t = 2.0 * kPi * k / sides;
    m.vertices.emplace_back(radius * std::cos(t), radius * std::sin(t), -0.5 * height);
  }
  for (int k = 0; k < sides; ++k) {
    m.vertices.push_back(m.vertices[k] + Vector3d(0, 0, height));
  }
  for (int k = 1; k + 1 < sides; ++k) {
    m.triangles.emplace_back(0, k + 1, k);                      // bottom, facing -z
    m.triangles.emplace_back(sides, sides + k, sides + k + 1);  // top, facing +z
  }
  for (int k = 0; k < sides; ++k) {
    const int j = (k + 1) % sides;
    m.triangles.emplace_back(k, j, sides + j);
    m.triangles.emplace_back(k, sides + j, sides + k);
  }
  return m;
}

ConvexMesh OctahedronMesh(const Vector3d& half) {
  ConvexMesh m;
  for (int i = 0; i < 3; ++i) {
    m.vertices.push_back(half[i] * Vector3d::Unit(i));
    m.vertices.push_back(-half[i] * Vector3d::Unit(i));
  }
  // Vertex 2i is +axis i, 2i + 1 is -axis i. Each face takes one end of each axis.
  for (int sx = 0; sx < 2; ++sx) {
    for (int sy = 0; sy < 2; ++sy) {
      for (int sz = 0; sz < 2; ++sz) {
        Eigen::Vector3i t(sx, 2 + sy, 4 + sz);
        // Outward winding: counter-clockwise seen from the octant's direction.
        if ((sx + sy + sz) % 2 == 1) std::swap(t[1], t[2]);
        m.triangles.push_back(t);
      }
    }
  }
  return m;
}

Geometry RandomShape(ShapeType type, Sampler* s) {
  Geometry g;
  g.type = type;
  switch (type) {
    case ShapeType::kSphere: g.size = {s->LogUniform(0.01, 0.2), 0, 0}; break;
    case ShapeType::kBox:
      g.size = {s->LogUniform(0.01, 0.3), s->LogUniform(0.01, 0.3), s->LogUniform(0.01, 0.3)};
      break;
    case ShapeType::kCylinder:
    case ShapeType::kCapsule:
      g.size = {s->LogUniform(0.01, 0.15), s->LogUniform(0.01, 0.3), 0};
      break;
    case ShapeType::kEllipsoid:
      g.size = {s->LogUniform(0.01, 0.15), s->LogUniform(0.01, 0.15), s->LogUniform(0.01, 0.15)};
      break;
    case ShapeType::kMesh: {
      const int kind = s->Index(3);
      const Vector3d half(s->LogUniform(0.005, 0.15), s->LogUniform(0.005, 0.15),
                          s->LogUniform(0.005, 0.15));
      if (kind == 0) {
        g.mesh = PrismMesh(4, std::sqrt(2.0), 2.0);  // a cube of edge 2, stretched below
        for (Vector3d& v : g.mesh.vertices) {
          v = math::RotationAboutAxis(Vector3d::UnitZ(), kPi / 4) * v;
        }
      } else if (kind == 1) {
        g.mesh = OctahedronMesh(Vector3d::Ones());
      } else {
        g.mesh = PrismMesh(3 + s->Index(6), 1.0, 2.0);
      }
      for (Vector3d& v : g.mesh.vertices) v = v.cwiseProduct(half);
      g.mesh.file = "generated";
      break;
    }
    case ShapeType::kHalfspace: break;
  }
  return g;
}

// Unit face normals and edge directions of a shape in its own frame: the features that
// the hard cases put against each other.
struct LocalFeatures {
  std::vector<Vector3d> face_normals, edge_directions;
};

LocalFeatures Features(const Geometry& g) {
  LocalFeatures f;
  switch (g.type) {
    case ShapeType::kBox:
      for (int i = 0; i < 3; ++i) {
        f.face_normals.push_back(Vector3d::Unit(i));
        f.face_normals.push_back(-Vector3d::Unit(i));
        f.edge_directions.push_back(Vector3d::Unit(i));
      }
      break;
    case ShapeType::kCylinder:
      f.face_normals = {Vector3d::UnitZ(), -Vector3d::UnitZ()};
      f.edge_directions = {Vector3d::UnitZ()};
      break;
    case ShapeType::kCapsule: f.edge_directions = {Vector3d::UnitZ()}; break;
    case ShapeType::kHalfspace: f.face_normals = {Vector3d::UnitZ()}; break;
    case ShapeType::kMesh:
      for (const Eigen::Vector3i& t : g.mesh.triangles) {
        const Vector3d& a = g.mesh.vertices[t[0]];
        const Vector3d& b = g.mesh.vertices[t[1]];
        const Vector3d& c = g.mesh.vertices[t[2]];
        f.face_normals.push_back((b - a).cross(c - a).normalized());
        f.edge_directions.push_back((b - a).normalized());
      }
      break;
    case ShapeType::kSphere:
    case ShapeType::kEllipsoid: break;
  }
  return f;
}

// The rotation taking the unit vector from onto the unit vector to. (Eigen's quaternion
// for nearly opposite vectors is off unit length by up to 1e-6: normalised here, or the
// "rotation" would stretch the shape.)
Eigen::Matrix3d RotationTaking(const Vector3d& from, const Vector3d& to) {
  return Eigen::Quaterniond::FromTwoVectors(from, to).normalized().toRotationMatrix();
}

// A tilt angle [rad] mixing exact alignment, round-off, small and moderate tilts, and
// tilts around the support-feature tolerance (asin 0.1, about 5.74 degrees).
double TiltAngle(Sampler* s) {
  const double r = s->Uniform(0.0, 1.0);
  if (r < 0.1) return 0.0;
  if (r < 0.3) return s->LogUniform(1e-12, 1e-3);
  if (r < 0.7) return s->Uniform(0.0, 10.0 * kPi / 180.0);
  return std::asin(0.1) + s->Uniform(-2e-3, 2e-3);
}

Eigen::Matrix3d Tilted(const Eigen::Matrix3d& R, const Vector3d& normal, Sampler* s) {
  Vector3d axis = normal.cross(s->Direction());
  if (axis.norm() < 1e-9) return R;
  return math::RotationAboutAxis(axis.normalized(), TiltAngle(s)) * R;
}

// How far B is pushed past touching along u [m]: deep, shallow, touching, within and just
// beyond the margin.
double Penetration(double scale, double margin, Sampler* s) {
  const double r = s->Uniform(0.0, 1.0);
  if (r < 0.2) return s->Uniform(0.02, 0.5) * scale;
  if (r < 0.5) return s->LogUniform(1e-7, 1e-2) * scale;
  if (r < 0.6) return s->Uniform(-1e-6, 1e-6);
  if (r < 0.8) return -s->Uniform(0.0, margin);
  if (r < 0.9) return -margin * (1.0 + s->LogUniform(1e-9, 1e-2));
  return s->Uniform(-0.1, 0.5) * scale;
}

struct Pair {
  Geometry a, b;
  RigidTransform X_WA, X_WB;
  std::string mode;
};

// Draws a pair: orientations by one of the hard-case modes, then B placed along a unit
// direction u so that sep(u) = -penetration (B's extent along u against A's).
Pair DrawPair(ShapeType ta, ShapeType tb, double margin, Sampler* s) {
  Pair p;
  p.a = RandomShape(ta, s);
  p.b = (ta == tb && ta != ShapeType::kHalfspace && s->Chance(0.3)) ? p.a : RandomShape(tb, s);
  p.X_WA.R = s->Rotation();
  p.X_WA.p = Vector3d(s->Uniform(-1, 1), s->Uniform(-1, 1), s->Uniform(-1, 1));
  const LocalFeatures fa = Features(p.a), fb = Features(p.b);
  Eigen::Matrix3d R_B = s->Rotation();
  Vector3d u = s->Direction();
  const double r = s->Uniform(0.0, 1.0);
  p.mode = "random";
  if (r < 0.3 && !fa.face_normals.empty() && !fb.face_normals.empty()) {
    p.mode = "face on face";
    u = p.X_WA.R * fa.face_normals[s->Index(fa.face_normals.size())];
    const Vector3d m_B = fb.face_normals[s->Index(fb.face_normals.size())];
    R_B = RotationTaking(m_B, -u);
    R_B = math::RotationAboutAxis(u, s->Uniform(-kPi, kPi)) * R_B;
    if (s->Chance(0.5)) R_B = math::RotationAboutAxis(u, 0.5 * kPi * s->Index(4)) * p.X_WA.R;
    R_B = Tilted(R_B, u, s);
  } else if (r < 0.5 && !fa.face_normals.empty() && !fb.edge_directions.empty()) {
    p.mode = "edge on face";
    u = p.X_WA.R * fa.face_normals[s->Index(fa.face_normals.size())];
    const Vector3d e_B = fb.edge_directions[s->Index(fb.edge_directions.size())];
    Vector3d across = u.cross(s->Direction()).normalized();
    R_B = math::RotationAboutAxis(across, s->Uniform(-kPi, kPi)) * RotationTaking(e_B, across);
    R_B = Tilted(R_B, u, s);
  } else if (r < 0.65 && !fa.face_normals.empty()) {
    p.mode = "corner on face";
    u = p.X_WA.R * fa.face_normals[s->Index(fa.face_normals.size())];
  } else if (r < 0.85 && ta == tb && ta != ShapeType::kHalfspace) {
    p.mode = "equal, turned about a shared axis";
    p.b = p.a;
    const int k = s->Index(3);
    const double angle = s->Chance(0.3) ? 0.0 : (s->Chance(0.5) ? TiltAngle(s) : s->Uniform(-kPi, kPi));
    R_B = p.X_WA.R * math::RotationAboutAxis(Vector3d::Unit(k), angle);
    const int j = (k + 1 + s->Index(2)) % 3;
    u = p.X_WA.R * (s->Chance(0.5) ? 1.0 : -1.0) * Vector3d::Unit(j);
  }
  p.X_WB.R = R_B;
  const ReferenceShape a = MakeReferenceShape(p.a, p.X_WA);
  RigidTransform X_B0;
  X_B0.R = R_B;
  const ReferenceShape b0 = MakeReferenceShape(p.b, X_B0);
  const double scale = std::max(1e-3, std::min(ta == ShapeType::kHalfspace ? 1.0 : a.bounding_radius,
                                               b0.bounding_radius));
  // sep(u) at p_B = p_A + s u + w (w normal to u) is s - s_touch.
  const double h_a = ta == ShapeType::kHalfspace ? u.dot(p.X_WA.p) : a.Support(u);
  const double s_touch = h_a - u.dot(p.X_WA.p) + b0.Support(-u);
  Vector3d w = Vector3d::Zero();
  if (p.mode.rfind("equal", 0) == 0) {
    // Along A's axes, often flush: zero offset keeps side faces coplanar.
    for (int i = 0; i < 3; ++i) {
      const Vector3d axis = p.X_WA.R.col(i);
      if (std::abs(axis.dot(u)) > 0.5) continue;
      if (s->Chance(0.5)) w += s->Uniform(-0.5, 0.5) * p.a.size.maxCoeff() * axis;
    }
  } else if (s->Chance(0.8)) {
    const Vector3d t = u.cross(s->Direction()).normalized();
    w = s->Uniform(0.0, 0.7) * scale * t;
  }
  const double target = -Penetration(scale, margin, s);
  p.X_WB.p = p.X_WA.p + (s_touch + target) * u + w;
  if (ta == ShapeType::kHalfspace) p.X_WA.R = RotationTaking(Vector3d::UnitZ(), u);
  // Along a direction that is not the contact normal (a corner, a random direction, a
  // lateral offset), touching slabs can leave the shapes far apart: one step along the
  // true normal brings such a pair to (about) the intended gap.
  const ReferenceDistance placed =
      CalcReferenceSignedDistance(MakeReferenceShape(p.a, p.X_WA), MakeReferenceShape(p.b, p.X_WB));
  if (placed.phi > target + 2.0 * margin) p.X_WB.p += (target - placed.phi) * placed.nhat;
  return p;
}

std::string Describe(const Geometry& g, const RigidTransform& X) {
  std::ostringstream os;
  os << std::setprecision(17) << ShapeTypeName(g.type) << " size [" << g.size.transpose()
     << "]";
  if (g.type == ShapeType::kMesh) {
    os << " vertices [";
    for (const Vector3d& v : g.mesh.vertices) os << " (" << v.transpose() << ")";
    os << "]";
  }
  const Eigen::Quaterniond q(X.R);
  os << " at p [" << X.p.transpose() << "] q [" << q.w() << " " << q.x() << " " << q.y() << " "
     << q.z() << "]";
  return os.str();
}

}  // namespace

std::vector<ShapeType> AllPairShapeTypes() {
  return {ShapeType::kSphere,    ShapeType::kBox,       ShapeType::kCylinder, ShapeType::kCapsule,
          ShapeType::kEllipsoid, ShapeType::kHalfspace, ShapeType::kMesh};
}

HonestySweepStats SweepPairKind(ShapeType type_a, ShapeType type_b, int count, uint64_t seed,
                                double margin) {
  HonestySweepStats stats;
  stats.type_a = type_a;
  stats.type_b = type_b;
  Sampler sampler(seed);
  if (type_b == ShapeType::kHalfspace) std::swap(type_a, type_b);  // DrawPair's A
  std::vector<PointContact> contacts;
  for (int trial = 0; trial < count; ++trial) {
    const Pair p = DrawPair(type_a, type_b, margin, &sampler);
    const ReferenceShape ra = MakeReferenceShape(p.a, p.X_WA), rb = MakeReferenceShape(p.b, p.X_WB);
    const ReferenceDistance truth = CalcReferenceSignedDistance(ra, rb);
    const double tol = 1e-6 + 1e-6 * (ra.bounding_radius + rb.bounding_radius);
    // Both argument orders, as the collision world may hand either.
    const bool swap = sampler.Chance(0.5);
    contacts.clear();
    if (swap) {
      CalcPairContacts(ContactShape(p.b), p.X_WB, ContactShape(p.a), p.X_WA, margin, &contacts);
      for (PointContact& c : contacts) c.nhat_AB_W = -c.nhat_AB_W;
    } else {
      CalcPairContacts(ContactShape(p.a), p.X_WA, ContactShape(p.b), p.X_WB, margin, &contacts);
    }
    ++stats.pairs;
    stats.numeric += truth.exact ? 0 : 1;
    stats.overlapping += truth.phi < 0.0 ? 1 : 0;
    double deepest = std::numeric_limits<double>::infinity();
    double dishonesty = -std::numeric_limits<double>::infinity();
    bool bad_normal = false;
    for (const PointContact& c : contacts) {
      deepest = std::min(deepest, c.phi0);
      dishonesty = std::max(dishonesty, truth.phi - c.phi0);
      bad_normal |= !(std::abs(c.nhat_AB_W.norm() - 1.0) < 1e-9);
    }
    bool failed = bad_normal || dishonesty > tol;
    stats.worst_dishonesty = std::max(stats.worst_dishonesty, dishonesty);
    stats.worst_dishonesty_ratio = std::max(stats.worst_dishonesty_ratio, dishonesty / tol);
    double deepest_error = 0.0;
    if (truth.phi < margin - tol) {
      ++stats.within_margin;
      deepest_error = contacts.empty() ? std::numeric_limits<double>::infinity()
                                       : std::abs(deepest - truth.phi);
      stats.worst_deepest_error = std::max(stats.worst_deepest_error, deepest_error);
      stats.worst_deepest_ratio = std::max(stats.worst_deepest_ratio, deepest_error / tol);
      failed |= deepest_error > tol;
    }
    if (!failed) continue;
    ++stats.failures;
    if (static_cast<int>(stats.failure_reports.size()) >= kMaxReports) continue;
    std::ostringstream os;
    os << std::setprecision(10) << "trial " << trial << " (" << p.mode << (swap ? ", B first" : "")
       << "): true phi " << truth.phi << (truth.exact ? " (exact)" : " (numeric)") << " along ["
       << truth.nhat.transpose() << "], " << contacts.size() << " points, deepest " << deepest
       << ", worst dishonesty " << dishonesty << ", tolerance " << tol
       << (bad_normal ? ", a normal not unit" : "") << "\n    A: " << Describe(p.a, p.X_WA)
       << "\n    B: " << Describe(p.b, p.X_WB);
    for (const PointContact& c : contacts) {
      os << "\n    point phi0 " << c.phi0 << " at [" << c.p_WC.transpose() << "] n ["
         << c.nhat_AB_W.transpose() << "]";
    }
    stats.failure_reports.push_back(os.str());
  }
  return stats;
}

}  // namespace csim::geometry::test

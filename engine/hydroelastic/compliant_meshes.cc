#include "engine/hydroelastic/compliant_meshes.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include "engine/common/check.h"
#include "engine/hydroelastic/rigid_surfaces.h"

namespace csim::hydroelastic {
namespace {

using Eigen::Vector3d;

constexpr double kPi = 3.14159265358979323846;

/// Collects vertices and positively oriented tets. Split rules for quads and prisms use the
/// vertex indices only (see the header), so two cells sharing a face split it alike.
class TetBuilder {
 public:
  explicit TetBuilder(VolumeMesh* mesh) : mesh_(mesh) {}

  int AddVertex(const Vector3d& p) {
    mesh_->vertices.push_back(p);
    return static_cast<int>(mesh_->vertices.size()) - 1;
  }

  /// Adds the vertex unless one with exactly the same coordinates exists (the box's inner
  /// points coincide when half sizes are equal, and the formulas then give equal numbers).
  int AddUniqueVertex(const Vector3d& p) {
    const std::array<double, 3> key{p.x(), p.y(), p.z()};
    const auto it = index_.find(key);
    if (it != index_.end()) return it->second;
    const int i = AddVertex(p);
    index_.emplace(key, i);
    return i;
  }

  /// Adds tet (a, b, c, d) turned positive; a tet with a repeated index (a collapsed prism
  /// edge, a collapsed box side) is skipped.
  void AddTet(int a, int b, int c, int d) {
    if (a == b || a == c || a == d || b == c || b == d || c == d) return;
    mesh_->tets.push_back({a, b, c, d});
    const int t = static_cast<int>(mesh_->tets.size()) - 1;
    const double volume = TetVolume(*mesh_, t);
    CSIM_CHECK(volume != 0.0);
    if (volume < 0.0) std::swap(mesh_->tets[t][2], mesh_->tets[t][3]);
  }

  /// Cone from `apex` over a planar polygon of at most 4 vertices, given in cyclic order;
  /// consecutive repeats are dropped first, and fewer than 3 left adds nothing. A quad is split
  /// along the diagonal through its smallest index.
  void AddCone(int apex, std::vector<int> polygon) {
    std::vector<int> q;
    for (size_t i = 0; i < polygon.size(); ++i)
      if (polygon[i] != polygon[(i + 1) % polygon.size()]) q.push_back(polygon[i]);
    if (q.size() == 3) {
      AddTet(apex, q[0], q[1], q[2]);
    } else if (q.size() == 4) {
      const int j = static_cast<int>(std::min_element(q.begin(), q.end()) - q.begin());
      AddTet(apex, q[j], q[(j + 1) % 4], q[(j + 2) % 4]);
      AddTet(apex, q[j], q[(j + 2) % 4], q[(j + 3) % 4]);
    } else {
      CSIM_CHECK(q.size() < 3);
    }
  }

  /// Triangular prism with triangles (a0, a1, a2) and (b0, b1, b2), ai-bi its lateral edges,
  /// in 3 tets (Dompierre et al. 1999): each side quad is split through its smallest index.
  /// A lateral edge may be collapsed (ai == bi): the prism is then a pyramid, 2 tets.
  void AddPrism(int a0, int a1, int a2, int b0, int b1, int b2) {
    std::array<int, 6> v{a0, a1, a2, b0, b1, b2};
    // Rotate and reflect so that the smallest index is v[0]: the split of the two quads at
    // v[0] is then the diagonal from v[0], and only the opposite quad needs a choice.
    const int k = static_cast<int>(std::min_element(v.begin(), v.end()) - v.begin());
    if (k >= 3) std::swap_ranges(v.begin(), v.begin() + 3, v.begin() + 3);
    const int r = k % 3;
    std::rotate(v.begin(), v.begin() + r, v.begin() + 3);
    std::rotate(v.begin() + 3, v.begin() + 3 + r, v.end());
    if (std::min(v[1], v[5]) < std::min(v[2], v[4])) {
      AddTet(v[0], v[1], v[2], v[5]);
      AddTet(v[0], v[1], v[5], v[4]);
    } else {
      AddTet(v[0], v[1], v[2], v[4]);
      AddTet(v[0], v[4], v[2], v[5]);
    }
    AddTet(v[0], v[4], v[5], v[3]);
  }

 private:
  VolumeMesh* mesh_;
  std::map<std::array<double, 3>, int> index_;
};

/// Fills the gradients of a field whose mesh and vertex pressures are complete; every mesh made
/// here has positive tets, so a failure is a bug.
PressureField Finish(PressureField field, double modulus) {
  field.modulus = modulus;
  CSIM_CHECK(ComputeFieldGradients(&field));
  return field;
}

/// Sphere surface of unit radius: the octahedron refined `level` times, each midpoint pushed
/// onto the sphere. Directions in `dirs`, triangles (any winding) in `triangles`.
void UnitSphereSurface(int level, std::vector<Vector3d>* dirs,
                       std::vector<std::array<int, 3>>* triangles) {
  *dirs = {Vector3d::UnitX(), -Vector3d::UnitX(), Vector3d::UnitY(),
           -Vector3d::UnitY(), Vector3d::UnitZ(), -Vector3d::UnitZ()};
  *triangles = {{0, 2, 4}, {2, 1, 4}, {1, 3, 4}, {3, 0, 4},
                {2, 0, 5}, {1, 2, 5}, {3, 1, 5}, {0, 3, 5}};
  for (int l = 0; l < level; ++l) {
    std::map<std::pair<int, int>, int> midpoint;  // edge (low, high) -> new vertex
    auto mid = [&](int a, int b) {
      const std::pair<int, int> key(std::min(a, b), std::max(a, b));
      const auto it = midpoint.find(key);
      if (it != midpoint.end()) return it->second;
      dirs->push_back(((*dirs)[a] + (*dirs)[b]).normalized());
      const int i = static_cast<int>(dirs->size()) - 1;
      midpoint.emplace(key, i);
      return i;
    };
    std::vector<std::array<int, 3>> finer;
    finer.reserve(4 * triangles->size());
    for (const auto& t : *triangles) {
      const int ab = mid(t[0], t[1]), bc = mid(t[1], t[2]), ca = mid(t[2], t[0]);
      finer.push_back({t[0], ab, ca});
      finer.push_back({ab, t[1], bc});
      finer.push_back({ca, bc, t[2]});
      finer.push_back({ab, bc, ca});
    }
    *triangles = std::move(finer);
  }
}

/// Sparse sphere mesh of the given level with every vertex scaled by `semi_axes`: vertex 0 is
/// the centre, tets are (centre, surface triangle).
VolumeMesh ScaledSparseSphere(int level, const Vector3d& semi_axes) {
  std::vector<Vector3d> dirs;
  std::vector<std::array<int, 3>> triangles;
  UnitSphereSurface(level, &dirs, &triangles);
  VolumeMesh mesh;
  TetBuilder builder(&mesh);
  builder.AddVertex(Vector3d::Zero());
  for (const Vector3d& u : dirs) builder.AddVertex(semi_axes.cwiseProduct(u));
  for (const auto& t : triangles) builder.AddTet(0, t[0] + 1, t[1] + 1, t[2] + 1);
  return mesh;
}

}  // namespace

int SphereRefinementLevel(double radius, double hint) {
  CSIM_CHECK(radius > 0.0 && hint > 0.0);
  // Notes §1: an edge of length h subtends 2 asin(h/2R); the octahedron's quarter circle
  // (pi/2) split 2^L times reaches it at L = log2(pi / asin(h/2R)) - 2.
  const double angle = std::asin(std::min(hint, 2.0 * radius) / (2.0 * radius));
  const double level = std::ceil(std::log2(kPi / angle)) - 2.0;
  return static_cast<int>(std::clamp(level, 0.0, double{kMaxSphereRefinement}));
}

int RimVertexCount(double radius, double hint) {
  CSIM_CHECK(radius > 0.0 && hint > 0.0);
  const double n = std::ceil(2.0 * kPi * radius / hint);
  return static_cast<int>(std::clamp(n, 3.0, double{kMaxRimVertices}));
}

PressureField MakeCompliantSphere(double radius, double modulus, double hint, double margin) {
  CSIM_CHECK(margin >= 0.0);
  const double R = radius + margin;
  PressureField field;
  field.mesh = ScaledSparseSphere(SphereRefinementLevel(radius, hint), Vector3d::Constant(R));
  // E (1 - r/R): every surface vertex is at r = R + delta (so exactly 0 without margin).
  field.pressure.assign(field.mesh.vertices.size(), -modulus * margin / radius);
  field.pressure[0] = modulus;  // the centre
  return Finish(std::move(field), modulus);
}

PressureField MakeCompliantEllipsoid(const Vector3d& semi_axes, double modulus, double hint,
                                     double margin) {
  CSIM_CHECK(margin >= 0.0 && semi_axes.minCoeff() > 0.0);
  const int level = SphereRefinementLevel(1.0, hint / semi_axes.maxCoeff());
  PressureField field;
  field.mesh = ScaledSparseSphere(level, semi_axes + Vector3d::Constant(margin));
  // Surface vertices lie on the inflated ellipsoid; without margin that is the ellipsoid
  // itself, where the field is 0 (set exactly rather than as 1 - (1 +- roundoff)).
  field.pressure.assign(field.mesh.vertices.size(), 0.0);
  if (margin > 0.0)
    for (size_t i = 1; i < field.pressure.size(); ++i)
      field.pressure[i] =
          modulus * (1.0 - field.mesh.vertices[i].cwiseQuotient(semi_axes).norm());
  field.pressure[0] = modulus;  // the centre
  return Finish(std::move(field), modulus);
}

PressureField MakeCompliantBox(const Vector3d& size, double modulus, double margin) {
  CSIM_CHECK(margin >= 0.0 && size.minCoeff() > 0.0);
  const Vector3d half = 0.5 * size + Vector3d::Constant(margin);  // inflated half sizes [m]
  const double m = half.minCoeff();                                // inflated min half size
  const double depth = 0.5 * size.minCoeff();                       // H of the original box
  PressureField field;
  TetBuilder builder(&field.mesh);
  std::vector<bool> inner;  // per vertex: on the medial axis (p = E), else on the boundary
  auto add = [&](const Vector3d& p, bool is_inner) {
    const int i = builder.AddUniqueVertex(p);
    if (i >= static_cast<int>(inner.size())) inner.push_back(is_inner);
    return i;
  };
  // In-plane sign pattern of a face's corners, in cyclic order.
  const double su[4] = {-1, 1, 1, -1}, sv[4] = {-1, -1, 1, 1};
  for (int k = 0; k < 3; ++k) {
    const int u = (k + 1) % 3, v = (k + 2) % 3;
    for (double s : {-1.0, 1.0}) {
      Vector3d centre = Vector3d::Zero();
      centre[k] = s * half[k];
      const int apex = add(centre, false);
      int corner[4], medial[4];
      for (int i = 0; i < 4; ++i) {
        Vector3d c = centre, q = Vector3d::Zero();
        c[u] = su[i] * half[u];
        c[v] = sv[i] * half[v];
        q[k] = s * (half[k] - m);
        q[u] = su[i] * (half[u] - m);
        q[v] = sv[i] * (half[v] - m);
        corner[i] = add(c, false);
        medial[i] = add(q, true);
      }
      // The region where this face is nearest: its 4 sides (shared with the neighbouring
      // faces' regions, on the bisector planes) and its medial top, each coned from the centre.
      for (int i = 0; i < 4; ++i)
        builder.AddCone(apex, {corner[i], corner[(i + 1) % 4], medial[(i + 1) % 4], medial[i]});
      builder.AddCone(apex, {medial[0], medial[1], medial[2], medial[3]});
    }
  }
  // p = E (phi' - delta) / H: phi' = 0 on the inflated boundary, m on the medial axis.
  field.pressure.resize(field.mesh.vertices.size());
  for (size_t i = 0; i < inner.size(); ++i)
    field.pressure[i] = modulus * ((inner[i] ? m : 0.0) - margin) / depth;
  return Finish(std::move(field), modulus);
}

PressureField MakeCompliantCylinder(double radius, double length, double modulus, double hint,
                                    double margin) {
  CSIM_CHECK(margin >= 0.0 && radius > 0.0 && length > 0.0);
  const int n = RimVertexCount(radius, hint);
  const double R = radius + margin, half_length = 0.5 * length + margin;  // inflated [m]
  const double depth = std::min(radius, 0.5 * length);                    // H [m]
  const double excess = 0.5 * length - radius;  // > 0: long, medial axis is a segment
  const bool equal = std::abs(excess) <= 1e-9 * radius;
  PressureField field;
  TetBuilder b(&field.mesh);
  // Boundary vertices first (p <= 0), then medial ones (p = E): `first_medial` splits them.
  const int top = b.AddVertex(Vector3d(0, 0, half_length));
  const int bottom = b.AddVertex(Vector3d(0, 0, -half_length));
  std::vector<int> t(n), s(n), ring(n);
  for (int i = 0; i < n; ++i) {
    const double a = 2.0 * kPi * i / n;
    t[i] = b.AddVertex(Vector3d(R * std::cos(a), R * std::sin(a), half_length));
    s[i] = b.AddVertex(Vector3d(R * std::cos(a), R * std::sin(a), -half_length));
  }
  const int first_medial = static_cast<int>(field.mesh.vertices.size());
  if (equal || excess > 0.0) {
    // Medial segment between a_top and a_bot (one point when L/2 = R): caps are cones from
    // their centres, the side of polygon edge i a prism (a pyramid when equal).
    const double zm = equal ? 0.0 : excess;
    const int a_top = b.AddVertex(Vector3d(0, 0, zm));
    const int a_bot = equal ? a_top : b.AddVertex(Vector3d(0, 0, -zm));
    for (int i = 0; i < n; ++i) {
      const int j = (i + 1) % n;
      b.AddTet(top, t[i], t[j], a_top);
      b.AddTet(bottom, s[i], s[j], a_bot);
      b.AddPrism(a_top, t[i], t[j], a_bot, s[i], s[j]);
    }
  } else {
    // Medial disk of radius R - L/2 at z = 0 (an n-gon): each cap sector is a frustum prism
    // down to the disk, each side a prism between its rim edges and the disk's edge.
    const int centre = b.AddVertex(Vector3d::Zero());
    const double rho = -excess;
    for (int i = 0; i < n; ++i) {
      const double a = 2.0 * kPi * i / n;
      ring[i] = b.AddVertex(Vector3d(rho * std::cos(a), rho * std::sin(a), 0.0));
    }
    for (int i = 0; i < n; ++i) {
      const int j = (i + 1) % n;
      b.AddPrism(top, t[i], t[j], centre, ring[i], ring[j]);
      b.AddPrism(bottom, s[i], s[j], centre, ring[i], ring[j]);
      b.AddPrism(t[i], ring[i], s[i], t[j], ring[j], s[j]);
    }
  }
  // p = E (phi' - delta) / H, phi' = 0 on the inflated boundary and H + delta on the medial
  // axis.
  field.pressure.resize(field.mesh.vertices.size());
  for (size_t i = 0; i < field.pressure.size(); ++i)
    field.pressure[i] = static_cast<int>(i) < first_medial ? -modulus * margin / depth : modulus;
  return Finish(std::move(field), modulus);
}

PressureField MakeCompliantCapsule(double radius, double length, double modulus, double hint,
                                   double margin) {
  CSIM_CHECK(margin >= 0.0 && radius > 0.0 && length >= 0.0);
  const int n = RimVertexCount(radius, hint);
  const int m = std::max(1, (n + 3) / 4);  // latitude steps per quarter meridian
  const double R = radius + margin;        // inflated [m]
  const double zc = 0.5 * length;          // segment ends at +-zc
  PressureField field;
  TetBuilder b(&field.mesh);
  // Vertex 0 and 1: the segment ends (the only interior vertices); with length 0 they merge.
  const int end_top = b.AddVertex(Vector3d(0, 0, zc));
  const int end_bot = length > 0.0 ? b.AddVertex(Vector3d(0, 0, -zc)) : end_top;
  // rings[h][j][i]: hemisphere h (0 top, 1 bottom), latitude j (0 = rim), angle i.
  std::vector<std::vector<int>> rings[2];
  int pole[2];
  for (int h = 0; h < 2; ++h) {
    const double sign = h == 0 ? 1.0 : -1.0;
    rings[h].resize(m);
    for (int j = 0; j < m; ++j) {
      if (h == 1 && j == 0 && length == 0.0) {  // both rims are the equator
        rings[1][0] = rings[0][0];
        continue;
      }
      const double lat = 0.5 * kPi * j / m;
      for (int i = 0; i < n; ++i) {
        const double a = 2.0 * kPi * i / n;
        rings[h][j].push_back(b.AddVertex(Vector3d(R * std::cos(lat) * std::cos(a),
                                                   R * std::cos(lat) * std::sin(a),
                                                   sign * (zc + R * std::sin(lat)))));
      }
    }
    pole[h] = b.AddVertex(Vector3d(0, 0, sign * (zc + R)));
  }
  for (int h = 0; h < 2; ++h) {
    const int apex = h == 0 ? end_top : end_bot;
    for (int i = 0; i < n; ++i) {
      const int k = (i + 1) % n;
      for (int j = 0; j + 1 < m; ++j)
        b.AddCone(apex, {rings[h][j][i], rings[h][j][k], rings[h][j + 1][k], rings[h][j + 1][i]});
      b.AddTet(apex, rings[h][m - 1][i], rings[h][m - 1][k], pole[h]);
    }
  }
  if (length > 0.0)
    for (int i = 0; i < n; ++i) {
      const int k = (i + 1) % n;
      b.AddPrism(end_top, rings[0][0][i], rings[0][0][k], end_bot, rings[1][0][i],
                 rings[1][0][k]);
    }
  // E (1 - r/R): r = 0 at the segment ends, R + delta on every surface vertex.
  field.pressure.assign(field.mesh.vertices.size(), -modulus * margin / radius);
  field.pressure[end_top] = field.pressure[end_bot] = modulus;
  return Finish(std::move(field), modulus);
}

bool MakeCompliantConvex(const geometry::ConvexMesh& mesh, double modulus, double margin,
                         PressureField* field, std::string* error) {
  CSIM_CHECK(margin >= 0.0);
  *field = PressureField();
  TetBuilder b(&field->mesh);
  // Merge vertices by position (OBJ seams repeat them), then check that every directed edge
  // has exactly one reverse twin: the triangles then bound a closed, consistently wound surface.
  std::vector<int> index(mesh.vertices.size());
  for (size_t i = 0; i < mesh.vertices.size(); ++i) index[i] = b.AddUniqueVertex(mesh.vertices[i]);
  std::vector<std::array<int, 3>> faces;
  std::map<std::pair<int, int>, int> directed;  // edge -> uses
  for (const Eigen::Vector3i& t : mesh.triangles) {
    const std::array<int, 3> f{index[t[0]], index[t[1]], index[t[2]]};
    if (f[0] == f[1] || f[1] == f[2] || f[2] == f[0]) continue;  // collapsed by the merge
    faces.push_back(f);
    for (int e = 0; e < 3; ++e) ++directed[{f[e], f[(e + 1) % 3]}];
  }
  for (const auto& [edge, uses] : directed) {
    const auto twin = directed.find({edge.second, edge.first});
    if (uses != 1 || twin == directed.end() || twin->second != 1) {
      *error = "the mesh's triangles do not bound a closed surface (edge between vertices " +
               std::to_string(edge.first) + " and " + std::to_string(edge.second) +
               " is not shared by exactly two consistently wound triangles)";
      return false;
    }
  }
  // Volume centroid: sum over the triangles of the tets they span with a reference point.
  const auto& x = field->mesh.vertices;
  Vector3d reference = Vector3d::Zero();
  for (const Vector3d& v : x) reference += v / static_cast<double>(x.size());
  double volume = 0.0;
  Vector3d moment = Vector3d::Zero();
  for (const auto& f : faces) {
    const double v6 = (x[f[0]] - reference).cross(x[f[1]] - reference).dot(x[f[2]] - reference);
    volume += v6 / 6.0;
    moment += v6 / 6.0 * (reference + x[f[0]] + x[f[1]] + x[f[2]]) / 4.0;
  }
  if (!(volume > 0.0)) {
    *error = "the mesh encloses no volume";
    return false;
  }
  const Vector3d c = moment / volume;
  // Each face must see the centroid from its inner side by more than round-off; its distance
  // to the centroid's face plane h_f sets the margin's scale.
  double min_height = INFINITY;
  for (size_t k = 0; k < faces.size(); ++k) {
    const auto& f = faces[k];
    const Vector3d n = (x[f[1]] - x[f[0]]).cross(x[f[2]] - x[f[0]]);
    const double height = n.dot(x[f[0]] - c) / n.norm();
    if (!(height > 1e-9 * std::cbrt(volume))) {
      *error = "triangle " + std::to_string(k) +
               " does not face away from the mesh's centroid (the mesh is not convex)";
      return false;
    }
    min_height = std::min(min_height, height);
  }
  const double scale = 1.0 + margin / min_height;
  for (Vector3d& v : field->mesh.vertices) v = c + scale * (v - c);
  const int apex = b.AddVertex(c);
  for (const auto& f : faces) b.AddTet(apex, f[0], f[1], f[2]);
  // Unused vertices (none for a closed surface from the loader) would get p = E (1 - s) too.
  field->pressure.assign(field->mesh.vertices.size(), modulus * (1.0 - scale));
  if (margin == 0.0) std::fill(field->pressure.begin(), field->pressure.end(), 0.0);
  field->pressure[apex] = modulus;
  *field = Finish(std::move(*field), modulus);
  return true;
}

bool MakeCompliantField(const geometry::Geometry& geometry, double modulus, double hint,
                        double margin, PressureField* field, std::string* error) {
  const Vector3d& size = geometry.size;
  switch (geometry.type) {
    case geometry::ShapeType::kSphere:
      *field = MakeCompliantSphere(size[0], modulus, hint, margin);
      return true;
    case geometry::ShapeType::kBox:
      *field = MakeCompliantBox(size, modulus, margin);
      return true;
    case geometry::ShapeType::kCylinder:
      *field = MakeCompliantCylinder(size[0], size[1], modulus, hint, margin);
      return true;
    case geometry::ShapeType::kCapsule:
      *field = MakeCompliantCapsule(size[0], size[1], modulus, hint, margin);
      return true;
    case geometry::ShapeType::kEllipsoid:
      *field = MakeCompliantEllipsoid(size, modulus, hint, margin);
      return true;
    case geometry::ShapeType::kMesh:
      return MakeCompliantConvex(geometry.mesh, modulus, margin, field, error);
    case geometry::ShapeType::kHalfspace:
      break;
  }
  *error = "a compliant half-space has no mesh (its field is (E/H) depth)";
  return false;
}

MeshCoarseness CheckMeshCoarseness(const VolumeMesh& mesh, double smallest_dimension) {
  MeshCoarseness out;
  out.limit = 0.25 * smallest_dimension;
  const SurfaceMesh surface = BoundarySurface(mesh);
  for (const Eigen::Vector3i& t : surface.triangles)
    for (int e = 0; e < 3; ++e)
      out.longest_boundary_edge =
          std::max(out.longest_boundary_edge,
                   (surface.vertices[t[e]] - surface.vertices[t[(e + 1) % 3]]).norm());
  return out;
}

}  // namespace csim::hydroelastic

#include "engine/io/scene_warnings.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>

#include "engine/contact/initial_overlap.h"
#include "engine/geometry/mesh_convexity.h"
#include "engine/hydroelastic/compliant_meshes.h"
#include "engine/hydroelastic/hydroelastic_geometry.h"

namespace csim::io {
namespace {

using geometry::Geometry;

/// A number with 4 significant digits ("49.95", "0.0001234").
std::string Num(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", x);
  return buf;
}

/// A fraction as a percentage with 3 significant digits ("49.9%", "10%").
std::string Percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g%%", 100 * fraction);
  return buf;
}

/// The scene's entry of a body (by name) or, for body -1, its `world` map.
std::optional<NodeReader> OwnerNode(const NodeReader& root, const multibody::Model& model,
                                    int body) {
  if (body < 0) return root.Find("world");
  const auto bodies = root.Find("bodies");
  if (!bodies) return std::nullopt;
  for (const NodeReader& item : bodies->Items()) {
    const auto name = item.Find("name");
    if (name && name->AsString() == model.bodies[body].name) return item;
  }
  return std::nullopt;
}

/// Where geometry `index` of `body` (-1: the world) is written; the owner, or the root,
/// when the node cannot be found.
SourceLocation LocateGeometry(const NodeReader& root, const multibody::Model& model, int body,
                              int index) {
  const auto owner = OwnerNode(root, model, body);
  if (!owner) return root.Location();
  const auto list = owner->Find("geometry");
  if (!list || !list->IsSequence() || index >= static_cast<int>(list->Items().size()))
    return owner->Location();
  return list->Items()[index].Location();
}

/// "body 'ball' geometry 0" or "world geometry 1".
std::string GeometryName(const multibody::Model& model, int body, int index) {
  return (body < 0 ? std::string("world") : "body '" + model.bodies[body].name + "'") +
         " geometry " + std::to_string(index);
}

/// "sphere", "mesh 'meshes/rock.obj'".
std::string ShapeOf(const Geometry& g) {
  std::string text = geometry::ShapeTypeName(g.type);
  if (g.type == geometry::ShapeType::kMesh && !g.mesh.file.empty())
    text += " '" + g.mesh.file + "'";
  return text;
}

/// A collision geometry with the body that carries it (-1: world) and its index there.
struct Site {
  int body = -1;
  int index = 0;
  const Geometry* geometry = nullptr;
};

/// The sites in MakeCollisionSpecs order: world geometry, then each body's.
std::vector<Site> CollisionSites(const multibody::Model& model) {
  std::vector<Site> sites;
  for (size_t g = 0; g < model.world_geometry.size(); ++g)
    sites.push_back({-1, static_cast<int>(g), &model.world_geometry[g]});
  for (int b = 0; b < model.num_bodies(); ++b)
    for (size_t g = 0; g < model.bodies[b].geometry.size(); ++g)
      sites.push_back({b, static_cast<int>(g), &model.bodies[b].geometry[g]});
  return sites;
}

// ---- Meshes -------------------------------------------------------------------------------

/// What csim's mass properties make of the mesh (none for world geometry, which has none).
std::string MassClause(const geometry::MeshConvexity& c, bool on_body) {
  if (!on_body) return "";
  const double mesh = c.enclosed.volume;
  if (c.enclosed.closed() && std::abs(c.mass_volume - mesh) <= 1e-6 * mesh)
    return "; mass properties taken from it are the mesh's own";
  return "; mass properties taken from it integrate its triangles each turned to face away "
         "from the centre of its vertices, a volume of " + Num(c.mass_volume) + " m^3" +
         (c.enclosed.closed() ? " (neither the mesh's nor the hull's)" : "");
}

/// The warning about a mesh that is not convex or not closed; "" for a convex one.
std::string MeshWarning(const geometry::MeshConvexity& c, bool on_body) {
  if (c.convex()) return "";
  const geometry::EnclosedVolume& e = c.enclosed;
  const std::string treated =
      "csim computes no convex hull: it treats the mesh as convex, so contacts see the "
      "convex hull of its vertices";
  std::string why;
  if (!e.closed() || !(e.volume > 0)) {
    if (e.open_edges > 0)
      why = "is not closed (" + std::to_string(e.open_edges) +
            " edges do not join exactly two triangles)";
    else if (!e.orientable)
      why = "is not closed (its triangles cannot be wound consistently)";
    else
      why = "encloses no volume";
    return why + ", so whether it is convex is undefined; " + treated + " (" +
           Num(c.hull_volume) + " m^3)" + MassClause(c, on_body);
  }
  why = "is not convex";
  if (e.pieces > 1) why += " (" + std::to_string(e.pieces) + " separate closed surfaces)";
  return why + ": its convex hull has " + Num(c.hull_ratio()) + " times its volume (" +
         Num(c.hull_volume) + " vs " + Num(e.volume) + " m^3); " + treated +
         MassClause(c, on_body);
}

/// A mesh marked `hull: true` stands for its convex hull on purpose (an imported collision
/// mesh): it is reported only when the hull exceeds the mesh by this ratio, where contacts
/// would noticeably miss its concave parts.
constexpr double kHullWarningRatio = 1.05;

/// Whether the geometry's scene node says `hull: true`.
bool MarkedAsHull(const NodeReader& root, const multibody::Model& model, int body, int index) {
  const auto owner = OwnerNode(root, model, body);
  if (!owner) return false;
  const auto list = owner->Find("geometry");
  if (!list || !list->IsSequence() || index >= static_cast<int>(list->Items().size()))
    return false;
  return list->Items()[index].BoolOr("hull", false);
}

void AddMeshWarnings(const NodeReader& root, const multibody::Model& model,
                     std::vector<std::string>* out) {
  // Each file once, at its first collision geometry, with the count of the others; a mesh
  // given inline by its vertices is its own.
  std::vector<std::string> files;
  std::map<std::string, std::pair<Site, int>> uses;  // file -> (first site, geometries)
  int inline_count = 0;
  for (const Site& s : CollisionSites(model)) {
    if (s.geometry->type != geometry::ShapeType::kMesh || !s.geometry->collide) continue;
    const std::string key = s.geometry->mesh.file.empty()
                                ? "\n" + std::to_string(inline_count++)  // no file has '\n' first
                                : s.geometry->mesh.file;
    const auto [it, first] = uses.try_emplace(key, s, 0);
    if (first) files.push_back(it->first);
    ++it->second.second;
  }
  for (const std::string& file : files) {
    const auto& [s, count] = uses.at(file);
    const geometry::MeshConvexity c = geometry::CheckMeshConvexity(s.geometry->mesh);
    if (MarkedAsHull(root, model, s.body, s.index) && c.enclosed.closed() &&
        c.enclosed.volume > 0 && c.hull_ratio() <= kHullWarningRatio)
      continue;
    std::string text = MeshWarning(c, s.body >= 0);
    if (text.empty()) continue;
    if (count > 1) text += " (" + std::to_string(count - 1) + " more geometries use this file)";
    const std::string name =
        s.geometry->mesh.file.empty() ? "mesh" : "mesh '" + s.geometry->mesh.file + "'";
    out->push_back(FormatLocated(LocateGeometry(root, model, s.body, s.index),
                                 GeometryName(model, s.body, s.index) + ": " + name + " " + text));
  }
}

// ---- Hydroelastic meshes -----------------------------------------------------------------

// The longest edge [m] that still resolves compliant geometry g's pressure field, a quarter of
// its smallest dimension, and the edge it has; none (0, 0) where the field is exact at any
// tet size (box, convex mesh) or nothing is meshed.
std::pair<double, double> CoarsenessOf(const Geometry& g) {
  using geometry::ShapeType;
  const hydroelastic::HydroelasticGeometry& h = *g.hydroelastic_mesh;
  const double hint = g.hydroelastic.resolution_hint;
  switch (g.type) {
    case ShapeType::kSphere:
    case ShapeType::kEllipsoid: {
      const double smallest = 2.0 * (g.type == ShapeType::kSphere ? g.size[0] : g.size.minCoeff());
      const hydroelastic::MeshCoarseness c = hydroelastic::CheckMeshCoarseness(h.field.mesh, smallest);
      return {c.limit, c.longest_boundary_edge};
    }
    // Their rim edges are shorter than the hint by construction: the hint is the measure.
    case ShapeType::kCylinder: return {0.25 * std::min(2.0 * g.size[0], g.size[1]), hint};
    case ShapeType::kCapsule: return {0.5 * g.size[0], hint};
    case ShapeType::kMesh: {
      if (g.mesh.file.size() < 4 || g.mesh.file.substr(g.mesh.file.size() - 4) != ".vtk")
        return {0.0, 0.0};  // a convex starburst: exact
      Eigen::Vector3d lo = h.field.mesh.vertices[0], hi = lo;
      for (const Eigen::Vector3d& v : h.field.mesh.vertices) {
        lo = lo.cwiseMin(v);
        hi = hi.cwiseMax(v);
      }
      const hydroelastic::MeshCoarseness c =
          hydroelastic::CheckMeshCoarseness(h.field.mesh, (hi - lo).minCoeff());
      return {c.limit, c.longest_boundary_edge};
    }
    default: return {0.0, 0.0};
  }
}

void AddHydroelasticWarnings(const NodeReader& root, const multibody::Model& model,
                             std::vector<std::string>* out) {
  for (const Site& s : CollisionSites(model)) {
    const Geometry& g = *s.geometry;
    if (!g.collide || g.hydroelastic.compliance != geometry::Compliance::kCompliant ||
        g.hydroelastic_mesh == nullptr || !g.hydroelastic_mesh->IsCompliantMesh())
      continue;
    const auto [limit, edge] = CoarsenessOf(g);
    if (!(edge > limit)) continue;
    out->push_back(FormatLocated(
        LocateGeometry(root, model, s.body, s.index),
        GeometryName(model, s.body, s.index) + ": its compliant mesh is coarse: edges of " +
            Num(edge) + " m, over a quarter of its smallest dimension (" + Num(limit) +
            " m); its contact force will follow the facets (a sphere rolls like a die). "
            "Lower resolution_hint (docs/design/hydroelastic.md §2)"));
  }
}

// ---- Overlaps -----------------------------------------------------------------------------

std::string OverlapWarning(const multibody::Model& model, const std::vector<Site>& sites,
                           const contact::DeepOverlap& o) {
  const Site& a = sites[o.geometry_a];
  const Site& b = sites[o.geometry_b];
  const Site& thin = o.thinner_is_a ? a : b;
  return GeometryName(model, a.body, a.index) + " (" + ShapeOf(*a.geometry) + ") and " +
         GeometryName(model, b.body, b.index) + " (" + ShapeOf(*b.geometry) + ") overlap by " +
         Num(o.depth) + " m at t = 0: " + Percent(o.depth / o.width) +
         " of the least width of the thinner one (the " +
         geometry::ShapeTypeName(thin.geometry->type) + ", " + Num(o.width) +
         " m; csim warns above " + Percent(contact::kDeepOverlapFraction) +
         "). The contact will push them apart violently, at up to depth / time_step; check "
         "their sizes and poses";
}

void AddOverlapWarnings(const NodeReader& root, const multibody::Model& model,
                        std::vector<std::string>* out) {
  const std::vector<contact::DeepOverlap> overlaps = contact::FindDeepInitialOverlaps(model);
  const std::vector<Site> sites = CollisionSites(model);
  const int shown = std::min<int>(overlaps.size(), kMaxOverlapWarnings);
  for (int i = 0; i < shown; ++i) {
    // At the geometry of a body: the world's is rarely the one placed wrong.
    const contact::DeepOverlap& o = overlaps[i];
    const Site& at = sites[o.body_a >= 0 ? o.geometry_a : o.geometry_b];
    out->push_back(FormatLocated(LocateGeometry(root, model, at.body, at.index),
                                 OverlapWarning(model, sites, o)));
  }
  if (static_cast<int>(overlaps.size()) > shown) {
    const auto bodies = root.Find("bodies");
    out->push_back(FormatLocated((bodies ? *bodies : root).Location(),
                                 std::to_string(overlaps.size() - shown) +
                                     " more pairs overlap deeply at t = 0"));
  }
}

}  // namespace

std::vector<std::string> FindSceneWarnings(const NodeReader& root, const multibody::Model& model) {
  std::vector<std::string> out;
  AddMeshWarnings(root, model, &out);
  AddHydroelasticWarnings(root, model, &out);
  AddOverlapWarnings(root, model, &out);
  return out;
}

}  // namespace csim::io

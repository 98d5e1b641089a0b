#include "engine/io/geometry_reader.h"

#include <cctype>
#include <filesystem>
#include <memory>
#include <system_error>
#include <utility>

#include "engine/geometry/mesh_file.h"
#include "engine/hydroelastic/hydroelastic_geometry.h"
#include "engine/hydroelastic/rigid_surfaces.h"
#include "engine/hydroelastic/vtk_volume_file.h"
#include "engine/io/model_builder.h"

namespace csim::io {
namespace {

using geometry::Geometry;
using geometry::ShapeType;

/// Keys a geometry of each shape may have, besides shape/pose/material/collide/hydroelastic.
std::vector<std::string> ShapeKeys(ShapeType type) {
  std::vector<std::string> keys = {"shape", "pose", "material", "collide", "hydroelastic"};
  switch (type) {
    case ShapeType::kSphere: keys.push_back("radius"); break;
    case ShapeType::kBox: keys.push_back("size"); break;
    case ShapeType::kCylinder:
    case ShapeType::kCapsule: keys.insert(keys.end(), {"radius", "length"}); break;
    case ShapeType::kEllipsoid: keys.push_back("radii"); break;
    case ShapeType::kMesh:
      keys.insert(keys.end(), {"file", "volume", "scale", "vertices", "triangles", "hull"});
      break;
    case ShapeType::kHalfspace: break;
  }
  return keys;
}

ShapeType ReadShapeType(const NodeReader& node) {
  const std::string name = node.AsString();
  for (ShapeType t : {ShapeType::kSphere, ShapeType::kBox, ShapeType::kCylinder,
                      ShapeType::kCapsule, ShapeType::kEllipsoid, ShapeType::kHalfspace,
                      ShapeType::kMesh}) {
    if (name == geometry::ShapeTypeName(t)) return t;
  }
  node.Fail("unknown shape '" + name +
            "' (expected sphere, box, cylinder, capsule, ellipsoid, halfspace or mesh)");
}

/// Three positive numbers, each checked at its own node.
Eigen::Vector3d ReadPositive3(const NodeReader& node) {
  const Eigen::Vector3d v = node.AsVector3();
  for (const NodeReader& item : node.Items()) item.AsPositive();
  return v;
}

/// A file name of the scene, relative to the scene's folder.
std::string ScenePath(const NodeReader& file, const std::string& scene_dir) {
  std::string path = file.AsString();
  if (!path.empty() && path[0] != '/' && !scene_dir.empty()) path = scene_dir + "/" + path;
  return path;
}

/// A mesh given inline, `vertices: [[x, y, z], ...]` and `triangles: [[i, j, k], ...]`
/// (0-based indices), made convex as a mesh file is (geometry::MakeConvexMesh).
void ReadInlineMesh(const NodeReader& g, const Eigen::Vector3d& scale, Geometry* out) {
  const NodeReader vertex_list = g.Get("vertices");
  const NodeReader triangle_list = g.Get("triangles");
  std::vector<Eigen::Vector3d> vertices;
  for (const NodeReader& v : vertex_list.Items())
    vertices.push_back(v.AsVector3().cwiseProduct(scale));
  std::vector<Eigen::Vector3i> triangles;
  for (const NodeReader& t : triangle_list.Items()) {
    const std::vector<NodeReader> corners = t.Items();
    if (corners.size() != 3) t.Fail("a triangle needs 3 vertex indices");
    Eigen::Vector3i triangle;
    for (int k = 0; k < 3; ++k) {
      triangle[k] = corners[k].AsInt();
      if (triangle[k] < 0 || triangle[k] >= static_cast<int>(vertices.size()))
        corners[k].Fail("vertex index " + std::to_string(triangle[k]) + " is out of range (" +
                        std::to_string(vertices.size()) + " vertices)");
    }
    triangles.push_back(triangle);
  }
  std::string error;
  if (!geometry::MakeConvexMesh(std::move(vertices), std::move(triangles), &out->mesh, &error))
    triangle_list.Fail("the mesh " + error);
}

/// A mesh of an imported model whose vertices and triangles the expansion attached to the
/// node (yaml_reader.h, SourceMap::AddGeneratedMesh), made convex as an inline mesh is.
void ReadGeneratedMesh(const NodeReader& g, const GeneratedMesh& mesh,
                       const Eigen::Vector3d& scale, Geometry* out) {
  std::vector<Eigen::Vector3d> vertices;
  vertices.reserve(mesh.vertices.size());
  for (const Eigen::Vector3d& v : mesh.vertices) vertices.push_back(v.cwiseProduct(scale));
  const int n = static_cast<int>(vertices.size());
  for (const Eigen::Vector3i& t : mesh.triangles)
    if (t.minCoeff() < 0 || t.maxCoeff() >= n) g.Fail("the mesh has a vertex index out of range");
  std::string error;
  if (!geometry::MakeConvexMesh(std::move(vertices), mesh.triangles, &out->mesh, &error))
    g.Fail("the mesh " + error);
}

/// A visual-only mesh's `file`, kept as a reference that viewers read (scene-format.md
/// "bodies"): the simulation never uses it, so it is only checked to be a file csim can read.
void ReadVisualMeshFile(const NodeReader& file, const std::string& scene_dir,
                        const Eigen::Vector3d& scale, Geometry* out) {
  const std::string path = ScenePath(file, scene_dir);
  std::string extension = std::filesystem::path(path).extension().string();
  for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (extension != ".obj" && extension != ".stl" && extension != ".dae")
    file.Fail("unknown mesh format '" + path + "' (expected .obj, .stl or .dae)");
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    file.Fail("mesh file '" + path + "' does not exist or is not a file");
  out->mesh.file = path;
  out->mesh.scale = scale;
}

/// A mesh's `file` (OBJ, STL or COLLADA) and/or `volume` (tetrahedral VTK, read into *volume): without
/// `file`, the volume's boundary is the mesh (its hull for point contact, its solid for the
/// mass properties). Or inline `vertices` and `triangles`, alone; or the data the model
/// expansion attached to the node. A visual-only mesh file (out->collide false) stays a
/// reference, unread.
void ReadMesh(const NodeReader& g, const std::string& scene_dir, Geometry* out,
              hydroelastic::VolumeMesh* volume) {
  const auto file = g.Find("file");
  const auto volume_file = g.Find("volume");
  const auto vertices = g.Find("vertices");
  Eigen::Vector3d scale = Eigen::Vector3d::Ones();
  if (auto s = g.Find("scale")) {
    scale = s->IsScalar() ? Eigen::Vector3d::Constant(s->AsPositive()) : ReadPositive3(*s);
  }
  if (const GeneratedMesh* generated = g.GeneratedMeshData()) {
    ReadGeneratedMesh(g, *generated, scale, out);
    return;
  }
  if (vertices || g.Find("triangles")) {
    if (file) file->Fail("a mesh takes file or vertices and triangles, not both");
    if (volume_file) volume_file->Fail("a mesh given by vertices and triangles takes no volume");
    ReadInlineMesh(g, scale, out);
    return;
  }
  if (!file && !volume_file)
    g.Fail("a mesh needs file (an OBJ, STL or COLLADA surface), volume (a tetrahedral VTK file) or "
           "vertices and triangles");
  if (file && !volume_file && !out->collide) {
    ReadVisualMeshFile(*file, scene_dir, scale, out);
    return;
  }
  if (file) {
    std::string error;
    if (!geometry::ReadMeshFile(ScenePath(*file, scene_dir), scale, &out->mesh, &error))
      file->Fail(error);
    out->mesh.scale = scale;
  }
  if (volume_file) {
    const std::string path = ScenePath(*volume_file, scene_dir);
    *volume = hydroelastic::ReadVtkVolumeMesh(path, scale);  // errors located in the file
    if (!file) {
      const hydroelastic::SurfaceMesh boundary = hydroelastic::BoundarySurface(*volume);
      out->mesh.file = path;
      out->mesh.vertices = boundary.vertices;
      out->mesh.triangles = boundary.triangles;
    }
  }
}

/// Reads the size parameters of `out->type` into out->size (or out->mesh).
void ReadShapeSize(const NodeReader& g, const std::string& scene_dir, Geometry* out,
                   hydroelastic::VolumeMesh* volume) {
  switch (out->type) {
    case ShapeType::kSphere: out->size[0] = g.Get("radius").AsPositive(); break;
    case ShapeType::kBox: out->size = ReadPositive3(g.Get("size")); break;
    case ShapeType::kCylinder:
    case ShapeType::kCapsule:
      out->size[0] = g.Get("radius").AsPositive();
      out->size[1] = g.Get("length").AsPositive();
      break;
    case ShapeType::kEllipsoid: out->size = ReadPositive3(g.Get("radii")); break;
    case ShapeType::kMesh: ReadMesh(g, scene_dir, out, volume); break;
    case ShapeType::kHalfspace: break;
  }
}

/// Reads a geometry's `hydroelastic:` block into out->hydroelastic (scene-format.md
/// "Hydroelastic contact"): which keys a shape and compliance take, and that a compliant
/// geometry's material (material_name, "" for the built-in default) gives its modulus.
void ReadHydroelastic(const NodeReader& h, ShapeType type, double modulus,
                      const std::string& material_name, const hydroelastic::VolumeMesh& volume,
                      Geometry* out) {
  h.ExpectMap();
  h.CheckKeys({"compliance", "resolution_hint", "margin", "slab_thickness"});
  geometry::HydroelasticProperties& p = out->hydroelastic;
  const NodeReader compliance = h.Get("compliance");
  const std::string kind = compliance.AsString();
  if (kind == "compliant") {
    p.compliance = geometry::Compliance::kCompliant;
  } else if (kind == "rigid") {
    p.compliance = geometry::Compliance::kRigid;
  } else {
    compliance.Fail("unknown compliance '" + kind + "' (expected compliant or rigid)");
  }
  const bool compliant = p.compliance == geometry::Compliance::kCompliant;
  const char* shape = geometry::ShapeTypeName(type);
  // The shapes whose mesh is a tessellation of a curved surface need a target edge length;
  // a box, a mesh and a halfspace have their own.
  const bool curved = type == ShapeType::kSphere || type == ShapeType::kEllipsoid ||
                      type == ShapeType::kCylinder || type == ShapeType::kCapsule;
  if (auto hint = h.Find("resolution_hint")) {
    if (!curved) hint->Fail(std::string("resolution_hint does not apply to a ") + shape);
    p.resolution_hint = hint->AsPositive();
  } else if (curved) {
    h.Fail(std::string("a hydroelastic ") + shape + " needs resolution_hint [m]");
  }
  if (auto margin = h.Find("margin")) {
    if (!compliant) margin->Fail("margin applies to compliant geometry only");
    p.margin = margin->AsPositive();
  }
  if (auto slab = h.Find("slab_thickness")) {
    if (!compliant || type != ShapeType::kHalfspace)
      slab->Fail("slab_thickness applies to a compliant halfspace only");
    p.slab_thickness = slab->AsPositive();
  } else if (compliant && type == ShapeType::kHalfspace) {
    h.Fail("a compliant halfspace needs slab_thickness [m] (the depth over which its pressure "
           "rises to hydroelastic_modulus)");
  }
  if (compliant && !(modulus > 0.0)) {
    compliance.Fail(material_name.empty()
                        ? std::string("compliant geometry needs a material with "
                                      "hydroelastic_modulus [Pa]")
                        : "compliant geometry needs hydroelastic_modulus [Pa] in its material '" +
                              material_name + "'");
  }
  // The mesh and field, or the surface, once for the whole run.
  auto mesh = std::make_shared<hydroelastic::HydroelasticGeometry>();
  std::string error;
  const bool made =
      compliant && !volume.tets.empty()
          ? hydroelastic::MakeHydroelasticGeometryFromVolume(volume, modulus, p.margin, mesh.get(),
                                                             &error)
          : hydroelastic::MakeHydroelasticGeometry(*out, modulus, mesh.get(), &error);
  if (!made) h.Fail(error);
  out->hydroelastic_mesh = std::move(mesh);
}

Geometry ReadGeometry(const NodeReader& g, const MaterialIndex& materials, int default_material,
                      const std::string& scene_dir) {
  g.ExpectMap();
  Geometry out;
  out.type = ReadShapeType(g.Get("shape"));
  g.CheckKeys(ShapeKeys(out.type));
  out.collide = g.BoolOr("collide", true);  // before the size: a visual mesh file is not read
  hydroelastic::VolumeMesh volume;  // a mesh's `volume`, if given
  ReadShapeSize(g, scene_dir, &out, &volume);
  if (auto pose = g.Find("pose")) out.X_BG = ReadScenePose(*pose);
  // `hull` only changes when the loader warns (scene_warnings.h); it is read here so that a
  // value that is not a boolean is an error.
  if (out.type == ShapeType::kMesh) g.BoolOr("hull", false);
  out.material = default_material;
  double modulus = default_material >= 0 ? materials.at("default").hydroelastic_modulus : 0.0;
  std::string material_name = default_material >= 0 ? "default" : "";
  if (auto m = g.Find("material")) {
    const auto it = materials.find(m->AsString());
    if (it == materials.end()) m->Fail("unknown material '" + m->AsString() + "'");
    out.material = it->second.index;
    modulus = it->second.hydroelastic_modulus;
    material_name = it->first;
  }
  if (auto h = g.Find("hydroelastic")) {
    if (!out.collide) h->Fail("a visual-only geometry (collide: false) takes no hydroelastic");
    ReadHydroelastic(*h, out.type, modulus, material_name, volume, &out);
  } else if (!volume.tets.empty()) {
    g.Get("volume").Fail("volume (a tetrahedral mesh) is for a compliant hydroelastic mesh; "
                         "add hydroelastic: {compliance: compliant}, or give file instead");
  }
  return out;
}

}  // namespace

MaterialIndex ReadMaterials(const NodeReader& root, multibody::Model& model) {
  MaterialIndex index;
  const auto section = root.Find("materials");
  if (!section) return index;
  for (const auto& [key, value] : section->Entries()) {
    value.CheckKeys(
        {"stiffness", "dissipation_time", "hunt_crossley", "friction", "hydroelastic_modulus"});
    geometry::Material m;
    m.name = ReadName(key, "material");
    m.stiffness = value.Has("stiffness") ? value.Get("stiffness").AsPositive(true) : m.stiffness;
    m.dissipation_time = value.NonNegativeOr("dissipation_time", m.dissipation_time);
    m.hunt_crossley = value.NonNegativeOr("hunt_crossley", m.hunt_crossley);
    m.friction = value.NonNegativeOr("friction", m.friction);
    m.hydroelastic_modulus = value.PositiveOr("hydroelastic_modulus", m.hydroelastic_modulus);
    index[m.name] = {static_cast<int>(model.materials.size()), m.hydroelastic_modulus};
    if (m.name == "default") model.default_material = static_cast<int>(model.materials.size());
    model.materials.push_back(m);
  }
  return index;
}

std::vector<Geometry> ReadGeometryList(const NodeReader& owner, const MaterialIndex& materials,
                                       int default_material, const std::string& scene_dir) {
  std::vector<Geometry> out;
  if (auto list = owner.Find("geometry")) {
    for (const NodeReader& g : list->Items())
      out.push_back(ReadGeometry(g, materials, default_material, scene_dir));
  }
  return out;
}

}  // namespace csim::io

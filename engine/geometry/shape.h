#pragma once
// Collision and visual geometry of the scene format (scene-format.md "Shapes"). Every shape
// is centred on its geometry frame; lengths in metres.

#include <memory>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "engine/math/spatial.h"

namespace csim::hydroelastic {
struct HydroelasticGeometry;  // engine/hydroelastic/hydroelastic_geometry.h
}  // namespace csim::hydroelastic

namespace csim::geometry {

enum class ShapeType { kSphere, kBox, kCylinder, kCapsule, kEllipsoid, kHalfspace, kMesh };

/// Scene-format name of a shape type ("sphere", "box", ...).
const char* ShapeTypeName(ShapeType type);

/// Contact material (scene-format.md "materials"). Defaults equal the format's defaults.
struct Material {
  std::string name;                   ///< "" for the built-in default
  double stiffness = INFINITY;        ///< k [N/m]; infinity selects the near-rigid rule
  double dissipation_time = 0.0;      ///< tau_d [s] of the sap model
  double hunt_crossley = 0.0;         ///< d [s/m] of the Hunt & Crossley models
  double friction = 0.5;              ///< Coulomb coefficient mu [1]
  /// E [Pa] of the pressure field p = E * extent of a compliant hydroelastic geometry;
  /// 0: not given (a compliant geometry of this material is an error).
  double hydroelastic_modulus = 0.0;
};

/// How a geometry takes part in hydroelastic contact (scene-format.md "Hydroelastic
/// contact", docs/design/hydroelastic.md).
enum class Compliance {
  kNone,       ///< point contact only (no `hydroelastic:` block)
  kRigid,      ///< a surface triangle mesh: a compliant body's pressure field meets it
  kCompliant,  ///< a tetrahedral mesh with a pressure field
};

/// A geometry's `hydroelastic:` block.
struct HydroelasticProperties {
  Compliance compliance = Compliance::kNone;
  double resolution_hint = 0.0;  ///< [m] target edge length of its mesh; 0: not given
  double margin = 0.0;           ///< [m] compliant only: the skirt of p < 0 around it
  double slab_thickness = 0.0;   ///< [m] compliant halfspace only: H of p = (E / H) depth
};

/// True when two geometries touch through a hydroelastic contact surface rather than point
/// contact: both have a `hydroelastic:` block, at least one is compliant, and they are not
/// two halfspaces (scene-format.md "Hydroelastic contact").
bool HasContactSurface(const HydroelasticProperties& a, ShapeType type_a,
                       const HydroelasticProperties& b, ShapeType type_b);

/// The same rule on the compliance of each side and whether it is a halfspace, the form in
/// which the built hydroelastic geometry keeps them (hydroelastic::HasContactSurface).
bool HasContactSurface(Compliance a, bool a_is_halfspace, Compliance b, bool b_is_halfspace);

/// A convex polyhedron read from a mesh file, already scaled, in the geometry frame. A
/// visual-only mesh file (Geometry::collide false) is not read: it stays a reference, its
/// `file` and `scale` without vertices, which viewers read (scene-format.md "bodies").
struct ConvexMesh {
  std::string file;                                 ///< resolved path of the file it came from
  Eigen::Vector3d scale = Eigen::Vector3d::Ones();  ///< per-axis factor on the file's coordinates
  std::vector<Eigen::Vector3d> vertices;            ///< [m]
  std::vector<Eigen::Vector3i> triangles;           ///< indices into vertices, outward CCW
};

/// One geometry attached to a body (or welded to the world).
struct Geometry {
  ShapeType type = ShapeType::kSphere;
  /// Shape parameters [m]: sphere {r}; box {x, y, z} full edges; cylinder/capsule {r, length};
  /// ellipsoid {a, b, c}; halfspace and mesh unused.
  Eigen::Vector3d size = Eigen::Vector3d::Zero();
  ConvexMesh mesh;                     ///< kMesh only
  math::RigidTransform X_BG;           ///< geometry frame G in the body frame B
  int material = -1;                   ///< index into Model::materials; -1: built-in default
  bool collide = true;                 ///< false: visual only
  HydroelasticProperties hydroelastic;  ///< point contact only unless given
  /// Its tetrahedral mesh and pressure field, or its surface mesh, built once by the loader
  /// when `hydroelastic` is given (engine/hydroelastic/, a layer above this one: declared
  /// only); shared by copies of the model.
  std::shared_ptr<const hydroelastic::HydroelasticGeometry> hydroelastic_mesh;
};

}  // namespace csim::geometry

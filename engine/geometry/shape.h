#pragma once
// Collision and visual geometry of the scene format (scene-format.md "Shapes"). Every shape
// is centred on its geometry frame; lengths in metres.

#include <string>
#include <vector>

#include <Eigen/Dense>

#include "engine/math/spatial.h"

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
};

/// A convex polyhedron read from a mesh file, already scaled, in the geometry frame.
struct ConvexMesh {
  std::string file;                                 ///< resolved path it was read from
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
};

}  // namespace csim::geometry

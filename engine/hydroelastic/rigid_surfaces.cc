#include "engine/hydroelastic/rigid_surfaces.h"

#include <algorithm>
#include <array>
#include <map>

#include "engine/common/check.h"
#include "engine/hydroelastic/compliant_meshes.h"

namespace csim::hydroelastic {

SurfaceMesh BoundarySurface(const VolumeMesh& mesh) {
  // A positive tet's faces wound to face away from the opposite vertex.
  static constexpr int kFace[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};
  struct Use {
    int count = 0;
    int order = 0;  // first occurrence, for a deterministic output order
    std::array<int, 3> face{};
  };
  std::map<std::array<int, 3>, Use> faces;  // sorted vertex triple -> uses
  int order = 0;
  for (const auto& tet : mesh.tets)
    for (const auto& local : kFace) {
      const std::array<int, 3> face{tet[local[0]], tet[local[1]], tet[local[2]]};
      std::array<int, 3> key = face;
      std::sort(key.begin(), key.end());
      Use& use = faces[key];
      if (use.count++ == 0) {
        use.order = order++;
        use.face = face;
      }
    }
  std::vector<const Use*> boundary;
  for (const auto& entry : faces)
    if (entry.second.count == 1) boundary.push_back(&entry.second);
  std::sort(boundary.begin(), boundary.end(),
            [](const Use* a, const Use* b) { return a->order < b->order; });

  SurfaceMesh surface;
  std::vector<int> renumber(mesh.vertices.size(), -1);
  for (const Use* use : boundary) {
    Eigen::Vector3i t;
    for (int k = 0; k < 3; ++k) {
      int& v = renumber[use->face[k]];
      if (v < 0) {
        v = static_cast<int>(surface.vertices.size());
        surface.vertices.push_back(mesh.vertices[use->face[k]]);
      }
      t[k] = v;
    }
    surface.triangles.push_back(t);
  }
  CSIM_CHECK(ComputeTriangleNormals(&surface));
  return surface;
}

SurfaceMesh MakeRigidSphere(double radius, double hint) {
  return BoundarySurface(MakeCompliantSphere(radius, 1.0, hint, 0.0).mesh);
}

SurfaceMesh MakeRigidEllipsoid(const Eigen::Vector3d& semi_axes, double hint) {
  return BoundarySurface(MakeCompliantEllipsoid(semi_axes, 1.0, hint, 0.0).mesh);
}

SurfaceMesh MakeRigidBox(const Eigen::Vector3d& size) {
  return BoundarySurface(MakeCompliantBox(size, 1.0, 0.0).mesh);
}

SurfaceMesh MakeRigidCylinder(double radius, double length, double hint) {
  return BoundarySurface(MakeCompliantCylinder(radius, length, 1.0, hint, 0.0).mesh);
}

SurfaceMesh MakeRigidCapsule(double radius, double length, double hint) {
  return BoundarySurface(MakeCompliantCapsule(radius, length, 1.0, hint, 0.0).mesh);
}

SurfaceMesh MakeRigidConvex(const geometry::ConvexMesh& mesh) {
  SurfaceMesh surface;
  surface.vertices = mesh.vertices;
  surface.triangles = mesh.triangles;
  ComputeTriangleNormals(&surface);  // the caller (MakeRigidSurface) reports a failure
  return surface;
}

bool MakeRigidSurface(const geometry::Geometry& geometry, double hint, SurfaceMesh* surface,
                      std::string* error) {
  const Eigen::Vector3d& size = geometry.size;
  switch (geometry.type) {
    case geometry::ShapeType::kSphere:
      *surface = MakeRigidSphere(size[0], hint);
      return true;
    case geometry::ShapeType::kBox:
      *surface = MakeRigidBox(size);
      return true;
    case geometry::ShapeType::kCylinder:
      *surface = MakeRigidCylinder(size[0], size[1], hint);
      return true;
    case geometry::ShapeType::kCapsule:
      *surface = MakeRigidCapsule(size[0], size[1], hint);
      return true;
    case geometry::ShapeType::kEllipsoid:
      *surface = MakeRigidEllipsoid(size, hint);
      return true;
    case geometry::ShapeType::kMesh:
      *surface = MakeRigidConvex(geometry.mesh);
      if (ComputeTriangleNormals(surface)) return true;
      *error = "the mesh has a degenerate (zero-area) triangle";
      return false;
    case geometry::ShapeType::kHalfspace:
      break;
  }
  *error = "a rigid half-space is an exact plane and has no surface mesh";
  return false;
}

}  // namespace csim::hydroelastic

#pragma once
// How far a mesh read from a file is from the convex solid csim makes of it, so that the
// loader can warn (scene-format.md shape `mesh`).
//
// csim computes no convex hull of a mesh. It treats the mesh as convex: the contact query
// takes a mesh's support point from its vertices (contact_shape.h), which is the support
// point of their convex hull, so contacts see the hull; the mass properties integrate the
// triangles after mesh_file.cc has turned each to face away from the centre of the
// vertices, which gives the mesh's own volume when every triangle faces away from that
// centre (a convex or star-shaped mesh) and neither the mesh's nor the hull's otherwise.
//
// The volume a mesh encloses comes from the divergence theorem: for a closed surface wound
// consistently outward, V = sum over triangles (a, b, c) of a . (b x c) / 6. The files'
// winding is not trusted (mesh_file.h), so the winding is propagated here from each piece's
// first triangle across shared edges, and each piece counts with the magnitude of its sum.
// A piece nested inside another (a hollow shell) therefore adds its volume instead of
// removing it; such a mesh has two pieces and is reported as not convex all the same.

#include "engine/geometry/shape.h"

namespace csim::geometry {

/// A mesh counts as convex when its convex hull exceeds it in volume by at most this
/// fraction. A convex mesh matches its hull up to round-off (1e-12); single-precision STL
/// coordinates (rounded by 6e-8 of their size) can dent a finely tessellated convex surface
/// by about 1e-7 of its volume; a notch of 1e-5 of the volume (a 2 mm cube cut out of a
/// 10 cm one) is a shape a user drew on purpose, and is reported.
constexpr double kConvexVolumeTolerance = 1e-5;

/// The solid a mesh's triangles bound. Vertices are compared by position, so a file that
/// repeats a vertex (OBJ seams) still joins its triangles; triangles with two equal
/// corners are ignored.
struct EnclosedVolume {
  int open_edges = 0;       ///< edges not shared by exactly two triangles
  bool orientable = true;   ///< the triangles can be wound consistently across shared edges
  int pieces = 0;           ///< connected pieces of the surface (across shared edges)
  double volume = 0.0;      ///< [m^3] enclosed volume when closed(), else 0

  /// No open edge and a consistent winding: the triangles bound a solid.
  bool closed() const { return open_edges == 0 && orientable; }
};

/// The volume `mesh` encloses by the divergence theorem (see the top of this file).
EnclosedVolume CalcEnclosedVolume(const ConvexMesh& mesh);

/// A mesh compared with what csim makes of it.
struct MeshConvexity {
  EnclosedVolume enclosed;   ///< the solid the file describes
  double hull_volume = 0.0;  ///< [m^3] volume of the convex hull of its vertices (contacts)
  double mass_volume = 0.0;  ///< [m^3] volume csim's mass properties use (mass_properties.h)

  /// Closed, one piece, with a positive volume and a hull at most kConvexVolumeTolerance
  /// larger.
  bool convex() const;
  /// hull_volume / enclosed.volume (meaningful when closed with a positive volume).
  double hull_ratio() const { return hull_volume / enclosed.volume; }
};

/// Compares `mesh` (as loaded by ReadMeshFile) with its convex hull and with the volume of
/// its mass properties.
MeshConvexity CheckMeshConvexity(const ConvexMesh& mesh);

}  // namespace csim::geometry

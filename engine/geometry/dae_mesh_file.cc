#include "engine/geometry/dae_mesh_file.h"

#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include <assimp/Importer.hpp>
#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

namespace csim::geometry {
namespace {

Eigen::Matrix4d ToEigen(const aiMatrix4x4& m) {
  Eigen::Matrix4d out;
  out << m.a1, m.a2, m.a3, m.a4, m.b1, m.b2, m.b3, m.b4, m.c1, m.c2, m.c3, m.c4, m.d1, m.d2,
      m.d3, m.d4;
  return out;
}

/// assimp's reasons can span lines; ReadMeshFile's errors are one line.
std::string OneLine(std::string text) {
  for (char& c : text)
    if (c == '\n' || c == '\r') c = ' ';
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

/// Appends the triangles of `ai_mesh`, its vertices taken through `X` (the node's transform
/// composed with those above it, and assimp's unit scale at the root). Returns false when a
/// face names a vertex the mesh lacks: assimp's COLLADA parser checks its indices, but
/// nothing here is allowed to read out of bounds on a damaged file.
bool AppendMesh(const aiMesh& ai_mesh, const Eigen::Matrix4d& X,
                std::map<std::tuple<double, double, double>, int>* seen, ConvexMesh* mesh) {
  std::vector<int> index(ai_mesh.mNumVertices, -1);  // file vertex -> merged vertex
  auto merged = [&](unsigned int i) {
    if (index[i] >= 0) return index[i];
    const aiVector3D& v = ai_mesh.mVertices[i];
    const Eigen::Vector3d p =
        X.topLeftCorner<3, 3>() * Eigen::Vector3d(v.x, v.y, v.z) + X.topRightCorner<3, 1>();
    const int next = static_cast<int>(mesh->vertices.size());
    const auto [it, added] = seen->emplace(std::make_tuple(p.x(), p.y(), p.z()), next);
    if (added) mesh->vertices.push_back(p);
    return index[i] = it->second;
  };
  for (unsigned int f = 0; f < ai_mesh.mNumFaces; ++f) {
    const aiFace& face = ai_mesh.mFaces[f];
    if (face.mNumIndices != 3) continue;  // a point or a line: no surface
    for (int k = 0; k < 3; ++k)
      if (face.mIndices[k] >= ai_mesh.mNumVertices) return false;
    mesh->triangles.emplace_back(merged(face.mIndices[0]), merged(face.mIndices[1]),
                                 merged(face.mIndices[2]));
  }
  return true;
}

}  // namespace

bool ParseDae(const std::string& bytes, ConvexMesh* mesh, std::string* error) {
  Assimp::Importer importer;
  // The file's axes as they stand (dae_mesh_file.h). assimp puts the <unit> scale on the
  // root node regardless of this setting, and the walk below applies it.
  importer.SetPropertyInteger(AI_CONFIG_IMPORT_COLLADA_IGNORE_UP_DIRECTION, 1);
  // A file without geometry would otherwise get a made-up mesh of its node skeleton.
  importer.SetPropertyInteger(AI_CONFIG_IMPORT_NO_SKELETON_MESHES, 1);
  // Read from memory, so that a file that cannot be read is reported by ReadMeshFile like an
  // OBJ or STL one (the system's reason). The hint names the format.
  const aiScene* scene =
      importer.ReadFileFromMemory(bytes.data(), bytes.size(), aiProcess_Triangulate, "dae");
  if (!scene || !scene->mRootNode) {
    *error = "not a COLLADA file assimp can read: " + OneLine(importer.GetErrorString());
    return false;
  }
  std::map<std::tuple<double, double, double>, int> seen;
  // Through the scene graph, each node with the transform from its frame to the file's.
  std::vector<std::pair<const aiNode*, Eigen::Matrix4d>> stack;
  stack.emplace_back(scene->mRootNode, ToEigen(scene->mRootNode->mTransformation));
  while (!stack.empty()) {
    const auto [node, X] = stack.back();
    stack.pop_back();
    for (unsigned int k = 0; k < node->mNumMeshes; ++k) {
      const unsigned int m = node->mMeshes[k];
      if (m >= scene->mNumMeshes || !AppendMesh(*scene->mMeshes[m], X, &seen, mesh)) {
        *error = "COLLADA scene refers to a mesh or vertex it does not hold";
        return false;
      }
    }
    for (unsigned int c = 0; c < node->mNumChildren; ++c) {
      const aiNode* child = node->mChildren[c];
      stack.emplace_back(child, X * ToEigen(child->mTransformation));
    }
  }
  return true;
}

}  // namespace csim::geometry

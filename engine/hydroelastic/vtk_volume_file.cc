#include "engine/hydroelastic/vtk_volume_file.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <utility>
#include <vector>

#include "engine/common/check.h"
#include "engine/common/input_error.h"

namespace csim::hydroelastic {
namespace {

using Eigen::Vector3d;

constexpr int kVtkTetra = 10;

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string Trim(const std::string& s) {
  const auto begin = s.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return "";
  return s.substr(begin, s.find_last_not_of(" \t\r\n") - begin + 1);
}

/// The whitespace-separated words after the 3 header lines, each with its line, and the
/// helpers that turn them into numbers or report where they went wrong.
class Tokens {
 public:
  struct Token {
    std::string text;
    int line = 0;
  };

  explicit Tokens(std::string path) : path_(std::move(path)) {}

  [[noreturn]] void Fail(int line, const std::string& message) const {
    throw InputError(SourceLocation{path_, line, 0}, message);
  }

  void AddLine(const std::string& text, int line) {
    std::istringstream words(text);
    std::string word;
    while (words >> word) tokens_.push_back({word, line});
    last_line_ = line;
  }

  bool AtEnd() const { return next_ >= tokens_.size(); }
  const Token& Peek() const { return tokens_[next_]; }

  const Token& Next(const std::string& what) {
    if (AtEnd()) Fail(last_line_, "the file ends early: expected " + what);
    return tokens_[next_++];
  }

  /// The next word as an integer in [low, high]; `line` (if given) receives its line.
  long long Integer(const std::string& what, long long low, long long high, int* line = nullptr) {
    const Token& t = Next(what);
    errno = 0;
    char* end = nullptr;
    const long long value = std::strtoll(t.text.c_str(), &end, 10);
    if (*end != '\0' || end == t.text.c_str() || errno != 0)
      Fail(t.line, "expected " + what + ", found '" + t.text + "'");
    if (value < low || value > high)
      Fail(t.line, what + " " + t.text + " is out of range [" + std::to_string(low) + ", " +
                       std::to_string(high) + "]");
    if (line != nullptr) *line = t.line;
    return value;
  }

  double Real(const std::string& what) {
    const Token& t = Next(what);
    char* end = nullptr;
    const double value = std::strtod(t.text.c_str(), &end);
    if (*end != '\0' || end == t.text.c_str() || !std::isfinite(value))
      Fail(t.line, "expected " + what + " (a finite number), found '" + t.text + "'");
    return value;
  }

  /// Consumes the keyword `word` (case-insensitive) or reports `what` at the current word.
  void Expect(const std::string& word, const std::string& what) {
    const Token& t = Next(what);
    if (Lower(t.text) != Lower(word)) Fail(t.line, "expected " + what + ", found '" + t.text + "'");
  }

 private:
  std::string path_;
  std::vector<Token> tokens_;
  size_t next_ = 0;
  int last_line_ = 0;
};

/// Skips a FIELD block: FIELD name n, then n arrays "name components tuples type values...".
void SkipField(Tokens* in) {
  in->Next("the FIELD's name");
  const long long arrays = in->Integer("the FIELD's array count", 0, 1 << 20);
  for (long long a = 0; a < arrays; ++a) {
    in->Next("a FIELD array's name");
    const long long components = in->Integer("a FIELD array's component count", 0, 1 << 20);
    const long long tuples = in->Integer("a FIELD array's tuple count", 0, 1LL << 40);
    in->Next("a FIELD array's type");
    for (long long k = 0; k < components * tuples; ++k) in->Next("a FIELD array value");
  }
}

/// Cells as read: 4 point indices each and the line where the cell starts.
struct Cells {
  std::vector<std::array<int, 4>> tets;
  std::vector<int> lines;
};

/// Classic layout: m cells of "k i1 ... ik".
void ReadClassicCells(Tokens* in, long long count, int num_points, Cells* cells) {
  for (long long i = 0; i < count; ++i) {
    int line = 0;
    const long long k = in->Integer("a cell's vertex count", 0, 1 << 20, &line);
    if (k != 4)
      in->Fail(line, "cell " + std::to_string(i) + " has " + std::to_string(k) +
                         " vertices; only tetrahedra (4 vertices) are supported");
    std::array<int, 4> tet;
    for (int j = 0; j < 4; ++j)
      tet[j] = static_cast<int>(in->Integer("a point index", 0, num_points - 1));
    cells->tets.push_back(tet);
    cells->lines.push_back(line);
  }
}

/// Version 5 layout: OFFSETS (count + 1 values) and CONNECTIVITY arrays.
void ReadOffsetCells(Tokens* in, long long num_offsets, long long num_indices, int num_points,
                     Cells* cells) {
  in->Expect("OFFSETS", "OFFSETS");
  in->Next("the OFFSETS type");
  std::vector<long long> offsets(num_offsets);
  std::vector<int> offset_lines(num_offsets);
  for (long long i = 0; i < num_offsets; ++i)
    offsets[i] = in->Integer("an offset", 0, num_indices, &offset_lines[i]);
  for (long long i = 0; i + 1 < num_offsets; ++i)
    if (offsets[i + 1] - offsets[i] != 4)
      in->Fail(offset_lines[i + 1], "cell " + std::to_string(i) + " has " +
                                        std::to_string(offsets[i + 1] - offsets[i]) +
                                        " vertices; only tetrahedra (4 vertices) are supported");
  if (offsets[0] != 0 || offsets.back() != num_indices)
    in->Fail(offset_lines[0], "the OFFSETS must run from 0 to the connectivity size " +
                                  std::to_string(num_indices));
  in->Expect("CONNECTIVITY", "CONNECTIVITY");
  in->Next("the CONNECTIVITY type");
  for (long long i = 0; i + 1 < num_offsets; ++i) {
    std::array<int, 4> tet;
    int line = 0;
    for (int j = 0; j < 4; ++j)
      tet[j] = static_cast<int>(
          in->Integer("a point index", 0, num_points - 1, j == 0 ? &line : nullptr));
    cells->tets.push_back(tet);
    cells->lines.push_back(line);
  }
}

/// Orients every tet positively, rejects degenerate ones, faces of more than two tets and open
/// boundaries (see the header).
void CheckTopology(const Tokens& in, const std::vector<Vector3d>& x, Cells* cells) {
  for (size_t c = 0; c < cells->tets.size(); ++c) {
    auto& t = cells->tets[c];
    double longest = 0.0;
    for (int i = 0; i < 4; ++i)
      for (int j = i + 1; j < 4; ++j) longest = std::max(longest, (x[t[i]] - x[t[j]]).norm());
    const double volume6 = (x[t[1]] - x[t[0]]).cross(x[t[2]] - x[t[0]]).dot(x[t[3]] - x[t[0]]);
    // Relative to the cube of its longest edge, so the test does not depend on the units.
    if (!(std::abs(volume6) > 1e-12 * longest * longest * longest))
      in.Fail(cells->lines[c], "cell " + std::to_string(c) + " is a degenerate tetrahedron "
                               "(zero volume)");
    if (volume6 < 0.0) std::swap(t[2], t[3]);
  }
  std::map<std::array<int, 3>, std::pair<int, int>> faces;  // sorted face -> (uses, cell)
  for (size_t c = 0; c < cells->tets.size(); ++c)
    for (int skip = 0; skip < 4; ++skip) {
      std::array<int, 3> f;
      for (int i = 0, k = 0; i < 4; ++i)
        if (i != skip) f[k++] = cells->tets[c][i];
      std::sort(f.begin(), f.end());
      auto& use = faces.try_emplace(f, 0, static_cast<int>(c)).first->second;
      if (++use.first > 2)
        in.Fail(cells->lines[c], "cell " + std::to_string(c) + " shares the face of points " +
                                     std::to_string(f[0]) + ", " + std::to_string(f[1]) + ", " +
                                     std::to_string(f[2]) + " with two other cells");
    }
  std::map<std::pair<int, int>, std::pair<int, int>> edges;  // boundary edge -> (uses, cell)
  for (const auto& [f, use] : faces) {
    if (use.first != 1) continue;
    for (int e = 0; e < 3; ++e) {
      const std::pair<int, int> key(std::min(f[e], f[(e + 1) % 3]), std::max(f[e], f[(e + 1) % 3]));
      ++edges.try_emplace(key, 0, use.second).first->second.first;
    }
  }
  for (const auto& [e, use] : edges)
    if (use.first != 2)
      in.Fail(cells->lines[use.second],
              "the boundary is not closed: its edge between points " + std::to_string(e.first) +
                  " and " + std::to_string(e.second) + " (of cell " + std::to_string(use.second) +
                  ") belongs to " + std::to_string(use.first) +
                  " boundary triangles instead of 2 (tets not meeting face to face?)");
}

/// Closest point to p on triangle (a, b, c): Ericson, Real-Time Collision Detection §5.1.5,
/// by the Voronoi region of p among the triangle's vertices, edges and face.
Vector3d ClosestPointOnTriangle(const Vector3d& p, const Vector3d& a, const Vector3d& b,
                                const Vector3d& c) {
  const Vector3d ab = b - a, ac = c - a, ap = p - a;
  const double d1 = ab.dot(ap), d2 = ac.dot(ap);
  if (d1 <= 0 && d2 <= 0) return a;
  const Vector3d bp = p - b;
  const double d3 = ab.dot(bp), d4 = ac.dot(bp);
  if (d3 >= 0 && d4 <= d3) return b;
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) return a + d1 / (d1 - d3) * ab;
  const Vector3d cp = p - c;
  const double d5 = ab.dot(cp), d6 = ac.dot(cp);
  if (d6 >= 0 && d5 <= d6) return c;
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) return a + d2 / (d2 - d6) * ac;
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0)
    return b + (d4 - d3) / ((d4 - d3) + (d5 - d6)) * (c - b);
  const double denom = 1.0 / (va + vb + vc);
  return a + ab * (vb * denom) + ac * (vc * denom);
}

}  // namespace

VolumeMesh ReadVtkVolumeMesh(const std::string& path, const Eigen::Vector3d& scale) {
  std::ifstream file(path);
  if (!file) throw InputError(SourceLocation{path, 0, 0}, std::string("cannot read: ") +
                                                             std::strerror(errno));
  Tokens in(path);
  std::string text;
  std::string header[3];
  for (int i = 0; i < 3; ++i)
    if (!std::getline(file, header[i]))
      in.Fail(i + 1, "not a legacy VTK file: it ends within the 3 header lines");
  if (Lower(header[0]).rfind("# vtk datafile version", 0) != 0)
    in.Fail(1, "not a legacy VTK file: the first line must be '# vtk DataFile Version x.y'");
  const std::string format = Lower(Trim(header[2]));
  if (format == "binary") in.Fail(3, "BINARY VTK files are not supported; save it as ASCII");
  if (format != "ascii") in.Fail(3, "expected ASCII on the third line, found '" + header[2] + "'");
  for (int line = 4; std::getline(file, text); ++line) in.AddLine(text, line);

  in.Expect("DATASET", "DATASET");
  in.Expect("UNSTRUCTURED_GRID", "the dataset type UNSTRUCTURED_GRID");
  std::vector<Vector3d> points;
  Cells cells;
  bool have_points = false, have_cells = false, have_types = false;
  while (!in.AtEnd()) {
    const Tokens::Token& keyword = in.Next("a section");
    const std::string word = Lower(keyword.text);
    if (word == "point_data" || word == "cell_data" || word == "metadata") break;
    if (word == "field") {
      SkipField(&in);
    } else if (word == "points") {
      const long long n = in.Integer("the number of points", 1, 1 << 30);
      in.Next("the POINTS type");
      points.resize(n);
      for (long long i = 0; i < n; ++i)
        for (int k = 0; k < 3; ++k) points[i][k] = scale[k] * in.Real("a point coordinate");
      have_points = true;
    } else if (word == "cells") {
      if (!have_points) in.Fail(keyword.line, "CELLS must come after POINTS");
      const long long a = in.Integer("the number of cells", 1, 1 << 30);
      const long long b = in.Integer("the CELLS size", 1, 1LL << 32);
      const int num_points = static_cast<int>(points.size());
      if (!in.AtEnd() && Lower(in.Peek().text) == "offsets")
        ReadOffsetCells(&in, a, b, num_points, &cells);
      else
        ReadClassicCells(&in, a, num_points, &cells);
      have_cells = true;
    } else if (word == "cell_types") {
      if (!have_cells) in.Fail(keyword.line, "CELL_TYPES must come after CELLS");
      in.Integer("the number of cell types", static_cast<long long>(cells.tets.size()),
                 static_cast<long long>(cells.tets.size()));
      for (size_t c = 0; c < cells.tets.size(); ++c) {
        int line = 0;
        const long long type = in.Integer("a cell type", 0, 1 << 20, &line);
        if (type != kVtkTetra)
          in.Fail(line, "cell " + std::to_string(c) + " has VTK type " + std::to_string(type) +
                            "; only tetrahedra (type 10) are supported");
      }
      have_types = true;
    } else {
      in.Fail(keyword.line, "unexpected section '" + keyword.text + "'");
    }
  }
  if (!have_points || !have_cells || !have_types)
    in.Fail(0, std::string("missing section ") +
                   (!have_points ? "POINTS" : !have_cells ? "CELLS" : "CELL_TYPES"));
  CheckTopology(in, points, &cells);

  // Keep only the points the cells use, in their order.
  VolumeMesh mesh;
  std::vector<int> renumber(points.size(), -1);
  for (auto tet : cells.tets) {
    for (int& v : tet) {
      if (renumber[v] < 0) {
        renumber[v] = static_cast<int>(mesh.vertices.size());
        mesh.vertices.push_back(points[v]);
      }
      v = renumber[v];
    }
    mesh.tets.push_back(tet);
  }
  return mesh;
}

PressureField MakeVolumeMeshField(VolumeMesh mesh, double modulus) {
  // Boundary faces (used by one tet) and their vertices.
  std::map<std::array<int, 3>, int> uses;
  for (const auto& t : mesh.tets)
    for (int skip = 0; skip < 4; ++skip) {
      std::array<int, 3> f;
      for (int i = 0, k = 0; i < 4; ++i)
        if (i != skip) f[k++] = t[i];
      std::sort(f.begin(), f.end());
      ++uses[f];
    }
  std::vector<std::array<int, 3>> boundary;
  std::vector<bool> on_boundary(mesh.vertices.size(), false);
  for (const auto& [f, n] : uses)
    if (n == 1) {
      boundary.push_back(f);
      for (int v : f) on_boundary[v] = true;
    }
  // Split each tet whose 4 vertices are on the boundary at its centroid (see the header).
  const size_t num_tets = mesh.tets.size();
  for (size_t t = 0; t < num_tets; ++t) {
    const std::array<int, 4> v = mesh.tets[t];
    if (!(on_boundary[v[0]] && on_boundary[v[1]] && on_boundary[v[2]] && on_boundary[v[3]]))
      continue;
    const int c = static_cast<int>(mesh.vertices.size());
    mesh.vertices.push_back(0.25 * (mesh.vertices[v[0]] + mesh.vertices[v[1]] +
                                    mesh.vertices[v[2]] + mesh.vertices[v[3]]));
    on_boundary.push_back(false);
    // Replacing vertex i by the centroid keeps each sub-tet's orientation positive.
    for (int i = 0; i < 4; ++i) {
      std::array<int, 4> sub = v;
      sub[i] = c;
      if (i == 0) mesh.tets[t] = sub;
      else mesh.tets.push_back(sub);
    }
  }
  // phi: distance to the boundary triangles, pruned with each triangle's bounding sphere.
  std::vector<Vector3d> centre(boundary.size());
  std::vector<double> radius(boundary.size());
  for (size_t f = 0; f < boundary.size(); ++f) {
    const auto& x = mesh.vertices;
    centre[f] = (x[boundary[f][0]] + x[boundary[f][1]] + x[boundary[f][2]]) / 3.0;
    radius[f] = 0.0;
    for (int v : boundary[f]) radius[f] = std::max(radius[f], (x[v] - centre[f]).norm());
  }
  PressureField field;
  field.pressure.assign(mesh.vertices.size(), 0.0);
  double max_phi = 0.0;
  for (size_t v = 0; v < mesh.vertices.size(); ++v) {
    if (on_boundary[v]) continue;
    const Vector3d& p = mesh.vertices[v];
    double phi = INFINITY;
    for (size_t f = 0; f < boundary.size(); ++f) {
      if ((p - centre[f]).norm() - radius[f] >= phi) continue;
      const auto& x = mesh.vertices;
      phi = std::min(phi, (p - ClosestPointOnTriangle(p, x[boundary[f][0]], x[boundary[f][1]],
                                                      x[boundary[f][2]]))
                              .norm());
    }
    field.pressure[v] = phi;
    max_phi = std::max(max_phi, phi);
  }
  // After the split every mesh has an interior vertex, strictly inside.
  CSIM_CHECK(max_phi > 0.0);
  for (double& p : field.pressure) p *= modulus / max_phi;
  field.mesh = std::move(mesh);
  field.modulus = modulus;
  CSIM_CHECK(ComputeFieldGradients(&field));
  return field;
}

}  // namespace csim::hydroelastic

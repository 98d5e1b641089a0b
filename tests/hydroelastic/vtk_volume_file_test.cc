// The legacy VTK tet reader: round trips of files this test writes (both CELLS layouts,
// negatively wound cells, scaling, unused points), the extent field against the box's exact
// distance field, the split of all-boundary tets, and each error with its line.

#include "engine/hydroelastic/vtk_volume_file.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "engine/common/input_error.h"
#include "engine/hydroelastic/compliant_meshes.h"
#include "tests/hydroelastic/compliant_meshes_test_support.h"

namespace csim::hydroelastic {
namespace {

using Eigen::Vector3d;

/// A file in a fresh temporary directory, removed with the directory at the end of the test.
class TempFile {
 public:
  explicit TempFile(const std::string& text) {
    dir_ = std::filesystem::temp_directory_path() /
           ("csim_vtk_test_" + std::to_string(std::random_device{}()));
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / "mesh.vtk").string();
    std::ofstream(path_) << text;
  }
  ~TempFile() { std::filesystem::remove_all(dir_); }
  const std::string& path() const { return path_; }

 private:
  std::filesystem::path dir_;
  std::string path_;
};

/// Legacy text of a tet mesh; every odd cell is written with two vertices swapped (negative).
std::string VtkText(const VolumeMesh& mesh, bool offsets_layout) {
  std::ostringstream out;
  out.precision(17);
  out << "# vtk DataFile Version " << (offsets_layout ? "5.1" : "3.0") << "\nwritten by a test\n"
      << "ASCII\nDATASET UNSTRUCTURED_GRID\nPOINTS " << mesh.vertices.size() << " double\n";
  for (const Vector3d& v : mesh.vertices) out << v.x() << " " << v.y() << " " << v.z() << "\n";
  const size_t n = mesh.tets.size();
  auto tet = [&](size_t c) {
    auto t = mesh.tets[c];
    if (c % 2 == 1) std::swap(t[0], t[1]);
    return t;
  };
  if (offsets_layout) {
    out << "CELLS " << n + 1 << " " << 4 * n << "\nOFFSETS vtktypeint64\n";
    for (size_t c = 0; c <= n; ++c) out << 4 * c << (c % 8 == 7 ? "\n" : " ");
    out << "\nCONNECTIVITY vtktypeint64\n";
    for (size_t c = 0; c < n; ++c)
      for (int v : tet(c)) out << v << " ";
    out << "\n";
  } else {
    out << "CELLS " << n << " " << 5 * n << "\n";
    for (size_t c = 0; c < n; ++c) {
      const auto t = tet(c);
      out << "4 " << t[0] << " " << t[1] << " " << t[2] << " " << t[3] << "\n";
    }
  }
  out << "CELL_TYPES " << n << "\n";
  for (size_t c = 0; c < n; ++c) out << "10\n";
  out << "POINT_DATA " << mesh.vertices.size() << "\nSCALARS s double 1\nLOOKUP_TABLE default\n";
  for (size_t v = 0; v < mesh.vertices.size(); ++v) out << "0\n";
  return out.str();
}

TEST_CASE("a box mesh round-trips and gets the box's exact distance field", "[vtk]") {
  const Vector3d size(0.1, 0.2, 0.3), half = size / 2;
  const VolumeMesh box = MakeCompliantBox(size, 1.0, 0.0).mesh;
  for (bool offsets_layout : {false, true}) {
    TempFile file(VtkText(box, offsets_layout));
    const VolumeMesh mesh = ReadVtkVolumeMesh(file.path(), Vector3d(2, 2, 2));
    REQUIRE(mesh.vertices.size() == box.vertices.size());
    REQUIRE(mesh.tets.size() == box.tets.size());
    // The reader numbers points in order of first use: match them to the written ones by
    // position, then compare each cell's vertex set and its (now positive) volume.
    std::vector<int> written(mesh.vertices.size(), -1);
    for (size_t v = 0; v < mesh.vertices.size(); ++v)
      for (size_t w = 0; w < box.vertices.size(); ++w)
        if ((mesh.vertices[v] - 2 * box.vertices[w]).norm() <= 1e-15) written[v] = static_cast<int>(w);
    for (int t = 0; t < static_cast<int>(mesh.tets.size()); ++t) {
      std::array<int, 4> read, original = box.tets[t];
      for (int i = 0; i < 4; ++i) read[i] = written[mesh.tets[t][i]];
      std::sort(read.begin(), read.end());
      std::sort(original.begin(), original.end());
      CHECK(read == original);
      CHECK(TetVolume(mesh, t) == Approx(8 * TetVolume(box, t)).epsilon(1e-12));
    }
    // The medial-axis tets make E phi / max phi the scaled distance to the (doubled) box.
    const double E = 3e5;
    const PressureField field = MakeVolumeMeshField(mesh, E);
    test::CheckWellFormed(field, E);
    std::mt19937 rng(1);
    std::uniform_real_distribution<double> u(-1, 1);
    for (int k = 0; k < 200; ++k) {
      const Vector3d p = 2 * half.cwiseProduct(Vector3d(u(rng), u(rng), u(rng)));
      const double distance = (2 * half - p.cwiseAbs()).minCoeff();
      CHECK(test::FieldAt(field, p) == Approx(E * distance / (2 * half.minCoeff())).margin(1e-9 * E));
    }
  }
}

TEST_CASE("a tet with all four vertices on the boundary is split at its centroid", "[vtk]") {
  // One right tet: the centroid (1,1,1)/4 is 1/4 from the three axis faces and
  // (1 - 3/4)/sqrt 3 from the slanted one, so phi = 1/(4 sqrt 3) there and 0 elsewhere.
  VolumeMesh single;
  single.vertices = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  single.tets = {{0, 1, 2, 3}};
  TempFile file(VtkText(single, false));
  const PressureField field = MakeVolumeMeshField(ReadVtkVolumeMesh(file.path()), 10.0);
  test::CheckWellFormed(field, 10.0);
  CHECK(field.mesh.tets.size() == 4);
  CHECK(test::TetVolumes(field.mesh).second == Approx(1.0 / 6.0).epsilon(1e-14));
  CHECK(test::FieldAt(field, Vector3d::Constant(0.25)) == Approx(10.0).epsilon(1e-14));
  for (int v = 0; v < 4; ++v) CHECK(field.pressure[v] == 0.0);
}

/// The InputError `ReadVtkVolumeMesh` throws on `text`, as "line: message".
std::string ErrorOf(const std::string& text) {
  TempFile file(text);
  try {
    ReadVtkVolumeMesh(file.path());
  } catch (const InputError& e) {
    CHECK(e.where().file == file.path());
    return std::to_string(e.where().line) + ": " + e.message();
  }
  return "no error";
}

const char* const kHeader = "# vtk DataFile Version 3.0\nt\nASCII\nDATASET UNSTRUCTURED_GRID\n";
// Lines 5-10: 5 points; two tets (0,1,2,3) and (1,2,3,4) share a face.
const char* const kPoints = "POINTS 5 float\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n1 1 1\n";

TEST_CASE("each malformed file is reported at its line", "[vtk]") {
  using Catch::Matchers::Contains;
  using Catch::Matchers::StartsWith;
  const std::string good_cells = "CELLS 2 10\n4 0 1 2 3\n4 1 2 3 4\nCELL_TYPES 2\n10\n10\n";
  REQUIRE_NOTHROW(ReadVtkVolumeMesh(TempFile(kHeader + std::string(kPoints) + good_cells).path()));

  CHECK_THAT(ErrorOf("# vtk Data\nt\nASCII\n"), StartsWith("1: not a legacy VTK file"));
  CHECK_THAT(ErrorOf("# vtk DataFile Version 3.0\nt\nBINARY\n"), StartsWith("3: BINARY"));
  CHECK_THAT(ErrorOf(kHeader + std::string(kPoints) +
                     "CELLS 2 10\n4 0 1 2 3\n4 1 2 3 4\nCELL_TYPES 2\n10\n12\n"),
             StartsWith("16: cell 1 has VTK type 12"));
  CHECK_THAT(ErrorOf(kHeader + std::string(kPoints) + "CELLS 2 9\n4 0 1 2 3\n3 1 2 3\n"),
             StartsWith("13: cell 1 has 3 vertices"));
  CHECK_THAT(ErrorOf(kHeader + std::string(kPoints) +
                     "CELLS 2 10\n4 0 1 2 3\n4 1 2 3 5\nCELL_TYPES 2\n10\n10\n"),
             StartsWith("13: a point index 5 is out of range [0, 4]"));
  CHECK_THAT(ErrorOf(kHeader + std::string(kPoints) + "CELLS 2 10\n4 0 1 2 3\n4 1 2"),
             StartsWith("13: the file ends early"));
  CHECK_THAT(ErrorOf(kHeader + std::string("POINTS 5 float\n0 0 0\n1 0 x\n")),
             StartsWith("7: expected a point coordinate"));
  // Points 0-3 and 1,2,3 plus (1/3,1/3,1/3): the last lies in the face 1,2,3, zero volume.
  CHECK_THAT(ErrorOf(kHeader + std::string("POINTS 5 float\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n"
                                           "0.25 0.25 0.5\nCELLS 2 10\n4 0 1 2 3\n4 1 2 3 4\n"
                                           "CELL_TYPES 2\n10\n10\n")),
             StartsWith("13: cell 1 is a degenerate tetrahedron"));
  // Two tets touching only along the edge 0-1: the edge has 4 boundary triangles.
  CHECK_THAT(ErrorOf(kHeader + std::string("POINTS 6 float\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n"
                                           "0 -1 0\n0 0 -1\nCELLS 2 10\n4 0 1 2 3\n4 0 1 4 5\n"
                                           "CELL_TYPES 2\n10\n10\n")),
             StartsWith("13: the boundary is not closed") && Contains("points 0 and 1"));
  // A hanging vertex: tet (0,1,2,3) next to two tets splitting the face 1,2,3 at its edge 1-2's
  // midpoint (point 5), so that face is covered twice without being shared: open edges.
  CHECK_THAT(ErrorOf(kHeader + std::string("POINTS 6 float\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n"
                                           "1 1 1\n0.5 0.5 0\nCELLS 3 15\n4 0 1 2 3\n"
                                           "4 1 5 3 4\n4 5 2 3 4\nCELL_TYPES 3\n10\n10\n10\n")),
             Contains("the boundary is not closed"));
  CHECK_THAT(ErrorOf(kHeader + std::string(kPoints) + "LINES 1 2\n"),
             StartsWith("11: unexpected section 'LINES'"));
}

}  // namespace
}  // namespace csim::hydroelastic

#pragma once
// `csim export-html RUN.h5 -o RUN.html` (docs/cli.md): one self-contained page that replays
// a run in a browser, from file:// with no server.
//
// Design: the page inlines three.js r111 and its OrbitControls from Debian's libjs-three
// (embedded in csim at build time, app/CMakeLists.txt), the viewer script and style
// (app/html/viewer.{js,css}), and the run as one JSON block: body names, /model/geometry
// (meshes once), and the decimated frames of app/replay_data.h. Rejected: three.js from
// the npm registry bundled with esbuild at build time: it needs node, npm and the network
// in every fresh build directory, where libjs-three is one apt package like every other
// dependency, and r111 has all this page uses (primitives, BufferGeometry, ArrowHelper,
// GridHelper, OrbitControls).

#include <string>

#include "app/replay_data.h"

namespace csim::app {

/// Options of `csim export-html`.
struct ExportHtmlOptions {
  std::string input;       ///< output file of a run (HDF5)
  std::string output;      ///< page to write; "" means the input with .html for .h5
  ReplayBudget budget;     ///< --max-frames and the fixed size limits
};

/// The page for `data`: HTML with the scripts, style and data inlined.
std::string RenderReplayPage(const ReplayData& data, const ReplayBudget& budget);

/// `csim export-html`: reads the run, writes the page (through a temporary file renamed
/// into place, so a failed export leaves no half page), prints one line to stderr
/// (unless quiet). Throws IoError (exit 4) when the input cannot be read or the page
/// cannot be written. Returns kExitCompleted.
int ExportHtmlCommand(const ExportHtmlOptions& options, bool quiet);

/// Default page path for an input: RUN.h5 -> RUN.html (any other name gets .html added).
std::string DefaultPagePath(const std::string& input);

}  // namespace csim::app

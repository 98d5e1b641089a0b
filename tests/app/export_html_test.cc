// End-to-end tests of `csim export-html` (app/export_html.cc): a real run of the built csim
// (a box thrown over a halfspace) is exported, and the page is rendered in headless
// Chromium (Debian's chromium, installed by tools/install-deps.sh: missing, the test
// fails rather than skips). Checks:
// - the screenshot is not blank (pixel spread, number of colours);
// - the body is drawn where the file says: the page publishes, per body, the recorded
//   position it shows and its projection with the page's camera (#csim-state); the
//   positions must equal /bodies/position of the file at the frame's row, and the
//   screenshot must show the body's colour at the projected point, at two frames between
//   which the box has moved, and not show it at the other frame's point;
// - decimation keeps a long run within the frame and size budget;
// - joints, constraints and actuators (scenes/pd_arm.yaml, scenes/four_bar.yaml) come
//   along: the links are those of the scene, the effort series and saturation flags those
//   of the file at the frames' rows, and the page draws the links and plots an effort on
//   demand; a run without them gets neither data nor controls;
// - I/O errors exit 4 and leave no page.
// Screenshots are decoded with Python's PIL (Debian python3-pil) under /usr/bin/python3.
// The sanitized test program runs and exports but does not render (RendersPages).

#include <stdlib.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "engine/io/hdf5_file.h"
#include "tests/support/build_variant.h"
#include "tests/support/temp_dir.h"

namespace {

namespace fs = std::filesystem;

using csim::testing::TempDir;

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string Quote(const std::string& arg) {
  std::string out = "'";
  for (char c : arg) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

struct Outcome {
  int status = -1;
  std::string out, err;
};

/// Runs a command (argv, no shell expansion) with stdout and stderr captured.
Outcome Run(const std::vector<std::string>& argv, const TempDir& dir) {
  std::string command;
  for (const std::string& arg : argv) command += Quote(arg) + " ";
  const std::string out = dir.File("stdout.txt"), err = dir.File("stderr.txt");
  const int status = std::system((command + ">" + Quote(out) + " 2>" + Quote(err)).c_str());
  Outcome o;
  o.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  o.out = ReadText(out);
  o.err = ReadText(err);
  return o;
}

Outcome Csim(std::vector<std::string> args, const TempDir& dir) {
  args.insert(args.begin(), csim::testing::CsimProgram());
  return Run(args, dir);
}

/// A 0.2 m box thrown along x (and spinning about z) from 0.5 m over the ground: it falls,
/// lands and slides, so its position changes a lot between the first and last frames.
constexpr const char* kScene = R"(csim: 1
name: thrown_box
settings:
  time_step: 0.01
  duration: 0.8
world:
  geometry:
    - {shape: halfspace}
bodies:
  - name: box
    mass: 1.0
    geometry:
      - {shape: box, size: [0.2, 0.2, 0.2]}
    pose: {position: [0, 0, 0.5]}
    velocity: {linear: [1.5, 0, 0], angular: [0, 0, 2]}
)";

/// Whether this test program renders the pages. The rendering is Chromium's and the page's
/// JavaScript, the same in every build: the plain test program renders, and the sanitized
/// one checks csim's part only (the run and the export, under the sanitizers), which spares
/// the sanitized pass its longest waits.
bool RendersPages() { return !csim::testing::UnderAddressSanitizer(); }

std::string Chromium() {
  for (const char* path : {"/usr/bin/chromium", "/usr/bin/chromium-browser"}) {
    if (fs::exists(path)) return path;
  }
  return "";
}

/// What #csim-state says about one frame: its row, time, view size, and per body the
/// recorded position and projected screen point.
struct PageState {
  int64_t frame = -1, row = -1;
  double time = 0, width = 0, height = 0;
  bool webgl = false;
  struct Body {
    std::string name, color;
    double x, y, z, screen_x, screen_y;
  };
  std::vector<Body> bodies;
};

std::map<std::string, std::string> Attributes(const std::string& tag) {
  std::map<std::string, std::string> attributes;
  static const std::regex attribute(R"re(([a-z-]+)="([^"]*)")re");
  for (auto it = std::sregex_iterator(tag.begin(), tag.end(), attribute);
       it != std::sregex_iterator(); ++it)
    attributes[(*it)[1]] = (*it)[2];
  return attributes;
}

PageState ParseState(const std::string& dom) {
  PageState state;
  std::smatch m;
  REQUIRE(std::regex_search(dom, m, std::regex(R"re(<div id="csim-state"[^>]*>)re")));
  auto a = Attributes(m.str());
  REQUIRE(a.count("data-ready"));
  state.frame = std::stoll(a["data-frame"]);
  state.row = std::stoll(a["data-row"]);
  state.time = std::stod(a["data-time"]);
  state.width = std::stod(a["data-width"]);
  state.height = std::stod(a["data-height"]);
  state.webgl = a["data-webgl"] == "1";
  static const std::regex body(R"re(<span class="csim-body"[^>]*>)re");
  for (auto it = std::sregex_iterator(dom.begin(), dom.end(), body);
       it != std::sregex_iterator(); ++it) {
    auto b = Attributes(it->str());
    state.bodies.push_back({b["data-name"], b["data-color"], std::stod(b["data-x"]),
                            std::stod(b["data-y"]), std::stod(b["data-z"]),
                            std::stod(b["data-screen-x"]), std::stod(b["data-screen-y"])});
  }
  return state;
}

/// Renders `page` at frame `frame` in headless Chromium (no sandbox, no GPU, no network
/// services, plus --enable-unsafe-swiftshader: Chromium deprecates WebGL on its software
/// rasteriser without it). The view is fixed to 900 x 600 CSS pixels (`&size=`), because headless
/// Chromium lays out --dump-dom and --screenshot at different window heights. Returns
/// the DOM after the scripts ran; writes the screenshot to `png`.
std::string Render(const std::string& page, int frame, const std::string& png,
                   const TempDir& dir) {
  const std::string profile = dir.File("profile_" + std::to_string(frame));
  fs::create_directories(profile);
  const Outcome o = Run({"timeout", "120", Chromium(), "--headless", "--no-sandbox",
                         "--disable-gpu", "--enable-unsafe-swiftshader", "--disable-quic",
                         "--no-first-run", "--disable-background-networking",
                         "--disable-component-update", "--disable-sync",
                         "--user-data-dir=" + profile, "--window-size=1000,700",
                         "--virtual-time-budget=3000", "--screenshot=" + png, "--dump-dom",
                         "file://" + page + "#frame=" + std::to_string(frame) +
                             "&size=900x600"},
                        dir);
  INFO(o.err);
  REQUIRE(o.status == 0);
  REQUIRE(fs::exists(png));
  return o.out;
}

/// Pixels of a screenshot: size, mean channel standard deviation, number of colours,
/// and the 7 x 7 pixels around each requested point (decoded by PIL).
struct Screenshot {
  int width = 0, height = 0, colours = 0;
  double spread = 0;
  std::vector<std::vector<std::array<int, 3>>> windows;
};

constexpr const char* kPngProbe = R"(import sys
from PIL import Image, ImageStat
im = Image.open(sys.argv[1]).convert("RGB")
print(im.width, im.height, sum(ImageStat.Stat(im).stddev) / 3, len(im.getcolors(1 << 24)))
for point in sys.argv[2:]:
    x, y = (int(round(float(v))) for v in point.split(","))
    print(" ".join("%d %d %d" % im.getpixel((i, j)) for j in range(y - 3, y + 4)
                   for i in range(x - 3, x + 4) if 0 <= i < im.width and 0 <= j < im.height))
)";

Screenshot Probe(const std::string& png, const std::vector<std::pair<double, double>>& points,
                 const TempDir& dir) {
  const std::string script = dir.File("png_probe.py");
  std::ofstream(script) << kPngProbe;
  std::vector<std::string> argv{"/usr/bin/python3", script, png};
  for (const auto& [x, y] : points) argv.push_back(std::to_string(x) + "," + std::to_string(y));
  const Outcome o = Run(argv, dir);
  INFO(o.err);
  REQUIRE(o.status == 0);
  std::istringstream lines(o.out);
  std::string line;
  Screenshot shot;
  REQUIRE(std::getline(lines, line));
  std::istringstream(line) >> shot.width >> shot.height >> shot.spread >> shot.colours;
  while (std::getline(lines, line)) {
    std::istringstream values(line);
    std::vector<std::array<int, 3>> window;
    std::array<int, 3> rgb;
    while (values >> rgb[0] >> rgb[1] >> rgb[2]) window.push_back(rgb);
    shot.windows.push_back(window);
  }
  REQUIRE(shot.windows.size() == points.size());
  return shot;
}

std::array<int, 3> ParseColor(const std::string& hex) {
  REQUIRE(hex.size() == 7);
  const long value = std::stol(hex.substr(1), nullptr, 16);
  return {int(value >> 16 & 255), int(value >> 8 & 255), int(value & 255)};
}

/// Share of `window` in the material colour `color`: the page lights bodies with Lambert
/// shading under lights adding up to 1, so a body pixel is the colour times a factor in
/// [0.45, 1]: same chromaticity, not too dark.
double ShareOfColor(const std::vector<std::array<int, 3>>& window, std::array<int, 3> color) {
  const double sum_c = color[0] + color[1] + color[2];
  int matching = 0;
  for (const auto& p : window) {
    const double sum_p = p[0] + p[1] + p[2];
    if (sum_p < 0.3 * sum_c) continue;
    bool close = true;
    for (int k = 0; k < 3; ++k) close = close && std::abs(p[k] / sum_p - color[k] / sum_c) < 0.05;
    matching += close;
  }
  return window.empty() ? 0.0 : double(matching) / window.size();
}

/// /bodies/position of the file at `row`, body `b`.
std::array<double, 3> RecordedPosition(const std::string& h5, int64_t row, int b) {
  const csim::io::Hdf5File file =
      csim::io::Hdf5File::Open(h5, csim::io::Hdf5File::Mode::kReadOnly);
  const csim::io::Hdf5Dataset position = file.OpenDataset("bodies/position");
  const std::vector<double> values = position.ReadDoubles();
  const size_t nb = position.shape()[1];
  const size_t i = (static_cast<size_t>(row) * nb + b) * 3;
  REQUIRE(i + 2 < values.size());
  return {values[i], values[i + 1], values[i + 2]};
}

int64_t RecordedRows(const std::string& h5) {
  const csim::io::Hdf5File file =
      csim::io::Hdf5File::Open(h5, csim::io::Hdf5File::Mode::kReadOnly);
  return static_cast<int64_t>(file.OpenDataset("time").rows());
}

/// The JSON array after `"key":` at or after `from` in `text`, as numbers (null: NaN).
std::vector<double> JsonNumbers(const std::string& text, const std::string& key,
                                size_t from = 0) {
  const std::string start = "\"" + key + "\":[";
  const size_t begin = text.find(start, from);
  REQUIRE(begin != std::string::npos);
  const size_t first = begin + start.size(), end = text.find(']', first);
  REQUIRE(end != std::string::npos);
  std::vector<double> values;
  std::istringstream items(text.substr(first, end - first));
  std::string item;
  while (std::getline(items, item, ','))
    values.push_back(item == "null" ? std::nan("") : std::stod(item));
  return values;
}

/// The #csim-data block of a page.
std::string PageJson(const std::string& html) {
  const std::string open = "<script type=\"application/json\" id=\"csim-data\">";
  const size_t begin = html.find(open);
  REQUIRE(begin != std::string::npos);
  const size_t end = html.find("</script>", begin);
  return html.substr(begin + open.size(), end - begin - open.size());
}

/// A dataset of the file, every element as a double (ReadDoubles) or an integer.
std::vector<double> FileDoubles(const std::string& h5, const std::string& path) {
  const auto file = csim::io::Hdf5File::Open(h5, csim::io::Hdf5File::Mode::kReadOnly);
  return file.OpenDataset(path).ReadDoubles();
}
std::vector<int64_t> FileInts(const std::string& h5, const std::string& path) {
  const auto file = csim::io::Hdf5File::Open(h5, csim::io::Hdf5File::Mode::kReadOnly);
  return file.OpenDataset(path).ReadInts();
}

/// The attribute `name` of the #csim-state element of a dumped DOM ("" when missing).
std::string StateAttribute(const std::string& dom, const std::string& name) {
  std::smatch m;
  REQUIRE(std::regex_search(dom, m, std::regex(R"re(<div id="csim-state"[^>]*>)re")));
  auto a = Attributes(m.str());
  return a.count(name) ? a[name] : "";
}

const std::string kScenes = std::string(CSIM_SOURCE_DIR) + "/scenes/";

TEST_CASE("export-html: the page draws the box where the file says", "[html]") {
  const std::string chromium = Chromium();
  INFO("headless Chromium is required: tools/install-deps.sh installs Debian's chromium");
  REQUIRE(!chromium.empty());
  TempDir dir;
  std::ofstream(dir.File("thrown_box.yaml")) << kScene;
  const std::string h5 = dir.File("thrown_box.h5"), page = dir.File("thrown_box.html");
  const Outcome run = Csim({"run", dir.File("thrown_box.yaml"), "-o", h5, "-q"}, dir);
  INFO(run.err);
  REQUIRE(run.status == 0);
  const Outcome exported = Csim({"export-html", h5, "-o", page, "--max-frames", "30"}, dir);
  INFO(exported.err);
  REQUIRE(exported.status == 0);
  const int64_t rows = RecordedRows(h5);
  REQUIRE(rows == 81);

  // Self-contained: no external script, style or image.
  const std::string html = ReadText(page);
  CHECK(html.find(" src=") == std::string::npos);
  CHECK(html.find(" href=") == std::string::npos);
  CHECK(html.size() < 5'000'000);
  // A free body: no links, constraints or actuators, and no controls for them.
  CHECK(html.find("\"constraints\":null") != std::string::npos);
  CHECK(html.find("\"actuators\":null") != std::string::npos);
  CHECK(html.find("\"surfaces\":null") != std::string::npos);  // no hydroelastic geometry
  CHECK(html.find("id=\"links\"") == std::string::npos);
  CHECK(html.find("id=\"actuator\"") == std::string::npos);
  CHECK(html.find("id=\"effort-plot\"") == std::string::npos);
  if (!RendersPages()) return;

  // Frame 0 (thrown, in the air) and the last frame (landed, slid): 28 frames of stride 3.
  const std::string dom_first = Render(page, 0, dir.File("first.png"), dir);
  const std::string dom_last = Render(page, 27, dir.File("last.png"), dir);
  const PageState first = ParseState(dom_first), last = ParseState(dom_last);
  REQUIRE(first.bodies.size() == 1);
  REQUIRE(last.bodies.size() == 1);
  CHECK(first.webgl);
  CHECK(first.frame == 0);
  CHECK(first.row == 0);
  CHECK(last.frame == 27);
  CHECK(last.row == rows - 1);  // decimation keeps the last row
  CHECK(last.time == Approx(0.8));
  CHECK(dom_last.find("max=\"27\"") != std::string::npos);  // the slider spans the frames
  CHECK(StateAttribute(dom_first, "data-joint-links") == "0");

  SECTION("the positions shown are the file's") {
    for (const PageState* state : {&first, &last}) {
      const std::array<double, 3> p = RecordedPosition(h5, state->row, 0);
      CHECK(state->bodies[0].name == "box");
      CHECK(state->bodies[0].x == Approx(p[0]).margin(1e-6));
      CHECK(state->bodies[0].y == Approx(p[1]).margin(1e-6));
      CHECK(state->bodies[0].z == Approx(p[2]).margin(1e-6));
    }
    CHECK(first.bodies[0].z == Approx(0.5));
    CHECK(last.bodies[0].x > 0.3);  // it has moved along x
  }

  SECTION("the screenshots show the box at its projected position, and only there") {
    const PageState::Body& a = first.bodies[0];
    const PageState::Body& b = last.bodies[0];
    REQUIRE(std::hypot(a.screen_x - b.screen_x, a.screen_y - b.screen_y) > 80);
    for (const PageState* state : {&first, &last}) {
      const PageState::Body& body = state->bodies[0];
      CHECK(body.screen_x > 0);
      CHECK(body.screen_x < state->width);
      CHECK(body.screen_y > 0);
      CHECK(body.screen_y < state->height);
    }
    const std::array<int, 3> color = ParseColor(a.color);
    const Screenshot shot_first =
        Probe(dir.File("first.png"), {{a.screen_x, a.screen_y}, {b.screen_x, b.screen_y}}, dir);
    const Screenshot shot_last =
        Probe(dir.File("last.png"), {{b.screen_x, b.screen_y}, {a.screen_x, a.screen_y}}, dir);
    for (const Screenshot* shot : {&shot_first, &shot_last}) {
      CHECK(shot->width == 1000);
      CHECK(shot->height == 700);
      CHECK(shot->spread > 10);     // not blank: the view has contrast
      CHECK(shot->colours > 100);   // shading, grid, panel text
    }
    CHECK(ShareOfColor(shot_first.windows[0], color) > 0.8);  // the box, where it is
    CHECK(ShareOfColor(shot_first.windows[1], color) < 0.2);  // not where it will be
    CHECK(ShareOfColor(shot_last.windows[0], color) > 0.8);
    CHECK(ShareOfColor(shot_last.windows[1], color) < 0.2);
  }
}

TEST_CASE("export-html: frames are decimated to the budget", "[html]") {
  TempDir dir;
  std::ofstream(dir.File("thrown_box.yaml")) << kScene;
  const std::string h5 = dir.File("long.h5"), page = dir.File("long.html");
  // 3001 rows: more than the 600 frames a page keeps by default.
  REQUIRE(Csim({"run", dir.File("thrown_box.yaml"), "-o", h5, "-q", "--dt", "0.001",
                "--duration", "3"}, dir).status == 0);
  const Outcome o = Csim({"export-html", h5, "-o", page}, dir);
  INFO(o.err);
  REQUIRE(o.status == 0);
  // A constant stride (even playback) that fits 600 frames: 6 rows, 501 frames.
  std::smatch frames;
  REQUIRE(std::regex_search(o.err, frames, std::regex(R"re((\d+) of 3001 rows)re")));
  CHECK(std::stoi(frames[1]) <= 600);
  CHECK(std::stoi(frames[1]) > 300);
  const std::string html = ReadText(page);
  CHECK(html.size() < 5'000'000);
  // The geometry table comes along (/model/geometry): the box and the halfspace.
  CHECK(html.find("\"shape\":[\"halfspace\",\"box\"]") != std::string::npos);

  SECTION("--max-frames lowers it; the default page path is RUN.html") {
    REQUIRE(Csim({"export-html", h5, "--max-frames", "50", "-q"}, dir).status == 0);
    const std::string small = ReadText(dir.File("long.html"));
    CHECK(small.size() < html.size());
    std::smatch m;
    REQUIRE(std::regex_search(small, m, std::regex(R"re("row":\[([0-9,]*)\])re")));
    const std::string list = m[1];
    CHECK(std::count(list.begin(), list.end(), ',') + 1 <= 50);
    CHECK(list.substr(0, 2) == "0,");
    CHECK(list.size() >= 5);
    CHECK(list.substr(list.size() - 5) == ",3000");
  }
}

TEST_CASE("export-html: joints and actuators of the PD arm, with the effort plot", "[html]") {
  TempDir dir;
  const std::string h5 = dir.File("pd_arm.h5"), page = dir.File("pd_arm.html");
  // 1.5 s: the slow lift and the fast swing, where the shoulder saturates (pd_arm.yaml).
  const Outcome run = Csim({"run", kScenes + "pd_arm.yaml", "-o", h5, "-q", "--duration", "1.5"},
                           dir);
  INFO(run.err);
  REQUIRE(run.status == 0);
  const Outcome exported = Csim({"export-html", h5, "-o", page, "--max-frames", "60"}, dir);
  INFO(exported.err);
  REQUIRE(exported.status == 0);
  const std::string html = ReadText(page), json = PageJson(html);

  // The links are the scene's: shoulder on the world at its origin, elbow and wrist 0.4 m
  // along x of the link before.
  CHECK(json.find("\"joints\":{\"name\":[\"shoulder\",\"elbow\",\"wrist\"],"
                  "\"type\":[\"revolute\",\"revolute\",\"revolute\"],"
                  "\"parent\":[-1,0,1],\"position\":[0,0,0,0.4,0,0,0.4,0,0]}") !=
        std::string::npos);
  CHECK(json.find("\"constraints\":null") != std::string::npos);
  CHECK(json.find("\"links_note\":\"\"") != std::string::npos);
  const size_t actuators = json.find("\"actuators\":{");
  REQUIRE(actuators != std::string::npos);
  CHECK(json.find("\"name\":[\"shoulder_motor\",\"elbow_motor\",\"wrist_motor\"],"
                  "\"joint\":[0,1,2],\"limit\":[40,20,8]", actuators) == actuators + 13);

  // Efforts at the frames' rows equal /actuators/effort; a frame is saturated when a row
  // since the previous frame is.
  const std::vector<double> rows = JsonNumbers(json, "row");
  const std::vector<double> effort = JsonNumbers(json, "effort", actuators);
  const std::vector<double> saturated = JsonNumbers(json, "saturated", actuators);
  const std::vector<double> file_effort = FileDoubles(h5, "actuators/effort");
  const std::vector<int64_t> file_saturated = FileInts(h5, "actuators/saturated");
  REQUIRE(rows.size() > 10);
  REQUIRE(rows.size() <= 60);
  REQUIRE(effort.size() == 3 * rows.size());
  REQUIRE(saturated.size() == 3 * rows.size());
  int saturated_frames = 0;
  for (size_t f = 0; f < rows.size(); ++f) {
    const size_t row = static_cast<size_t>(rows[f]);
    const size_t previous = f == 0 ? 0 : static_cast<size_t>(rows[f - 1]) + 1;
    for (size_t a = 0; a < 3; ++a) {
      CHECK(effort[3 * f + a] == Approx(file_effort[3 * row + a]).margin(1e-9).epsilon(1e-5));
      bool any = false;
      for (size_t r = previous; r <= row; ++r) any = any || file_saturated[3 * r + a] != 0;
      CHECK(saturated[3 * f + a] == (any ? 1 : 0));
    }
    saturated_frames += saturated[3 * f] != 0;
  }
  CHECK(saturated_frames > 0);  // the shoulder hits its 40 N m limit in the fast swing

  // The controls: links toggle, the actuator select box with each name, the plot.
  CHECK(html.find("id=\"links\"") != std::string::npos);
  CHECK(html.find("<select id=\"actuator\"") != std::string::npos);
  for (const char* name : {"shoulder_motor", "elbow_motor", "wrist_motor"})
    CHECK(html.find(std::string("\">") + name + "</option>") != std::string::npos);
  CHECK(html.find("id=\"effort-plot\"") != std::string::npos);

  if (!RendersPages()) return;
  SECTION("the page draws the joints and plots the chosen effort") {
    REQUIRE(!Chromium().empty());
    const int frame = static_cast<int>(rows.size()) - 1;
    const std::string profile = dir.File("profile");
    fs::create_directories(profile);
    const Outcome o = Run({"timeout", "120", Chromium(), "--headless", "--no-sandbox",
                           "--disable-gpu", "--enable-unsafe-swiftshader", "--no-first-run",
                           "--disable-background-networking", "--disable-component-update",
                           "--user-data-dir=" + profile, "--virtual-time-budget=3000",
                           "--dump-dom", "file://" + page + "#frame=" + std::to_string(frame) +
                               "&actuator=elbow_motor&size=900x600"},
                          dir);
    INFO(o.err);
    REQUIRE(o.status == 0);
    CHECK(StateAttribute(o.out, "data-frame") == std::to_string(frame));
    CHECK(StateAttribute(o.out, "data-joint-links") == "3");
    CHECK(StateAttribute(o.out, "data-constraint-links") == "0");
    CHECK(StateAttribute(o.out, "data-actuator") == "elbow_motor");
    CHECK(std::stod(StateAttribute(o.out, "data-effort")) ==
          Approx(file_effort[3 * static_cast<size_t>(rows[frame]) + 1]).epsilon(1e-5));
    CHECK(o.out.find("<div id=\"effort\" hidden") == std::string::npos);  // shown
    CHECK(o.out.find("elbow_motor: ") != std::string::npos);               // its label
  }
}

TEST_CASE("export-html: the four-bar's ball constraint is drawn as a link", "[html]") {
  TempDir dir;
  const std::string h5 = dir.File("four_bar.h5"), page = dir.File("four_bar.html");
  REQUIRE(Csim({"run", kScenes + "four_bar.yaml", "-o", h5, "-q", "--duration", "0.05"}, dir)
              .status == 0);
  const Outcome exported = Csim({"export-html", h5, "-o", page}, dir);
  INFO(exported.err);
  REQUIRE(exported.status == 0);
  const std::string html = ReadText(page), json = PageJson(html);
  // The rocker's tip (0.5 m down its -z) pinned to the ground pivot (1, 0, 0).
  CHECK(json.find("\"constraints\":{\"name\":[\"ground_pivot\"],\"type\":[\"ball\"],"
                  "\"body_a\":[2],\"body_b\":[-1],\"point_a\":[0,0,-0.5],"
                  "\"point_b\":[1,0,0]}") != std::string::npos);
  CHECK(json.find("\"parent\":[-1,0,1]") != std::string::npos);
  // No actuators: neither data nor controls.
  CHECK(json.find("\"actuators\":null") != std::string::npos);
  CHECK(html.find("id=\"actuator\"") == std::string::npos);
  CHECK(html.find("id=\"effort-plot\"") == std::string::npos);
  CHECK(html.find("id=\"links\"") != std::string::npos);

  if (!RendersPages()) return;
  SECTION("the page draws three joint links and one constraint link") {
    REQUIRE(!Chromium().empty());
    const std::string profile = dir.File("profile");
    fs::create_directories(profile);
    const Outcome o = Run({"timeout", "120", Chromium(), "--headless", "--no-sandbox",
                           "--disable-gpu", "--enable-unsafe-swiftshader", "--no-first-run",
                           "--disable-background-networking", "--disable-component-update",
                           "--user-data-dir=" + profile, "--virtual-time-budget=3000",
                           "--dump-dom", "file://" + page + "#frame=0&size=900x600"},
                          dir);
    INFO(o.err);
    REQUIRE(o.status == 0);
    CHECK(StateAttribute(o.out, "data-joint-links") == "3");
    CHECK(StateAttribute(o.out, "data-constraint-links") == "1");
    CHECK(StateAttribute(o.out, "data-actuator") == "");
  }

  // The links come from /model: a page made without the scene's text is the same page.
  SECTION("without /scene/yaml the links still come from /model") {
    {
      auto file = csim::io::Hdf5File::Open(h5, csim::io::Hdf5File::Mode::kReadWrite);
      REQUIRE(H5Ldelete(file.id(), "/scene/yaml", H5P_DEFAULT) >= 0);
      file.Close();
    }
    REQUIRE(Csim({"export-html", h5, "-o", page, "-q"}, dir).status == 0);
    CHECK(PageJson(ReadText(page)) == json);
  }

  // A file written before /model held the links: they come from its scene, loaded again,
  // and without that scene the joints and constraints are listed, not drawn.
  const auto drop_model_links = [&] {
    auto file = csim::io::Hdf5File::Open(h5, csim::io::Hdf5File::Mode::kReadWrite);
    for (const char* path : {"/model/joint_parent", "/model/joint_position",
                             "/model/joint_quaternion", "/model/constraint_body_a",
                             "/model/constraint_body_b", "/model/constraint_point_a",
                             "/model/constraint_point_b"})
      REQUIRE(H5Ldelete(file.id(), path, H5P_DEFAULT) >= 0);
    file.Close();
  };
  SECTION("an older file without the links in /model gets them from its scene") {
    drop_model_links();
    REQUIRE(Csim({"export-html", h5, "-o", page, "-q"}, dir).status == 0);
    CHECK(PageJson(ReadText(page)) == json);
  }

  SECTION("an older file without /scene/yaml: the joints and constraints are listed, not drawn") {
    drop_model_links();
    {
      auto file = csim::io::Hdf5File::Open(h5, csim::io::Hdf5File::Mode::kReadWrite);
      REQUIRE(H5Ldelete(file.id(), "/scene/yaml", H5P_DEFAULT) >= 0);
      file.Close();
    }
    REQUIRE(Csim({"export-html", h5, "-o", page, "-q"}, dir).status == 0);
    const std::string bare = PageJson(ReadText(page));
    CHECK(bare.find("\"parent\":null,\"position\":null") != std::string::npos);
    CHECK(bare.find("\"constraints\":{\"name\":[\"ground_pivot\"],\"type\":[\"ball\"]}") !=
          std::string::npos);
    CHECK(bare.find("\"links_note\":\"the file has no /scene/yaml\"") != std::string::npos);
    CHECK(ReadText(page).find("id=\"links\"") == std::string::npos);
  }
}

TEST_CASE("export-html: a soft box's hydroelastic patch, its net force and moment are in the "
          "page", "[html]") {
  TempDir dir;
  const std::string h5 = dir.File("soft_box.h5"), page = dir.File("soft_box.html");
  const Outcome run = Csim({"run", kScenes + "soft_box_on_floor.yaml", "-o", h5, "-q",
                            "--duration", "0.05", "--set",
                            "settings.output.contact_surfaces=true"},
                           dir);
  INFO(run.err);
  REQUIRE(run.status == 0);
  const Outcome exported = Csim({"export-html", h5, "-o", page, "--max-frames", "20"}, dir);
  INFO(exported.err);
  REQUIRE(exported.status == 0);
  const std::string json = PageJson(ReadText(page));
  const size_t surfaces = json.find("\"surfaces\":{\"offset\":");
  REQUIRE(surfaces != std::string::npos);
  const size_t polygons = json.find("\"polygons\":{", surfaces);
  REQUIRE(polygons != std::string::npos);

  // Each frame carries its row's surfaces and polygons as the file holds them.
  const std::vector<double> rows = JsonNumbers(json, "row");
  const std::vector<double> count = JsonNumbers(json, "count", surfaces);
  const std::vector<double> offset = JsonNumbers(json, "offset", surfaces);
  const std::vector<double> centroid = JsonNumbers(json, "centroid", surfaces);
  const std::vector<double> force = JsonNumbers(json, "force", surfaces);
  const std::vector<double> moment = JsonNumbers(json, "moment", surfaces);
  const std::vector<double> polygon_count = JsonNumbers(json, "count", polygons);
  const std::vector<double> vertex_count = JsonNumbers(json, "vertex_count", polygons);
  const std::vector<double> vertex = JsonNumbers(json, "vertex", polygons);
  const std::vector<double> pressure = JsonNumbers(json, "pressure", polygons);
  const std::vector<int64_t> file_count = FileInts(h5, "hydroelastic/count");
  const std::vector<int64_t> file_offset = FileInts(h5, "hydroelastic/offset");
  const std::vector<int64_t> file_contacts = FileInts(h5, "hydroelastic/contact_count");
  const std::vector<int64_t> file_first_polygon = FileInts(h5, "hydroelastic/first_polygon");
  const std::vector<int64_t> file_vertex_count = FileInts(h5, "hydroelastic/polygon_vertex_count");
  const std::vector<int64_t> file_vertex_offset =
      FileInts(h5, "hydroelastic/polygon_vertex_offset");
  const std::vector<double> file_force = FileDoubles(h5, "hydroelastic/force");
  const std::vector<double> file_centroid = FileDoubles(h5, "hydroelastic/centroid");
  const std::vector<double> file_pressure = FileDoubles(h5, "hydroelastic/vertex_pressure");
  REQUIRE(rows.size() == count.size());
  REQUIRE(rows.size() == polygon_count.size());
  size_t polygon = 0, v = 0;  // the page's next polygon and vertex
  for (size_t f = 0; f < rows.size(); ++f) {
    const size_t row = static_cast<size_t>(rows[f]);
    REQUIRE(count[f] == file_count[row]);
    int64_t file_polygons = 0;
    for (int64_t k = 0; k < file_count[row]; ++k) {
      const size_t s = static_cast<size_t>(file_offset[row] + k);
      const size_t page_s = static_cast<size_t>(offset[f]) + k;
      file_polygons += file_contacts[s];
      for (int i = 0; i < 3; ++i) {
        CHECK(force[3 * page_s + i] == Approx(file_force[3 * s + i]).margin(1e-9).epsilon(1e-3));
        CHECK(centroid[3 * page_s + i] ==
              Approx(file_centroid[3 * s + i]).margin(1e-12).epsilon(1e-5));
      }
    }
    REQUIRE(polygon_count[f] == file_polygons);  // 256 per frame at most: all of them here
    if (file_count[row] == 0) continue;
    const int64_t first = file_first_polygon[file_offset[row]];
    for (int64_t j = 0; j < file_polygons; ++j, ++polygon) {
      REQUIRE(vertex_count[polygon] == file_vertex_count[first + j]);
      for (int64_t i = 0; i < file_vertex_count[first + j]; ++i, ++v) {
        const size_t file_v = static_cast<size_t>(file_vertex_offset[first + j] + i);
        CHECK(pressure[v] == Approx(file_pressure[file_v]).epsilon(1e-3));
        CHECK(std::abs(vertex[3 * v + 2]) < 1e-9);  // on the floor
      }
    }
  }
  CHECK(polygon > 0);
  CHECK(polygon == vertex_count.size());
  CHECK(v == pressure.size());
  CHECK(3 * v == vertex.size());
  CHECK(moment.size() == force.size());

  if (!RendersPages()) return;
  SECTION("the page draws the last frame's surface and its patch") {
    REQUIRE(!Chromium().empty());
    const int frame = static_cast<int>(rows.size()) - 1;
    const std::string profile = dir.File("profile");
    fs::create_directories(profile);
    const Outcome o = Run({"timeout", "120", Chromium(), "--headless", "--no-sandbox",
                           "--disable-gpu", "--enable-unsafe-swiftshader", "--no-first-run",
                           "--disable-background-networking", "--disable-component-update",
                           "--user-data-dir=" + profile, "--virtual-time-budget=3000",
                           "--dump-dom", "file://" + page + "#frame=" + std::to_string(frame) +
                               "&size=900x600"},
                          dir);
    INFO(o.err);
    REQUIRE(o.status == 0);
    CHECK(StateAttribute(o.out, "data-surfaces") == "1");
    CHECK(StateAttribute(o.out, "data-polygons") ==
          std::to_string(static_cast<int>(polygon_count[frame])));
    CHECK(StateAttribute(o.out, "data-patch-drawn") == "1");
  }

  SECTION("without output.contact_surfaces the page has the surfaces but no polygons") {
    REQUIRE(Csim({"run", kScenes + "soft_box_on_floor.yaml", "-o", h5, "-q", "--duration",
                  "0.05"}, dir).status == 0);
    REQUIRE(Csim({"export-html", h5, "-o", page, "-q"}, dir).status == 0);
    const std::string plain = PageJson(ReadText(page));
    CHECK(plain.find("\"surfaces\":{\"offset\":") != std::string::npos);
    CHECK(plain.find("\"polygons\":null") != std::string::npos);
  }
}

/// The #csim-state of `page` at frame 0 with `hash` added to the URL (a DOM dump only).
std::string DumpState(const std::string& page, const std::string& hash, const TempDir& dir) {
  const std::string profile = dir.File("profile_state");
  fs::create_directories(profile);
  const Outcome o = Run({"timeout", "120", Chromium(), "--headless", "--no-sandbox",
                         "--disable-gpu", "--enable-unsafe-swiftshader", "--no-first-run",
                         "--disable-background-networking", "--disable-component-update",
                         "--user-data-dir=" + profile, "--virtual-time-budget=3000",
                         "--dump-dom", "file://" + page + "#frame=0&size=900x600" + hash},
                        dir);
  INFO(o.err);
  REQUIRE(o.status == 0);
  return o.out;
}

TEST_CASE("export-html: visual geometry of a URDF, its mesh read from its file", "[html]") {
  // tests/data/urdf/visual_arm.urdf with its visual mesh ../notched_box.obj, copied so that
  // the mesh can be taken away: 7 visuals on the bodies (base 1, arm 4 and the camera's,
  // tool 1), one of them that mesh, scaled by (0.1, 0.1, 0.2).
  TempDir dir;
  const std::string data = std::string(CSIM_SOURCE_DIR) + "/tests/data/";
  fs::create_directories(dir.File("urdf"));
  fs::copy_file(data + "urdf/visual_arm.urdf", dir.File("urdf/visual_arm.urdf"));
  fs::copy_file(data + "notched_box.obj", dir.File("notched_box.obj"));
  std::ofstream(dir.File("arm.yaml"))
      << "csim: 1\nname: visual_arm\nsettings: {time_step: 0.01, duration: 0.1}\n"
         "models:\n  - {name: arm, file: urdf/visual_arm.urdf, density: 1000}\n";
  const std::string h5 = dir.File("arm.h5"), page = dir.File("arm.html");
  const Outcome run = Csim({"run", dir.File("arm.yaml"), "-o", h5, "-q"}, dir);
  INFO(run.err);
  REQUIRE(run.status == 0);
  const Outcome exported = Csim({"export-html", h5, "-o", page}, dir);
  INFO(exported.err);
  REQUIRE(exported.status == 0);
  const std::string html = ReadText(page), json = PageJson(html);

  // The file keeps the mesh as a reference; the page holds the file's 12 vertices and its
  // 8 faces (two hexagons, six quadrilaterals) as 2 * 4 + 6 * 2 = 20 triangles, scaled.
  const std::vector<double> file_counts = FileDoubles(h5, "model/geometry/vertex_count");
  CHECK(std::all_of(file_counts.begin(), file_counts.end(), [](double n) { return n == 0; }));
  std::vector<double> vertex_count = JsonNumbers(json, "vertex_count");
  std::vector<double> triangle_count = JsonNumbers(json, "triangle_count");
  CHECK(std::count(vertex_count.begin(), vertex_count.end(), 12.0) == 1);
  CHECK(std::accumulate(vertex_count.begin(), vertex_count.end(), 0.0) == 12);
  CHECK(std::accumulate(triangle_count.begin(), triangle_count.end(), 0.0) == 20);
  const std::vector<double> vertices = JsonNumbers(json, "vertices");
  REQUIRE(vertices.size() == 36);
  double reach[3] = {0, 0, 0};
  for (size_t k = 0; k < vertices.size(); ++k) reach[k % 3] = std::max(reach[k % 3], vertices[k]);
  CHECK(reach[0] == Approx(0.2));  // the box's 2 x 2 x 1 scaled by 0.1, 0.1, 0.2
  CHECK(reach[1] == Approx(0.2));
  CHECK(reach[2] == Approx(0.2));
  CHECK(json.find("\"visual_note\":\"\"") != std::string::npos);
  CHECK(html.find("id=\"visual\"") != std::string::npos);
  CHECK(html.find("id=\"collision\"") != std::string::npos);
  if (RendersPages()) {
    REQUIRE(!Chromium().empty());
    const std::string dom = DumpState(page, "", dir);
    CHECK(StateAttribute(dom, "data-visual-geometries") == "7");
    CHECK(StateAttribute(dom, "data-visual-unread") == "0");
    CHECK(StateAttribute(dom, "data-collision-shown") == "1");
    CHECK(StateAttribute(DumpState(page, "&collision=0", dir), "data-collision-shown") == "0");
  }

  SECTION("a mesh file gone since the run: the page says so and draws the other visuals") {
    fs::remove(dir.File("notched_box.obj"));
    const Outcome again = Csim({"export-html", h5, "-o", page}, dir);
    INFO(again.err);
    REQUIRE(again.status == 0);
    const std::string note_json = PageJson(ReadText(page));
    vertex_count = JsonNumbers(note_json, "vertex_count");
    CHECK(std::accumulate(vertex_count.begin(), vertex_count.end(), 0.0) == 0);
    CHECK(note_json.find("\"visual_note\":\"\"") == std::string::npos);
    CHECK(note_json.find("notched_box.obj") != std::string::npos);
    if (!RendersPages()) return;
    const std::string dom = DumpState(page, "", dir);
    CHECK(StateAttribute(dom, "data-visual-geometries") == "6");
    CHECK(StateAttribute(dom, "data-visual-unread") == "1");
  }
}

TEST_CASE("export-html: a file without /model/geometry still exports", "[html]") {
  // Files written before the geometry extension: bodies become markers in the page.
  TempDir dir;
  std::ofstream(dir.File("box.yaml")) << kScene;
  const std::string h5 = dir.File("old.h5");
  REQUIRE(Csim({"run", dir.File("box.yaml"), "-o", h5, "-q", "--duration", "0.05"}, dir).status == 0);
  {
    csim::io::Hdf5File file = csim::io::Hdf5File::Open(h5, csim::io::Hdf5File::Mode::kReadWrite);
    REQUIRE(H5Ldelete(file.id(), "/model/geometry", H5P_DEFAULT) >= 0);
    file.Close();
  }
  const Outcome o = Csim({"export-html", h5, "-o", dir.File("old.html")}, dir);
  INFO(o.err);
  CHECK(o.status == 0);
  CHECK(ReadText(dir.File("old.html")).find("\"geometry\":{\"body\":[],") != std::string::npos);
}

TEST_CASE("export-html: I/O errors exit 4 and leave no page", "[html]") {
  TempDir dir;
  SECTION("missing input") {
    CHECK(Csim({"export-html", dir.File("missing.h5"), "-o", dir.File("out.html")}, dir).status == 4);
  }
  SECTION("not a csim output file") {
    std::ofstream(dir.File("text.h5")) << "not HDF5\n";
    const Outcome o = Csim({"export-html", dir.File("text.h5"), "-o", dir.File("out.html")}, dir);
    CHECK(o.status == 4);
    CHECK(o.err.find("text.h5") != std::string::npos);
  }
  SECTION("unwritable page") {
    std::ofstream(dir.File("box.yaml")) << kScene;
    REQUIRE(Csim({"run", dir.File("box.yaml"), "-o", dir.File("box.h5"), "-q", "--duration", "0.05"},
                 dir).status == 0);
    CHECK(Csim({"export-html", dir.File("box.h5"), "-o", "/nonexistent-csim-dir/box.html"}, dir)
              .status == 4);
  }
  CHECK_FALSE(fs::exists(dir.File("out.html")));
}

TEST_CASE("export-html: a page over its own run is refused and the run survives", "[html]") {
  TempDir dir;
  std::ofstream(dir.File("box.yaml")) << kScene;
  const std::string h5 = dir.File("box.h5");
  REQUIRE(Csim({"run", dir.File("box.yaml"), "-o", h5, "-q", "--duration", "0.05"}, dir).status == 0);
  const auto size = fs::file_size(h5);
  const Outcome o = Csim({"export-html", h5, "-o", h5}, dir);
  INFO(o.err);
  CHECK(o.status == 1);
  CHECK(o.err.find("would overwrite the run it replays") != std::string::npos);
  CHECK(fs::file_size(h5) == size);
  CHECK(Csim({"info", h5}, dir).status == 0);
}

}  // namespace

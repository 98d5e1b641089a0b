#include "bench/clutter_scene.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace csim::bench {
namespace {

std::string FormatG(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", x);
  return buffer;
}

// A fresh directory under $TMPDIR (or /tmp), removed by the caller.
std::string MakeTempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string pattern = std::string(base != nullptr ? base : "/tmp") + "/csim_bench.XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("cannot create " + pattern);
  return pattern;
}

}  // namespace

std::string ConfigName(const ClutterConfig& c) {
  if (!c.scene.empty()) {
    std::string name = c.scene.substr(c.scene.find_last_of('/') + 1);
    const size_t dot = name.rfind('.');
    return dot == std::string::npos || dot == 0 ? name : name.substr(0, dot);
  }
  return "clutter-" + std::to_string(c.objects) + (c.walls ? " walls" : " no-walls") +
         (c.columns > 0 ? " " + std::to_string(c.columns) + "-columns" : "") +
         (c.column_spacing > 0 ? " " + FormatG(c.column_spacing) + "m-apart" : "") +
         (c.contact_model != "sap" ? " " + c.contact_model : "") +
         " dt=" + FormatG(c.dt) + (c.seed != 1 ? " seed=" + std::to_string(c.seed) : "");
}

std::string GenerateClutterScene(const BenchOptions& o, const ClutterConfig& c,
                                 std::string* command) {
  const std::string dir = MakeTempDir();
  const std::string path = dir + "/clutter.yaml";
  std::string args = " -n " + std::to_string(c.objects) + (c.walls ? "" : " --no-walls") +
                     " --dt " + FormatG(c.dt) + " --duration " + FormatG(o.duration) +
                     " --seed " + std::to_string(c.seed) +
                     (c.columns > 0 ? " --columns " + std::to_string(c.columns) : "") +
                     (c.column_spacing > 0 ? " --column-spacing " + FormatG(c.column_spacing) : "") +
                     (c.contact_model != "sap" ? " --contact-model " + c.contact_model : "") +
                     (c.hunt_crossley > 0 ? " --hunt-crossley " + FormatG(c.hunt_crossley) : "");
  *command = "tools/make_clutter.py" + args;
  const std::string shell = "'" + o.python + "' '" + o.generator + "'" + args + " -o '" + path + "'";
  const int status = std::system(shell.c_str());
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::remove(path.c_str());
  rmdir(dir.c_str());
  if (status != 0 || text.str().empty())
    throw std::runtime_error("scene generator failed: " + shell);
  return text.str();
}

io::LoadedScene LoadClutterScene(const ClutterConfig& config, double duration,
                                 const std::vector<std::string>& overrides,
                                 std::string* command) {
  BenchOptions bench;
  bench.duration = duration;
  bench.generator = std::string(CSIM_SOURCE_DIR) + "/tools/make_clutter.py";
  const std::string text = GenerateClutterScene(bench, config, command);
  return io::LoadSceneFromText(text, "clutter.yaml", overrides);
}

}  // namespace csim::bench

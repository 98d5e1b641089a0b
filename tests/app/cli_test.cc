// End-to-end tests of the csim executable against docs/cli.md: each test runs the real
// binary (CsimProgram(), tests/support/build_variant.h) in a fresh temporary directory and
// checks its exit status, its stderr/stdout and the HDF5 file it leaves (with tools/check_output.py and h5py
// under /usr/bin/python3, as a user's notebook would read it).

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "engine/common/version.h"
#include "engine/io/hdf5_file.h"
#include "tests/support/fetched_models.h"
#include "tests/support/build_variant.h"
#include "tests/support/test_scenes.h"
#include "tests/support/temp_dir.h"

namespace {

namespace fs = std::filesystem;
using csim::testing::CsimProgram;

// A fresh directory under /tmp, removed with everything in it at the end of the test.
using csim::testing::TempDir;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

// Starts argv[0] with the given arguments in `cwd`, stdout and stderr to files.
pid_t Spawn(const std::vector<std::string>& argv, const std::string& cwd,
            const std::string& out_path, const std::string& err_path) {
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    if (chdir(cwd.c_str()) != 0) _exit(120);
    const int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0 || err < 0) _exit(121);
    dup2(out, STDOUT_FILENO);
    dup2(err, STDERR_FILENO);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(122);
  }
  return pid;
}

// Waits for `pid` to end; returns its exit status, 1000 + signal if a signal killed it,
// or -1 (after SIGKILL) if it did not end within `timeout_s`.
int WaitFor(pid_t pid, double timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 1000 + WTERMSIG(status);
  return -2;
}

struct Outcome {
  int status = -1;
  std::string out, err;
};

// Runs a program to completion (60 s at most) in `cwd`.
Outcome RunProgram(const std::vector<std::string>& argv, const TempDir& cwd) {
  const std::string out_path = (cwd.path().parent_path() / (cwd.path().filename().string() + ".out")).string();
  const std::string err_path = out_path + ".err";
  Outcome o;
  o.status = WaitFor(Spawn(argv, cwd.path().string(), out_path, err_path), 60.0);
  o.out = ReadFile(out_path);
  o.err = ReadFile(err_path);
  fs::remove(out_path);
  fs::remove(err_path);
  return o;
}

// Runs csim with `args` in `cwd`.
Outcome Csim(const std::vector<std::string>& args, const TempDir& cwd) {
  std::vector<std::string> argv{CsimProgram()};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunProgram(argv, cwd);
}

/// csim with `args`, run by /bin/sh after the shell commands `setup` (limits such as
/// "ulimit -f 400; "), which then apply to csim alone. Returns the command with the outcome.
std::pair<std::string, Outcome> CsimAfter(const std::string& setup,
                                          const std::vector<std::string>& args,
                                          const TempDir& cwd) {
  std::string command = setup + "exec '" + std::string(CsimProgram()) + "'";
  for (const std::string& a : args) command += " '" + a + "'";  // no quotes in test paths
  return {command, RunProgram({"/bin/sh", "-c", command}, cwd)};
}

/// True, with a warning saying so, when csim is built with AddressSanitizer, which cannot
/// run under an address-space limit (`ulimit -v`): it reserves terabytes of address space
/// for its shadow memory as the process starts, so csim would die before main, and its
/// operator new ends the process with a report when memory runs out instead of throwing
/// std::bad_alloc. The tests of such limits run in the normal build only.
bool SkipAddressSpaceLimit() {
  if (!csim::testing::UnderAddressSanitizer()) return false;
  WARN("skipped under AddressSanitizer: csim cannot run under `ulimit -v`");
  return true;
}

std::string Scene(const std::string& name) {
  return std::string(CSIM_SOURCE_DIR) + "/scenes/" + name;
}

// tools/check_output.py on `file`; INFO shows its report when the check fails.
bool OutputConforms(const std::string& file, const TempDir& cwd) {
  const Outcome o = RunProgram({"/usr/bin/python3", CSIM_CHECK_OUTPUT, file}, cwd);
  if (o.status != 0) UNSCOPED_INFO("check_output.py " << file << ":\n" << o.out << o.err);
  return o.status == 0;
}

// /status, the failure_reason attribute and /scene/overrides of an output file, read
// with h5py in SWMR mode: "status=...\nreason=...\noverrides=a|b\n".
std::string StatusOf(const std::string& file, const TempDir& cwd) {
  static const char* kScript = R"PY(
import sys, h5py
def s(x): return x.decode() if isinstance(x, bytes) else str(x)
with h5py.File(sys.argv[1], "r", libver="latest", swmr=True) as f:
    print("status=" + s(f["/status"][()]))
    print("reason=" + s(f.attrs.get("failure_reason", "")))
    o = f["/scene/overrides"][()] if "/scene/overrides" in f else []
    print("overrides=" + "|".join(s(x) for x in o))
)PY";
  const Outcome o = RunProgram({"/usr/bin/python3", "-c", kScript, file}, cwd);
  INFO(o.err);
  REQUIRE(o.status == 0);
  return o.out;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// `FILE:LINE:COL: ` at the start of some line of `text`.
bool HasLocatedMessage(const std::string& text, const std::string& file_part) {
  const std::regex located("(^|\n)[^\n]*" + file_part + "[^\n:]*:[0-9]+:[0-9]+: ");
  return std::regex_search(text, located);
}

std::vector<std::string> AllScenes() {
  std::vector<std::string> scenes;
  for (const auto& e : fs::directory_iterator(std::string(CSIM_SOURCE_DIR) + "/scenes")) {
    if (e.path().extension() == ".yaml") scenes.push_back(e.path().string());
  }
  std::sort(scenes.begin(), scenes.end());
  return scenes;
}

// A prismatic joint with a huge spring under explicit Euler at a large step: the
// amplitude grows by omega*dt = 1e5 per step and overflows within a hundred steps.
const char* kBlowUpScene = R"(csim: 1
name: blow_up
settings:
  time_step: 0.1
  duration: 1000.0
  integrator: explicit_euler
bodies:
  - name: block
    mass: 1.0
    geometry: [{shape: box, size: [0.1, 0.1, 0.1]}]
joints:
  - name: slider
    type: prismatic
    parent: world
    child: block
    axis: [1, 0, 0]
    initial: {q: [0.1], v: [0.0]}
    spring: {stiffness: [1.0e12], rest: [0.0]}
)";

}  // namespace

TEST_CASE("every scene in scenes/ runs and writes a conforming file", "[cli]") {
  csim::testing::FetchedModelsRoot();  // the robot models some scenes import
  const std::vector<std::string> scenes = AllScenes();
  REQUIRE(scenes.size() >= 6);
  for (const std::string& scene : scenes) {
    DYNAMIC_SECTION(fs::path(scene).filename().string()) {
      TempDir dir;
      const std::string out = dir.File("run.h5");
      const Outcome o = Csim({"run", scene, "--duration", "0.1", "-o", out}, dir);
      INFO(o.err);
      CHECK(o.status == 0);
      REQUIRE(fs::exists(out));
      CHECK(OutputConforms(out, dir));
      CHECK(Contains(StatusOf(out, dir), "status=completed"));
    }
  }
}

TEST_CASE("settings.output.compression sets the series' gzip level, 0 writes them plain",
          "[cli]") {
  // Recording can cost more than the steps on scenes of thousands of bodies (scene-format.md):
  // the level is the user's. Read back with h5py: the filter of every series, and the data,
  // which must not depend on it.
  static const char* kFilters = R"PY(
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r") as f:
    names = []
    def series(name, obj):  # the extendible datasets written per row, /model's apart
        if isinstance(obj, h5py.Dataset) and obj.maxshape and obj.maxshape[0] is None \
                and not name.startswith("model/"):
            names.append(name)
    f.visititems(series)
    print(sorted({(f[n].compression, f[n].compression_opts, f[n].shuffle) for n in names}))
    np.save(sys.argv[2], f["/state/q"][:])
)PY";
  TempDir dir;
  std::string q_of_level[2];
  const std::pair<const char*, const char*> cases[] = {{"0", "[(None, None, False)]"},
                                                       {"6", "[('gzip', 6, True)]"}};
  for (int i = 0; i < 2; ++i) {
    const auto [level, filters] = cases[i];
    INFO("compression " << level);
    const std::string out = dir.File("c" + std::string(level) + ".h5");
    const Outcome o = Csim({"run", Scene("clutter_40.yaml"), "--duration", "0.05", "-o", out,
                            "--set", "settings.output.compression=" + std::string(level)}, dir);
    INFO(o.err);
    REQUIRE(o.status == 0);
    CHECK(OutputConforms(out, dir));
    const Outcome py = RunProgram({"/usr/bin/python3", "-c", kFilters, out, out + ".npy"}, dir);
    INFO(py.err);
    CHECK(py.out == std::string(filters) + "\n");
    q_of_level[i] = ReadFile(out + ".npy");
  }
  CHECK_FALSE(q_of_level[0].empty());
  CHECK(q_of_level[0] == q_of_level[1]);
}

TEST_CASE("csim SCENE.yaml is csim run, the summary line and --quiet", "[cli]") {
  TempDir dir;
  SECTION("summary line on stderr, nothing on stdout") {
    const Outcome o = Csim({Scene("pendulum.yaml"), "--duration", "0.05", "-o", dir.File("p.h5")}, dir);
    INFO(o.err);
    CHECK(o.status == 0);
    CHECK(o.out.empty());
    CHECK(Contains(o.err, "steps"));
    CHECK(Contains(o.err, "real time"));
    CHECK(Contains(o.err, "momentum error"));
    CHECK(Contains(o.err, dir.File("p.h5")));
  }
  SECTION("--quiet prints nothing on success") {
    const Outcome o = Csim({Scene("pendulum.yaml"), "-q", "--duration", "0.05", "-o", dir.File("p.h5")}, dir);
    CHECK(o.status == 0);
    CHECK(o.err.empty());
    CHECK(fs::exists(dir.File("p.h5")));
  }
  SECTION("the default output is settings.output.file in the current directory") {
    const Outcome o = Csim({"run", Scene("pendulum.yaml"), "--duration", "0.05"}, dir);
    INFO(o.err);
    CHECK(o.status == 0);
    CHECK(fs::exists(dir.File("pendulum.h5")));
  }
}

TEST_CASE("a duration that is not a whole number of steps is rounded up, with a warning",
          "[cli]") {
  TempDir dir;
  const Outcome o = Csim({"run", Scene("pendulum.yaml"), "--dt", "0.3", "--duration", "1", "-o",
                          dir.File("p.h5")}, dir);
  INFO(o.err);
  CHECK(o.status == 0);
  CHECK(Contains(o.err, "the run takes 4 steps and ends at t = 1.2 s"));
  CHECK(Contains(o.err, "4 steps, simulated 1.2 s"));
  const Outcome whole = Csim({"run", Scene("pendulum.yaml"), "--dt", "0.001", "--duration", "1",
                              "-o", dir.File("q.h5")}, dir);
  CHECK_FALSE(Contains(whole.err, "whole number"));
}

TEST_CASE("shorthand options are recorded as overrides after --set", "[cli]") {
  TempDir dir;
  const std::string out = dir.File("p.h5");
  const Outcome o = Csim({"run", Scene("pendulum.yaml"), "--set", "settings.duration=0.02",
                          "--duration", "0.03", "--dt", "0.001", "--integrator", "midpoint",
                          "-o", out},
                         dir);
  INFO(o.err);
  REQUIRE(o.status == 0);
  const std::string status = StatusOf(out, dir);
  CHECK(Contains(status, "overrides=settings.duration=0.02|"));
  CHECK(Contains(status, "settings.duration=0.03"));
  CHECK(Contains(status, "settings.time_step=0.001"));
  CHECK(Contains(status, "settings.integrator=midpoint"));
}

TEST_CASE("csim run --sensitivities writes /sensitivity and the contacts' regions and bad paths exit 1",
          "[cli][sensitivity]") {
  TempDir dir;
  SECTION("a run with sensitivities conforms, its forward datasets the same bytes") {
    const std::string with = dir.File("with.h5"), without = dir.File("without.h5");
    const std::vector<std::string> common{"run", Scene("sliding_box.yaml"), "--duration", "0.3",
                                          "--set", "settings.output.every=3"};
    std::vector<std::string> a = common, b = common;
    a.insert(a.end(), {"-o", with, "--sensitivities", "materials.default.friction",
                       "--sensitivities", "joints.box.v[3],joints.box.q[5]"});
    b.insert(b.end(), {"-o", without});
    const Outcome o = Csim(a, dir);
    INFO(o.err);
    REQUIRE(o.status == 0);
    REQUIRE(Csim(b, dir).status == 0);
    CHECK(OutputConforms(with, dir));
    static const char* kScript = R"PY(
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
for k in ("state/q", "state/v", "contacts/force", "contacts/slip_speed", "solver/iterations",
          "solver/cost", "time"):
    assert a[k][()].tobytes() == b[k][()].tobytes(), k
assert "sensitivity" not in b and "contacts/region" not in b
n = len(a["time"])
assert a["sensitivity/dq"].shape == (n, 6, 3) and a["sensitivity/dv"].shape == (n, 6, 3)
assert [p.decode() for p in a["sensitivity/parameters"][()]] == [
    "materials.default.friction", "joints.box.v[3]", "joints.box.q[5]"]
assert a["sensitivity/dv"][0, 3, 1] == 1 and a["sensitivity/dq"][0, 5, 2] == 1
assert set(np.unique(a["contacts/region"][()])) == {1, 2}
print("ok")
)PY";
    const Outcome check = RunProgram({"/usr/bin/python3", "-c", kScript, with, without}, dir);
    INFO(check.out << check.err);
    CHECK(check.status == 0);
  }
  SECTION("a bad path") {
    for (const char* path : {"materials.steel.friction", "materials.default.stiffness",
                             "bodies.lid.mass", "joints.box.q[6]", "joints.box.v[0],"}) {
      const Outcome o = Csim({"run", Scene("sliding_box.yaml"), "-o", dir.File("x.h5"),
                              "--sensitivities", path},
                             dir);
      INFO(path << ": " << o.err);
      CHECK(o.status == 1);
      CHECK(Contains(o.err, "--sensitivities: "));
      CHECK(Contains(o.err, std::string(path).substr(0, 12)));
      CHECK(dir.H5Files().empty());
    }
  }
}

TEST_CASE("invalid input exits 1 with FILE:LINE:COL and writes no file", "[cli]") {
  TempDir dir;
  SECTION("a scene with an unknown key") {
    const std::string scene = dir.File("bad_scene.yaml");
    WriteFile(scene, "csim: 1\nname: bad\nbodies:\n  - name: b\n    mas: 1.0\n");
    const Outcome o = Csim({"run", scene}, dir);
    INFO(o.err);
    CHECK(o.status == 1);
    CHECK(HasLocatedMessage(o.err, "bad_scene.yaml"));
    CHECK(dir.H5Files().empty());
  }
  SECTION("a bad --set value") {
    const Outcome o = Csim({"run", Scene("pendulum.yaml"), "--set", "settings.time_step=-1"}, dir);
    INFO(o.err);
    CHECK(o.status == 1);
    CHECK(HasLocatedMessage(o.err, ""));
    CHECK(dir.H5Files().empty());
  }
  SECTION("a --set path that does not exist") {
    const Outcome o = Csim({"run", Scene("pendulum.yaml"), "--set", "bodies.nobody.mass=2"}, dir);
    INFO(o.err);
    CHECK(o.status == 1);
    CHECK(HasLocatedMessage(o.err, ""));
    CHECK(dir.H5Files().empty());
  }
  SECTION("a bad --dt") {
    const Outcome o = Csim({"run", Scene("pendulum.yaml"), "--dt", "fast"}, dir);
    INFO(o.err);
    CHECK(o.status == 1);
    // Located at the option typed, not at the --set it becomes.
    CHECK(Contains(o.err, "--dt fast:1:6: expected a number, got 'fast' (settings.time_step)"));
    CHECK(dir.H5Files().empty());
  }
  SECTION("--threads 0, or a typo's 100000 (which took minutes to start, deaf to SIGTERM)") {
    for (const char* threads : {"0", "100000"}) {
      const Outcome o = Csim({"run", Scene("pendulum.yaml"), "--threads", threads}, dir);
      INFO(o.err);
      CHECK(o.status == 1);
      CHECK(Contains(o.err, "--threads: must be in [1, 256]"));
    }
    CHECK(dir.H5Files().empty());
  }
  SECTION("an empty option value is not taken for an absent option") {
    const Outcome o = Csim({"run", Scene("pendulum.yaml"), "--duration", ""}, dir);
    INFO(o.err);
    CHECK(o.status == 1);
    CHECK(Contains(o.err, "--duration: expected a value"));
    CHECK(dir.H5Files().empty());
  }
  SECTION("an output file that is the scene itself, by -o or by settings.output.file") {
    const std::string scene = dir.File("self.yaml");
    const std::string text = "csim: 1\nsettings: {duration: 0.01, output: {file: self.yaml}}\n"
                             "bodies: [{name: b, mass: 1, geometry: [{shape: sphere, radius: 1}]}]\n";
    WriteFile(scene, text);
    const Outcome by_option = Csim({"run", scene, "-o", scene}, dir);
    INFO(by_option.err);
    CHECK(by_option.status == 1);
    CHECK(Contains(by_option.err, "is the scene file itself"));
    const Outcome by_scene = Csim({"run", "self.yaml"}, dir);
    INFO(by_scene.err);
    CHECK(by_scene.status == 1);
    CHECK(ReadFile(scene) == text);  // the user's scene survives
  }
}

TEST_CASE("usage errors exit 2", "[cli]") {
  TempDir dir;
  CHECK(Csim({}, dir).status == 2);
  CHECK(Csim({"run"}, dir).status == 2);
  CHECK(Csim({"frobnicate", "x"}, dir).status == 2);
  CHECK(Csim({"run", Scene("pendulum.yaml"), "--no-such-option"}, dir).status == 2);
  CHECK(Csim({"info"}, dir).status == 2);
  CHECK(Csim({"export-html"}, dir).status == 2);  // no input file
  CHECK(Csim({"export-html", "run.h5", "--max-frames", "1"}, dir).status == 2);
  CHECK(dir.H5Files().empty());
  const Outcome help = Csim({"--help"}, dir);
  CHECK(help.status == 0);
  CHECK(Contains(help.out, "run"));
  CHECK(Contains(help.out, "check"));
}

TEST_CASE("I/O errors exit 4, a refused thread leaves no file", "[cli]") {
  TempDir dir;
  SECTION("unwritable output path") {
    const Outcome o = Csim({"run", Scene("pendulum.yaml"), "--duration", "0.01", "-o",
                            "/nonexistent-csim-dir/out.h5"},
                           dir);
    INFO(o.err);
    CHECK(o.status == 4);
  }
  SECTION("unreadable scene") {
    CHECK(Csim({"run", dir.File("missing.yaml")}, dir).status == 4);
  }
  SECTION("info on a missing file") {
    CHECK(Csim({"info", dir.File("missing.h5")}, dir).status == 4);
  }
  SECTION("no thread for the writer: no file either") {
    if (SkipAddressSpaceLimit()) return;
    // Thread stacks take `ulimit -s`; 1 GB of stack under a 600 MB address-space limit
    // makes the writer's thread fail to start (EAGAIN). It must be started before the file
    // is created, or the run would leave a file with no rows whose /status says "running".
    const std::string out = dir.File("nothread.h5");
    const auto [command, o] = CsimAfter("ulimit -v 600000; ulimit -s 1000000; ",
                                        {"run", Scene("pendulum.yaml"), "--duration", "0.01",
                                         "-o", out}, dir);
    INFO(command << "\n" << o.err);
    CHECK(o.status == 4);
    CHECK(Contains(o.err, "cannot start the thread that writes"));
    CHECK_FALSE(fs::exists(out));
  }
  SECTION("no worker threads: a message, no hang, no file") {
    if (SkipAddressSpaceLimit()) return;
    // As above, no thread can start. When a later worker fails to start, the ones already
    // running must be ended, not left waiting on a destroyed condition variable (a hang
    // deaf to SIGTERM).
    const std::string out = dir.File("noworkers.h5");
    const auto [command, o] = CsimAfter("ulimit -v 600000; ulimit -s 1000000; ",
                                        {"run", Scene("clutter_40.yaml"), "--duration", "0.01",
                                         "--threads", "4", "-o", out}, dir);
    INFO(command << "\n" << o.err);
    CHECK(o.status == 3);
    CHECK(Contains(o.err, "cannot start worker thread 1 of 3 (try fewer threads)"));
    CHECK_FALSE(fs::exists(out));
  }
  SECTION("the output stops growing mid-run (disk full)") {
    // A file-size limit makes the writes fail with EFBIG after a few hundred kB, as a
    // full disk would with ENOSPC. The run must stop with the I/O status and a message
    // naming the file, without a crash in HDF5's exit handler on the file it could not
    // close. (The limit's SIGXFSZ is ignored, so the writes fail instead.) Without the
    // trap, csim must ignore SIGXFSZ itself rather than die of it.
    const std::string out = dir.File("full.h5");
    for (const std::string trap : {"trap '' XFSZ; ", ""}) {
      const auto [command, o] = CsimAfter(
          trap + "ulimit -f 400; ", {"run", Scene("pendulum.yaml"), "--duration", "200", "-o", out},
          dir);
      INFO(command << "\n" << o.err);
      CHECK(o.status == 4);
      CHECK(Contains(o.err, "full.h5"));
      CHECK(Contains(o.err, "File too large"));
      CHECK_FALSE(Contains(o.err, "HDF5-DIAG"));
    }
  }
}

TEST_CASE("csim check validates, prints the model and writes nothing", "[cli]") {
  TempDir dir;
  const Outcome o = Csim({"check", Scene("double_pendulum.yaml")}, dir);
  INFO(o.err);
  CHECK(o.status == 0);
  CHECK(dir.Empty());
  CHECK(Contains(o.out, "upper"));
  CHECK(Contains(o.out, "lower"));
  CHECK(Contains(o.out, "mass 1 kg"));
  CHECK(Contains(o.out, "revolute"));
  CHECK(Contains(o.out, "world -> upper"));
  CHECK(Contains(o.out, "upper -> lower"));
  CHECK(Contains(o.out, "nq = 2, nv = 2, degrees of freedom = 2"));

  const Outcome bad = Csim({"check", Scene("pendulum.yaml"), "--set", "bodies.bob.mass=-1"}, dir);
  CHECK(bad.status == 1);
  CHECK(HasLocatedMessage(bad.err, ""));
  CHECK(dir.Empty());
}

TEST_CASE("check prints and run logs the scene's warnings, and neither changes the status",
          "[cli]") {
  // A ball of radius 50 where 0.05 was meant, 49.95 m into the ground, and a notched box
  // (tests/data/notched_box.obj: hull 3.875, mesh 3.75).
  TempDir dir;
  const std::string scene = dir.File("warned.yaml");
  WriteFile(scene, "csim: 1\n"
                   "world: {geometry: [{shape: halfspace}]}\n"
                   "bodies:\n"
                   "  - {name: ball, mass: 1, geometry: [{shape: sphere, radius: 50}],\n"
                   "     pose: {position: [0, 0, 0.05]}}\n"
                   "  - {name: block, mass: 1, pose: {position: [0, 5, 200]}, geometry:\n"
                   "     [{shape: mesh, file: " + std::string(CSIM_SOURCE_DIR) +
                   "/tests/data/notched_box.obj, scale: 0.1}]}\n");
  const std::string overlap = scene + ":4:38: world geometry 0 (halfspace) and body 'ball' "
                              "geometry 0 (sphere) overlap by 49.95 m at t = 0";
  const std::string mesh = scene + ":7:7: body 'block' geometry 0: mesh '" +
                           std::string(CSIM_SOURCE_DIR) + "/tests/data/notched_box.obj' is "
                           "not convex: its convex hull has 1.033 times its volume";

  const Outcome check = Csim({"check", scene}, dir);
  INFO(check.out << check.err);
  CHECK(check.status == 0);
  CHECK(Contains(check.out, "warning: " + overlap));
  CHECK(Contains(check.out, "warning: " + mesh));

  const std::string out = dir.File("warned.h5");
  const Outcome run = Csim({"run", scene, "--duration", "0.002", "-o", out}, dir);
  INFO(run.err);
  CHECK(run.status == 0);
  CHECK(Contains(run.err, "csim: warning: " + overlap));
  CHECK(Contains(run.err, "csim: warning: " + mesh));
  CHECK(Contains(run.err, "csim: completed"));
  CHECK(run.err.find("csim: warning: " + overlap) < run.err.find("csim: completed"));
}

TEST_CASE("csim info summarises a run on stdout", "[cli]") {
  TempDir dir;
  const std::string out = dir.File("p.h5");
  REQUIRE(Csim({"run", Scene("pendulum.yaml"), "--duration", "0.05", "-o", out}, dir).status == 0);
  const Outcome o = Csim({"info", out}, dir);
  INFO(o.err);
  CHECK(o.status == 0);
  CHECK(Contains(o.out, "pendulum"));
  CHECK(Contains(o.out, "completed"));
}

// Damages `path` where libhdf5 1.10 trusts the file most: the stored size of the first
// object of the first global heap collection (the variable-length strings: the root's
// first string attribute). The layout (HDF5 file format spec, "Global Heap"): "GCOL",
// version, 3 reserved bytes and the 8-byte collection size; then per object a 2-byte
// index, 2-byte reference count, 4 reserved bytes and the 8-byte object size.
void DamageFirstGlobalHeapObject(const std::string& path) {
  std::string bytes = ReadFile(path);
  const size_t collection = bytes.find("GCOL");
  REQUIRE(collection != std::string::npos);
  const size_t size_field = collection + 16 + 8;
  REQUIRE(size_field + 8 <= bytes.size());
  bytes[size_field + 5] = static_cast<char>(0x01);  // the object claims 1 TB more
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

TEST_CASE("a damaged output file that crashes libhdf5 is an I/O error, not a crash", "[cli]") {
  // One damaged byte can make libhdf5 die of SIGSEGV inside H5Aread, so `csim info` and
  // `csim export-html` read in a child process (app/reader_process.h).
  TempDir dir;
  const std::string good = dir.File("p.h5"), damaged = dir.File("damaged.h5");
  REQUIRE(Csim({"run", Scene("pendulum.yaml"), "--duration", "0.05", "-o", good}, dir).status == 0);
  fs::copy_file(good, damaged);
  DamageFirstGlobalHeapObject(damaged);
  // The damage is the kind meant: the same library, through h5py, dies reading the
  // root's attributes (1000 + signal), while the undamaged file reads.
  const char* const kReadAttributes =
      "import sys, h5py\nprint(dict(h5py.File(sys.argv[1], 'r').attrs))\n";
  CHECK(RunProgram({"/usr/bin/python3", "-c", kReadAttributes, good}, dir).status == 0);
  CHECK(RunProgram({"/usr/bin/python3", "-c", kReadAttributes, damaged}, dir).status > 1000);

  const Outcome info = Csim({"info", damaged}, dir);
  INFO(info.err);
  CHECK(info.status == 4);
  CHECK(Contains(info.err, damaged));
  CHECK(Contains(info.err, "damaged"));

  const std::string page = dir.File("page.html");
  const Outcome html = Csim({"export-html", damaged, "-o", page}, dir);
  INFO(html.err);
  CHECK(html.status == 4);
  CHECK(Contains(html.err, damaged));
  CHECK_FALSE(fs::exists(page));
  CHECK_FALSE(fs::exists(page + ".tmp"));

  // The undamaged file still goes through the same child: its results reach stdout and
  // the page is written.
  const Outcome good_info = Csim({"info", good}, dir);
  CHECK(good_info.status == 0);
  CHECK(Contains(good_info.out, "pendulum"));
  CHECK(Csim({"export-html", good, "-o", page}, dir).status == 0);
  CHECK(fs::exists(page));

  // A reader killed from outside is no sign of damage: `csim info good.h5` writing into a
  // pipe whose reader is gone dies of SIGPIPE, and the child's death must not be reported
  // as a damaged file. Python's subprocess restores SIGPIPE's default in the child, so the
  // death is certain.
  const char* const kClosedPipe =
      "import os, subprocess, sys\n"
      "r, w = os.pipe(); os.close(r)\n"
      "p = subprocess.run(sys.argv[1:], stdout=w, stderr=subprocess.PIPE)\n"
      "print(p.returncode); sys.stdout.write(p.stderr.decode())\n";
  const Outcome piped =
      RunProgram({"/usr/bin/python3", "-c", kClosedPipe, CsimProgram(), "info", good}, dir);
  INFO(piped.out << piped.err);
  CHECK(piped.status == 0);
  CHECK(Contains(piped.out, "-" + std::to_string(SIGPIPE) + "\n"));
  CHECK_FALSE(Contains(piped.out, "damaged"));
}

TEST_CASE("csim --version names the version, git commit and dependencies", "[cli]") {
  TempDir dir;
  const Outcome o = Csim({"--version"}, dir);
  CHECK(o.status == 0);
  CHECK(Contains(o.out, csim::kVersion));
  CHECK(Contains(o.out, csim::kGitCommit));
  CHECK(Contains(o.out, "HDF5"));
  CHECK(Contains(o.out, "Eigen"));
}

TEST_CASE("the git commit csim reports is the source tree's, at build time", "[cli]") {
  // Taken when CMake configured the build tree, a build after a pull (without a new
  // `cmake -S . -B build`) would record the old commit in every output file.
  TempDir dir;
  const auto git = [&dir](const std::string& args) {  // by /bin/sh: git from the PATH
    return RunProgram({"/bin/sh", "-c", "git -C '" CSIM_SOURCE_DIR "' " + args}, dir);
  };
  const Outcome head = git("rev-parse --short HEAD");
  const Outcome changes = git("status --porcelain --untracked-files=no");
  if (head.status != 0 || changes.status != 0) {
    CHECK(std::string(csim::kGitCommit) == "unknown");  // not a git checkout (a tarball)
    return;
  }
  const std::string commit = head.out.substr(0, head.out.find('\n'));
  INFO("HEAD is " << commit << (changes.out.empty() ? "" : ", tracked files edited")
                  << " (rebuild if the tree changed after the last build)");
  const Outcome o = Csim({"--version"}, dir);
  INFO(o.out);
  // "-dirty" when tracked files differed from HEAD at build time; a clean tree now was
  // clean then too, unless edits were reverted in between.
  CHECK((Contains(o.out, "(git " + commit + ")") || Contains(o.out, "(git " + commit + "-dirty)")));
  if (changes.out.empty()) CHECK(Contains(o.out, "(git " + commit + ")"));
}

TEST_CASE("a run that blows up numerically exits 3 and marks the file failed", "[cli]") {
  TempDir dir;
  const std::string scene = dir.File("blow_up.yaml");
  WriteFile(scene, kBlowUpScene);
  const std::string out = dir.File("blow_up.h5");
  const Outcome o = Csim({"run", scene, "-o", out}, dir);
  INFO(o.err);
  CHECK(o.status == 3);
  REQUIRE(fs::exists(out));
  const std::string status = StatusOf(out, dir);
  CHECK(Contains(status, "status=failed"));
  CHECK_FALSE(Contains(status, "reason=\n"));
  // The last states before the failure have finite q and v but an overflowing energy
  // (k q^2 / 2 with q ~ 1e150); the run loop ends the run before recording one, so the
  // file holds only representable rows and conforms.
  CHECK(OutputConforms(out, dir));
}

// A scene of `n` spheres at one spot, for two steps: one island in which every body
// touches every other (n (n - 1) / 2 contacts, a dense factorization).
std::string HeapOfSpheres(int n) {
  std::string scene = "csim: 1\nsettings: {time_step: 0.001, duration: 0.002}\nbodies:\n";
  for (int i = 0; i < n; ++i) {
    scene += "  - {name: b" + std::to_string(i) +
             ", mass: 1, geometry: [{shape: sphere, radius: 0.01}], pose: {position: [0, 0, "
             "0.005]}}\n";
  }
  return scene;
}

TEST_CASE("a step that needs more memory than the system gives fails the run cleanly", "[cli]") {
  // 600 spheres at one spot need about 1 GB in their first step (180000 contacts, a dense
  // factorization); under a 400 MB address-space limit an allocation fails there. The
  // failure must not escape the run loop as an exception (exit 3, but a file still saying
  // "running", with no reason). (Without a limit the kernel's OOM killer ends such a run,
  // which nothing can catch; see docs/cli.md.)
  if (SkipAddressSpaceLimit()) return;
  TempDir dir;
  WriteFile(dir.File("heap.yaml"), HeapOfSpheres(600));
  const std::string out = dir.File("heap.h5");
  const auto [command, o] =
      CsimAfter("ulimit -v 400000; ", {"run", dir.File("heap.yaml"), "--no-progress", "-o", out}, dir);
  INFO(command << "\n" << o.err);
  CHECK(o.status == 3);
  CHECK(Contains(o.err, "step 1: out of memory"));
  REQUIRE(fs::exists(out));
  const std::string status = StatusOf(out, dir);
  CHECK(Contains(status, "status=failed"));
  CHECK(Contains(status, "reason=step 1: out of memory"));
  CHECK(OutputConforms(out, dir));  // the initial state
}

// Starts a long run, waits until its file exists and it has run a while, sends `signo`,
// and returns the exit status; the output is left at dir/long.h5.
int InterruptLongRun(const TempDir& dir, int signo) {
  const std::string out = dir.File("long.h5");
  const pid_t pid = Spawn({CsimProgram(), "run", Scene("pendulum.yaml"), "--duration", "1e6",
                           "--no-progress", "-o", out},
                          dir.path().string(), dir.File("long.out"), dir.File("long.err"));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!fs::exists(out) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  kill(pid, signo);
  const int status = WaitFor(pid, 30.0);
  INFO(ReadFile(dir.File("long.err")));
  CHECK(fs::exists(out));
  return status;
}

TEST_CASE("SIGINT finishes the step, keeps the file and exits 130", "[cli]") {
  TempDir dir;
  CHECK(InterruptLongRun(dir, SIGINT) == 130);
  REQUIRE(fs::exists(dir.File("long.h5")));
  CHECK(OutputConforms(dir.File("long.h5"), dir));
  CHECK(Contains(StatusOf(dir.File("long.h5"), dir), "status=interrupted"));
}

TEST_CASE("SIGTERM during a long contact solve abandons that step, keeps the file, exits 143",
          "[cli]") {
  // 300 spheres at one spot: one island where every body touches every other; a step
  // takes seconds of Newton iterations (3.5 s here), longer than the signal's delay.
  // Finishing it first made SIGTERM wait minutes on bigger piles (1000 bodies: 140 s),
  // past a batch system's SIGKILL.
  TempDir dir;
  WriteFile(dir.File("heap.yaml"), HeapOfSpheres(300));
  const std::string out = dir.File("heap.h5");
  const pid_t pid = Spawn({CsimProgram(), "run", dir.File("heap.yaml"), "--no-progress", "-o", out},
                          dir.path().string(), dir.File("heap.out"), dir.File("heap.err"));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!fs::exists(out) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  kill(pid, SIGTERM);
  const int status = WaitFor(pid, 60.0);
  const std::string err = ReadFile(dir.File("heap.err"));
  INFO(err);
  CHECK(status == 143);
  CHECK(Contains(err, "step 1 abandoned while its contact solve iterated"));
  REQUIRE(fs::exists(out));
  CHECK(OutputConforms(out, dir));  // the initial state, status interrupted
  CHECK(Contains(StatusOf(out, dir), "status=interrupted"));
}

TEST_CASE("SIGTERM finishes the step, keeps the file and exits 143", "[cli]") {
  TempDir dir;
  CHECK(InterruptLongRun(dir, SIGTERM) == 143);
  REQUIRE(fs::exists(dir.File("long.h5")));
  CHECK(OutputConforms(dir.File("long.h5"), dir));
  CHECK(Contains(StatusOf(dir.File("long.h5"), dir), "status=interrupted"));
}

TEST_CASE("csim fit recovers the sliding box's friction from its own run", "[cli][fit]") {
  TempDir dir;
  const std::string scene = Scene("sliding_box.yaml");
  const Outcome run = Csim({"run", scene, "-q", "-o", dir.File("data.h5"), "--duration", "0.15",
                            "--set", "settings.solver.relative_tolerance=1e-12"},
                           dir);
  INFO(run.err);
  REQUIRE(run.status == 0);
  // Start 30 % off.
  const Outcome fit = Csim({"fit", scene, "--data", dir.File("data.h5"), "--param",
                            "materials.default.friction", "--set",
                            "materials.default.friction=0.35", "--window", "0:0.15", "-o",
                            dir.File("fit.h5")},
                           dir);
  INFO(fit.out << fit.err);
  REQUIRE(fit.status == 0);
  CHECK(Contains(fit.out, "status: converged"));
  CHECK(Contains(fit.out, "unidentifiable directions: none"));
  CHECK(Contains(fit.out, "--set materials.default.friction=0."));
  csim::io::Hdf5File file = csim::io::Hdf5File::Open(dir.File("fit.h5"),
                                                     csim::io::Hdf5File::Mode::kReadOnly);
  const std::vector<double> values = file.OpenDataset("fit/values").ReadDoubles();
  REQUIRE(values.size() == 1);
  CHECK(std::abs(values[0] / 0.5 - 1.0) < 1e-6);
  const std::vector<double> summary = file.OpenDataset("fit/summary").ReadDoubles();
  REQUIRE(summary.size() == 5);
  CHECK(summary[1] <= 20);  // iterations
  CHECK(file.OpenDataset("fit/history").rows() == static_cast<hsize_t>(summary[1]));
  CHECK(file.OpenDataset("fit/parameters").ReadStrings() ==
        std::vector<std::string>{"materials.default.friction"});
}

TEST_CASE("csim fit refuses an unidentifiable request with a message", "[cli][fit]") {
  TempDir dir;
  const std::string scene = Scene("sliding_box.yaml");
  // A box that never slides: its motion does not depend on friction.
  const Outcome run = Csim({"run", scene, "-q", "-o", dir.File("rest.h5"), "--duration", "0.1",
                            "--set", "bodies.box.velocity.linear=[0,0,0]"},
                           dir);
  REQUIRE(run.status == 0);
  const Outcome fit = Csim({"fit", scene, "--data", dir.File("rest.h5"), "--param",
                            "materials.default.friction", "--set",
                            "bodies.box.velocity.linear=[0,0,0]", "-o", dir.File("fit.h5")},
                           dir);
  CHECK(fit.status == 1);
  CHECK(Contains(fit.err, "'materials.default.friction' is not identifiable"));
  CHECK_FALSE(fs::exists(dir.File("fit.h5")));
  // Two runs that would both start from the scene's one initial state.
  const Outcome ensemble = Csim({"fit", scene, "--data", dir.File("rest.h5"), "--data",
                                 dir.File("rest.h5"), "--param", "materials.default.friction",
                                 "-o", dir.File("fit.h5")},
                                dir);
  CHECK(ensemble.status == 1);
  CHECK(Contains(ensemble.err, "--initial-state: several --data files (2) with "
                               "--initial-state scene"));
  CHECK_FALSE(fs::exists(dir.File("fit.h5")));
  const Outcome state = Csim({"fit", scene, "--data", dir.File("rest.h5"), "--param",
                              "materials.default.friction", "--initial-state", "measured"},
                             dir);
  CHECK(state.status == 1);
  CHECK(Contains(state.err, "--initial-state: 'measured': expected scene or data"));
  const Outcome sigma = Csim({"fit", scene, "--data", dir.File("rest.h5"), "--param",
                              "materials.default.friction", "--sigma", "1e-3"},
                             dir);
  CHECK(sigma.status == 1);
  CHECK(Contains(sigma.err, "--sigma: '1e-3': expected POSITION,ANGLE"));
  // The initial state fitted from a CSV of one sample: its velocity is not seen.
  WriteFile(dir.File("one.csv"), "t,qw,qx,qy,qz,x,y,z\n0,1,0,0,0,0,0,0.055\n");
  const Outcome one = Csim({"fit", scene, "--data", dir.File("one.csv"), "--param",
                            "materials.default.friction", "--fit-initial-state"},
                           dir);
  CHECK(one.status == 1);
  CHECK(Contains(one.err, "one.csv: --fit-initial-state needs at least two measurement times"));
}

TEST_CASE("csim fit --bound holds a parameter at a bound the data pulls it beyond",
          "[cli][fit]") {
  TempDir dir;
  const std::string scene = Scene("sliding_box.yaml");
  const Outcome run = Csim({"run", scene, "-q", "-o", dir.File("data.h5"), "--duration", "0.15",
                            "--set", "settings.solver.relative_tolerance=1e-12"},
                           dir);
  REQUIRE(run.status == 0);
  // The truth 0.5 above the upper bound 0.3.
  const Outcome fit = Csim({"fit", scene, "--data", dir.File("data.h5"), "--param",
                            "materials.default.friction", "--set",
                            "materials.default.friction=0.25", "--bound",
                            "materials.default.friction=:0.3", "-o", dir.File("fit.h5")},
                           dir);
  INFO(fit.out << fit.err);
  REQUIRE(fit.status == 0);
  CHECK(Contains(fit.out, "at a bound (upper)"));
  CHECK(Contains(fit.out, "at a bound: materials.default.friction = 0.3, its upper bound"));
  CHECK(Contains(fit.out, "--set materials.default.friction=0.29999999999999999"));
  csim::io::Hdf5File file = csim::io::Hdf5File::Open(dir.File("fit.h5"),
                                                     csim::io::Hdf5File::Mode::kReadOnly);
  CHECK(file.OpenDataset("fit/values").ReadDoubles() == std::vector<double>{0.3});
  CHECK(file.OpenDataset("fit/verdicts").ReadStrings() == std::vector<std::string>{"at a bound"});
  CHECK(std::isnan(file.OpenDataset("fit/standard_errors").ReadDoubles()[0]));
  const std::vector<double> lo = file.OpenDataset("fit/lower_bound").ReadDoubles();
  REQUIRE(lo.size() == 1);
  CHECK((std::isinf(lo[0]) && lo[0] < 0));
  CHECK(file.OpenDataset("fit/upper_bound").ReadDoubles() == std::vector<double>{0.3});

  SECTION("bad bounds are refused with the option, the parameter and the problem") {
    auto refusal = [&](const std::vector<std::string>& bounds) {
      std::vector<std::string> args = {"fit", scene, "--data", dir.File("data.h5"), "--param",
                                       "materials.default.friction"};
      for (const std::string& b : bounds) args.insert(args.end(), {"--bound", b});
      const Outcome o = Csim(args, dir);
      CHECK(o.status == 1);
      return o.err;
    };
    CHECK(Contains(refusal({"materials.default.friction=0.6:0.2"}),
                   "--bound: 'materials.default.friction': the lower bound 0.6 is not below "
                   "the upper bound 0.2"));
    CHECK(Contains(refusal({"materials.default.friction=-1:"}),
                   "--bound: 'materials.default.friction': the lower bound -1 is negative"));
    CHECK(Contains(refusal({"materials.default.friction=low:0.8"}),
                   "--bound: 'materials.default.friction=low:0.8': 'low' is not a finite "
                   "number"));
    CHECK(Contains(refusal({"materials.default.friction=0.1"}),
                   "--bound: 'materials.default.friction=0.1': expected PATH=LO:HI"));
    CHECK(Contains(refusal({"materials.default.stiffness=1e5:1e8"}),
                   "--bound: 'materials.default.stiffness' is not among the --param paths"));
    CHECK(Contains(refusal({"materials.default.friction=0.1:", "materials.default.friction=:1"}),
                   "--bound: 'materials.default.friction' is bounded twice"));
    CHECK(Contains(refusal({"materials.default.friction=0.6:0.9"}),
                   "--bound: 'materials.default.friction' starts at 0.5 (the scene's value "
                   "after --set), outside its bounds [0.6, 0.9]"));
  }
}

// The rows of a csim output as CSV text: `t,q_0,...` at full precision, with a header.
// `columns` picks q's columns (empty: all).
std::string CsvOf(const std::string& h5, const std::vector<int>& columns = {}) {
  csim::io::Hdf5File file = csim::io::Hdf5File::Open(h5, csim::io::Hdf5File::Mode::kReadOnly);
  const std::vector<double> t = file.OpenDataset("time").ReadDoubles();
  const csim::io::Hdf5Dataset qd = file.OpenDataset("state/q");
  const std::vector<double> q = qd.ReadDoubles();
  const size_t nq = qd.row_size();
  std::vector<int> picked = columns;
  if (picked.empty())
    for (size_t k = 0; k < nq; ++k) picked.push_back(static_cast<int>(k));
  std::ostringstream out;
  out << "# time [s], joint coordinates\nt";
  for (int k : picked) out << ",q" << k;
  out << "\n";
  out.precision(17);
  for (size_t i = 0; i < t.size(); ++i) {
    out << t[i];
    for (int k : picked) out << "," << q[i * nq + k];
    out << "\n";
  }
  return out.str();
}

TEST_CASE("csim fit reads a CSV of the measured coordinates", "[cli][fit]") {
  TempDir dir;
  const std::string scene = Scene("sliding_box.yaml");
  const Outcome run = Csim({"run", scene, "-q", "-o", dir.File("data.h5"), "--duration", "0.15",
                            "--set", "settings.solver.relative_tolerance=1e-12"},
                           dir);
  REQUIRE(run.status == 0);
  WriteFile(dir.File("data.csv"), CsvOf(dir.File("data.h5")));
  const Outcome fit = Csim({"fit", scene, "--data", dir.File("data.csv"), "--param",
                            "materials.default.friction", "--set",
                            "materials.default.friction=0.35", "-o", dir.File("fit.h5")},
                           dir);
  INFO(fit.out << fit.err);
  REQUIRE(fit.status == 0);
  csim::io::Hdf5File file = csim::io::Hdf5File::Open(dir.File("fit.h5"),
                                                     csim::io::Hdf5File::Mode::kReadOnly);
  const std::vector<double> values = file.OpenDataset("fit/values").ReadDoubles();
  REQUIRE(values.size() == 1);
  CHECK(std::abs(values[0] / 0.5 - 1.0) < 1e-6);
  CHECK(file.OpenDataset("fit/summary").ReadDoubles()[1] <= 20);

  SECTION("bad rows are reported with the file and line") {
    const std::string good = CsvOf(dir.File("data.h5"));
    // Line 1 is the comment, line 2 the header, data from line 3.
    std::string text = good;
    size_t line5 = 0;
    for (int k = 0; k < 4; ++k) line5 = text.find('\n', line5) + 1;
    text.insert(line5, "0.025,1,0,zero,0,0,0,0.055\n");
    WriteFile(dir.File("word.csv"), text);
    const Outcome word = Csim({"fit", scene, "--data", dir.File("word.csv"), "--param",
                               "materials.default.friction"},
                              dir);
    CHECK(word.status == 1);
    CHECK(Contains(word.err, "word.csv:5: expected a row of numbers"));
    text = good;
    text.insert(line5, "0.025,1,0,0\n");
    WriteFile(dir.File("short.csv"), text);
    const Outcome narrow = Csim({"fit", scene, "--data", dir.File("short.csv"), "--param",
                                 "materials.default.friction"},
                                dir);
    CHECK(narrow.status == 1);
    CHECK(Contains(narrow.err, "short.csv:5: has 4 values; the first row 8"));
    text = good;
    text.insert(line5, "0.005,1,0,0,0,0,0,0.055\n");
    WriteFile(dir.File("back.csv"), text);
    const Outcome back = Csim({"fit", scene, "--data", dir.File("back.csv"), "--param",
                               "materials.default.friction"},
                              dir);
    CHECK(back.status == 1);
    CHECK(Contains(back.err, "back.csv:5: time 0.005"));
    CHECK(Contains(back.err, "does not increase"));
    WriteFile(dir.File("wide.csv"), "0,1,0,0,0,0,0,0.055,7\n0.01,1,0,0,0,0.01,0,0.055,7\n");
    const Outcome wide = Csim({"fit", scene, "--data", dir.File("wide.csv"), "--param",
                               "materials.default.friction"},
                              dir);
    CHECK(wide.status == 1);
    CHECK(Contains(wide.err, "wide.csv:1: has 8 coordinates after t; expected t and the "
                             "scene's 7 joint coordinates"));
  }
}

TEST_CASE("csim fit --observe fits a CSV of the observed joint only, weighted", "[cli][fit]") {
  TempDir dir;
  WriteFile(dir.File("two.yaml"), csim::testing::TwoBoxesOnTheGroundScene());
  const Outcome run = Csim({"run", dir.File("two.yaml"), "-q", "-o", dir.File("data.h5")}, dir);
  REQUIRE(run.status == 0);
  // Box a's 7 coordinates only (quaternion, position): q_0 ... q_6 of the scene.
  WriteFile(dir.File("a.csv"), CsvOf(dir.File("data.h5"), {0, 1, 2, 3, 4, 5, 6}));
  const Outcome fit = Csim({"fit", dir.File("two.yaml"), "--data", dir.File("a.csv"), "--observe", "a",
                            "--sigma", "1e-3,1e-2", "--param", "materials.default.friction",
                            "--set", "materials.default.friction=0.35", "-o", dir.File("fit.h5")},
                           dir);
  INFO(fit.out << fit.err);
  REQUIRE(fit.status == 0);
  CHECK(Contains(fit.out, "6 observed coordinates: weighted by 1/sigma"));
  csim::io::Hdf5File file = csim::io::Hdf5File::Open(dir.File("fit.h5"),
                                                     csim::io::Hdf5File::Mode::kReadOnly);
  CHECK(std::abs(file.OpenDataset("fit/values").ReadDoubles()[0] / 0.5 - 1.0) < 1e-6);
  CHECK(file.OpenDataset("fit/observed").ReadStrings() == std::vector<std::string>{"a"});
  CHECK(file.OpenDataset("fit/sigma").ReadDoubles() == std::vector<double>{1e-3, 1e-2});
  // Box b's columns alone, observed: b never slides, friction is unseen.
  WriteFile(dir.File("b.csv"), CsvOf(dir.File("data.h5"), {7, 8, 9, 10, 11, 12, 13}));
  const Outcome rest = Csim({"fit", dir.File("two.yaml"), "--data", dir.File("b.csv"), "--observe",
                             "b", "--param", "materials.default.friction"},
                            dir);
  CHECK(rest.status == 1);
  CHECK(Contains(rest.err, "'materials.default.friction' is not identifiable"));
}

TEST_CASE("csim fit: an ensemble of runs from their data's initial states", "[cli][fit]") {
  TempDir dir;
  const std::string scene = Scene("sliding_box.yaml");
  const std::vector<std::string> launches = {"[1,0,0]", "[0.8,0.3,0]"};
  std::vector<std::string> args = {"fit", scene};
  for (size_t k = 0; k < launches.size(); ++k) {
    const std::string out = dir.File("run" + std::to_string(k) + ".h5");
    const Outcome run = Csim({"run", scene, "-q", "-o", out, "--duration", "0.15", "--set",
                              "settings.solver.relative_tolerance=1e-12", "--set",
                              "bodies.box.velocity.linear=" + launches[k]},
                             dir);
    REQUIRE(run.status == 0);
    args.insert(args.end(), {"--data", out});
  }
  args.insert(args.end(), {"--initial-state", "data", "--param", "materials.default.friction",
                           "--param", "joints.box.v[3]", "--set",
                           "materials.default.friction=0.35", "-o", dir.File("fit.h5")});
  const Outcome fit = Csim(args, dir);
  INFO(fit.out << fit.err);
  REQUIRE(fit.status == 0);
  CHECK(Contains(fit.out, "2 runs"));
  CHECK(Contains(fit.out, "joints.box.v[3] (data 1)"));
  csim::io::Hdf5File file = csim::io::Hdf5File::Open(dir.File("fit.h5"),
                                                     csim::io::Hdf5File::Mode::kReadOnly);
  const std::vector<double> values = file.OpenDataset("fit/values").ReadDoubles();
  REQUIRE(values.size() == 3);  // the friction, then each run's v[3]
  CHECK(std::abs(values[0] / 0.5 - 1.0) < 1e-6);
  CHECK(std::abs(values[1] / 1.0 - 1.0) < 1e-6);
  CHECK(std::abs(values[2] / 0.8 - 1.0) < 1e-6);
  CHECK(file.OpenDataset("fit/data").ReadStrings().size() == 2);
  CHECK(file.OpenDataset("fit/scales").ReadStrings() ==
        std::vector<std::string>{"log", "linear", "linear"});
  const std::vector<double> v = file.OpenDataset("fit/initial_v").ReadDoubles();
  REQUIRE(v.size() == 2 * 6);
  CHECK(v[6 + 4] == Approx(0.3).epsilon(1e-9));  // run 1's initial y velocity
}

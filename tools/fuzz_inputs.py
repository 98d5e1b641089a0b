#!/usr/bin/python3
"""Feed csim damaged and extreme inputs and check the promises of docs/cli.md hold.

Six kinds of input from a seeded generator (same arguments, same cases); the first five
are mutations of a sound one:

  scenes   the scenes of scenes/ with a key deleted, duplicated or given a value of the
           wrong kind (strings, lists, NaN, infinities, huge and tiny numbers), or with
           bytes of the text overwritten or the text cut short;
  numbers  the same scenes with 1-3 numbers scaled by 1e-30..1e30, negated, zeroed or
           perturbed: well-formed scenes with extreme physics;
  cli      `csim run` with --set overrides and options given odd values and paths;
  meshes   a scene of two mesh bodies whose OBJ or STL file is damaged, cut short,
           degenerate, non-convex or scaled to nothing or to 1e200;
  outputs  a csim output file with bytes overwritten or cut short, read by `csim info`
           and `csim export-html`;
  signals  a run of clutter_40, rope_100 or bouncing_balls on 1 or 2 threads sent SIGINT
           or SIGTERM (30 % of the cases twice, up to 50 ms apart) 0-1.5 s after its
           start: it must exit 0 (finished first) or 130 / 143, or die by the signal (one
           that came before csim set its handlers, or a second one); a file it leaves
           must pass check_output.py, and only a run stopped before its first step may
           leave none (cli.md).

The signals cases depend on the machine's timing (when the signal lands); everything else
is deterministic.

A case fails when csim dies of a signal it was not sent, exits with a status cli.md does not list, fails
without a word on stderr, reports a sanitizer error on stderr (a binary built with
-DCSIM_SANITIZE=ON: AddressSanitizer, LeakSanitizer or UBSan, whose exit status 1 would
otherwise pass for invalid input), names no file in an invalid-input message about a
scene, does not end within 30 s of the SIGINT it gets after --timeout seconds (a mutated
time step can ask for 1e11 steps: a long run, not a hang), or leaves an output file that
tools/check_output.py rejects after a run that completed, failed or was
interrupted. Failing inputs are copied to --keep. Prints a table of exit statuses
per kind (markdown with --markdown, with the time each binary took) and exits 1 if any
case failed. Several --csim binaries (the normal and the sanitized build) each run the
same cases.

The runs of the first four kinds are short (--duration 0.05 s of simulated time), so
they test the loader, the checks and the first steps.
"""

import argparse
import collections
import datetime
import os
import random
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

import yaml

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KINDS = ("scenes", "numbers", "cli", "meshes", "outputs", "signals")
STATUSES = {0: "0 completed", 1: "1 invalid input", 2: "2 usage", 3: "3 failed",
            4: "4 I/O error", 130: "130 SIGINT", 143: "143 SIGTERM"}
ODD_VALUES = [-1, 0, -0.0, 1e308, -1e308, 1e-320, float("nan"), float("inf"),
              float("-inf"), "abc", [], {}, None, True, 3, 2.5, [1, 2], [1, 2, 3, 4],
              [float("nan"), 0, 0], 1e9, -1e9, "", "0x10", 1e-12]
# The first line of a report of AddressSanitizer, LeakSanitizer or UBSan on stderr.
SANITIZER_REPORT = re.compile(r"^.*(ERROR: \w*Sanitizer|runtime error: ).*$", re.MULTILINE)


def sanitizer_report(stderr):
    """The report's first line and its first frames when `stderr` holds one, else ""."""
    m = SANITIZER_REPORT.search(stderr or "")
    return stderr[m.start():][:600] if m else ""


def hdf5_fault(report):
    """True when the report's faulting frame (the first past the sanitizer's own interceptor)
    is inside libhdf5: a damaged file's fault in the HDF5 library, which csim reads in a child
    process (app/reader_process.h) so that it ends as an I/O error, not a crash of csim."""
    frames = [l for l in report.splitlines() if re.match(r"\s*#\d+ ", l)]
    frames = [l for l in frames if "libsanitizer" not in l and "__interceptor" not in l]
    return bool(frames) and "libhdf5" in frames[0]


def sanitizers_of(binary):
    """The sanitizers `binary` was built with (their runtime's symbols in it)."""
    data = open(binary, "rb").read()
    return [name for name, symbol in (("AddressSanitizer", b"__asan_init"),
                                      ("UndefinedBehaviorSanitizer", b"__ubsan_handle_"))
            if symbol in data]


class Fuzzer:
    def __init__(self, args, binary):
        self.args = args
        self.binary = binary
        self.rng = random.Random(args.seed)
        self.work = tempfile.mkdtemp(prefix="csim_fuzz_")
        self.scenes = sorted(os.path.join(REPO, "scenes", f)
                             for f in os.listdir(os.path.join(REPO, "scenes"))
                             if f.endswith(".yaml"))
        self.statuses = collections.defaultdict(collections.Counter)
        self.failures = []
        self.check = os.path.join(REPO, "tools", "check_output.py")

    # ---- running csim -------------------------------------------------------------------

    def csim(self, kind, case, argv, output=None, scene_name=None):
        """Runs csim, records its status and returns it (None when it failed a promise)."""
        process = subprocess.Popen([self.binary] + argv, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True, errors="replace")
        try:
            _, stderr = process.communicate(timeout=self.args.timeout)
        except subprocess.TimeoutExpired:
            # A mutated time step of 1e-13 s asks for 5e11 steps: a long run, not a hang.
            # cli.md's promise for it: SIGINT ends it within a step, keeping the file.
            process.send_signal(signal.SIGINT)
            try:
                _, stderr = process.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.communicate()
                return self.fail(kind, case, f"still running 30 s after SIGINT", argv)
        status = process.returncode
        self.statuses[kind][STATUSES.get(status, f"{status} (unlisted)")] += 1
        report = sanitizer_report(stderr)
        if report and kind == "outputs" and hdf5_fault(report):
            report = ""  # contained in the reader process; the exit status is checked below
        if report:
            return self.fail(kind, case, "sanitizer report", argv, report)
        if status < 0:
            return self.fail(kind, case, f"died of signal {-status}", argv, stderr)
        if status not in STATUSES:
            return self.fail(kind, case, f"exit status {status} is not in cli.md", argv,
                             stderr)
        if status not in (0, 130, 143) and not stderr.strip():  # -q hides the interruption
            return self.fail(kind, case, f"exit status {status} without a message", argv)
        if status == 1 and scene_name and scene_name not in stderr:
            return self.fail(kind, case, "invalid input without the file's name", argv,
                             stderr)
        if output and status in (0, 3, 130) and os.path.exists(output):
            problems = self.output_problems(output)
            if problems:
                return self.fail(kind, case, "output rejected by check_output.py", argv,
                                 problems)
        return status

    def output_problems(self, output):
        """check_output.py's report on `output`, or "" when it accepts the file."""
        c = subprocess.run(["/usr/bin/python3", self.check, output], capture_output=True,
                           text=True)
        return "" if c.returncode == 0 else c.stdout + c.stderr

    def fail(self, kind, case, what, argv, stderr=""):
        kept = []  # the case's own inputs (the command line names the rest)
        inputs = {"scenes": ["case.yaml"], "numbers": ["case.yaml"],
                  "meshes": ["case.yaml", "mesh.obj", "mesh.stl"], "outputs": ["damaged.h5"]}
        os.makedirs(self.args.keep, exist_ok=True)
        for name in inputs.get(kind, []):
            if os.path.isfile(self.path(name)):
                dest = os.path.join(self.args.keep, f"{kind}_{case}_{name}")
                shutil.copy(self.path(name), dest)
                kept.append(dest)
        excerpt = stderr.strip() if what == "sanitizer report" else stderr.strip()[-300:]
        self.failures.append((kind, case, what, " ".join(argv), excerpt, kept))
        print(f"FAIL {kind} #{case}: {what}: {' '.join(argv)}\n  {excerpt}", flush=True)
        return None

    def path(self, name):
        return os.path.join(self.work, name)

    def run_scene(self, kind, case, text, extra=()):
        scene = self.path("case.yaml")
        output = self.path("case.h5")
        with open(scene, "w", encoding="utf-8", errors="replace") as f:
            f.write(text)
        if os.path.exists(output):
            os.remove(output)
        argv = ["run", scene, "-o", output, "--duration", "0.05", "--no-progress", "-q",
                *extra]
        self.csim(kind, case, argv, output=output, scene_name="case.yaml")

    # ---- the kinds --------------------------------------------------------------------

    def scenes_case(self, case):
        text = open(self.rng.choice(self.scenes)).read()
        if self.rng.random() < 0.7:
            text = self.mutate_structure(text)
        else:
            text = self.mutate_bytes(text.encode()).decode("utf-8", errors="replace")
        self.run_scene("scenes", case, text)

    def numbers_case(self, case):
        doc = yaml.safe_load(open(self.rng.choice(self.scenes)))
        leaves = [p for p, v in leaves_of(doc)
                  if isinstance(v, (int, float)) and not isinstance(v, bool)]
        for _ in range(self.rng.randint(1, 3)):
            p = self.rng.choice(leaves)
            v = get(doc, p)
            r = self.rng.random()
            if r < 0.5:
                v = v * 10.0 ** self.rng.randint(-30, 30)
            elif r < 0.7:
                v = -v
            elif r < 0.85:
                v = 0
            else:
                v = v * (1 + self.rng.uniform(-1, 1))
            put(doc, p, v)
        self.run_scene("numbers", case, yaml.safe_dump(doc, sort_keys=False))

    def cli_case(self, case):
        values = ["", "0", "-1", "1e-3", "nan", "inf", "-inf", "1e308", "abc", "[1,2]",
                  "{a: 1}", "null", "~", "'x'", "0.01", "2", "1e-300", "[", "]", "{", ":",
                  "&a", "*a", "!!binary AAAA", "\x01", "999999999999999999999"]
        keys = ["settings.time_step", "settings.duration", "settings.integrator",
                "settings.contact_model", "settings.solver.relative_tolerance",
                "settings.solver.max_iterations", "bodies.0.mass",
                "bodies[0].geometry[0].radius", "materials.default.friction",
                "settings.output.every", "settings.output", "bodies", "settings", "", ".",
                "..", "bodies.99.mass", "bodies[-1].mass", "settings.gravity",
                "settings.gravity.0", "csim", "name", "joints", "settings.threads"]
        scene = os.path.join(REPO, "scenes", "bouncing_balls.yaml")
        output = self.path("cli.h5")
        if os.path.exists(output):
            os.remove(output)
        argv = ["run", scene, "-q", "--no-progress", "--duration", "0.02", "-o", output]
        for _ in range(self.rng.randint(1, 4)):
            if self.rng.random() < 0.6:
                argv += ["--set", f"{self.rng.choice(keys)}={self.rng.choice(values)}"]
            else:
                option = self.rng.choice(["--dt", "--duration", "--integrator",
                                          "--contact-model", "--threads", "-o"])
                value = self.rng.choice(values)
                if option == "-o":
                    value = self.rng.choice([output, "", "/", self.work, scene,
                                             "/proc/csim_fuzz.h5", self.path("a b.h5")])
                argv += [option, value]
        self.csim("cli", case, argv)

    def meshes_case(self, case):
        ext = self.rng.choice(["obj", "stl"])
        sound = open(os.path.join(REPO, "tests", "data", f"unit_cube.{ext}"), "rb").read()
        r = self.rng.random()
        if r < 0.2:
            data = sound  # the extreme scales and masses alone
        elif ext == "obj" and r < 0.6:
            data = self.random_obj()
        elif ext == "stl" and len(sound) > 84 and r < 0.45:
            damaged = bytearray(sound)  # a binary STL's triangle count
            struct.pack_into("<I", damaged, 80,
                             self.rng.choice([0, 1, 2**31, 2**32 - 1, 11, 13]))
            data = bytes(damaged)
        else:
            data = self.mutate_bytes(sound, b"0123456789-.e+ \nvf/#\x00\xffnaif")
        mesh = self.path(f"mesh.{ext}")
        with open(mesh, "wb") as f:
            f.write(data)
        scale = self.rng.choice(["[1, 1, 1]", "[0.2, 0.2, 0.2]", "[1e-9, 1, 1]",
                                 "[0, 1, 1]", "[-1, 1, 1]", "[1e200, 1e200, 1e200]"])
        mass = self.rng.choice(["1.0", "1e-12", "1e12"])
        text = f"""csim: 1
name: mesh_fuzz
settings: {{time_step: 1.0e-3, duration: 0.05}}
world:
  geometry: [{{shape: halfspace}}]
bodies:
  - name: m
    mass: {mass}
    pose: {{position: [0, 0, 0.6]}}
    geometry: [{{shape: mesh, file: {mesh}, scale: {scale}}}]
  - name: m2
    mass: 1.0
    pose: {{position: [0.3, 0.1, 2.0]}}
    geometry: [{{shape: mesh, file: {mesh}, scale: [0.3, 0.3, 0.3]}}]
"""
        self.run_scene("meshes", case, text)

    def outputs_case(self, case):
        sound = self.path("sound.h5")
        if not os.path.exists(sound):
            r = subprocess.run([self.binary, "run",
                                os.path.join(REPO, "scenes", "bouncing_balls.yaml"), "-o",
                                sound, "--duration", "0.2", "-q", "--no-progress"],
                               stderr=subprocess.PIPE, text=True, errors="replace")
            if r.returncode != 0 or sanitizer_report(r.stderr):
                sys.exit("fuzz_inputs.py: cannot make the sound output file\n" + r.stderr)
        data = bytearray(open(sound, "rb").read())
        if self.rng.random() < 0.3:
            data = data[:self.rng.randrange(len(data))]
        else:
            for _ in range(self.rng.randint(1, 50)):
                data[self.rng.randrange(len(data))] = self.rng.randrange(256)
        damaged = self.path("damaged.h5")
        with open(damaged, "wb") as f:
            f.write(data)
        page = self.path("damaged.html")
        self.csim("outputs", case, ["info", damaged])
        self.csim("outputs", case, ["export-html", damaged, "-o", page])

    def signals_case(self, case):
        scene = os.path.join(REPO, "scenes", self.rng.choice(
            ["clutter_40.yaml", "rope_100.yaml", "bouncing_balls.yaml"]))
        output = self.path("signals.h5")
        if os.path.exists(output):
            os.remove(output)
        argv = ["run", scene, "-o", output, "-q", "--threads", self.rng.choice(["1", "2"])]
        number = self.rng.choice([signal.SIGINT, signal.SIGTERM])
        twice = self.rng.random() < 0.3
        delays = (self.rng.uniform(0.0, 1.5), self.rng.uniform(0.0, 0.05))
        process = subprocess.Popen([self.binary] + argv, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, text=True, errors="replace")
        time.sleep(delays[0])
        process.send_signal(number)
        if twice:
            time.sleep(delays[1])
            process.send_signal(number)
        try:
            _, stderr = process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            return self.fail("signals", case, f"still running 30 s after {number.name}", argv)
        status = process.returncode
        self.statuses["signals"][STATUSES.get(status, f"{status} (signal)" if status < 0
                                              else f"{status} (unlisted)")] += 1
        report = sanitizer_report(stderr)
        if report:
            return self.fail("signals", case, "sanitizer report", argv, report)
        # -number: the signal came before csim's handlers (or a second one ended it at once).
        allowed = {0, 128 + number, -number}
        what = f"{number.name}{' twice' if twice else ''} after {delays[0]:.2f} s"
        if status not in allowed:
            return self.fail("signals", case, f"exit status {status} after {what}", argv,
                             stderr)
        if os.path.exists(output):
            problems = self.output_problems(output)
            if problems:
                return self.fail("signals", case, f"output rejected after {what}", argv,
                                 problems)
        elif status == 0:  # no file is right only when stopped before the first step
            return self.fail("signals", case, f"completed without a file after {what}", argv,
                             stderr)

    # ---- mutations --------------------------------------------------------------------

    def mutate_structure(self, text):
        doc = yaml.safe_load(text)
        for _ in range(self.rng.randint(1, 3)):
            inner = [p for p, _ in leaves_of(doc, with_inner=True) if p]
            if not inner:
                break
            p = self.rng.choice(inner)
            parent = get(doc, p[:-1])
            r = self.rng.random()
            if r < 0.6:
                parent[p[-1]] = self.rng.choice(ODD_VALUES)
            elif r < 0.8:
                del parent[p[-1]]
            elif isinstance(parent, list):
                parent.append(parent[p[-1]])
            else:
                parent[f"{p[-1]}_x"] = parent[p[-1]]
        return yaml.safe_dump(doc, sort_keys=False)

    def mutate_bytes(self, data, alphabet=b"{}[]:,-\t\n #&*!|>'\"%@`0123456789.e\x00\xff"):
        data = bytearray(data)
        if self.rng.random() < 0.3:
            return bytes(data[:self.rng.randint(0, len(data))])
        for _ in range(self.rng.randint(1, 5)):
            data[self.rng.randrange(len(data))] = self.rng.choice(alphabet)
        return bytes(data)

    def random_obj(self):
        n = self.rng.randint(1, 12)
        lines = [f"v {self.rng.uniform(-1, 1)} {self.rng.uniform(-1, 1)} "
                 f"{self.rng.choice([self.rng.uniform(-1, 1), 0.0])}" for _ in range(n)]
        for _ in range(self.rng.randint(0, 20)):
            lines.append("f " + " ".join(str(self.rng.randint(-n - 1, n + 1))
                                         for _ in range(self.rng.randint(1, 5))))
        return "\n".join(lines).encode()


def leaves_of(node, prefix=(), with_inner=False):
    if with_inner or not isinstance(node, (dict, list)):
        yield prefix, node
    if isinstance(node, dict):
        for k, v in node.items():
            yield from leaves_of(v, prefix + (k,), with_inner)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from leaves_of(v, prefix + (i,), with_inner)


def get(doc, path):
    for p in path:
        doc = doc[p]
    return doc


def put(doc, path, value):
    get(doc, path[:-1])[path[-1]] = value


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--csim", nargs="+",
                        default=[os.path.join(REPO, "build", "app", "csim")],
                        help="csim executables, each run on the same cases (e.g. "
                             "build/app/csim build/sanitized/csim)")
    parser.add_argument("--kinds", nargs="+", choices=KINDS, default=list(KINDS))
    parser.add_argument("--cases", type=int, default=200, help="cases per kind")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=20.0,
                        help="seconds before a run gets SIGINT (it must then end within "
                             "30 s, exit 130 and keep a sound file)")
    parser.add_argument("--keep", default="fuzz_failures",
                        help="directory for the inputs of failing cases")
    parser.add_argument("--markdown", help="write the table of exit statuses here")
    args = parser.parse_args()
    for binary in args.csim:
        if not os.access(binary, os.X_OK):
            sys.exit(f"fuzz_inputs.py: no csim executable at {binary} (build first)")

    sections, failed = [], False
    for binary in args.csim:
        sanitizers = sanitizers_of(binary)
        print(f"csim: {binary} ({', '.join(sanitizers) or 'no sanitizers'})", flush=True)
        start = time.monotonic()
        fuzzer = Fuzzer(args, binary)
        try:
            for kind in args.kinds:
                for case in range(args.cases):
                    getattr(fuzzer, f"{kind}_case")(case)
        finally:
            shutil.rmtree(fuzzer.work, ignore_errors=True)
        minutes = (time.monotonic() - start) / 60
        table = status_table(fuzzer, args.kinds)
        print(table + f"\n{minutes:.1f} min", flush=True)
        failed = failed or bool(fuzzer.failures)
        sections.append((binary, sanitizers, minutes, table, fuzzer.failures))
    if args.markdown:
        write_markdown(args, sections)
    return 1 if failed else 0


def status_table(fuzzer, kinds):
    """A markdown table of csim's exit statuses and the failures, a row per kind."""
    columns = sorted({s for c in fuzzer.statuses.values() for s in c},
                     key=lambda s: (int(s.split()[0]) < 0, abs(int(s.split()[0]))))
    lines = ["| kind | runs of csim | " + " | ".join(columns) + " | failures |",
             "|---" * (len(columns) + 3) + "|"]
    for kind in kinds:
        c = fuzzer.statuses[kind]
        failed = sum(1 for f in fuzzer.failures if f[0] == kind)
        lines.append(f"| {kind} | {sum(c.values())} | "
                     + " | ".join(str(c.get(s, 0)) for s in columns) + f" | {failed} |")
    return "\n".join(lines)


def write_markdown(args, sections):
    with open(args.markdown, "w") as f:
        f.write("# Damaged and extreme inputs (tools/fuzz_inputs.py)\n\n")
        commit = subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True).stdout.strip() or "?"
        f.write("Generated by `tools/fuzz_inputs.py " + " ".join(sys.argv[1:]) +
                f"` at commit {commit} on {datetime.date.today().isoformat()}, "
                f"{os.cpu_count()} cores.\n\n")
        f.write(__doc__.split("\n\n", 1)[1].strip() + "\n")
        for binary, sanitizers, minutes, table, failures in sections:
            built = ("built with " + " and ".join(sanitizers) if sanitizers
                     else "built without sanitizers")
            shown = os.path.relpath(binary, REPO)
            shown = binary if shown.startswith("..") else shown
            f.write(f"\n## csim: {shown}\n\n"
                    f"{built}; {args.cases} cases per kind took {minutes:.1f} min.\n\n"
                    "Exit statuses of csim per kind of input (a case of `outputs` runs "
                    "`info` and `export-html`, so it counts twice):\n\n" + table + "\n")
            if failures:
                f.write("\nFailures:\n\n")
                for kind, case, what, argv, stderr, _ in failures:
                    f.write(f"- {kind} #{case}: {what}: `{argv}`\n")


if __name__ == "__main__":
    sys.exit(main())

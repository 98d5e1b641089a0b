#!/usr/bin/python3
"""csim parameter sweeps: expand a description into runs, run them in parallel (GNU
parallel) or as a Slurm job array, and collect one CSV of scalars.

A sweep description is YAML (a grid, optionally times a list of rows) or TSV (one run
per line). YAML:

    scene: scenes/spring_cylinder.yaml       # a value or a list (list = grid axis)
    duration: 1.0                            # idem
    dt: [0.02, 0.01, 0.005]                  # grid axes: dt, integrator, contact_model,
    integrator: [midpoint, symplectic_euler] #   scene, duration
    set:                                     # --set overrides; a list is a grid axis
      materials.default.friction: [0.5, 1.0]
      settings.output.every: 1
    rows:                                    # optional explicit list, crossed with the grid
      - {set: {bodies.cylinder.mass: 0.5}}
      - {set: {bodies.cylinder.mass: 1.0}, duration: 2.0}
    collect:                                 # final-state columns: NAME: expression
      x_end: q[0]                            #   (csimpy.Run.value: q[i], v[i], energy,
      z_end: bodies.cylinder.position.z      #   bodies.B.position.z, joints.J.q[k], ...)

TSV: a header naming columns among scene, dt, duration, integrator, contact_model and
`set:PATH` (one per override path), then one run per line; an empty cell leaves that
setting to the scene. Collected columns then come from `--collect NAME=EXPR`.

A relative scene path is looked up from the current directory, then the description's
folder, then the repository root. Every run has a stable id: the first 12 hex digits of the SHA-1 of its parameters (scene
as written, dt, duration, integrator, contact model, overrides), so re-expanding an edited
description keeps the ids, outputs and results of the rows that did not change.

Layout of the sweep directory DIR:
    DIR/sweep.json          the expansion (rows, their ids and csim arguments, collect list)
    DIR/runs/ID.h5|.log|.json   each run's output, csim's stderr, its collected scalars
    DIR/joblog-HASH.tsv     GNU parallel's job log of this expansion (resume)
    DIR/results.csv         one line per run: parameters, status, exit code, wall time,
                            steps, mean/max iterations, max momentum error, energies,
                            contacts, the collect columns, failure reason, output file

Examples (from the repository root, after building build/app/csim):
    tools/csim_sweep.py run tools/sweeps/spring_cylinder_dt.yaml -o /tmp/sweep -j 2
    tools/csim_sweep.py run tools/sweeps/spring_cylinder_dt.yaml -o /tmp/sweep -j 2   # resumes: nothing to do
    tools/csim_sweep.py expand sweep.tsv -o /tmp/sweep2 && tools/csim_sweep.py collect /tmp/sweep2
    tools/csim_sweep.py slurm tools/sweeps/spring_cylinder_dt.yaml -o /shared/sweep --throttle 4

`run` = `expand` + GNU parallel over `run-one DIR INDEX` + `collect`; `slurm` = `expand` +
`sbatch --array=0-(N-1)%K tools/slurm/sweep_task.sbatch` + a collection job
(`tools/slurm/sweep_collect.sbatch`) that starts `--dependency=afterok:ARRAY_JOB`.
A row already collected (DIR/runs/ID.json exists) is skipped unless `run-one --force`.
`run-one` exits 0 whenever csim gave a result (completed, failed, or invalid input), so
those rows are final; an I/O error, an interruption or an output that cannot be read
exits non-zero, writes no DIR/runs/ID.json, and is retried by the next `run` (parallel
--resume-failed). `expand`, `run` and `slurm` hold DIR/.lock while they write the
directory: a second sweep on the same directory is refused, naming the holder. A
description that cannot be expanded is reported as `FILE[:LINE:COL]: problem`. SIGINT or
SIGTERM to `run` lets the running rows finish, starts no other, collects and exits 130/143;
the same command resumes.
"""
import argparse
import contextlib
import csv
import fcntl
import hashlib
import itertools
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(HERE, "python"))

AXES = ("scene", "duration", "dt", "integrator", "contact_model")
OPTION = {"dt": "--dt", "duration": "--duration", "integrator": "--integrator",
          "contact_model": "--contact-model"}
SCALARS = ("status", "exit_code", "wall_time_s", "step_wall_time_s", "steps", "t_end",
           "mean_iterations", "max_iterations", "max_momentum_error", "energy_initial",
           "energy_final", "energy_rel_change", "energy_rel_band", "mean_contacts",
           "max_contacts")
EXIT_STATUS = {0: "completed", 1: "invalid_input", 2: "usage_error", 3: "failed",
               4: "io_error", 130: "interrupted", 143: "interrupted"}
FINAL_EXIT = (0, 1, 3)  # results that a rerun would only repeat


def yaml_text(value):
    """A --set VALUE as YAML text (lists and mappings in flow style)."""
    if isinstance(value, str):
        return value
    import yaml
    return yaml.safe_dump(value, default_flow_style=True).strip().removesuffix("\n...").strip()


def run_id(params):
    """Stable id of a row: SHA-1 of its parameters as canonical JSON, 12 hex digits."""
    blob = json.dumps(params, sort_keys=True, separators=(",", ":"))
    return hashlib.sha1(blob.encode()).hexdigest()[:12]


def as_list(value):
    return list(value) if isinstance(value, (list, tuple)) else [value]


def expand_yaml(spec):
    """Rows (dicts of parameters) of a YAML description: the grid crossed with `rows`."""
    unknown = set(spec) - set(AXES) - {"set", "rows", "collect", "name"}
    if unknown:
        raise SystemExit(f"unknown keys in the sweep description: {', '.join(sorted(unknown))}")
    axes = [(k, as_list(spec[k])) for k in AXES if k in spec]
    axes += [("set:" + path, as_list(v)) for path, v in (spec.get("set") or {}).items()]
    extra = spec.get("rows") or [{}]
    rows = []
    for combo in itertools.product(*[values for _, values in axes]):
        base = dict(zip([k for k, _ in axes], combo))
        for row in extra:
            r = dict(base)
            for k, v in row.items():
                if k == "set":
                    r.update({"set:" + p: val for p, val in v.items()})
                elif k in AXES:
                    r[k] = v
                else:
                    raise SystemExit(f"unknown key {k!r} in a row of the sweep description")
            rows.append(r)
    return rows


def read_yaml_spec(path):
    """Rows, collect map and name of a YAML description; a description that cannot be
    expanded exits with `PATH[:LINE:COL]: problem` rather than a traceback."""
    import yaml
    try:
        with open(path) as f:
            spec = yaml.safe_load(f) or {}
    except OSError as e:
        raise SystemExit(f"{path}: cannot read the sweep description: {e.strerror}")
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else path
        raise SystemExit(f"{where}: invalid YAML: {getattr(e, 'problem', None) or e}")
    if not isinstance(spec, dict):
        raise SystemExit(f"{path}: a sweep description is a map (axes, set, rows, collect, name)")
    collect = spec.get("collect") or {}
    if not isinstance(collect, dict) or not all(isinstance(v, str) for v in collect.values()):
        raise SystemExit(f"{path}: collect maps column names to expressions such as q[0]")
    try:
        rows = expand_yaml(spec)
        for row in rows:
            canonical(row)  # the axis values' types are checked here, before any run
    except (TypeError, ValueError, AttributeError) as e:
        raise SystemExit(f"{path}: cannot expand the sweep description: {e}")
    return rows, dict(collect), spec.get("name", os.path.splitext(os.path.basename(path))[0])


@contextlib.contextmanager
def locked_sweep_dir(d):
    """Holds DIR/.lock while a command writes the sweep directory: a second `run` or
    `expand` on it would rewrite sweep.json under the first and run every row twice."""
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, ".lock"), "a+") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.seek(0)
            owner = lock.read().strip() or "another process"
            raise SystemExit(f"{d}: the sweep directory is in use by {owner}")
        lock.truncate(0)
        lock.write(f"pid {os.getpid()} on {platform.node()}\n")
        lock.flush()
        yield


def expand_tsv(path):
    with open(path, newline="") as f:
        reader = csv.DictReader((line for line in f if line.strip() and not line.startswith("#")),
                                delimiter="\t")
        rows = []
        for line in reader:
            bad = [k for k in line if k not in AXES and not k.startswith("set:")]
            if bad:
                raise SystemExit(f"{path}: unknown column(s) {', '.join(bad)}")
            r = {}
            for k, v in line.items():
                if v is None or v.strip() == "":
                    continue
                v = v.strip()
                if k in ("dt", "duration"):
                    v = float(v)
                r[k] = v
            rows.append(r)
    return rows


def canonical(row):
    """The parameters that define a run (and its id): overrides as [path, YAML text]."""
    params = {}
    for k in AXES:
        if k in row:
            params[k] = float(row[k]) if k in ("dt", "duration") else str(row[k])
    params["set"] = [[k[4:], yaml_text(v)] for k, v in row.items() if k.startswith("set:")]
    if "scene" not in params:
        raise SystemExit("every row needs a scene")
    return params


def resolve_scene(scene, spec_dir="."):
    """Absolute path of a scene written in a description: as is when absolute, else
    relative to the current directory, the description's folder or the repository root
    (the first that exists)."""
    if os.path.isabs(scene):
        return scene
    for base in (os.getcwd(), spec_dir, REPO):
        path = os.path.abspath(os.path.join(base, scene))
        if os.path.exists(path):
            return path
    raise SystemExit(f"scene {scene!r} not found (relative to ., {spec_dir} or {REPO})")


def csim_args(params, spec_dir="."):
    args = ["run", resolve_scene(params["scene"], spec_dir)]
    for k in ("dt", "duration", "integrator", "contact_model"):
        if k in params:
            args += [OPTION[k], repr(params[k]) if isinstance(params[k], float) else params[k]]
    for path, value in params["set"]:
        args += ["--set", f"{path}={value}"]
    return args + ["--no-progress"]


def default_csim():
    return os.environ.get("CSIM") or os.path.join(REPO, "build", "app", "csim")


# ---------------------------------------------------------------------------- commands
def cmd_expand(a):
    """Write DIR/sweep.json; returns the expansion."""
    if a.spec.endswith((".tsv", ".txt")):
        rows, collect, name = expand_tsv(a.spec), {}, os.path.basename(a.spec)
    else:
        rows, collect, name = read_yaml_spec(a.spec)
    for item in a.collect or []:
        key, _, expr = item.partition("=")
        collect[key] = expr
    runs, seen = [], set()
    for row in rows:
        params = canonical(row)
        rid = run_id(params)
        if rid in seen:
            continue  # identical rows are one run
        seen.add(rid)
        runs.append({"index": len(runs), "run_id": rid, "params": params,
                     "args": csim_args(params, os.path.dirname(os.path.abspath(a.spec)))})
    csim = os.path.abspath(a.csim or default_csim())
    if not os.access(csim, os.X_OK):
        raise SystemExit(f"csim not found at {csim}: build it, or pass --csim or set CSIM")
    if not runs:
        raise SystemExit(f"{a.spec}: the description expands to no run")
    sweep = {"name": name, "spec": os.path.abspath(a.spec), "csim": csim,
             "collect": collect, "runs": runs}
    os.makedirs(os.path.join(a.dir, "runs"), exist_ok=True)
    write_json(os.path.join(a.dir, "sweep.json"), sweep)
    with open(os.path.join(a.dir, "run_ids.txt"), "w") as f:
        f.writelines(r["run_id"] + "\n" for r in runs)
    print(f"{name}: {len(runs)} runs in {a.dir}", file=sys.stderr)
    if getattr(a, "count", False):
        print(len(runs))
    return sweep


def write_json(path, data):
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump(data, f, indent=1)
    os.replace(tmp, path)


def load_sweep(d):
    with open(os.path.join(d, "sweep.json")) as f:
        return json.load(f)


def find_run(sweep, key):
    for r in sweep["runs"]:
        if r["run_id"] == key or (key.isdigit() and r["index"] == int(key)):
            return r
    raise SystemExit(f"no run {key!r} in the sweep (indices 0..{len(sweep['runs']) - 1})")


def cmd_run_one(a):
    """Run one row (by index or id), write DIR/runs/ID.json. Exit 0 when final."""
    sweep = load_sweep(a.dir)
    r = find_run(sweep, a.which)
    base = os.path.join(a.dir, "runs", r["run_id"])
    if os.path.exists(base + ".json") and not a.force:
        with open(base + ".json") as f:
            old = json.load(f)
        if old.get("exit_code") in FINAL_EXIT:
            print(f"{r['run_id']}: already done ({old['status']})", file=sys.stderr)
            return 0
    cmd = [sweep["csim"]] + r["args"] + ["-o", base + ".h5"]
    if os.path.exists(base + ".h5"):
        os.remove(base + ".h5")
    start = time.monotonic()
    with open(base + ".log", "w") as log:
        log.write(" ".join(cmd) + "\n")
        log.flush()
        code = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT).returncode
    wall = time.monotonic() - start
    result = {"index": r["index"], "run_id": r["run_id"], "params": r["params"],
              "exit_code": code, "status": EXIT_STATUS.get(code, f"exit_{code}"),
              "wall_time_s": wall, "host": platform.node(),
              "output": base + ".h5" if os.path.exists(base + ".h5") else ""}
    if result["output"]:
        import math
        import csimpy
        try:
            with csimpy.open(result["output"]) as run:
                summary = run.summary()
                result.update({k: v for k, v in summary.items() if k != "status"})
                result["status"] = summary["status"]
                for key, expr in sweep["collect"].items():
                    try:
                        result[key] = run.value(expr)
                    except (KeyError, ValueError, IndexError) as e:
                        print(f"{r['run_id']}: collect {key}: {e}", file=sys.stderr)
                        result[key] = math.nan
        except OSError as e:
            # Not final: a rerun must redo this row, so no DIR/runs/ID.json is written.
            print(f"{r['run_id']}: cannot read the output, the row stays to do: {e}",
                  file=sys.stderr)
            return 1
    elif code == 1:
        with open(base + ".log") as f:
            result["failure_reason"] = " ".join(f.read().splitlines()[1:])[:500]
    if a.no_keep and result["output"]:
        os.remove(result["output"])
        result["output"] = ""
    write_json(base + ".json", result)
    print(f"{r['run_id']}: {result['status']} in {wall:.2f} s", file=sys.stderr)
    return 0 if code in FINAL_EXIT else 1


def cmd_collect(a):
    """Gather DIR/runs/*.json into one CSV, in expansion order."""
    sweep = load_sweep(a.dir)
    paths = sorted({p for r in sweep["runs"] for p, _ in r["params"]["set"]})
    fields = (["index", "run_id"] + list(AXES) + ["set:" + p for p in paths] + list(SCALARS)
              + list(sweep["collect"]) + ["failure_reason", "host", "output"])
    omit = set(getattr(a, "omit", None) or [])
    fields = [k for k in fields if k not in omit]
    out = a.csv or os.path.join(a.dir, "results.csv")
    counts = {}
    with open(out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        for r in sweep["runs"]:
            row = {"index": r["index"], "run_id": r["run_id"], "status": "missing"}
            row.update({k: v for k, v in r["params"].items() if k != "set"})
            row.update({"set:" + p: v for p, v in r["params"]["set"]})
            path = os.path.join(a.dir, "runs", r["run_id"] + ".json")
            if os.path.exists(path):
                with open(path) as g:
                    res = json.load(g)
                row.update({k: v for k, v in res.items() if k in fields and k not in ("index",)})
            counts[row["status"]] = counts.get(row["status"], 0) + 1
            w.writerow({k: (f"{v:.9g}" if isinstance(v, float) else v) for k, v in row.items()})
    print(f"{out}: {len(sweep['runs'])} runs, " +
          ", ".join(f"{v} {k}" for k, v in sorted(counts.items())), file=sys.stderr)
    return 1 if a.strict and counts.get("missing") else 0


def joblog_path(d, sweep):
    digest = hashlib.sha1("".join(r["run_id"] for r in sweep["runs"]).encode()).hexdigest()[:8]
    return os.path.join(d, f"joblog-{digest}.tsv")


def run_parallel(cmd):
    """Runs GNU parallel; returns (its exit status, the SIGINT/SIGTERM that stopped the
    sweep or 0). A signal to this process alone (`kill -INT PID`) used to kill it with a
    traceback and leave parallel running its jobs, orphaned: it is passed on as SIGTERM
    (parallel starts no new job and waits for the running ones), then the rows done are
    collected as usual."""
    proc = subprocess.Popen(cmd)
    received = []

    def forward(signo, _frame):
        received.append(signo)
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)

    previous = {s: signal.signal(s, forward) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        code = proc.wait()
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    return code, (received[0] if received else 0)


def cmd_run(a):
    """expand + GNU parallel (resumable) + collect."""
    sweep = cmd_expand(a)
    if not shutil.which("parallel"):
        raise SystemExit("GNU parallel is missing: apt-get install parallel (tools/install-deps.sh)")
    joblog = joblog_path(a.dir, sweep)
    cmd = ["parallel", "--will-cite", "--joblog", joblog, "--resume-failed", "-j", str(a.jobs),
           "--halt", "never", sys.executable, os.path.abspath(__file__), "run-one", a.dir, "{}",
           ":::", *[r["run_id"] for r in sweep["runs"]]]
    for flag in ("force", "no_keep"):
        if getattr(a, flag):
            cmd.insert(cmd.index("{}"), "--" + flag.replace("_", "-"))
    code, stopped_by = run_parallel(cmd)
    a.strict = False
    cmd_collect(a)
    if stopped_by:
        name = signal.Signals(stopped_by).name
        print(f"interrupted by {name}: the rows done are collected; rerun the same command to "
              "resume", file=sys.stderr)
        return 128 + stopped_by
    if code:
        print(f"parallel: {code} job(s) did not finish (rerun the same command to resume)",
              file=sys.stderr)
    return 1 if code else 0


def cmd_slurm(a):
    """expand + sbatch job array (throttled) + dependent collection job."""
    sweep = cmd_expand(a)
    n = len(sweep["runs"])
    d = os.path.abspath(a.dir)
    logs = os.path.join(d, "slurm")
    os.makedirs(logs, exist_ok=True)
    env = f"ALL,CSIM_SWEEP_DIR={d},CSIM_SWEEP_TOOL={os.path.abspath(__file__)}"
    common = ["sbatch", "--parsable", f"--export={env}", f"--chdir={d}"]
    if a.partition:
        common.append(f"--partition={a.partition}")
    array = subprocess.run(
        common + [f"--array=0-{n - 1}%{a.throttle}", f"--time={a.time}",
                  f"--output={logs}/task-%A_%a.out", "--job-name=csim-sweep",
                  os.path.join(HERE, "slurm", "sweep_task.sbatch")],
        check=True, capture_output=True, text=True).stdout.strip().split(";")[0]
    collect = common + [f"--dependency=afterok:{array}", "--kill-on-invalid-dep=yes",
                        f"--output={logs}/collect-%j.out", "--job-name=csim-sweep-collect"]
    if a.wait:
        collect.append("--wait")
    collect.append(os.path.join(HERE, "slurm", "sweep_collect.sbatch"))
    proc = subprocess.run(collect, capture_output=True, text=True)
    job = proc.stdout.strip().split("\n")[0].split(";")[0]
    print(f"array job {array} ({n} tasks, at most {a.throttle} at once), "
          f"collection job {job} -> {os.path.join(d, 'results.csv')}")
    if proc.returncode:
        print(proc.stderr, file=sys.stderr)
    return proc.returncode


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)

    def spec_args(q):
        q.add_argument("spec", help="sweep description (.yaml or .tsv)")
        q.add_argument("-o", "--dir", required=True, help="sweep directory")
        q.add_argument("--csim", help="csim executable (default: $CSIM or build/app/csim)")
        q.add_argument("--collect", action="append", metavar="NAME=EXPR",
                       help="extra final-state column, e.g. x_end=q[0] (repeatable)")

    q = sub.add_parser("expand", help="write DIR/sweep.json")
    spec_args(q)
    q.add_argument("--count", action="store_true", help="print the number of runs on stdout")
    q.set_defaults(fn=cmd_expand)
    q = sub.add_parser("run", help="expand, run with GNU parallel, collect")
    spec_args(q)
    q.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    q.add_argument("--csv", help="output CSV (default DIR/results.csv)")
    q.add_argument("--force", action="store_true", help="rerun rows already collected")
    q.add_argument("--no-keep", action="store_true", help="delete each .h5 once collected")
    q.add_argument("--omit", nargs="+", metavar="COLUMN", help="columns left out of the CSV")
    q.set_defaults(fn=cmd_run)
    q = sub.add_parser("run-one", help="run one row (the body of a parallel or Slurm task)")
    q.add_argument("dir")
    q.add_argument("which", help="row index or run id")
    q.add_argument("--force", action="store_true")
    q.add_argument("--no-keep", action="store_true")
    q.set_defaults(fn=cmd_run_one)
    q = sub.add_parser("collect", help="gather the runs' scalars into one CSV")
    q.add_argument("dir")
    q.add_argument("--csv")
    q.add_argument("--strict", action="store_true", help="exit 1 when a run has no result")
    q.add_argument("--omit", nargs="+", metavar="COLUMN",
                   help="leave columns out, e.g. --omit host output wall_time_s for a CSV to commit")
    q.set_defaults(fn=cmd_collect)
    q = sub.add_parser("slurm", help="submit as a Slurm job array plus a collection job")
    spec_args(q)
    q.add_argument("--throttle", type=int, default=4, help="tasks running at once (%%K)")
    q.add_argument("--partition")
    q.add_argument("--time", default="01:00:00", help="time limit per task")
    q.add_argument("--wait", action="store_true", help="return when the collection job ended")
    q.set_defaults(fn=cmd_slurm)
    a = p.parse_args(argv)
    if a.command in ("expand", "run", "slurm"):  # the commands that rewrite sweep.json
        with locked_sweep_dir(a.dir):
            return a.fn(a) if a.command != "expand" else (cmd_expand(a) and 0)
    return a.fn(a)


if __name__ == "__main__":
    sys.exit(main())

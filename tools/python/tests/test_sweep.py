"""tools/csim_sweep.py: expansion and run ids, a real sweep through GNU parallel, resume,
the collected CSV against the runs' own files."""
import csv
import json
import os
import subprocess
import sys

import pytest

import csimpy
from conftest import REPO, scene

TOOL = os.path.join(REPO, "tools", "csim_sweep.py")
sys.path.insert(0, os.path.join(REPO, "tools"))
import csim_sweep  # noqa: E402


def sweep(*args, csim=None, check=True):
    env = dict(os.environ)
    if csim:
        env["CSIM"] = csim
    return subprocess.run(["/usr/bin/python3", TOOL, *args], check=check, env=env,
                          capture_output=True, text=True)


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_grid_expansion_and_stable_ids():
    spec = {"scene": "scenes/pendulum.yaml", "dt": [0.01, 0.005],
            "integrator": ["midpoint", "symplectic_euler"],
            "set": {"joints.hinge.initial.q": [[0.5], [1.0]], "bodies.bob.mass": 2},
            "rows": [{}, {"duration": 3.0}]}
    rows = csim_sweep.expand_yaml(spec)
    assert len(rows) == 2 * 2 * 2 * 2
    params = [csim_sweep.canonical(r) for r in rows]
    ids = [csim_sweep.run_id(p) for p in params]
    assert len(set(ids)) == len(ids)
    # the id depends on the parameters only, not on the order keys were written in
    shuffled = dict(reversed(list(spec.items())))
    assert sorted(ids) == sorted(csim_sweep.run_id(csim_sweep.canonical(r))
                                 for r in csim_sweep.expand_yaml(shuffled))
    assert params[0]["set"] == [["joints.hinge.initial.q", "[0.5]"], ["bodies.bob.mass", "2"]]
    args = csim_sweep.csim_args(params[0])
    assert args[:2] == ["run", scene("pendulum.yaml")]
    assert ["--dt", "0.01"] == args[2:4] and "joints.hinge.initial.q=[0.5]" in args
    changed = dict(params[0], dt=0.02)
    assert csim_sweep.run_id(changed) != ids[0]
    with pytest.raises(SystemExit, match="unknown keys"):
        csim_sweep.expand_yaml({"scene": "x", "dts": [1]})


def test_tsv_rows(tmp_path):
    rows = csim_sweep.expand_tsv(os.path.join(REPO, "tools", "sweeps", "pendulum_angle.tsv"))
    assert len(rows) == 4
    assert rows[3] == {"scene": "scenes/pendulum.yaml", "dt": 0.001, "duration": 1.0,
                       "set:joints.hinge.initial.q": "[2.0]"}


def test_parallel_sweep_collects_and_resumes(csim, tmp_path):
    spec = tmp_path / "sweep.yaml"
    spec.write_text(f"""
scene: {scene('pendulum.yaml')}
duration: 0.2
dt: [0.01, 0.005]
integrator: [midpoint, symplectic_euler, no_such_integrator]
collect:
  theta_end: q[0]
  bob_qw: bodies.bob.quaternion.w
  bad: bodies.nobody.position.z
""")
    d = tmp_path / "out"
    r = sweep("run", str(spec), "-o", str(d), "-j", "2", csim=csim)
    assert "6 runs" in r.stderr
    rows = read_csv(d / "results.csv")
    assert len(rows) == 6
    assert [int(x["index"]) for x in rows] == list(range(6))
    by_status = {}
    for row in rows:
        by_status.setdefault(row["status"], []).append(row)
    assert len(by_status["completed"]) == 4 and len(by_status["invalid_input"]) == 2
    for row in by_status["invalid_input"]:
        assert row["exit_code"] == "1" and "no_such_integrator" in row["failure_reason"]
    for row in by_status["completed"]:
        assert row["exit_code"] == "0" and float(row["wall_time_s"]) > 0
        with csimpy.open(row["output"]) as run:
            assert run.time_step == pytest.approx(float(row["dt"]))
            assert run.integrator == row["integrator"]
            assert float(row["theta_end"]) == pytest.approx(run.q[-1, 0], rel=1e-8)
            assert float(row["bob_qw"]) == pytest.approx(run.body("bob").quaternion[-1, 0], rel=1e-8)
            assert int(row["steps"]) == round(0.2 / float(row["dt"]))
            assert float(row["mean_iterations"]) == pytest.approx(run.iterations[1:].mean())
            assert float(row["max_momentum_error"]) == pytest.approx(run.momentum_error[1:].max())
            assert float(row["energy_final"]) == pytest.approx(run.energy[-1], rel=1e-8)
        assert row["bad"] == "nan"  # a collect expression that does not apply
    # the ids are the parameters' hashes
    expansion = json.loads((d / "sweep.json").read_text())
    for run_ in expansion["runs"]:
        assert run_["run_id"] == csim_sweep.run_id(run_["params"])
    # resume: a second call runs nothing (parallel's job log and the results say done)
    stamps = {p: os.path.getmtime(d / "runs" / p) for p in os.listdir(d / "runs") if p.endswith(".json")}
    r = sweep("run", str(spec), "-o", str(d), "-j", "2", csim=csim)
    assert "completed in" not in r.stderr
    assert stamps == {p: os.path.getmtime(d / "runs" / p) for p in stamps}
    # a lost result is rerun by the next call; others stay
    lost = rows[0]["run_id"]
    os.remove(d / "runs" / f"{lost}.json")
    joblog = next(d.glob("joblog-*.tsv"))
    lines = joblog.read_text().splitlines(keepends=True)
    joblog.write_text("".join(x for x in lines if not x.rstrip().endswith(lost)))
    r = sweep("run", str(spec), "-o", str(d), "-j", "2", csim=csim)
    assert f"{lost}: completed" in r.stderr and r.stderr.count("completed in") == 1
    assert read_csv(d / "results.csv")[0]["status"] == "completed"


def test_collect_marks_missing_runs(csim, tmp_path):
    d = tmp_path / "s"
    sweep("expand", os.path.join(REPO, "tools", "sweeps", "pendulum_angle.tsv"), "-o", str(d),
          csim=csim)
    r = sweep("collect", str(d), "--strict", check=False)
    assert r.returncode == 1
    rows = read_csv(d / "results.csv")
    assert [x["status"] for x in rows] == ["missing"] * 4
    r = sweep("run-one", str(d), "2", csim=csim)
    rows = read_csv(d / "results.csv") if sweep("collect", str(d)).returncode == 0 else None
    assert [x["status"] for x in rows] == ["missing", "missing", "completed", "missing"]
    assert rows[2]["set:joints.hinge.initial.q"] == "[1.0]"


def test_parallel_is_gnu():
    out = subprocess.run(["parallel", "--version"], capture_output=True, text=True).stdout
    assert "GNU parallel" in out


def test_scene_paths_resolve_from_cwd_spec_or_repository(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert csim_sweep.resolve_scene("scenes/pendulum.yaml") == scene("pendulum.yaml")
    (tmp_path / "mine.yaml").write_text("csim: 1\n")
    assert csim_sweep.resolve_scene("mine.yaml") == str(tmp_path / "mine.yaml")
    with pytest.raises(SystemExit, match="not found"):
        csim_sweep.resolve_scene("scenes/nope.yaml")


def test_a_bad_description_is_located_not_a_traceback(csim, tmp_path):
    cases = {
        "syntax.yaml": ("scene: x.yaml\ndt: [0.1, 0.2\n", "syntax.yaml:3:1: invalid YAML"),
        "list.yaml": ("- scene: x.yaml\n", "a sweep description is a map"),
        "dt.yaml": ("scene: x.yaml\ndt: '0.01, 0.02'\n", "cannot expand the sweep description"),
        "collect.yaml": ("scene: x.yaml\ncollect: {x: 5}\n", "collect maps column names"),
    }
    for name, (text, message) in cases.items():
        spec = tmp_path / name
        spec.write_text(text)
        r = sweep("expand", str(spec), "-o", str(tmp_path / "d"), csim=csim, check=False)
        assert r.returncode == 1, name
        assert "Traceback" not in r.stderr, r.stderr
        assert message in r.stderr, r.stderr
    r = sweep("expand", str(tmp_path / "absent.yaml"), "-o", str(tmp_path / "d"), csim=csim,
              check=False)
    assert r.returncode == 1 and "cannot read the sweep description" in r.stderr


def test_a_sweep_directory_in_use_is_refused(csim, tmp_path):
    """A second sweep on the same directory rewrote sweep.json under the first."""
    import fcntl
    d = tmp_path / "s"
    d.mkdir()
    with open(d / ".lock", "a+") as held:  # what a running `run` holds
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        held.write("pid 1234 on testhost\n")
        held.flush()
        r = sweep("expand", os.path.join(REPO, "tools", "sweeps", "pendulum_angle.tsv"), "-o",
                  str(d), csim=csim, check=False)
        assert r.returncode == 1
        assert "in use by pid 1234 on testhost" in r.stderr
        assert not (d / "sweep.json").exists()
    sweep("expand", os.path.join(REPO, "tools", "sweeps", "pendulum_angle.tsv"), "-o", str(d),
          csim=csim)
    assert (d / "sweep.json").exists()


def test_an_unreadable_output_leaves_the_row_to_do(csim, tmp_path, monkeypatch):
    """A row whose output could not be read was recorded as final and never redone."""
    d = tmp_path / "s"
    sweep("expand", os.path.join(REPO, "tools", "sweeps", "pendulum_angle.tsv"), "-o", str(d),
          csim=csim)
    fake = tmp_path / "fake_csim"  # exits 0 and writes an output no reader can open
    fake.write_text('#!/bin/sh\nfor a; do last="$a"; done\necho garbage > "$last"\nexit 0\n')
    fake.chmod(0o755)
    sweep_json = json.loads((d / "sweep.json").read_text())
    real = sweep_json["csim"]
    sweep_json["csim"] = str(fake)
    (d / "sweep.json").write_text(json.dumps(sweep_json))
    r = sweep("run-one", str(d), "0", check=False)
    assert r.returncode == 1
    assert "the row stays to do" in r.stderr
    run_id = sweep_json["runs"][0]["run_id"]
    assert not (d / "runs" / (run_id + ".json")).exists()
    sweep_json["csim"] = real
    (d / "sweep.json").write_text(json.dumps(sweep_json))
    assert sweep("run-one", str(d), "0").returncode == 0
    assert json.loads((d / "runs" / (run_id + ".json")).read_text())["status"] == "completed"


def test_a_signal_to_the_sweep_stops_it_and_collects(csim, tmp_path):
    """SIGINT to the sweep process alone used to kill it with a traceback, leave GNU
    parallel's jobs running orphaned, and write no results.csv."""
    import signal
    import time
    spec = tmp_path / "slow.yaml"
    spec.write_text(f"scene: {scene('pendulum.yaml')}\nduration: [20, 21, 22, 23]\n"
                    "dt: 0.0001\n")
    d = tmp_path / "out"
    env = dict(os.environ, CSIM=csim)
    proc = subprocess.Popen(["/usr/bin/python3", TOOL, "run", str(spec), "-o", str(d), "-j", "2"],
                            env=env, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 60
    while not list(d.glob("runs/*.h5")):  # until the first rows run
        assert time.time() < deadline and proc.poll() is None
        time.sleep(0.05)
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert "rerun the same command to resume" in err
    rows = read_csv(d / "results.csv")
    assert len(rows) == 4
    # Nothing of the sweep is left running (parallel and its jobs ended with it).
    left = subprocess.run(["pgrep", "-f", str(d)], capture_output=True, text=True).stdout
    assert left.strip() == ""

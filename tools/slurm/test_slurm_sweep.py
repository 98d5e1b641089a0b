#!/usr/bin/python3
"""A tiny sweep through a real single-node Slurm started locally (as root, 127.0.0.1).

Starts munge + slurmctld + slurmd with tools/slurm/local_cluster.sh, submits a 4-run
sweep with `tools/csim_sweep.py slurm --throttle 2 --wait` (a job array throttled to 2
tasks plus a collection job with --dependency=afterok), checks the CSV, the throttle and
the dependency order, and ends with `scontrol shutdown`.

Run (as root, after building csim; about 15 s):
    CSIM=build/app/csim CSIM_SLURM_TEST=1 /usr/bin/python3 -m pytest -q -p no:cacheprovider \\
        tools/slurm/test_slurm_sweep.py
Without CSIM_SLURM_TEST=1 (or not root) the test is skipped; .ci/run sets it, so there a
missing Slurm fails instead of skipping.
"""
import csv
import os
import re
import subprocess
import sys
from datetime import datetime

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "tools", "python"))

pytestmark = pytest.mark.skipif(
    os.environ.get("CSIM_SLURM_TEST") != "1" or os.geteuid() != 0,
    reason="set CSIM_SLURM_TEST=1 and run as root to start a local Slurm")


@pytest.fixture(scope="module")
def cluster():
    subprocess.run([os.path.join(HERE, "local_cluster.sh"), "start"], check=True, timeout=60)
    try:
        yield
    finally:
        subprocess.run([os.path.join(HERE, "local_cluster.sh"), "stop"], timeout=60)


def job_fields(job_id):
    out = subprocess.run(["scontrol", "show", "job", "-o", str(job_id)], check=True,
                         capture_output=True, text=True).stdout
    return [dict(re.findall(r"(\w+)=(\S*)", line)) for line in out.splitlines() if line.strip()]


def test_sweep_as_a_slurm_job_array(cluster, tmp_path):
    import csimpy
    csim = os.path.abspath(os.environ.get("CSIM") or os.path.join(REPO, "build", "app", "csim"))
    spec = tmp_path / "tiny.yaml"
    spec.write_text(f"""
name: tiny
scene: {REPO}/scenes/pendulum.yaml
duration: 0.3
dt: [0.01, 0.005]
integrator: [midpoint, symplectic_euler]
collect: {{theta_end: "q[0]"}}
""")
    d = tmp_path / "sweep"
    r = subprocess.run(["/usr/bin/python3", os.path.join(REPO, "tools", "csim_sweep.py"), "slurm",
                        str(spec), "-o", str(d), "--throttle", "2", "--wait", "--csim", csim],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    m = re.search(r"array job (\d+) \(4 tasks, at most 2 at once\), collection job (\d+)", r.stdout)
    assert m, r.stdout
    array_id, collect_id = m.groups()

    with open(d / "results.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 4
    assert {x["status"] for x in rows} == {"completed"}
    assert sorted((float(x["dt"]), x["integrator"]) for x in rows) == sorted(
        (dt, i) for dt in (0.01, 0.005) for i in ("midpoint", "symplectic_euler"))
    for row in rows:
        with csimpy.open(row["output"]) as run:
            assert float(row["theta_end"]) == pytest.approx(run.q[-1, 0], rel=1e-8)
            assert int(row["steps"]) == round(0.3 / float(row["dt"]))
    assert sorted(p.name for p in (d / "slurm").iterdir()) == sorted(
        [f"task-{array_id}_{i}.out" for i in range(4)] + [f"collect-{collect_id}.out"])

    # the array was throttled to 2, and collection started after every task ended
    tasks = job_fields(array_id)
    assert len(tasks) == 4
    assert {t["ArrayTaskThrottle"] for t in tasks} == {"2"}
    assert {t["JobState"] for t in tasks} == {"COMPLETED"}
    (collect,) = job_fields(collect_id)
    assert collect["JobState"] == "COMPLETED"
    when = lambda s: datetime.fromisoformat(s)  # noqa: E731
    assert when(collect["StartTime"]) >= max(when(t["EndTime"]) for t in tasks)

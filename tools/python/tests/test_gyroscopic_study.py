"""tools/gyroscopic_study.py: with the gyroscopic torque at the step's midpoint, symplectic
Euler keeps a torque-free body's kinetic energy and |L| to round-off; with the explicit
torque (the SAP paper's scheme) both drift, and the fast-spinning link runs away."""
import csv
import os
import subprocess

from conftest import REPO


def test_implicit_torque_keeps_the_invariants(tmp_path, csim):
    out = tmp_path / "g.csv"
    subprocess.run(["/usr/bin/python3", os.path.join(REPO, "tools", "gyroscopic_study.py"),
                    "--csim", csim, "--csv", str(out)], check=True, capture_output=True)
    rows = {(r["body"], r["variant"]): r for r in csv.DictReader(open(out))}
    assert len(rows) == 12
    assert all(r["outcome"] == "completed" for r in rows.values())
    implicit, explicit = "symplectic_euler, gyroscopic implicit", "symplectic_euler, gyroscopic explicit"
    for body in ["brick", "rod"]:
        assert float(rows[(body, implicit)]["energy_drift"]) < 1e-10
        assert float(rows[(body, implicit)]["momentum_drift"]) < 1e-10
    assert float(rows[("brick", explicit)]["energy_drift"]) > 1e-3
    assert float(rows[("rod", explicit)]["energy_ratio"]) > 1e3
    # An origin off the centre of mass: both exact too (the centre of mass's velocity is
    # carried from step to step), where the explicit torque runs away.
    assert float(rows[("rod, off-centre origin", implicit)]["momentum_drift"]) < 1e-10
    assert float(rows[("rod, off-centre origin", implicit)]["energy_drift"]) < 1e-10
    assert float(rows[("rod, off-centre origin", explicit)]["energy_ratio"]) > 1e3


def test_cost_table(tmp_path, csim):
    """--cost N times N tumbling bricks under both treatments and tabulates the CPU time."""
    md = tmp_path / "g.md"
    subprocess.run(["/usr/bin/python3", os.path.join(REPO, "tools", "gyroscopic_study.py"),
                    "--csim", csim, "--markdown", str(md), "--cost", "5"], check=True, capture_output=True)
    rows = [line.split("|") for line in md.read_text().splitlines() if line.startswith("| explicit |")
            or line.startswith("| implicit |")]
    assert [r[1].strip() for r in rows] == ["explicit", "implicit"]
    assert all(float(r[2]) > 0 and float(r[3]) > 0 for r in rows)

"""tools/plot_growth.py: the exponents in its legends are least-squares fits from 40 objects
up, and it draws the committed growth CSVs."""
import csv
import math
import os
import subprocess
import sys

from conftest import REPO

TOOL = os.path.join(REPO, "tools", "plot_growth.py")
sys.path.insert(0, os.path.join(REPO, "tools"))
import plot_growth  # noqa: E402


def test_fit_recovers_a_power_law_and_ignores_small_scenes():
    # time = 2 us * n^1.5 from 40 objects up; the 10-object row (fixed cost) must not count.
    rows = [{"objects": n, "csim_ms_mean": 2e-3 * n ** 1.5} for n in (40, 80, 160, 320)]
    rows.append({"objects": 10, "csim_ms_mean": 1.0})
    assert math.isclose(plot_growth.fitted(rows, "csim_ms_mean"), 1.5, rel_tol=1e-12)
    # Per object in microseconds: 2 us * n^0.5.
    assert math.isclose(dict(plot_growth.per_object(rows, "csim_ms_mean"))[160],
                        2.0 * math.sqrt(160), rel_tol=1e-12)


def write_csv(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def test_draws_the_committed_csvs(tmp_path):
    out = tmp_path / "growth.png"
    subprocess.run(["/usr/bin/python3", TOOL, "-o", str(out)], cwd=REPO, check=True)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_refuses_a_csv_without_rows_without_walls(tmp_path):
    growth = tmp_path / "walls_only.csv"
    write_csv(growth, [{"objects": 40, "walls": 1, "dt": 0.002, "csim_ms_mean": 0.2}])
    r = subprocess.run(["/usr/bin/python3", TOOL, "--growth", str(growth), "--density", "none",
                        "--isolated", "none", "--mujoco", "none", "-o", str(tmp_path / "x.png")],
                       cwd=REPO, capture_output=True, text=True)
    assert r.returncode != 0
    assert "no rows without walls" in r.stderr

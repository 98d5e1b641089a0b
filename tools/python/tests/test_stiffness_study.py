"""tools/stiffness_study.py on a short run: one row per model and stiffness, and the
Hunt & Crossley penetration ~ m g / k falls tenfold when k grows tenfold."""
import csv
import os
import subprocess

from conftest import REPO


def test_penetration_falls_as_one_over_k(tmp_path, csim):
    out = tmp_path / "k.csv"
    subprocess.run(["/usr/bin/python3", os.path.join(REPO, "tools", "stiffness_study.py"),
                    "--stiffness", "1e5", "1e6", "--models", "sap", "lagged", "--objects", "10",
                    "--duration", "1.5", "--settled", "0.5", "--csim", csim, "--csv", str(out)],
                   check=True, capture_output=True)
    rows = {(r["model"], float(r["stiffness"])): r for r in csv.DictReader(open(out))}
    assert sorted(rows) == [("lagged", 1e5), ("lagged", 1e6), ("sap", 1e5), ("sap", 1e6)]
    assert all(r["status"] == "completed" for r in rows.values())
    assert all(0 < float(r["momentum_error_max"]) <= 1e-6 for r in rows.values())
    ratio = (float(rows[("lagged", 1e5)]["settled_penetration_median"]) /
             float(rows[("lagged", 1e6)]["settled_penetration_median"]))
    assert 5 < ratio < 20, ratio  # the pile's weight on a ten times stiffer spring

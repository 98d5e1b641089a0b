"""tools/contact_model_study.py: the four contact models, with csim's default and the plain
solver, on a short clutter run."""
import csv
import os
import subprocess

from conftest import REPO


def test_contact_model_study_runs_every_model_certified(tmp_path, csim):
    """tools/contact_model_study.py on a short, small grid: one CSV row per solver, model,
    time step and seed, every step within the certified momentum error, and the tables."""
    csv_path, md_path = tmp_path / "cm.csv", tmp_path / "cm.md"
    subprocess.run(["/usr/bin/python3", os.path.join(REPO, "tools", "contact_model_study.py"),
                    "--objects", "10", "--seeds", "1", "--dt", "5e-3", "--duration", "0.6",
                    "--transient", "0.3", "--settled", "0.2", "--csim", csim,
                    "--csv", str(csv_path), "--markdown", str(md_path)],
                   check=True, capture_output=True)
    rows = list(csv.DictReader(open(csv_path)))
    assert sorted((r["solver"], r["model"]) for r in rows) == sorted(
        (s, m) for s in ("default", "plain")
        for m in ("sap", "lagged", "lagged_regularized", "similar"))
    for r in rows:
        assert int(r["steps"]) == 120
        assert 0 < float(r["momentum_error_max"]) <= 1e-6, r  # eps_r of the scene
        assert float(r["iterations_mean"]) > 0
    text = md_path.read_text()
    assert text.count("| transient: Lagged and Similar take more iterations than SAP |") == 2

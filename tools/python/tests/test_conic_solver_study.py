"""tools/conic_solver_study.py and tools/conic_program.py (SAP against CVXOPT,
docs/design/conic_comparison.md) on problems exported from short clutter runs by
build/bench/csim_export_problems:

- the conic program the study gives CVXOPT is SAP's problem: SAP's recorded solution,
  with sigma = gamma and z = S^-T gamma, satisfies that program's optimality conditions
  (built by tools/conic_program.py, not by csim's code);
- CVXOPT solves it to the same solution, within what both solvers' accuracies allow;
- the sparse KKT solver gives CVXOPT the iterates of its own dense one;
- contacts without friction (linear cones) go through the same path;
- the script runs end to end and writes its CSV, report and figure.
The exporter's own round trip (a problem read back and solved again by csim is the step's
solve, bit for bit) is tests/bench/problem_export_test.cc."""
import csv
import os
import subprocess
import sys

import numpy as np
import pytest

from conftest import REPO

sys.path.insert(0, os.path.join(REPO, "tools"))
import conic_program as program  # noqa: E402
import conic_solver_study as study  # noqa: E402


@pytest.fixture(scope="session")
def exporter(csim):
    """build/bench/csim_export_problems next to the csim under test (build/app/csim)."""
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(csim))), "bench",
                        "csim_export_problems")
    if not os.access(path, os.X_OK):
        pytest.fail(f"csim_export_problems not found at {path}: build it (CSIM_BUILD_BENCH)")
    return path


def export(exporter, path, *args):
    subprocess.run([exporter, "-n", "10", "--runs", "1", *args, "-o", str(path)], check=True,
                   capture_output=True)
    return program.read_problems(str(path))


@pytest.fixture(scope="session")
def walled(exporter, tmp_path_factory):
    """clutter-10 with walls, 0.8 s: falling, impacts, a settling pile."""
    return export(exporter, tmp_path_factory.mktemp("conic") / "walls.h5", "--walls", "with",
                  "--duration", "0.8", "--every", "20")


def test_sap_solution_is_a_kkt_point_of_the_conic_program(walled):
    assert len(walled) >= 15
    for p in walled:
        pr = program.Problem(p)
        form = program.ConicForm(pr)
        x, s, z = form.point_of(pr.v_sap, pr.gamma_sap)
        r = form.kkt_residuals(x, s, z)
        # Px + q + G'z is -grad ell_p (SAP's momentum residual) and 0 in sigma's rows.
        assert r["dual"] <= 10 * p["relative_tolerance"], r
        assert r["primal"] <= 1e-13, r
        assert r["s_margin"] >= -1e-13 and r["z_margin"] >= -1e-13, r
        assert r["gap"] <= 1e-13, r
        # The study's eq. 32 is the solver's own.
        e_m = study.momentum_error(pr, pr.v_sap, pr.gamma_sap)
        assert e_m == pytest.approx(p["sap_momentum_error"], rel=1e-6, abs=1e-13)
        assert study.complementarity_error(pr, pr.v_sap, pr.gamma_sap) <= 1e-13


def test_cvxopt_finds_sap_solution(walled):
    for p in walled[::3]:
        row = study.compare(p, 10, True, 1e-6, "sparse")
        assert row["cvxopt_status"] == "optimal"
        assert row["difference_over_bound"] <= 1.0, row
        assert row["cvxopt_momentum_error"] <= 1e-12
        assert row["cvxopt_complementarity"] <= 1e-4
        assert row["sap_momentum_error"] <= p["relative_tolerance"]


def test_sparse_kkt_solver_follows_cvxopt_dense_one(walled):
    for p in walled[-4:]:
        pr = program.Problem(p)
        form = program.ConicForm(pr)
        sparse = program.solve_cvxopt(form, 1e-8, "sparse")
        dense = program.solve_cvxopt(form, 1e-8, "dense")
        assert sparse["status"] == dense["status"] == "optimal"
        assert sparse["iterations"] == dense["iterations"]
        scale = np.linalg.norm(dense["v"]) + 1e-3
        assert np.linalg.norm(sparse["v"] - dense["v"]) <= 1e-6 * scale


def test_frictionless_contacts_are_linear_cones(exporter, tmp_path):
    # Floor and walls without friction: their contacts get g_n >= 0, the objects' Q^3.
    problems = export(exporter, tmp_path / "f.h5", "--duration", "0.8", "--every", "40",
                      "--set", "materials.container.friction=0")
    mixed = 0
    for p in problems:
        pr = program.Problem(p)
        form = program.ConicForm(pr)
        mixed += form.dims["l"] > 0 and len(form.dims["q"]) > 0
        x, s, z = form.point_of(pr.v_sap, pr.gamma_sap)
        r = form.kkt_residuals(x, s, z)
        assert r["s_margin"] >= -1e-13 and r["z_margin"] >= -1e-13 and r["gap"] <= 1e-13
        row = study.compare(p, 10, True, 1e-6, "sparse")
        assert row["cvxopt_status"] == "optimal"
        assert row["difference_over_bound"] <= 1.0, row
    assert mixed > 0


def test_study_writes_its_outputs(exporter, tmp_path):
    out = tmp_path / "c.csv"
    subprocess.run(["/usr/bin/python3", os.path.join(REPO, "tools", "conic_solver_study.py"),
                    "--exporter", exporter, "--objects", "10", "--walls", "without",
                    "--duration", "0.4", "--every", "25", "--runs", "1", "--cvxopt-repeat", "1",
                    "--dense-up-to", "0", "--sweep-tolerances", "--work", str(tmp_path),
                    "--csv", str(out), "--markdown", str(tmp_path / "c.md"),
                    "--plot", str(tmp_path / "c.png")], check=True, capture_output=True)
    rows = list(csv.DictReader(open(out)))
    assert len(rows) >= 5 and all(r["cvxopt_status"] == "optimal" for r in rows)
    assert np.median([float(r["speedup"]) for r in rows]) > 10
    assert "| without | 10 |" in (tmp_path / "c.md").read_text()
    assert (tmp_path / "c.png").stat().st_size > 10000

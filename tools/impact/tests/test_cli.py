"""Tests of the impact lab's command line (impact/cli.py): every command on small synthetic
sets written in the MIT layout (data.write_mit) and in the CSV layout (data.write_csv),
what their outputs hold, and the errors (file:line:col, exit status, nothing written).
The compare test needs csim ($CSIM) and is skipped without it.
    cd tools && CSIM=../build/app/csim /usr/bin/python3 -m pytest -q impact/tests/test_cli.py
"""
import csv
import os
import subprocess
import sys

import numpy as np
import pytest

from impact import cli, data

MU, E = 0.12, 0.55
TOOLS = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CSIM = os.environ.get("CSIM")


def _drops(law="ap_newton", n=8, seed=3):
    return data.synthetic_ellipse_drops(n, law, MU, E, np.random.default_rng(seed))


def _rows(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def _run(argv, capsys=None):
    rc = cli.main([str(a) for a in argv])
    return rc, (capsys.readouterr() if capsys else None)


@pytest.fixture
def mit(tmp_path):
    return data.write_mit(tmp_path / "mit", _drops())


@pytest.fixture
def csv_file(tmp_path):
    path = tmp_path / "drops.csv"
    data.write_csv(path, _drops("wang_mason"))
    return path


def test_identify_on_mit_layout_recovers_the_truth(mit, tmp_path, capsys):
    out = tmp_path / "out"
    rc, cap = _run(["identify", mit, "-o", out, "--laws", "ap_newton", "whittaker",
                    "--grid", "5"], capsys)
    assert rc == 0
    assert "convention 'csim" in cap.out                      # the report is printed ...
    summary = (out / "summary.md").read_text()
    assert "Convention check" in summary and "median misfit" in summary  # ... and written
    t1 = {r["law"]: r for r in _rows(out / "table1.csv")}
    newton = t1["Anitescu-Potra (Newton)"]
    assert float(newton["mu"]) == pytest.approx(MU, abs=1e-6)
    assert float(newton["e"]) == pytest.approx(E, abs=1e-6)
    assert float(newton["median_error_m_s"]) < 1e-8
    fits = [r for r in _rows(out / "drop_fits.csv") if r["law"] == "ap_newton"]
    assert len(fits) == 8 and all(r["in_range"] == "True" for r in fits)
    t2 = {r["law"]: float(r["fraction"]) for r in _rows(out / "table2.csv")}
    assert t2["Anitescu-Potra (Newton)"] == 1.0
    for law in ("ap_newton", "whittaker"):
        assert (out / f"cost_landscape_{law}.png").stat().st_size > 1000
        assert (out / f"drop_parameters_{law}.png").stat().st_size > 1000
    assert not list(tmp_path.glob(".out.partial.*"))


def test_identify_on_csv_reports_the_truth_beside_the_fit(csv_file, tmp_path):
    out = tmp_path / "out"
    assert _run(["identify", csv_file, "-o", out, "--laws", "wang_mason", "--grid", "5"])[0] == 0
    (row,) = _rows(out / "table1.csv")
    assert float(row["true_mu"]) == MU and float(row["true_e"]) == E
    assert float(row["mu"]) == pytest.approx(MU, abs=1e-6)
    assert float(row["e"]) == pytest.approx(E, abs=1e-6)
    assert "law = wang_mason" in (out / "summary.md").read_text()


def test_laws_draws_the_ellipse_and_tabulates_each_law(csv_file, tmp_path):
    out = tmp_path / "out"
    assert _run(["laws", csv_file, "-o", out, "--drops", "0", "2"])[0] == 0
    rows = _rows(out / "laws.csv")
    assert len(rows) == 12 and {r["law"] for r in rows} == set(cli.LAWS)
    assert float(rows[0]["mu"]) == MU and float(rows[0]["e"]) == E  # the truth by default
    wm = [r for r in rows if r["law"] == "wang_mason"]
    assert all(float(r["error_m_s"]) < 1e-12 for r in wm)  # the law that made the drops
    for i in (0, 2):
        png = (out / f"ellipse_drop{i}.png").read_bytes()
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10000


def test_bound_is_never_worse_than_any_law(mit, tmp_path):
    out = tmp_path / "out"
    noisy = tmp_path / "noisy"
    data.write_mit(noisy, data.synthetic_ellipse_drops(
        12, "mirtich", MU, E, np.random.default_rng(1), sigma_v=cli.SIGMA_V))
    assert _run(["bound", noisy, "-o", out])[0] == 0
    stats = {r["model"]: r for r in _rows(out / "bound.csv")}
    assert set(stats) == {*cli.LAW_TITLES.values(), "Best Post Hoc", "IRB bound"}
    for r in _rows(out / "bound_drops.csv"):
        irb = float(r["irb_error_m_s"])
        assert all(irb <= float(r[f"{law}_error_m_s"]) + 1e-12 for law in cli.LAWS)
    assert (out / "error_densities.png").is_file()


def test_plots_writes_every_figure_and_no_table(csv_file, tmp_path):
    out = tmp_path / "out"
    assert _run(["plots", csv_file, "-o", out, "--laws", "ap_poisson", "--grid", "5"])[0] == 0
    names = sorted(p.name for p in out.iterdir())
    assert names == ["cost_landscape_ap_poisson.png", "drop_parameters_ap_poisson.png",
                     "ellipse_drop0.png", "error_densities.png", "summary.md"]


def test_synthetic_spec_and_command(tmp_path):
    path = tmp_path / "set.csv"
    assert _run(["synthetic", "synthetic:6:2:mirtich:mu=0.2:e=0.4", "-o", path])[0] == 0
    drops = data.read_csv(path)
    assert len(drops) == 6 and drops[0].truth == {"law": "mirtich", "mu": 0.2, "e": 0.4}
    folder = tmp_path / "mit"
    assert _run(["synthetic", "synthetic:6:2:mirtich:mu=0.2:e=0.4", "-o", folder])[0] == 0
    got, report = data.read_mit(folder)
    np.testing.assert_allclose([d.v_f for d in got], [d.v_f for d in drops], atol=1e-14)
    assert cli.parse_synthetic("synthetic:5") == {"n": 5, "seed": 0, "model": "sap"}
    for bad in ("synthetic:x", "synthetic:5:0:nolaw", "synthetic:5:0:ap_newton:k=1"):
        with pytest.raises(cli.InputError, match=bad.split(":")[0]):
            cli.parse_synthetic(bad)


def test_bad_csv_names_file_line_and_column_and_writes_nothing(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("# a comment\nmass,inertia,r_x,r_y,vx_i,vy_i,w_i,vx_f,vy_f,w_f\n"
                   "0.0364,1.3e-5,0.01,-0.02,0.5,-2.5,1,0.4,1.4,2\n"
                   "0.0364,1.3e-5,0.01,-0.02,0.5,oops,1,0.4,1.4,2\n")
    out = tmp_path / "out"
    rc, cap = _run(["identify", bad, "-o", out], capsys)
    assert rc == 1
    assert f"{bad}:4:6: vy_i: not a number: 'oops'" in cap.err
    assert not out.exists() and not list(tmp_path.glob(".out*"))
    # The same through `python3 -m impact`: the exit status of the process.
    done = subprocess.run([sys.executable, "-m", "impact", "bound", str(bad), "-o", str(out)],
                          capture_output=True, text=True, cwd=TOOLS,
                          env=dict(os.environ, PYTHONPATH=TOOLS))
    assert done.returncode == 1 and f"{bad}:4:6:" in done.stderr and not out.exists()


def test_folder_without_data_ellipse_is_refused(tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "p_true_data.mat").write_bytes(b"")
    rc, cap = _run(["bound", empty, "-o", tmp_path / "out"], capsys)
    assert rc == 1 and f"{empty}: folder without data_ellipse.mat" in cap.err
    rc, cap = _run(["bound", empty / "data_ellipse.mat", "-o", tmp_path / "out"], capsys)
    assert rc == 1 and "no such file or folder" in cap.err
    garbage = tmp_path / "garbage"
    garbage.mkdir()
    (garbage / "data_ellipse.mat").write_text("not a mat file")
    rc, cap = _run(["bound", garbage, "-o", tmp_path / "out"], capsys)
    assert rc == 1 and f"{garbage / 'data_ellipse.mat'}: not a readable MAT file" in cap.err


def test_a_failing_command_leaves_the_output_folder_as_it_was(csv_file, tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("old")
    rc, cap = _run(["laws", csv_file, "-o", out, "--drops", "0", "99"], capsys)
    assert rc == 1 and "--drops: drop 99 not in 0..7" in cap.err
    assert [p.name for p in out.iterdir()] == ["keep.txt"]
    assert not list(tmp_path.glob(".out.partial.*"))
    # A later success adds its files beside the old ones.
    assert _run(["laws", csv_file, "-o", out])[0] == 0
    assert (out / "keep.txt").read_text() == "old" and (out / "laws.csv").is_file()


def test_compare_needs_the_ellipse_pose(tmp_path, capsys):
    path = tmp_path / "nopose.csv"
    path.write_text("mass,inertia,r_x,r_y,vx_i,vy_i,w_i,vx_f,vy_f,w_f\n"
                    "0.0364,1.3468e-5,0.01,-0.02,0.5,-2.5,1,0.4,1.4,2\n")
    rc, cap = _run(["compare", path, "-o", tmp_path / "out", "--csim", "/bin/true"], capsys)
    assert rc == 1 and "drop 0 has no pose" in cap.err


@pytest.mark.skipif(not CSIM, reason="CSIM is not set (the csim executable)")
def test_compare_on_a_csim_made_set(tmp_path, capsys):
    # A csim-made set written to CSV by the synthetic command, then compared.
    path = tmp_path / "sap.csv"
    assert _run(["synthetic", "synthetic:5:0:sap", "-o", path, "--csim", CSIM])[0] == 0
    out = tmp_path / "out"
    rc, cap = _run(["compare", path, "-o", out, "--quick", "--refine", "3", "--models", "sap",
                    "--laws", "wang_mason", "--csim", CSIM], capsys)
    assert rc == 0, cap.err
    rows = {r["model"]: r for r in _rows(out / "compare.csv")}
    assert set(rows) == {"sap", "Wang-Mason", "IRB bound"}
    sap = rows["sap"]
    assert float(sap["mu"]) == pytest.approx(0.15, abs=0.03)
    assert float(sap["err_drop_mean"]) <= float(sap["err_batch_mean"]) + 1e-12
    assert float(sap["err_truth_mean"]) < 0.05  # the truth read back from the CSV
    irb = float(rows["IRB bound"]["err_drop_mean"])
    assert irb <= float(rows["Wang-Mason"]["err_drop_mean"]) + 1e-12
    assert "model = sap" in (out / "summary.md").read_text()
    assert (out / "compare_error_densities.png").is_file()


def test_identify_ensemble_spread_shrinks_with_the_subset_size(tmp_path):
    # Paper Fig. 7b: batch fits over random subsets of k noisy drops scatter around the
    # truth, less as k grows. Subsets of 40 drops drawn without replacement: the spread
    # goes as sqrt((40 - k) / (39 k)), 0.38 times as wide at k = 20 as at k = 5; asserted
    # with room for the scatter of a standard deviation estimated from 20 subsets.
    sigma = np.array([0.014, 0.014, 0.35])
    noisy = data.synthetic_ellipse_drops(40, "ap_newton", MU, E, np.random.default_rng(5),
                                         sigma_v=sigma)
    path = tmp_path / "noisy.csv"
    data.write_csv(path, noisy)
    out = tmp_path / "out"
    rc, _ = _run(["identify", path, "-o", out, "--laws", "ap_newton", "--grid", "5",
                  "--landscape-drops", "10", "--ensemble", "5", "10", "20", "--ensemble-sets", "20"])
    assert rc == 0
    rows = {int(r["k"]): r for r in _rows(out / "ensemble.csv")}
    assert sorted(rows) == [5, 10, 20]
    assert (out / "ensemble_ap_newton.png").is_file()
    for key, truth in (("mu", MU), ("e", E)):
        std = [float(rows[k][f"{key}_std"]) for k in (5, 10, 20)]
        assert std[2] < 0.7 * std[0]
        assert abs(float(rows[20][f"{key}_mean"]) - truth) < 3 * std[2] + 1e-3

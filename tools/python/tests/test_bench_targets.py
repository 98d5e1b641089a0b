"""tools/bench_targets.py: the fitted growth exponents it prints for csim and MuJoCo."""
import math
import os
import re
import sys

from conftest import REPO

sys.path.insert(0, os.path.join(REPO, "tools"))
import bench_targets  # noqa: E402


def row(n, dt, csim_ms, mujoco_ms, steps=5000, mujoco_steps=5000):
    return {"objects": float(n), "walls": 0.0, "dt": dt, "steps": float(steps),
            "mujoco_steps": float(mujoco_steps), "csim_common_ms_mean": csim_ms,
            "mujoco_ms_mean": mujoco_ms}


def test_exponent_recovers_a_power_law():
    points = [(n, 3e-3 * n ** 1.3) for n in (40, 80, 160)]
    assert math.isclose(bench_targets.exponent(points), 1.3, rel_tol=1e-12)


def test_mujoco_growth_fits_both_simulators_from_40_objects_up():
    # csim linear, MuJoCo quadratic from 40 objects up; the 10-object row (fixed costs) and
    # the rows with walls must not enter the fits.
    rows = [row(n, 2e-3, 2e-3 * n, 1e-4 * n ** 2) for n in (40, 80, 160)]
    rows.append(row(10, 2e-3, 5.0, 5.0))
    rows.append(dict(row(160, 2e-3, 50.0, 0.5), walls=1.0))
    out = []
    bench_targets.mujoco_growth_section(rows, out)
    text = "\n".join(out)
    fit = re.search(r"^\| 0\.002 \| 40-160 \| ([0-9.]+) \| ([0-9.]+) \|$", text, re.M)
    assert fit, text
    assert (fit.group(1), fit.group(2)) == ("1.00", "2.00")
    # MuJoCo/csim per row: at 160 objects 1e-4 * 160^2 / (2e-3 * 160) = 8.
    assert re.search(r"^\| 0\.002 \| 160 \| 5000 of 5000 \| 0\.320 \| 2\.00 \| 2\.560 \| 16\.00 \| 8\.00 \|$",
                     text, re.M), text


def test_mujoco_growth_is_silent_without_mujoco_rows():
    rows = [row(n, 2e-3, 2e-3 * n, None) for n in (40, 80, 160)]
    out = []
    bench_targets.mujoco_growth_section(rows, out)
    assert out == []


def pair_row(n, dt, pairs_per_object, feature_exponent):
    # Narrow-phase and touching pairs linear in n; feature pairs and the collision time
    # ~ n^feature_exponent (a heap whose mix shifts towards box-on-box pairs).
    return {"objects": float(n), "walls": 0.0, "dt": dt, "steps": 5000.0,
            "csim_settled_narrow_phase_pairs": pairs_per_object * n,
            "csim_settled_touching_pairs": 0.5 * pairs_per_object * n,
            "csim_settled_feature_pairs": 0.01 * n ** feature_exponent,
            "csim_settled_collision_ms": 1e-3 * n ** feature_exponent}


def test_collision_pairs_per_object_and_their_exponents():
    rows = [pair_row(n, 2e-3, 1.5, 1.5) for n in (40, 80, 160)]
    rows.append(pair_row(10, 2e-3, 9.0, 3.0))  # fixed costs: must not enter the fits
    out = []
    bench_targets.collision_pairs_section(rows, [2e-3], out)
    text = "\n".join(out)
    # Per object at 160: 1.5, 0.75, 0.01 * 160^0.5 = 0.126, 1e-3 * 160^0.5 ms = 12.649 us.
    assert re.search(r"^\| 0\.002 \| 160 \| 1\.500 \| 0\.750 \| 0\.126 \| 12\.649 \|$", text, re.M), text
    assert re.search(r"^\| 0\.002 \| p \| 1\.00 \| 1\.00 \| 1\.50 \| 1\.50 \|$", text, re.M), text
    assert "| 0.002 | 10 |" not in text


def test_collision_pairs_are_silent_for_csvs_without_pair_counts():
    rows = [pair_row(n, 2e-3, 1.5, 1.5) for n in (40, 80, 160)]
    for r in rows:
        del r["csim_settled_feature_pairs"]
    out = []
    bench_targets.collision_pairs_section(rows, [2e-3], out)
    assert out == []


def accuracy_row(n, error_max, certified_max, cost_steps, cost_max, eps_r=1e-6):
    return {"objects": float(n), "walls": 1.0, "dt": 2e-3, "steps": 5000.0,
            "csim_eps_r": eps_r, "csim_momentum_error_max": error_max,
            "csim_momentum_error_median": 1e-12,
            "csim_certified_momentum_error_max": certified_max,
            "csim_cost_criterion_steps": float(cost_steps),
            "csim_cost_criterion_momentum_error_max": cost_max}


def test_accuracy_flags_a_step_above_the_tolerance():
    rows = [accuracy_row(40, 7e-7, 7e-7, 0, 0.0),
            accuracy_row(160, 3e-6, 6e-7, 2, 3e-6),
            {"objects": 10.0, "walls": 1.0, "dt": 2e-3, "steps": 5000.0}]  # an older CSV row
    out = []
    bench_targets.accuracy_section(rows, out)
    text = "\n".join(out)
    assert re.search(r"^\| clutter-40 walls dt=0\.002 \| 5000 \| 7\.00e-07 \| .* \| 5000 \(7\.00e-07\) "
                     r"\| 0 \| yes \|$", text, re.M), text
    assert re.search(r"^\| clutter-160 walls dt=0\.002 \| 5000 \| 3\.00e-06 \| .* \| 4998 \(6\.00e-07\) "
                     r"\| 2 \(3\.00e-06\) \| NO \|$", text, re.M), text
    assert "clutter-10 " not in text


def test_accuracy_is_silent_for_csvs_without_the_error():
    out = []
    bench_targets.accuracy_section([{"objects": 40.0, "walls": 1.0, "dt": 2e-3, "steps": 5.0}], out)
    assert out == []


def kind_row(n, dt, predicted, active, smooth):
    return {"objects": float(n), "walls": 0.0, "dt": dt, "steps": 5000.0,
            "csim_work_predicted_mean": predicted, "csim_work_active_set_mean": active,
            "csim_work_smooth_mean": smooth}


def test_work_by_kind_per_object_exponents_and_shares():
    # Predicted work linear in n; active-set and smooth work ~ n^1.5 and n^2 (per object at
    # 40: 1, 0.5, 0.25; at 160: 1, 1, 1), so the work per object grows by 0.5 + 0.75 = 1.25,
    # 40 % of it in active-set changes and 60 % in smooth updates.
    rows = [kind_row(n, 2e-3, n, 0.5 * n * (n / 40) ** 0.5, 0.25 * n * (n / 40)) for n in (40, 80, 160)]
    rows.append(kind_row(10, 2e-3, 99.0, 99.0, 99.0))  # below the fits' 40 objects
    out = []
    bench_targets.work_kind_section(rows, [2e-3], out)
    text = "\n".join(out)
    assert re.search(r"^\| 0\.002 \| 40 \| 1\.00 \| 0\.50 \| 0\.25 \| 1\.75 \|$", text, re.M), text
    assert re.search(r"^\| 0\.002 \| 160 \| 1\.00 \| 1\.00 \| 1\.00 \| 3\.00 \|$", text, re.M), text
    assert re.search(r"^\| 0\.002 \| p \| 1\.00 \| 1\.50 \| 2\.00 \| ", text, re.M), text
    assert re.search(r"^\| 0\.002 \| share 40-160 \| 0 % \| 40 % \| 60 % \| 100 % \|$", text, re.M), text
    assert "| 0.002 | 10 |" not in text


def test_work_by_kind_has_no_shares_of_a_flat_work_per_object():
    rows = [kind_row(n, 2e-3, n, 0.1 * n, 0.2 * n * (1 + 0.01 * (n > 40))) for n in (40, 80, 160)]
    out = []
    bench_targets.work_kind_section(rows, [2e-3], out)
    text = "\n".join(out)
    assert re.search(r"^\| 0\.002 \| p \| 1\.00 \| 1\.00 \|", text, re.M), text
    assert "share" not in text.split("\n", 1)[1], text


def test_work_by_kind_is_silent_for_csvs_without_the_split():
    rows = [kind_row(n, 2e-3, n, n, n) for n in (40, 80, 160)]
    for r in rows:
        del r["csim_work_smooth_mean"]
    out = []
    bench_targets.work_kind_section(rows, [2e-3], out)
    assert out == []


def pile_row(n, dt, seed, ms, work):
    return {"objects": float(n), "walls": 0.0, "dt": dt, "columns": 0.0, "column_spacing": 0.0,
            "seed": float(seed), "csim_ms_mean": ms, "csim_work_mean": work, "note": "x"}


def test_mean_over_seeds_averages_the_piles_of_each_configuration():
    rows = [pile_row(40, 2e-3, 1, 1.0, 10.0), pile_row(40, 2e-3, 2, 3.0, 30.0),
            pile_row(80, 2e-3, 1, 5.0, None)]
    means = bench_targets.mean_over_seeds(rows)
    assert len(means) == 2
    assert means[0]["piles"] == 2 and means[0]["csim_ms_mean"] == 2.0
    assert means[0]["csim_work_mean"] == 20.0 and means[0]["note"] == "x"
    assert means[1]["piles"] == 1 and means[1]["csim_work_mean"] is None


def test_piles_section_fits_each_pile_and_the_mean():
    # Pile 1: time ~ n (p = 1), work ~ n^1.5; pile 2: time ~ n^2 (p = 2), work ~ n.
    # Means at 40 and 160: time (40 + 1600) / 2 = 820 and (160 + 25600) / 2 = 12880, so the
    # mean's exponent is log(12880 / 820) / log(4) = 1.99; work (40^1.5 + 40) / 2 = 146.5 and
    # (160^1.5 + 160) / 2 = 1091.9, exponent 1.45.
    rows = []
    for n in (40, 160):
        rows.append(pile_row(n, 2e-3, 1, float(n), n ** 1.5))
        rows.append(pile_row(n, 2e-3, 2, float(n * n), float(n)))
    rows.append(pile_row(10, 2e-3, 1, 99.0, 99.0))  # below the fits' 40 objects
    out = []
    bench_targets.piles_section(rows, out)
    text = "\n".join(out)
    assert re.search(r"^\| 0\.002 \| 40-160 \| 2 \| 1\.00, 2\.00 \| 1\.00-2\.00 \| 1\.99 \| "
                     r"1\.50, 1\.00 \| 1\.45 \|$", text, re.M), text


def test_piles_section_is_silent_for_one_pile_or_no_work_column():
    one = [pile_row(n, 2e-3, 1, float(n), float(n)) for n in (40, 160)]
    out = []
    bench_targets.piles_section(one, out)
    assert out == []
    older = [pile_row(n, 2e-3, s, float(n), None) for n in (40, 160) for s in (1, 2)]
    bench_targets.piles_section(older, out)
    assert out == []


def settled_row(n, dt, free, collision, build, solve, rest):
    return {"objects": float(n), "walls": 0.0, "dt": dt, "steps": 5000.0,
            "csim_settled_free_motion_ms": free, "csim_settled_collision_ms": collision,
            "csim_settled_build_ms": build, "csim_settled_solve_ms": solve,
            "csim_settled_ms_mean": free + collision + build + solve + rest}


def test_settled_floor_outside_the_solve():
    # Free motion, build and rest linear, collision ~ n^1.3 and the solve ~ n^2: outside the
    # solve the time is 3e-3 n + 1e-4 n^1.3; its least-squares exponent over 40/80/160 is
    # that of those three sums, computed here independently of the code under test.
    ns = (40, 80, 160)
    rows = [settled_row(n, 2e-3, 1e-3 * n, 1e-4 * n ** 1.3, 1e-3 * n, 1e-5 * n ** 2, 1e-3 * n)
            for n in ns]
    rows.append(settled_row(10, 2e-3, 1.0, 1.0, 1.0, 1.0, 1.0))  # below the fits
    outside = [3e-3 * n + 1e-4 * n ** 1.3 for n in ns]
    slope = math.log(outside[2] / outside[0]) / math.log(4)  # log-spaced: the end points' slope
    out = []
    bench_targets.settled_section(rows, [2e-3], [], out)
    text = "\n".join(out)
    line = re.search(r"^dt 0\.002: outside the SAP solve .* p = ([0-9.]+) \(40-160 objects\)", text, re.M)
    assert line, text
    assert line.group(1) == f"{slope:.2f}"
    assert ("above the bar" in text) == (slope > bench_targets.LINEAR_EXPONENT)
    # Everything outside the solve linear: the floor is p = 1.00, no claim about the bar.
    rows = [settled_row(n, 2e-3, 1e-3 * n, 2e-3 * n, 1e-3 * n, 1e-5 * n ** 2, 1e-3 * n) for n in ns]
    out = []
    bench_targets.settled_section(rows, [2e-3], [], out)
    text = "\n".join(out)
    assert re.search(r"p = 1\.00 \(40-160 objects\), so a solve that cost nothing would leave "
                     r"the settled step's exponent at 1\.00\.$", text, re.M), text

"""tools/floor_rope_study.py: ropes dropped onto the floor under two values of a setting.
The tree solvers (dense Cholesky, articulated-body recursions with the body maps) solve the
same problems, so they take the same Newton iterations and end with the same energy, which
the floor can only take away; --repeat reruns each variant and keeps each step's fastest
time, with the same physics."""
import csv
import os
import subprocess

from conftest import REPO


def study(tmp_path, csim, name, *extra):
    out = tmp_path / f"{name}.csv"
    subprocess.run(["/usr/bin/python3", os.path.join(REPO, "tools", "floor_rope_study.py"),
                    "--csim", csim, "--links", "6", "--joints", "ball,revolute", "--duration", "0.5",
                    "--compare", "settings.tree_solver=dense,articulated", "--csv", str(out), *extra],
                   check=True, capture_output=True)
    return {(r["joint"], r["variant"]): r for r in csv.DictReader(open(out))}


def test_tree_solvers_agree_and_repeat_keeps_the_physics(tmp_path, csim):
    once = study(tmp_path, csim, "once")
    repeated = study(tmp_path, csim, "repeated", "--repeat", "3")
    assert set(once) == {(j, v) for j in ["ball", "revolute"] for v in ["dense", "articulated"]}
    for key, r in once.items():
        assert r["status"] == "completed"
        # Symplectic Euler's own error in the fall, no more: the floor only takes energy.
        assert float(r["energy_max_over_initial"]) < 1.01
        assert float(r["energy_final_over_initial"]) < 0.9  # the impact took energy away
        assert float(r["ms_per_step"]) > 0
        # The repeats change the times only.
        for column in ["steps", "mean_iterations", "max_iterations", "energy_final_over_initial"]:
            assert repeated[key][column] == r[column]
    for joint in ["ball", "revolute"]:
        dense, articulated = once[(joint, "dense")], once[(joint, "articulated")]
        assert int(dense["max_iterations"]) >= 2  # the rope hit the floor: contact solves
        assert abs(float(articulated["mean_iterations"]) - float(dense["mean_iterations"])) <= 0.05
        assert abs(float(articulated["energy_final_over_initial"]) -
                   float(dense["energy_final_over_initial"])) <= 1e-3


def test_baseline_executable_is_a_first_variant(tmp_path, csim):
    """--baseline-csim runs another executable (here the same one) as `baseline`, with its
    defaults; the Markdown names its version. The same build gives the same steps."""
    md = tmp_path / "b.md"
    out = tmp_path / "b.csv"
    subprocess.run(["/usr/bin/python3", os.path.join(REPO, "tools", "floor_rope_study.py"),
                    "--csim", csim, "--baseline-csim", csim, "--links", "6", "--joints", "ball",
                    "--duration", "0.5", "--compare", "settings.tree_solver=auto",
                    "--csv", str(out), "--markdown", str(md)], check=True, capture_output=True)
    rows = {r["variant"]: r for r in csv.DictReader(open(out))}
    assert list(rows) == ["baseline", "auto"]
    for column in ["steps", "mean_iterations", "max_iterations", "energy_final_over_initial"]:
        assert rows["baseline"][column] == rows["auto"][column]
    assert float(rows["auto"]["iterations_vs_default"]) == 1.0
    assert "`baseline`: " in md.read_text() and "(git " in md.read_text()

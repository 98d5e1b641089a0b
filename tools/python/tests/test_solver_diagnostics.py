"""The solver diagnostics end to end (docs/output-format.md "Solver diagnostics"):
`settings.output.condition_number` and `csim run --trace-solver` through the csim binary,
its HDF5 file (tools/check_output.py) and csimpy's readers; invalid STEPs exit 1."""
import os
import subprocess

import h5py
import numpy as np
import pytest

import csimpy
from conftest import REPO, scene

CHECK_OUTPUT = os.path.join(REPO, "tools", "check_output.py")
# The falling sphere: 0.4 s at dt = 2e-3, i.e. steps 1 .. 200; it lands at step 51.
TRACED = ("--trace-solver", "51,52", "--trace-solver", "200,52", "--set",
          "settings.output.condition_number=true")


@pytest.fixture(scope="module")
def diagnosed_h5(make_run):
    return make_run("falling_sphere.yaml", "falling_sphere_diagnosed", *TRACED)


def test_the_file_conforms(diagnosed_h5):
    check = subprocess.run(["/usr/bin/python3", CHECK_OUTPUT, diagnosed_h5],
                           capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr


def test_condition_number_and_stiction_tolerance(diagnosed_h5):
    with csimpy.open(diagnosed_h5) as run:
        kappa = run.condition_number
        assert kappa.shape == (run.n,)
        assert np.isnan(kappa[0])  # the initial row: no step
        touching = run.contact_count[1:] > 0
        assert np.all(kappa[1:][touching] >= 1.0)
        # The sphere alone in the margin, its contact carrying nothing: its mass matrix,
        # m / I = 0.5 / (2/5 0.5 0.025^2) = 4000.
        assert np.nanmin(kappa) == pytest.approx(4000.0, rel=1e-9)
        v_s = run.contact_array("stiction_tolerance")
        assert len(v_s) == run.n_contacts
        np.testing.assert_array_equal(v_s, 1e-4)  # lagged: settings.stiction_tolerance
        assert "stiction_tolerance" in run.contacts_at(-1)
        assert "stiction_tolerance" in run.contact_frame().columns


def test_traces_end_at_the_recorded_step(diagnosed_h5):
    with csimpy.open(diagnosed_h5) as run:
        np.testing.assert_array_equal(run.traced_steps, [51, 52, 200])
        for step in run.traced_steps:
            trace = run.solver_trace(step)
            row = int(np.flatnonzero(run.step == step)[0])
            assert len(trace["iteration"]) == run.iterations[row] + 1
            np.testing.assert_array_equal(trace["iteration"], np.arange(run.iterations[row] + 1))
            # Bit for bit the step's recorded momentum error and cost.
            assert trace["momentum_error"][-1] == run.momentum_error[row]
            assert trace["cost"][-1] == run.cost[row]
            assert np.all(np.diff(trace["cost"]) <= 1e-10 * np.abs(trace["cost"][:-1]))
            assert not np.any(trace["merged"])  # one sphere: no island merges
            assert np.isnan(trace["alpha"][-1]) and np.all(trace["alpha"][:-1] > 0)
        frame = run.solver_trace_frame()
        assert list(frame.columns) == ["step", "iteration", "cost", "gradient_norm",
                                       "momentum_error", "alpha", "merged"]
        assert len(frame) == sum(len(run.solver_trace(s)["cost"]) for s in run.traced_steps)
        with pytest.raises(KeyError, match="step 53 was not traced"):
            run.solver_trace(53)


def test_a_rerun_traces_the_same_bits(diagnosed_h5, csim, tmp_path):
    again = str(tmp_path / "again.h5")
    subprocess.run([csim, "run", scene("falling_sphere.yaml"), "-o", again, "-q",
                    "--no-progress", *TRACED], check=True)
    with h5py.File(diagnosed_h5, "r") as a, h5py.File(again, "r") as b:
        for name in a["solver_trace"]:
            np.testing.assert_array_equal(a["solver_trace/" + name][()],
                                          b["solver_trace/" + name][()])


def test_a_step_between_recorded_rows_is_traced(csim, tmp_path):
    out = str(tmp_path / "every.h5")
    subprocess.run([csim, "run", scene("falling_sphere.yaml"), "-o", out, "-q", "--no-progress",
                    "--set", "settings.output.every=10", "--trace-solver", "53"], check=True)
    with csimpy.open(out) as run:
        assert 53 not in run.step
        np.testing.assert_array_equal(run.traced_steps, [53])
        assert len(run.solver_trace(53)["cost"]) >= 2
        with pytest.raises(KeyError, match="condition_number"):
            run.condition_number  # not asked for
        with pytest.raises(KeyError, match="output.condition_number"):
            run.contact_array("stiction_tolerance")
        assert "stiction_tolerance" not in run.contacts_at(-1)


def test_a_plain_run_has_no_diagnostics(pendulum_h5):
    with csimpy.open(pendulum_h5) as run:
        assert not run.has_solver_trace
        assert len(run.traced_steps) == 0
        assert run.solver_trace_frame().empty


@pytest.mark.parametrize("steps, why", [("0", "is not a step of this run"),
                                        ("201", "is not a step of this run"),
                                        ("5,x", "is not an integer"),
                                        ("", "is not an integer"),
                                        ("1.5", "is not an integer")])
def test_an_invalid_step_is_invalid_input(csim, tmp_path, steps, why):
    out = tmp_path / "bad.h5"
    proc = subprocess.run([csim, "run", scene("falling_sphere.yaml"), "-o", str(out),
                           "--trace-solver", steps], capture_output=True, text=True)
    assert proc.returncode == 1, proc.stderr
    assert f"--trace-solver: '{steps.split(',')[-1]}' {why}" in proc.stderr
    assert "from 1 (the step ending at t = time_step) to 200" in proc.stderr
    assert not out.exists()


def test_a_failed_step_keeps_its_trace(csim, tmp_path):
    # One Newton iteration allowed: the landing's solve runs out of them, the run fails
    # there (exit 3) and that step's trace, written after the last row, stays in the file.
    out = str(tmp_path / "failed.h5")
    every_step = ",".join(str(s) for s in range(1, 201))
    proc = subprocess.run([csim, "run", scene("falling_sphere.yaml"), "-o", out, "-q",
                           "--set", "settings.solver.max_iterations=1",
                           "--trace-solver", every_step], capture_output=True, text=True)
    assert proc.returncode == 3, proc.stderr
    with csimpy.open(out) as run:
        assert run.status == "failed"
        failed = int(run.step[-1]) + 1
        assert f"step {failed}:" in run.failure_reason
        assert run.traced_steps[-1] == failed
        trace = run.solver_trace(failed)
        assert len(trace["cost"]) == 2  # the guess and the one update allowed
        assert trace["momentum_error"][-1] > 1e-6
    check = subprocess.run(["/usr/bin/python3", CHECK_OUTPUT, out], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr

"""csimpy.Run against real csim runs: named arrays, bodies, joints, contacts, plots, SWMR."""
import os
import signal
import subprocess
import time

import h5py
import numpy as np
import pytest

import csimpy
from conftest import scene


def test_three_lines_open_a_run_and_plot(pendulum_h5, tmp_path):
    run = csimpy.open(pendulum_h5)
    ax = run.plot_energy(save=str(tmp_path / "energy.png"))
    assert ax is not None
    assert (tmp_path / "energy.png").stat().st_size > 5000


def test_named_arrays_match_the_file(pendulum_h5):
    with csimpy.open(pendulum_h5) as run, h5py.File(pendulum_h5, "r") as f:
        n = len(f["time"])
        assert run.n == len(run) == n
        assert run.status == "completed"
        assert run.integrator == f.attrs["integrator"]
        assert run.gyroscopic == "implicit"  # the default
        assert run.time_step == pytest.approx(1e-3)
        assert run.time[0] == 0.0 and run.time[-1] == pytest.approx(0.5)
        np.testing.assert_array_equal(run.q, f["state/q"][:n])
        np.testing.assert_array_equal(run.v, f["state/v"][:n])
        np.testing.assert_array_equal(run.kinetic, f["energy/kinetic"][:n])
        np.testing.assert_array_equal(run.potential, f["energy/potential"][:n])
        np.testing.assert_allclose(run.energy, f["energy/kinetic"][:n] + f["energy/potential"][:n])
        np.testing.assert_array_equal(run.iterations, f["solver/iterations"][:n])
        np.testing.assert_array_equal(run.momentum_error, f["solver/momentum_error"][:n])
        assert run.body_names == ["bob"] and run.joint_names == ["hinge"]
        assert run.nq == 1 and run.nv == 1
        assert run.q[0, 0] == pytest.approx(1.0)  # released from 1 rad


def test_joint_friction_effort_by_name(make_run, pendulum_h5):
    path = make_run("dry_friction.yaml", "dry_friction", "--duration", "0.1")
    with csimpy.open(path) as run, h5py.File(path, "r") as f:
        np.testing.assert_array_equal(run.friction_effort, f["joints/friction_effort"][: run.n])
        assert run.friction_effort.shape == (run.n, run.nv)
    with pytest.raises(KeyError, match="joints/friction_effort"):
        csimpy.open(pendulum_h5).friction_effort  # a model without joint friction


def test_constraint_impulses_by_name(make_run, pendulum_h5):
    path = make_run("four_bar.yaml", "four_bar", "--duration", "0.1")
    with csimpy.open(path) as run, h5py.File(path, "r") as f:
        assert run.constraint_names == ["ground_pivot"]
        assert run.constraint_types == ["ball"]
        np.testing.assert_array_equal(run.constraint_impulse, f["constraints/impulse"][: run.n])
        assert run.constraint("ground_pivot").shape == (run.n, 3)
        with pytest.raises(KeyError, match="no constraint 'hinge'"):
            run.constraint("hinge")
    with csimpy.open(pendulum_h5) as run:
        assert run.constraint_names == []
        with pytest.raises(KeyError, match="constraints/impulse"):
            run.constraint_impulse  # a model without constraints


def test_actuators_by_name(make_run, pendulum_h5):
    path = make_run("pd_arm.yaml", "pd_arm", "--duration", "0.1")
    with csimpy.open(path) as run, h5py.File(path, "r") as f:
        assert run.actuator_names == ["shoulder_motor", "elbow_motor", "wrist_motor"]
        np.testing.assert_array_equal(run.actuator_effort, f["actuators/effort"][: run.n])
        assert run.actuator_effort.shape == (run.n, 3)
        elbow = run.actuator("elbow_motor")
        np.testing.assert_array_equal(elbow["q_target"], f["actuators/q_target"][: run.n, 1])
        np.testing.assert_array_equal(elbow["saturated"], f["actuators/saturated"][: run.n, 1])
        with pytest.raises(KeyError, match="no actuator 'knee'"):
            run.actuator("knee")
    with pytest.raises(KeyError, match="actuators/effort"):
        csimpy.open(pendulum_h5).actuator_effort  # a model without actuators


def test_bodies_and_joints_by_name(pendulum_h5):
    run = csimpy.open(pendulum_h5)
    bob = run.body("bob")
    assert bob.position.shape == (run.n, 3) and bob.quaternion.shape == (run.n, 4)
    # the body frame sits on the hinge at (0, 0, 1.5) and turns about y by the angle q
    np.testing.assert_allclose(bob.position, np.tile([0, 0, 1.5], (run.n, 1)), atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(bob.quaternion, axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(2 * np.arccos(np.abs(bob.quaternion[:, 0])), np.abs(run.q[:, 0]),
                               atol=1e-6)
    np.testing.assert_allclose(bob.quaternion[:, [1, 3]], 0, atol=1e-12)
    np.testing.assert_array_equal(run.joint_q("hinge")[:, 0], run.q[:, 0])
    assert run.value("q[0]") == run.q[-1, 0]
    assert run.value("joints.hinge.v[0]", row=3) == run.v[3, 0]
    assert run.value("bodies.bob.position.z") == bob.position[-1, 2]
    assert run.value("energy", row=0) == pytest.approx(run.energy[0])
    assert set(run.bodies) == {"bob"}
    with pytest.raises(KeyError, match="no body 'nope'"):
        run.body("nope")
    with pytest.raises(ValueError):
        run.value("q0")


def test_summary_scalars(pendulum_h5):
    s = csimpy.open(pendulum_h5).summary()
    assert s["status"] == "completed" and s["steps"] == 500 and s["t_end"] == pytest.approx(0.5)
    assert s["energy_initial"] > 0 and abs(s["energy_rel_change"]) < 1e-2
    assert s["max_momentum_error"] >= 0 and s["mean_iterations"] >= 0


def test_contact_expansion_is_consistent_with_count_and_offset(clutter_h5):
    run = csimpy.open(clutter_h5)
    count, offset = run.contact_count, run.contact_offset
    assert count.sum() > 100  # the clutter has many contacts by 0.3 s
    np.testing.assert_array_equal(offset[1:], offset[:-1] + count[:-1])
    assert run.n_contacts == count.sum()
    df = run.contact_frame()
    assert len(df) == count.sum()
    per_row = df.groupby("row").size().reindex(range(run.n), fill_value=0).to_numpy()
    np.testing.assert_array_equal(per_row, count)
    busiest = int(np.argmax(count))
    view = run.contacts_at(busiest)
    assert len(view["force"]) == count[busiest]
    rows = df[df.row == busiest]
    np.testing.assert_array_equal(rows[["force_x", "force_y", "force_z"]].to_numpy(), view["force"])
    assert (rows.time == run.time[busiest]).all()
    with h5py.File(clutter_h5, "r") as f:
        a = f["contacts/offset"][busiest]
        np.testing.assert_array_equal(view["point"], f["contacts/point"][a:a + count[busiest]])
    # names follow the indices (-1 = world)
    names = np.array(["world"] + run.body_names, dtype=object)
    assert (df.name_b.to_numpy() == names[df.body_b.to_numpy() + 1]).all()
    # normal component and per-row totals agree with the flat arrays
    np.testing.assert_allclose(
        df.force_normal, np.einsum("ij,ij->i", view_all(run, "force"), view_all(run, "normal")))
    np.testing.assert_allclose(run.contact_force_total(),
                               df.groupby("row")[["force_x", "force_y", "force_z"]].sum()
                               .reindex(range(run.n), fill_value=0).to_numpy(), atol=1e-9)
    # the normal forces push the bodies apart (compliant contact is never adhesive)
    assert (df.force_normal >= -1e-9).all()
    # iterating the per-step views visits every contact once
    assert sum(len(c["body_a"]) for _, _, c in run.iter_contacts()) == count.sum()


def view_all(run, name):
    return run.contact_array(name)


def test_resting_cylinder_contacts_carry_its_weight(cylinder_h5):
    run = csimpy.open(cylinder_h5)
    fz = run.contact_force_total()[:, 2]
    # m g = 0.5 * 9.81 carried by the ground at every step after the first
    np.testing.assert_allclose(fz[1:], 0.5 * 9.81, rtol=0.05)
    df = run.contact_frame()
    assert set(df.name_a) | set(df.name_b) <= {"world", "cylinder"}


def test_frame_and_plots(clutter_h5, tmp_path):
    run = csimpy.open(clutter_h5)
    df = run.frame()
    assert df.index.name == "time" and len(df) == run.n
    assert {"energy", "iterations", "momentum_error", "contacts"} <= set(df.columns)
    for name in ("plot_energy", "plot_contact_forces", "plot_iterations",
                 "plot_momentum_error", "plot_overview"):
        out = tmp_path / f"{name}.png"
        getattr(run, name)(save=str(out))
        assert out.stat().st_size > 5000, name


def test_run_without_contacts(make_run, tmp_path):
    path = make_run("spring_cylinder.yaml", "nocontacts", "--duration", "0.1",
                    "--set", "settings.output.contacts=false")
    run = csimpy.open(path)
    assert not run.has_contacts and run.n_contacts == 0
    with pytest.raises(KeyError, match="output.contacts"):
        run.contact_frame()
    run.plot_contact_forces(save=str(tmp_path / "c.png"))
    assert "contacts" not in run.frame().columns


def test_a_corrupt_file_raises_naming_it(pendulum_h5, tmp_path):
    """A damaged superblock: the SWMR open used to retry its checksum for good (a hang)."""
    damaged = tmp_path / "damaged.h5"
    data = bytearray(open(pendulum_h5, "rb").read())
    data[40:48] = b"\xff" * 8
    damaged.write_bytes(bytes(data))
    with pytest.raises(OSError, match="damaged.h5: .*checksum"):
        csimpy.open(damaged)


def test_a_file_that_is_not_a_whole_csim_output_is_named(pendulum_h5, tmp_path):
    other = tmp_path / "other.h5"
    with h5py.File(other, "w") as f:
        f["x"] = [1.0]
    with pytest.raises(ValueError, match="other.h5: not a csim output file"):
        csimpy.open(other)
    newer = tmp_path / "newer.h5"
    newer.write_bytes(open(pendulum_h5, "rb").read())
    with h5py.File(newer, "r+") as f:
        f.attrs["format_version"] = 99
    with pytest.raises(ValueError, match="format version 99"):
        csimpy.open(newer)
    # A series shorter than /time used to come back short, silently: the last "row" of q
    # was then an earlier state.
    short = tmp_path / "short.h5"
    short.write_bytes(open(pendulum_h5, "rb").read())
    with h5py.File(short, "r+") as f:
        f["state/q"].resize(5, axis=0)
    with csimpy.open(short) as run, pytest.raises(ValueError, match="/state/q has 5 rows"):
        run.q
    # No complete row yet: a clear error, not numpy's "index -1 is out of bounds".
    with h5py.File(short, "r+") as f:
        f["time"].resize(0, axis=0)
    with csimpy.open(short) as run, pytest.raises(IndexError, match="no rows yet"):
        run.value("q[0]")


def test_swmr_reads_a_live_run(csim, tmp_path):
    """Open a run while csim writes it, watch it grow with refresh(), interrupt it."""
    out = tmp_path / "live.h5"
    proc = subprocess.Popen([csim, "run", scene("spring_cylinder.yaml"), "-o", str(out), "-q",
                             "--no-progress", "--dt", "1e-4", "--duration", "1000"])
    try:
        deadline = time.monotonic() + 30
        run = None
        while time.monotonic() < deadline:
            if out.exists():
                try:
                    run = csimpy.open(out)
                    if run.n > 0:
                        break
                    run.close()
                except (OSError, KeyError):
                    pass  # created but not yet switched to SWMR writing
                run = None
            time.sleep(0.1)
        assert run is not None, "no rows appeared within 30 s"
        assert run.swmr
        assert run.status == "running"
        first = run.n
        t_first = run.time[-1]
        grown = first
        while time.monotonic() < deadline and grown <= first:
            time.sleep(0.5)
            grown = run.refresh()
        assert grown > first, "the live file did not grow"
        assert run.time[-1] > t_first
        # every complete row is consistent across datasets
        assert len(run.q) == len(run.energy) == len(run.contact_count) == grown
        assert run.n_contacts == run.contact_count.sum()
        assert np.all(np.diff(run.time) > 0)
        run.close()
    finally:
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=30)
    assert code == 143
    with csimpy.open(out) as run:
        assert run.status == "interrupted"
        assert run.n >= grown


def test_simulate_runs_csim_and_opens_the_result(csim, tmp_path, monkeypatch):
    monkeypatch.setenv("CSIM", csim)
    run = csimpy.simulate(scene("spring_mass.yaml"), tmp_path / "sm.h5", "--duration", 0.5,
                          "--integrator", "midpoint")
    assert run.status == "completed" and run.integrator == "midpoint"
    assert run.time[-1] == pytest.approx(0.5)
    # x = 0.1 cos(10 t) (scenes/spring_mass.yaml)
    np.testing.assert_allclose(run.q[:, 0], 0.1 * np.cos(10 * run.time), atol=2e-3)
    with pytest.raises(subprocess.CalledProcessError) as e:
        csimpy.simulate(scene("spring_mass.yaml"), tmp_path / "bad.h5", "--integrator", "bogus")
    assert e.value.returncode == 1 and "bogus" in e.value.stderr


def test_command_line(clutter_h5, tmp_path):
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(csimpy.__file__)))
    out = subprocess.run(["/usr/bin/python3", "-m", "csimpy", "summary", clutter_h5], env=env,
                         check=True, capture_output=True, text=True).stdout
    import json
    assert json.loads(out)["status"] == "completed"
    subprocess.run(["/usr/bin/python3", "-m", "csimpy", "plot", clutter_h5, "-o",
                    str(tmp_path / "o.png")], env=env, check=True)
    assert (tmp_path / "o.png").stat().st_size > 20000
    subprocess.run(["/usr/bin/python3", "-m", "csimpy", "contacts", clutter_h5, "-o",
                    str(tmp_path / "c.csv")], env=env, check=True)
    import pandas as pd
    assert len(pd.read_csv(tmp_path / "c.csv")) == csimpy.open(clutter_h5).contact_count.sum()


def test_gyroscopic_of_a_file_from_before_the_attribute(pendulum_h5, tmp_path):
    """Files written before 2026-11-23 have no gyroscopic attribute: their runs took the
    gyroscopic torque explicitly, and the reader says so."""
    old = tmp_path / "old.h5"
    old.write_bytes(open(pendulum_h5, "rb").read())
    with h5py.File(old, "r+") as f:
        del f.attrs["gyroscopic"]
    with csimpy.open(old) as run:
        assert run.gyroscopic == "explicit"

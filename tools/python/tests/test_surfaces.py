"""csimpy's hydroelastic surfaces by body pair, and tools/check_output.py on their datasets,
against real runs of scenes/soft_box_on_floor.yaml (a soft box resting on a rigid floor:
one surface carrying m g at rest, its polygons on the floor plane z = 0)."""
import os
import shutil
import subprocess

import h5py
import numpy as np
import pytest

import csimpy
from conftest import REPO

WEIGHT = 2.0 * 9.81  # the box's m g [N]


@pytest.fixture(scope="module")
def polygons_h5(make_run):
    return make_run("soft_box_on_floor.yaml", "soft_box_polygons",
                    "--set", "settings.output.contact_surfaces=true")


@pytest.fixture(scope="module")
def plain_h5(make_run):
    return make_run("soft_box_on_floor.yaml", "soft_box_plain", "--duration", "0.05")


def pressure_integral(vertices, pressure, normal):
    """Integral of a linear field over a polygon from its vertex values: each triangle of
    the fan from vertex 0, its area times the mean of its three values."""
    total = 0.0
    for i in range(1, len(vertices) - 1):
        area = 0.5 * np.cross(vertices[i] - vertices[0], vertices[i + 1] - vertices[0]) @ normal
        total += area * (pressure[0] + pressure[i] + pressure[i + 1]) / 3
    return total


def test_surfaces_by_pair_sum_the_pairs_contacts(polygons_h5):
    with csimpy.open(polygons_h5) as run:
        assert run.has_surfaces and run.has_surface_polygons
        track = run.surfaces("world", "box")
        assert track.area.shape == (run.n,) and track.force.shape == (run.n, 3)
        assert (track.name_a, track.name_b) == ("world", "box")
        # The force on the box is the sum of its contacts' forces (each on body b).
        frame = run.contact_frame()
        for row in (1, run.n // 2, run.n - 1):
            rows = frame[frame.row == row]
            sign = np.where(rows.body_b == 0, 1.0, -1.0)
            total = (sign[:, None] * rows[["force_x", "force_y", "force_z"]].to_numpy()).sum(0)
            np.testing.assert_allclose(track.force[row], total, rtol=1e-12, atol=1e-12)
            assert track.count[row] == len(rows) and track.surface_count[row] == 1
        # At rest it carries the box's weight, centred under it, with no moment.
        assert track.force[-1, 2] == pytest.approx(WEIGHT, rel=1e-6)
        assert np.abs(track.centroid[-1, :2]).max() < 1e-9
        assert np.abs(track.moment[-1]).max() < 1e-9
        assert track.area[0] == 0 and np.isnan(track.centroid[0]).all()  # not yet touching


def test_pair_order_and_indices(polygons_h5):
    with csimpy.open(polygons_h5) as run:
        on_box, on_floor = run.surfaces("world", "box"), run.surfaces("box", "world")
        np.testing.assert_array_equal(on_box.force, -on_floor.force)
        np.testing.assert_array_equal(on_box.moment, -on_floor.moment)
        np.testing.assert_array_equal(on_box.area, on_floor.area)
        np.testing.assert_array_equal(run.surfaces(-1, 0).force, on_box.force)
        with pytest.raises(KeyError, match="no body 'lid'"):
            run.surfaces("world", "lid")
        with pytest.raises(KeyError, match="no body 3"):
            run.surfaces(-1, 3)


def test_polygons_of_a_row_lie_on_the_floor_and_carry_the_weight(polygons_h5):
    with csimpy.open(polygons_h5) as run:
        polygons = run.surface_polygons(-1, "world", "box")
        assert len(polygons) == run.surfaces("world", "box").count[-1] >= 4
        total = 0.0
        for p in polygons:
            v, n = p["vertices"], p["normal"]
            assert v.shape[1] == 3 and len(v) == len(p["pressure"]) >= 3
            assert np.abs(v[:, 2]).max() < 1e-12
            assert (p["pressure"] > 0).all()
            assert pressure_integral(v, np.ones(len(v)), n) > 0  # counter-clockwise about n
            integral = pressure_integral(v, p["pressure"], n)
            assert p["force"] @ n == pytest.approx(integral, rel=1e-8)  # at rest
            total += integral
        assert total == pytest.approx(WEIGHT, rel=1e-9)
        # Seen from the box: normals and forces flip, vertices still counter-clockwise.
        flipped = run.surface_polygons(-1, "box", "world")
        for p, q in zip(polygons, flipped):
            np.testing.assert_array_equal(q["normal"], -p["normal"])
            np.testing.assert_array_equal(q["force"], -p["force"])
            assert pressure_integral(q["vertices"], q["pressure"], q["normal"]) == \
                pytest.approx(pressure_integral(p["vertices"], p["pressure"], p["normal"]))
        assert run.surface_polygons(0, "world", "box") == []  # the initial row: no step yet


def test_without_contact_surfaces_there_are_no_polygons(plain_h5):
    with csimpy.open(plain_h5) as run:
        assert run.has_surfaces and not run.has_surface_polygons
        assert run.surfaces("world", "box").force[-1, 2] > 0
        with pytest.raises(KeyError, match="contact_surfaces"):
            run.surface_polygons(-1, "world", "box")


def check(path):
    result = subprocess.run(["/usr/bin/python3", os.path.join(REPO, "tools", "check_output.py"),
                             str(path)], capture_output=True, text=True)
    return result.returncode, result.stdout


def test_check_output_checks_the_polygons(polygons_h5, plain_h5, tmp_path):
    assert check(polygons_h5)[0] == 0
    assert check(plain_h5)[0] == 0
    damaged = tmp_path / "damaged.h5"
    for dataset, change, problem in [
            ("vertex_pressure", lambda x: x - 2 * np.abs(x).max(), "negative pressure"),
            ("polygon_vertex_offset", lambda x: x + 1, "polygon_vertex_offset is not"),
            ("first_polygon", lambda x: x * 2, "first_polygon is not")]:
        shutil.copy(polygons_h5, damaged)
        with h5py.File(damaged, "r+") as f:
            ds = f["hydroelastic/" + dataset]
            ds[...] = change(ds[()])
        status, out = check(damaged)
        assert status == 1 and problem in out, out
    shutil.copy(polygons_h5, damaged)
    with h5py.File(damaged, "r+") as f:
        del f["hydroelastic/vertex_pressure"]
    status, out = check(damaged)
    assert status == 1 and "written together" in out, out

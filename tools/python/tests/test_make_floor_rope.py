"""tools/make_floor_rope.py: the rope is laid out as its docstring states, and csim drops a
generated hinged rope onto the floor, where it comes to lie at the capsules' radius with
its energy taken by the impact and friction, never gained."""
import math

import h5py
import numpy as np
import yaml

import conftest
from conftest import run_to_completion


def generate(tmp_path, *args):
    return conftest.generate("make_floor_rope.py", tmp_path, *args)


def test_hinged_rope_layout(tmp_path):
    n = 12
    doc = yaml.safe_load(generate(tmp_path, "-n", str(n), "--joint", "revolute").read_text())
    assert doc["name"] == f"floor_rope_revolute_{n}"
    assert doc["world"]["geometry"] == [{"shape": "halfspace"}]
    assert doc["settings"]["integrator"] == "symplectic_euler"
    joints = doc["joints"]
    assert len(doc["bodies"]) == n and len(joints) == n
    assert joints[0]["pose"]["position"] == [0, 0, 0.3]
    for i, j in enumerate(joints):
        assert j["type"] == "revolute"
        assert j["parent"] == ("world" if i == 0 else f"l{i - 1}")
        bend = 0.08 if (i // 5) % 2 == 0 else -0.08
        if i == 0:
            assert j["axis"] == [1, 0, 0] and j["initial"]["q"] == [math.pi / 2]
        elif i % 2 == 1:  # the vertical axis of the laid-out rope: the zigzag
            assert j["axis"] == [0, 1, 0] and j["initial"]["q"] == [bend]
        else:  # across the rope
            assert j["axis"] == [1, 0, 0] and j["initial"]["q"] == [0.0]


def test_ball_rope_layout(tmp_path):
    doc = yaml.safe_load(generate(tmp_path, "-n", "7", "--joint", "ball").read_text())
    for i, j in enumerate(doc["joints"]):
        q = np.array(j["initial"]["q"])
        assert abs(np.linalg.norm(q) - 1) < 1e-15
        angle = 2 * math.atan2(np.linalg.norm(q[1:]), q[0])
        if i == 0:  # a quarter turn about x lays the link's -z along +y
            assert abs(angle - math.pi / 2) < 1e-12 and q[2] == 0 and q[3] == 0
        else:  # about y, vertical once laid out
            assert abs(angle - 0.08) < 1e-12 and q[1] == 0 and q[3] == 0
            assert np.sign(q[2]) == (1 if (i // 5) % 2 == 0 else -1)


def test_dropped_hinged_rope_lies_on_the_floor(tmp_path, csim):
    # 12 hinged links (1.2 m) held at 0.3 m: after 0.6 s the last eight lie on the floor,
    # their axes (the bodies' origins) at the capsules' radius 0.01 m to 2e-4 m (measured
    # 1.2e-4, the near-rigid contact's compliance and the slide), and the energy has only
    # gone down (measured 3.53 J -> 0.59 J).
    path = generate(tmp_path, "-n", "12", "--duration", "0.6")
    out = run_to_completion(csim, path, tmp_path / "floor_rope.h5")
    with h5py.File(out, "r") as f:
        z = f["/bodies/position"][-1, :, 2]
        e = f["/energy/kinetic"][:] + f["/energy/potential"][:]
    assert np.abs(z[4:] - 0.01).max() < 2e-4
    assert z[0] == 0.3  # the held end
    assert e.max() <= e[0] * (1 + 1e-12)
    assert e[-1] < 0.5 * e[0]

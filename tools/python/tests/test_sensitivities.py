"""Forward sensitivities of `csim run --sensitivities` through the csim binary: its HDF5
file (tools/check_output.py) and csimpy's readers; bad parameter paths exit 1."""
import os
import subprocess

import numpy as np
import pytest

import csimpy
from conftest import REPO, scene

CHECK_OUTPUT = os.path.join(REPO, "tools", "check_output.py")
PATHS = "materials.default.friction,joints.box.v[3]"


@pytest.fixture(scope="module")
def sensitive_h5(make_run):
    return make_run("sliding_box.yaml", "sliding_box_sensitive", "--sensitivities", PATHS,
                    "--duration", "0.3")


def test_the_file_conforms(sensitive_h5):
    check = subprocess.run(["/usr/bin/python3", CHECK_OUTPUT, sensitive_h5],
                           capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr


def test_csimpy_reads_the_sensitivities(sensitive_h5):
    with csimpy.open(sensitive_h5) as run:
        assert run.has_sensitivity
        s = run.sensitivity()
        assert s["parameters"] == PATHS.split(",")
        assert s["dq"].shape == (run.n, run.nv, 2) and s["dv"].shape == (run.n, run.nv, 2)
        assert s["dv"][0, 3, 1] == 1.0 and not s["dv"][0, :, 0].any()
        assert set(np.unique(run.contact_array("region"))) == {1, 2}
        assert "kink_distance" in run.contacts_at(-1)


def test_bad_path_exits_1(csim, tmp_path):
    out = str(tmp_path / "x.h5")
    r = subprocess.run([csim, "run", scene("sliding_box.yaml"), "-o", out, "--sensitivities",
                        "materials.steel.friction"], capture_output=True, text=True)
    assert r.returncode == 1
    assert "--sensitivities: 'materials.steel.friction'" in r.stderr
    assert not os.path.exists(out)


def test_without_the_flag(make_run):
    with csimpy.open(make_run("sliding_box.yaml", "sliding_box_plain", "--duration", "0.3")) as run:
        assert not run.has_sensitivity
        with pytest.raises(KeyError, match="--sensitivities"):
            run.contact_array("region")

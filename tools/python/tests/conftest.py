"""Shared fixtures: the csim executable and real runs made with it.

The executable is $CSIM, else build/app/csim of this repository. Tests import csimpy
from tools/python (added to sys.path here, so `pytest tools/python/tests` just works).
"""
import os
import subprocess
import sys

import h5py
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_DIR = os.path.dirname(HERE)
REPO = os.path.abspath(os.path.join(PYTHON_DIR, "..", ".."))
sys.path.insert(0, PYTHON_DIR)


def scene(name):
    return os.path.join(REPO, "scenes", name)


def generate(tool, tmp_path, *args):
    """Runs the scene generator tools/<tool> (make_<kind>.py) with args; returns the path of
    the scene it wrote, tmp_path/<kind>.yaml."""
    out = tmp_path / (os.path.splitext(tool)[0].removeprefix("make_") + ".yaml")
    subprocess.run(["/usr/bin/python3", os.path.join(REPO, "tools", tool), *args, "-o", str(out)],
                   check=True)
    return out


def run_to_completion(csim, scene_file, out):
    """Runs csim on scene_file into out and checks that the run completed; returns out."""
    subprocess.run([csim, "run", str(scene_file), "-o", str(out), "-q", "--no-progress"],
                   check=True)
    with h5py.File(out, "r") as f:
        assert f["/status"].asstr()[()] == "completed"
    return out


@pytest.fixture(scope="session")
def csim():
    path = os.environ.get("CSIM") or os.path.join(REPO, "build", "app", "csim")
    if not os.access(path, os.X_OK):
        pytest.fail(f"csim executable not found at {path}: build it or set CSIM")
    return path


@pytest.fixture(scope="session")
def make_run(csim, tmp_path_factory):
    """make_run(scene_file, name, *args) runs csim once per session and returns the path."""
    made = {}
    root = tmp_path_factory.mktemp("runs")

    def make(scene_file, name, *args):
        if name not in made:
            out = str(root / f"{name}.h5")
            subprocess.run([csim, "run", scene(scene_file), "-o", out, "-q", "--no-progress",
                            *args], check=True)
            made[name] = out
        return made[name]
    return make


@pytest.fixture(scope="session")
def pendulum_h5(make_run):
    return make_run("pendulum.yaml", "pendulum", "--duration", "0.5")


@pytest.fixture(scope="session")
def clutter_h5(make_run):
    return make_run("clutter_40.yaml", "clutter", "--duration", "0.3",
                    "--set", "settings.output.every=1")


@pytest.fixture(scope="session")
def cylinder_h5(make_run):
    return make_run("spring_cylinder.yaml", "cylinder", "--duration", "0.6")

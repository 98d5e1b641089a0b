"""What the study scripts (convergence, energy, period, clutter baseline, ...) share: where
the csim executable is, the options they forward to it, how they run it and read a failed
step's reason, the processor they report, and how they write their CSV tables and reports.
Imported by the scripts in this folder (Python puts a script's own folder on sys.path)."""
import csv
import os
import platform
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_CSIM = os.path.join(HERE, "..", "build", "app", "csim")
# settings.contact_model's values (scene-format.md), for the scripts' --contact-model options.
CONTACT_MODELS = ["sap", "lagged", "lagged_regularized", "similar"]


def add_csim_arguments(parser):
    """--set PATH=VALUE (repeatable, forwarded to csim) and --csim EXECUTABLE."""
    parser.add_argument("--set", action="append", default=[], help="forwarded to csim as --set")
    parser.add_argument("--csim", default=DEFAULT_CSIM)


def require_csim(args, script):
    """Exits, naming `script`, when the csim executable args.csim (--csim) is not there."""
    if not os.path.exists(args.csim):
        sys.exit(f"{script}: csim not found at {args.csim} (build it, or --csim)")


def set_arguments(args):
    """The parsed --set options as csim command-line arguments."""
    return [x for s in args.set for x in ("--set", s)]


class CsimFailed(RuntimeError):
    """csim exited with a non-zero `returncode` (cli.md; 3: a step failed); the message names
    the command and holds csim's stderr, also in `stderr`."""

    def __init__(self, command, done):
        super().__init__(f"{' '.join(command)} failed ({done.returncode}): {done.stderr}")
        self.returncode = done.returncode
        self.stderr = done.stderr


def run_csim(command):
    """Runs the csim command line `command` (a list) with its output captured as text;
    returns the CompletedProcess (csim's summary line is on its stderr). Raises CsimFailed
    when csim exits with a non-zero status."""
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise CsimFailed(command, done)
    return done


def failed_step_status(stderr):
    """"failed at t = T s: REASON" for a run whose step failed (exit status 3), from csim's
    message on stderr; a part the message does not hold is left out."""
    at = re.search(r"starting at t = ([0-9.e+-]+) s", stderr)
    why = re.search(r"SAP solver: (.*?) after", stderr)
    return ("failed" + (f" at t = {float(at.group(1)):g} s" if at else "") +
            (f": {why.group(1)}" if why else ""))


def cpu_model():
    """The processor's model name (Linux's /proc/cpuinfo), else what platform knows."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def write_csv(path, rows, float_format, fieldnames=None, append=False):
    """Writes rows (dicts) to path, floats with float_format (e.g. ".6g"); with append, adds
    to an existing file without a second header."""
    exists = append and os.path.exists(path)
    with open(path, "a" if append else "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fieldnames or list(rows[0]))
        if not exists:
            w.writeheader()
        for r in rows:
            w.writerow({k: (format(v, float_format) if isinstance(v, float) else v) for k, v in r.items()})


def publish_markdown(text, path):
    """Writes a study's Markdown report to path (if given) and prints it."""
    if path:
        with open(path, "w") as f:
            f.write(text)
    print(text, end="")

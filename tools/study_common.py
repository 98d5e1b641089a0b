"""What the study scripts (convergence, energy, period, clutter baseline) share: where the
csim executable is, the options they forward to it, and how they write their CSV tables.
Imported by the scripts in this folder (Python puts a script's own folder on sys.path)."""
import csv
import os

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_CSIM = os.path.join(HERE, "..", "build", "app", "csim")
# settings.contact_model's values (scene-format.md), for the scripts' --contact-model options.
CONTACT_MODELS = ["sap", "lagged", "lagged_regularized", "similar"]


def add_csim_arguments(parser):
    """--set PATH=VALUE (repeatable, forwarded to csim) and --csim EXECUTABLE."""
    parser.add_argument("--set", action="append", default=[], help="forwarded to csim as --set")
    parser.add_argument("--csim", default=DEFAULT_CSIM)


def set_arguments(args):
    """The parsed --set options as csim command-line arguments."""
    return [x for s in args.set for x in ("--set", s)]


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

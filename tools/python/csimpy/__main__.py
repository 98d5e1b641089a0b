"""Command line of csimpy: summarise a run, draw its figures, export its contacts.

Examples (from the repository root):
    PYTHONPATH=tools/python /usr/bin/python3 -m csimpy summary run.h5
    PYTHONPATH=tools/python /usr/bin/python3 -m csimpy plot run.h5 -o run.png               # 2x2 overview
    PYTHONPATH=tools/python /usr/bin/python3 -m csimpy plot run.h5 --kind energy -o e.png
    PYTHONPATH=tools/python /usr/bin/python3 -m csimpy contacts run.h5 -o contacts.csv
"""
import argparse
import json
import sys

from . import open as open_run

KINDS = {"overview": "plot_overview", "energy": "plot_energy",
         "contacts": "plot_contact_forces", "iterations": "plot_iterations",
         "momentum": "plot_momentum_error"}


def main(argv=None):
    p = argparse.ArgumentParser(prog="python3 -m csimpy", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    q = sub.add_parser("summary", help="scalars of the run as JSON")
    q.add_argument("run")
    q = sub.add_parser("plot", help="draw a figure to a PNG (or PDF, SVG)")
    q.add_argument("run")
    q.add_argument("-o", "--output", required=True)
    q.add_argument("--kind", choices=sorted(KINDS), default="overview")
    q = sub.add_parser("contacts", help="all contacts as CSV, one line per contact")
    q.add_argument("run")
    q.add_argument("-o", "--output", required=True)
    a = p.parse_args(argv)
    with open_run(a.run) as run:
        if a.command == "summary":
            json.dump(run.summary(), sys.stdout, indent=1)
            print()
        elif a.command == "plot":
            getattr(run, KINDS[a.kind])(save=a.output)
        else:
            run.contact_frame().to_csv(a.output, index=False, float_format="%.9g")
    return 0


if __name__ == "__main__":
    sys.exit(main())

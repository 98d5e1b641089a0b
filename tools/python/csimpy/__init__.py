"""csimpy: read, summarise and plot csim output files (docs/output-format.md).

Three lines open any run (with tools/python on sys.path or PYTHONPATH):

    >>> import csimpy
    >>> run = csimpy.open("pendulum.h5")
    >>> run.plot_energy()                      # doctest: +SKIP

`run.time`, `run.q`, `run.v`, `run.energy`, `run.iterations`, `run.momentum_error` are
numpy arrays over the complete rows; `run.body("bob").position` is one body's track;
`run.contacts_at(i)` is the contacts of row i and `run.contact_frame()` all contacts as
a pandas DataFrame. The solver diagnostics: `run.condition_number` (with
settings.output.condition_number) and `run.solver_trace(step)`, Newton's history of a step
traced by `csim run --trace-solver`. `csimpy.simulate(scene, "out.h5", "--dt", 1e-3)` runs csim ($CSIM or
build/app/csim) and opens the result. A run that is still being written opens too (HDF5 SWMR): call
`run.refresh()` to see the rows written since.

Uses only Debian's python3-h5py, python3-numpy, python3-pandas (contact tables) and
python3-matplotlib (plots); run it with /usr/bin/python3.
"""
from .run import Run, BodyTrack, default_csim, open, simulate, summarise  # noqa: F401

__all__ = ["Run", "BodyTrack", "default_csim", "open", "simulate", "summarise"]
__version__ = "1.0"

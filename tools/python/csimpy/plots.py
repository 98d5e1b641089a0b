"""The common figures of a run: energy, contact forces, Newton iterations, momentum error.

Each function takes a `Run`, draws into `ax` (a new figure when None), saves to `save`
when given, and returns the axes. Outside a notebook the Agg backend is used, so the
functions work headless.

Example:
    >>> import csimpy
    >>> run = csimpy.open("clutter.h5")                       # doctest: +SKIP
    >>> run.plot_overview(save="clutter_overview.png")        # doctest: +SKIP
"""
import os
import sys

import numpy as np


def _pyplot():
    import matplotlib
    if "ipykernel" not in sys.modules and not os.environ.get("MPLBACKEND"):
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _axes(ax, figsize=(6.4, 3.6)):
    if ax is not None:
        return ax
    plt = _pyplot()
    _, ax = plt.subplots(figsize=figsize)
    return ax


def _title(run, what):
    return f"{run.scene_name or os.path.basename(run.path)}: {what}"


def _finish(ax, save):
    if save:
        ax.figure.tight_layout()
        ax.figure.savefig(save, dpi=120)
    return ax


def energy(run, ax=None, relative=False, save=None):
    """Kinetic, potential and total energy over time; with relative=True, E/E0 only."""
    ax = _axes(ax)
    t = run.time
    if relative:
        e = run.energy
        ax.plot(t, e / e[0] if e[0] != 0 else e, label="E / E0")
        ax.set_ylabel("E / E0")
    else:
        ax.plot(t, run.kinetic, lw=0.9, label="kinetic")
        ax.plot(t, run.potential, lw=0.9, label="potential")
        ax.plot(t, run.energy, "k", lw=1.2, label="total")
        ax.set_ylabel("energy [J]")
    ax.set_xlabel("time [s]")
    ax.set_title(_title(run, "energy"))
    ax.legend(fontsize=8)
    return _finish(ax, save)


def contact_forces(run, ax=None, save=None):
    """Sum over each row's contacts of the normal force and of the tangential force
    magnitude (left axis), and the number of contacts (right axis)."""
    ax = _axes(ax)
    t = run.time
    if run.has_contacts:
        df = run.contact_frame()
        per_row = df.groupby("row")[["force_normal", "force_tangential"]].sum()
        fn = np.zeros(run.n)
        ft = np.zeros(run.n)
        fn[per_row.index.to_numpy()] = per_row["force_normal"].to_numpy()
        ft[per_row.index.to_numpy()] = per_row["force_tangential"].to_numpy()
        ax.plot(t, fn, label="normal (sum)")
        ax.plot(t, ft, label="tangential (sum of |f_t|)")
        twin = ax.twinx()
        twin.plot(t, run.contact_count, color="0.6", lw=0.8, ls="--", label="contacts")
        twin.set_ylabel("contacts")
        lines = ax.get_lines() + twin.get_lines()
        ax.legend(lines, [line.get_label() for line in lines], fontsize=8)
    else:
        ax.text(0.5, 0.5, "no contacts recorded", ha="center", transform=ax.transAxes)
    ax.set_xlabel("time [s]")
    ax.set_ylabel("force [N]")
    ax.set_title(_title(run, "contact forces"))
    return _finish(ax, save)


def iterations(run, ax=None, save=None):
    """Newton iterations of each step (row 0 took no step and is left out)."""
    ax = _axes(ax)
    ax.step(run.time[1:], run.iterations[1:], where="post", lw=0.9)
    ax.set_xlabel("time [s]")
    ax.set_ylabel("Newton iterations")
    ax.set_title(_title(run, "iterations (mean %.2f)" % np.mean(run.iterations[1:])
                        if run.n > 1 else "iterations"))
    return _finish(ax, save)


def momentum_error(run, ax=None, save=None):
    """Dimensionless momentum error of each step, log scale (zeros drawn at the floor)."""
    ax = _axes(ax)
    err = np.asarray(run.momentum_error[1:], dtype=float)
    positive = err[err > 0]
    floor = positive.min() if positive.size else 1e-16
    ax.semilogy(run.time[1:], np.maximum(err, floor), lw=0.9)
    ax.set_xlabel("time [s]")
    ax.set_ylabel("momentum error [1]")
    ax.set_title(_title(run, "momentum error"))
    return _finish(ax, save)


def overview(run, save=None):
    """Energy, contact forces, iterations and momentum error in one 2x2 figure."""
    plt = _pyplot()
    fig, axes = plt.subplots(2, 2, figsize=(11, 7))
    energy(run, ax=axes[0, 0])
    contact_forces(run, ax=axes[0, 1])
    iterations(run, ax=axes[1, 0])
    momentum_error(run, ax=axes[1, 1])
    fig.tight_layout()
    if save:
        fig.savefig(save, dpi=120)
    return axes

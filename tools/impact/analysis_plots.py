"""Figures and tables of the identification study (paper Figs. 7, 8, 10 and Tabs. 1, 2).

Figure functions take computed results (fits, errors) and return a matplotlib Figure
(Agg backend: no display needed); the caller saves it. Table functions return rows (a list
of dicts) and write_table writes them as Markdown and CSV side by side.
"""
from __future__ import annotations

import csv
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from scipy.stats import gaussian_kde  # noqa: E402

from .identify import BatchFit, DropFit, cost_grid  # noqa: E402
from .laws import LAW_TITLES  # noqa: E402

# Post hoc entries of an error dictionary and how they are drawn (paper Fig. 8).
POST_HOC = {"best_post_hoc": ("Best Post Hoc", "k--"), "irb": ("IRB bound", "k-")}


def _title(name: str) -> str:
    return LAW_TITLES.get(name, POST_HOC.get(name, (name,))[0])


# ------------------------------------------------------------------ figures ----

def plot_cost_landscape(drops, law: str, *, mu_max: float = 0.5, n: int = 41,
                        fit: BatchFit | DropFit | None = None, weighted: bool = False):
    """Batch cost over (mu, e) for `drops` (one drop: a list of one) (paper Fig. 7a).

    Contours of log10 of the summed squared eq. 8 residual; the fit, if given, is marked.
    """
    mus, es = np.linspace(0.0, mu_max, n), np.linspace(0.0, 1.0, n)
    cost = cost_grid(drops, law, mus, es, weighted=weighted)
    fig, ax = plt.subplots(figsize=(5.5, 4.5))
    cs = ax.contourf(es, mus, np.log10(np.maximum(cost, 1e-30)), levels=30, cmap="viridis")
    fig.colorbar(cs, ax=ax, label=r"$\log_{10}\ \sum \|P_{IRB} - \mathrm{Model}\|^2$ [N$^2$s$^2$]")
    if fit is not None:
        ax.plot(fit.e, fit.mu, "r*", ms=12, label=f"fit: mu={fit.mu:.3f}, e={fit.e:.3f}")
        ax.legend(loc="upper right")
    ax.set_xlabel(r"restitution $\epsilon$")
    ax.set_ylabel(r"friction $\mu$")
    ax.set_title(f"{_title(law)}, {len(drops)} drop(s)")
    fig.tight_layout()
    return fig


def plot_error_densities(errors: dict, *, x_max: float | None = None):
    """Estimated densities of the Fig. 8 error per law and for the post hoc models.

    errors: {law name or 'irb' or 'best_post_hoc': (n,) errors [m/s]} (bounds.law_errors,
    bounds.best_post_hoc, bounds.irb_bound). Gaussian kernel density estimates.
    """
    x_max = x_max or max(np.percentile(v, 99) for v in errors.values())
    x = np.linspace(0.0, x_max, 400)
    fig, ax = plt.subplots(figsize=(6.5, 4.0))
    for name, err in errors.items():
        err = np.asarray(err, float)
        style = POST_HOC.get(name, (None, "-"))[1]
        if err.size > 1 and np.ptp(err) > 0:
            ax.plot(x, gaussian_kde(err)(x), style, label=_title(name))
    ax.set_xlabel(r"$\|K^{1/2}(v_{pred} - v_f)\|$ [m/s]")
    ax.set_ylabel("density")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def plot_drop_parameters(fits: list[DropFit]):
    """Per-drop identified (mu, e) (paper Fig. 10): (a) coloured by the fit's relative
    residual, lower-bound mu drawn as upward triangles; (b) their distributions."""
    mu = np.array([f.mu for f in fits])
    e = np.array([f.e for f in fits])
    res = np.array([max(f.relative_residual, 1e-12) for f in fits])
    bound = np.array([f.mu_lower_bound for f in fits])
    fig, (ax_a, ax_b) = plt.subplots(1, 2, figsize=(10, 4))
    norm = matplotlib.colors.LogNorm(vmin=res.min(), vmax=max(res.max(), res.min() * 10))
    for mask, marker, label in ((~bound, "o", "mu identified"), (bound, "^", "mu >= (lower bound)")):
        if mask.any():
            sc = ax_a.scatter(e[mask], mu[mask], c=res[mask], norm=norm, marker=marker,
                              s=18, cmap="plasma", label=label)
    fig.colorbar(sc, ax=ax_a, label="relative residual")
    ax_a.set_xlabel(r"$\epsilon$")
    ax_a.set_ylabel(r"$\mu$")
    ax_a.legend(fontsize=8)
    ax_a.set_title(f"(a) {_title(fits[0].law)}, {len(fits)} drops")
    ax_b.hist(mu, bins=30, alpha=0.6, label=r"$\mu$")
    ax_b.hist(e, bins=30, alpha=0.6, label=r"$\epsilon$")
    ax_b.set_xlabel("parameter value")
    ax_b.set_ylabel("drops")
    ax_b.legend()
    ax_b.set_title("(b) distributions")
    fig.tight_layout()
    return fig


def plot_ensemble_convergence(rows: list[dict], law: str = ""):
    """Batch parameters against subset size k (paper Fig. 7b): mean and +- 1 std."""
    k = np.array([r["k"] for r in rows])
    fig, ax = plt.subplots(figsize=(6, 4))
    for key, color in (("mu", "C0"), ("e", "C1")):
        mean = np.array([r[f"{key}_mean"] for r in rows])
        std = np.array([r[f"{key}_std"] for r in rows])
        ax.plot(k, mean, color=color, label=key)
        ax.plot(k, mean + std, "k--", lw=0.8)
        ax.plot(k, mean - std, "k--", lw=0.8)
    ax.set_xlabel("drops per batch k")
    ax.set_ylabel("identified value")
    ax.set_title(_title(law) if law else "ensemble convergence")
    ax.legend()
    fig.tight_layout()
    return fig


# ------------------------------------------------------------------- tables ----

def table1(batch: dict, errors: dict) -> list[dict]:
    """Paper Tab. 1 rows: per law the batch (mu, e) with their std, the median Fig. 8 error,
    and how often the law is the best and the worst of the laws (per cent of drops).

    batch: {law: BatchFit}; errors: {law: (n,) errors at the batch parameters}.
    """
    names = [k for k in batch if k in errors]
    table = np.vstack([errors[k] for k in names])
    best = np.bincount(np.argmin(table, axis=0), minlength=len(names)) / table.shape[1]
    worst = np.bincount(np.argmax(table, axis=0), minlength=len(names)) / table.shape[1]
    return [{"law": _title(k), "mu": batch[k].mu, "mu_std": batch[k].std[0],
             "e": batch[k].e, "e_std": batch[k].std[1],
             "median_error_m_s": float(np.median(errors[k])),
             "best_pct": 100 * best[i], "worst_pct": 100 * worst[i], "std_method": batch[k].method}
            for i, k in enumerate(names)]


def table2(fractions: dict) -> list[dict]:
    """Paper Tab. 2 rows: fraction of drops inside each law's predictive range.

    fractions: {law: identify.range_fraction(...)}.
    """
    return [{"law": _title(k), "fraction": v} for k, v in fractions.items()]


def write_table(rows: list[dict], stem) -> tuple[Path, Path]:
    """Write rows as STEM.md (a Markdown table) and STEM.csv; returns both paths."""
    stem = Path(stem)
    keys = list(rows[0])
    md = stem.with_suffix(".md")
    lines = ["| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    lines += ["| " + " | ".join(_cell(r[k]) for k in keys) + " |" for r in rows]
    md.write_text("\n".join(lines) + "\n")
    path_csv = stem.with_suffix(".csv")
    with open(path_csv, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=keys)
        w.writeheader()
        w.writerows(rows)
    return md, path_csv


def _cell(x) -> str:
    if isinstance(x, (float, np.floating)):
        return f"{x:.4g}"
    return str(x)

"""Command line of the impact lab: `PYTHONPATH=tools python3 -m impact COMMAND DATA -o DIR`.

Commands (each writes Markdown and CSV tables and PNG figures into DIR, and summary.md
with where the drops came from and, for the MIT layout, the convention report):

  laws      each law's impulse for chosen drops at one (mu, e), and the Energy Ellipse
            with every law's region (paper Figs. 3-4)
  identify  batch fits (Tab. 1), per-drop fits (Fig. 10), predictive ranges (Tab. 2) and
            the batch cost landscapes (Fig. 7a) of the six laws
  bound     the IRB bound and Best Post Hoc beside each law at its batch parameters, and
            the error densities (Fig. 8)
  compare   csim's compliant models (sap, lagged, similar) identified through csim runs,
            beside the six laws and the IRB bound, same drops, same error metric
  plots     every figure of laws, identify and bound
  synthetic write a synthetic set to a CSV file or an MIT-layout folder

DATA is a folder in the MIT planar-impact layout (data_ellipse.mat), a CSV file in the
lab's layout (data.CSV_DOC) or a synthetic set made on the fly (SYNTHETIC_DOC); `--help`
prints both.
Errors in DATA or the options print `impact: error: ...` naming the file (and line and
column for CSV) and exit with status 1; usage errors exit with 2, a failed csim run with
3. Outputs are written into a staging folder next to DIR and moved into DIR only when
everything succeeded, so a failed command leaves DIR as it was.
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from . import analysis_plots as ap
from . import bounds, compliant, data, identify, synthetic
from .drop import Drop
from .ellipse_plot import plot_energy_ellipse
from .laws import LAW_TITLES, LAWS, predict

SYNTHETIC_DOC = """\
synthetic:N[:SEED[:MODEL]][:KEY=VALUE...]  N drops of the paper's ellipse, seed SEED (0).
  MODEL a csim contact model (sap [default], lagged, similar): simulated by csim at 250 Hz
        with position noise and processed by parabola fits (impact/synthetic.py);
        keys: mu=NUMBER|batch|random (0.15 each, or U(0.05, 0.4) per drop), noise=0|1 (1).
  MODEL a rigid law (ap_newton, ap_poisson, drumwright_shell, wang_mason, mirtich,
        whittaker): v_f = law(mu, e) applied to v_i (impact/data.py);
        keys: mu (0.15), e (0.59), noise=SCALE (0; 1 adds white noise of the csim set's
        fitted-velocity size, 0.014 m/s on xdot, ydot and 0.35 rad/s on omega, to v_i, v_f).
Examples: synthetic:40  synthetic:40:1:similar:mu=random  synthetic:20:0:wang_mason:e=0.5"""

# The standard deviation of the csim set's fitted velocities (docs/design/impact-synthetic.md
# §3, 16 samples a side): the noise of law-generated sets at noise=1.
SIGMA_V = np.array([0.014, 0.014, 0.35])
LAW_MU, LAW_E = 0.15, 0.59
EXIT_INPUT, EXIT_CSIM = 1, 3


class InputError(Exception):
    """A problem with DATA or an option: printed as one line, exit status 1."""


# ------------------------------------------------------------------------ data ----

@dataclass
class Dataset:
    """Drops and where they came from. report: the MIT convention report (text) or None;
    truth: the parameters shared by every drop's truth (synthetic sets), or {}."""

    drops: list
    source: str
    report: str | None = None
    truth: dict = field(default_factory=dict)
    synthetic_set: object = None


def load(spec: str, csim: str | None = None) -> Dataset:
    """DATA -> Dataset; InputError naming the file (or the spec) on any problem."""
    if spec == "synthetic" or spec.startswith("synthetic:"):
        ds = _load_synthetic(spec, csim)
    else:
        ds = _load_path(Path(spec))
    if not ds.drops:
        raise InputError(f"{spec}: no drops")
    ds.truth = shared_truth(ds.drops)
    return ds


def _load_path(path: Path) -> Dataset:
    if path.is_dir():
        if not (path / data.MIT_FILE).is_file():
            raise InputError(f"{path}: folder without {data.MIT_FILE}; DATA must be a folder in "
                             "the MIT planar-impact layout, a CSV file or synthetic:N")
        try:
            drops, report = data.read_mit(path)
        except (ValueError, OSError) as exc:
            raise InputError(str(exc)) from None
        return Dataset(drops, f"MIT layout, {path}", report.summary())
    if not path.exists():
        raise InputError(f"{path}: no such file or folder")
    if path.suffix.lower() == ".mat":
        raise InputError(f"{path}: give the folder that holds {data.MIT_FILE}, not the file")
    try:
        drops = data.read_csv(path)
    except UnicodeDecodeError:
        raise InputError(f"{path}: not a text (CSV) file") from None
    except (ValueError, OSError) as exc:
        raise InputError(str(exc)) from None
    return Dataset(drops, f"CSV layout, {path}")


def parse_synthetic(spec: str) -> dict:
    """synthetic:N[:SEED[:MODEL]][:KEY=VALUE...] -> {'n', 'seed', 'model', KEY: VALUE}."""
    parts = spec.split(":")[1:]
    pos = [p for p in parts if "=" not in p]
    keys = dict(p.split("=", 1) for p in parts if "=" in p)
    if not pos or len(pos) > 3:
        raise InputError(f"{spec}: expected {SYNTHETIC_DOC.splitlines()[0].split()[0]}")
    try:
        n, seed = int(pos[0]), int(pos[1]) if len(pos) > 1 else 0
    except ValueError:
        raise InputError(f"{spec}: N and SEED must be integers") from None
    model = pos[2] if len(pos) > 2 else "sap"
    if n < 1:
        raise InputError(f"{spec}: N must be at least 1")
    if model not in LAWS and model not in synthetic.MODELS:
        raise InputError(f"{spec}: unknown model '{model}' (csim: {', '.join(synthetic.MODELS)}; "
                         f"laws: {', '.join(LAWS)})")
    allowed = {"mu", "e", "noise"} if model in LAWS else {"mu", "noise"}
    for k in keys:
        if k not in allowed:
            raise InputError(f"{spec}: unknown key '{k}' for {model} (allowed: {sorted(allowed)})")
    return dict(keys, n=n, seed=seed, model=model)


def _number(spec, key, text) -> float:
    try:
        return float(text)
    except ValueError:
        raise InputError(f"{spec}: {key}={text} is not a number") from None


def _load_synthetic(spec: str, csim: str | None) -> Dataset:
    s = parse_synthetic(spec)
    if s["model"] in LAWS:
        mu = _number(spec, "mu", s.get("mu", LAW_MU))
        e = _number(spec, "e", s.get("e", LAW_E))
        noise = _number(spec, "noise", s.get("noise", 0))
        if mu < 0 or not 0 <= e <= 1 or noise < 0:
            raise InputError(f"{spec}: need mu >= 0, 0 <= e <= 1, noise >= 0")
        drops = data.synthetic_ellipse_drops(s["n"], s["model"], mu, e,
                                             np.random.default_rng(s["seed"]),
                                             sigma_v=noise * SIGMA_V if noise else None)
        return Dataset(drops, f"{spec}: {s['n']} drops made by {LAW_TITLES[s['model']]} at "
                              f"mu = {mu:g}, e = {e:g}, velocity noise x{noise:g}")
    mu = s.get("mu", "batch")
    if mu not in ("batch", "random"):
        mu = _number(spec, "mu", mu)
    noise = s.get("noise", "1") not in ("0", "false", "no")
    check_csim(csim)
    sset = synthetic.make_drops(n=s["n"], seed=s["seed"], model=s["model"], mu=mu,
                                noise=noise, csim=csim)
    st = sset.settings
    return Dataset(sset.drops, f"{spec}: {len(sset.drops)} of {s['n']} drops simulated by csim "
                               f"({st['model']}, mu = {mu}, k = {st['k']:g} N/m, "
                               f"{synthetic.dissipation_key(st['model'])} = "
                               f"{st['dissipation']:.5g}, "
                               f"noise {'on' if noise else 'off'})", synthetic_set=sset)


def shared_truth(drops) -> dict:
    """The scalar truth entries every drop shares (e.g. law, mu, e of a synthetic set)."""
    if not all(d.truth for d in drops):
        return {}
    out = {}
    for k, v in drops[0].truth.items():
        if isinstance(v, (str, int, float)) and all(d.truth.get(k) == v for d in drops):
            out[k] = v
    return out


def check_csim(csim: str | None) -> str:
    exe = csim or synthetic.default_csim()
    if not (os.path.isfile(exe) and os.access(exe, os.X_OK)):
        raise InputError(f"{exe}: csim executable not found (build it, or set CSIM or --csim)")
    return exe


# ---------------------------------------------------------------------- output ----

class Output:
    """A staging folder beside DIR; its files move into DIR only on success."""

    def __init__(self, folder):
        self.final = Path(folder)
        if self.final.exists() and not self.final.is_dir():
            raise InputError(f"{self.final}: exists and is not a folder")
        self.tmp = None
        self.files = []

    def __enter__(self):
        base = self.final.parent
        while not base.exists():
            base = base.parent
        self.tmp = Path(tempfile.mkdtemp(prefix=f".{self.final.name}.partial.", dir=base))
        return self

    def path(self, name: str) -> Path:
        self.files.append(name)
        return self.tmp / name

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            self.final.mkdir(parents=True, exist_ok=True)
            for f in sorted(self.tmp.iterdir()):
                os.replace(f, self.final / f.name)
        shutil.rmtree(self.tmp, ignore_errors=True)
        return False


def save_table(out: Output, rows: list, stem: str) -> None:
    """rows -> STEM.md and STEM.csv in out (columns: every key of any row, blank if absent)."""
    if rows:
        keys = list(dict.fromkeys(k for r in rows for k in r))
        out.path(stem + ".md"), out.path(stem + ".csv")
        ap.write_table([{k: r.get(k, "") for k in keys} for r in rows], out.tmp / stem)


def save_figure(out: Output, fig, name: str) -> None:
    fig.savefig(out.path(name), dpi=110)
    ap.plt.close(fig)


def write_summary(out: Output, ds: Dataset, command: str, lines=()) -> None:
    """summary.md: the command, the data, the convention report, the files written."""
    text = [f"# impact {command}", "", f"Data: {ds.source}", ""]
    if ds.truth:
        text += ["Known parameters (shared by every drop): "
                 + ", ".join(f"{k} = {v}" for k, v in ds.truth.items()), ""]
    if ds.report:
        text += ["Convention check of the MIT layout (impact/data.py, read_mit):", "",
                 "```", ds.report, "```", ""]
    text += list(lines)
    text += ["", "Files: " + ", ".join(f"`{f}`" for f in sorted(set(out.files)) + ["summary.md"])]
    (out.tmp / "summary.md").write_text("\n".join(text) + "\n")


# --------------------------------------------------------------------- compute ----

@dataclass
class LawFits:
    """Batch and per-drop fits of the laws and their Fig. 8 errors [m/s]."""

    batch: dict
    err_batch: dict
    drop: dict = field(default_factory=dict)
    err_drop: dict = field(default_factory=dict)


def law_error(drop, law, mu, e) -> float:
    return bounds.velocity_error(drop, predict(law, drop.space(), drop.v_i, mu, e))


def fit_laws(drops, laws, *, per_drop=True, weighted=False, bootstrap=0) -> LawFits:
    """Batch fit (Gauss-Newton std, or bootstrap over drops) and per-drop fits of each law."""
    fits = LawFits({}, {})
    for law in laws:
        b = (identify.bootstrap_batch(drops, law, bootstrap, weighted=weighted) if bootstrap
             else identify.fit_batch(drops, law, weighted=weighted))
        fits.batch[law] = b
        fits.err_batch[law] = np.array([law_error(d, law, b.mu, b.e) for d in drops])
        if per_drop:
            fits.drop[law] = [identify.fit_drop(d, law, weighted=weighted) for d in drops]
            fits.err_drop[law] = np.array([law_error(d, law, f.mu, f.e)
                                           for d, f in zip(drops, fits.drop[law])])
    return fits


def table1_rows(fits: LawFits, truth: dict) -> list:
    """Paper Tab. 1 with the truth beside it when the data are synthetic."""
    rows = ap.table1(fits.batch, fits.err_batch)
    for law, row in zip(fits.batch, rows):
        row["mean_error_m_s"] = float(np.mean(fits.err_batch[law]))
        if "mu" in truth:
            row["true_mu"] = truth["mu"]
        if "e" in truth:
            row["true_e"] = truth["e"] if truth.get("law") == law else ""
    return rows


def table2_rows(fits: LawFits) -> list:
    rows = ap.table2({law: identify.range_fraction(f) for law, f in fits.drop.items()})
    for law, row in zip(fits.drop, rows):
        row["mean_error_per_drop_m_s"] = float(np.mean(fits.err_drop[law]))
        row["mu_lower_bound_fraction"] = float(np.mean([f.mu_lower_bound for f in fits.drop[law]]))
    return rows


def drop_fit_rows(fits: LawFits) -> list:
    return [{"drop": i, "law": law, "mu": f.mu, "e": f.e, "mu_s": f.mu_s,
             "mu_lower_bound": f.mu_lower_bound, "relative_residual": f.relative_residual,
             "in_range": identify.in_range(f), "error_m_s": float(fits.err_drop[law][i])}
            for law, fl in fits.drop.items() for i, f in enumerate(fl)]


def bound_rows(fits: LawFits, irb) -> tuple[list, dict]:
    """Error statistics per law (batch parameters), Best Post Hoc and the IRB bound."""
    best, _ = bounds.best_post_hoc(fits.err_batch)
    errs = dict(fits.err_batch, best_post_hoc=best, irb=np.array([b.error for b in irb]))
    rows = [{"model": ap._title(k), "mean_m_s": float(np.mean(v)),
             "median_m_s": float(np.median(v)), "p90_m_s": float(np.percentile(v, 90)),
             "max_m_s": float(np.max(v))} for k, v in errs.items()]
    return rows, errs


def bound_drop_rows(drops, fits: LawFits, irb) -> list:
    _, which = bounds.best_post_hoc(fits.err_batch)
    rows = []
    for i, (d, b) in enumerate(zip(drops, irb)):
        P7 = bounds.point_impulse(d)
        row = {"drop": i, "P_t_eq7": P7[0], "P_n_eq7": P7[1], "irb_P_t": b.P[0],
               "irb_P_n": b.P[1], "irb_error_m_s": b.error, "irb_active": b.active,
               "best_post_hoc": which[i]}
        row.update({f"{law}_error_m_s": float(e[i]) for law, e in fits.err_batch.items()})
        rows.append(row)
    return rows


# -------------------------------------------------------------------- commands ----

def ellipse_params(args, ds: Dataset) -> tuple[float, float]:
    """(mu, e) drawn on the ellipse figures: the options, else the truth, else 0.15, 0.59."""
    mu = args.mu if args.mu is not None else float(ds.truth.get("mu", LAW_MU))
    e = args.e if args.e is not None else float(ds.truth.get("e", LAW_E))
    return mu, e


def selected_drops(args, ds: Dataset) -> list:
    for i in args.drops:
        if not 0 <= i < len(ds.drops):
            raise InputError(f"--drops: drop {i} not in 0..{len(ds.drops) - 1}")
    return args.drops


def law_rows(ds: Dataset, idx, laws, mu, e) -> list:
    rows = []
    for i in idx:
        d = ds.drops[i]
        s = d.space()
        vc = s.contact_velocity(d.v_i)
        T = s.kinetic_energy(d.v_i)
        for law in laws:
            try:
                P = LAWS[law](s.W, vc, mu, e)
            except ValueError as exc:
                rows.append({"drop": i, "law": law, "note": str(exc)})
                continue
            v = s.post_velocity(d.v_i, P)
            rows.append({"drop": i, "law": law, "mu": mu, "e": e, "P_t": P[0], "P_n": P[1],
                         "v_t_plus": float(d.J[0] @ v), "v_n_plus": float(d.J[1] @ v),
                         "energy_ratio": s.kinetic_energy(v) / T,
                         "admissible": s.is_admissible(vc, P, 1e-9),
                         "error_m_s": bounds.velocity_error(d, v), "note": ""})
    return rows


def ellipse_figures(out: Output, ds: Dataset, idx, laws, mu, e) -> None:
    for i in idx:
        d = ds.drops[i]
        if d.J[1] @ d.v_i >= 0:
            continue  # not approaching: no impact to draw
        fig, ax = ap.plt.subplots(figsize=(7.5, 6.5))
        plot_energy_ellipse(ax, d.space(), d.v_i, e, mu, laws=tuple(laws))
        mark_measured(ax, d)
        fig.tight_layout()
        save_figure(out, fig, f"ellipse_drop{i}.png")


def mark_measured(ax, d) -> None:
    """The measured impulse (eq. 7) and the IRB bound's impulse on an ellipse figure."""
    P7, Pb = bounds.point_impulse(d), bounds.irb_bound(d).P
    ax.plot(*P7, "k*", ms=11, label="measured (eq. 7)")
    ax.plot(*Pb, "kx", ms=9, mew=2, label="IRB bound")
    ax.legend(fontsize=7, loc="best")


def cmd_laws(args, ds: Dataset, out: Output, figures_only=False) -> list:
    idx = selected_drops(args, ds)
    mu, e = ellipse_params(args, ds)
    rows = law_rows(ds, idx, args.laws, mu, e)
    if not figures_only:
        save_table(out, rows, "laws")
    ellipse_figures(out, ds, idx, args.laws, mu, e)
    return [f"Laws at mu = {mu:g}, e = {e:g} for drop(s) {', '.join(map(str, idx))}: "
            "`laws.md` (impulse, post-impact contact velocity, energy ratio, admissible, "
            "error against the measured v_f); `ellipse_drop*.png` (Figs. 3-4, with the "
            "measured impulse * and the IRB bound x)."]


def landscape_drops(drops, n: int) -> list:
    """At most n drops for the cost landscape (the paper's Fig. 7a uses 120), a seeded
    random subset when there are more."""
    if len(drops) <= n:
        return list(drops)
    pick = np.sort(np.random.default_rng(0).choice(len(drops), n, replace=False))
    return [drops[i] for i in pick]


def ensemble_figures(args, ds: Dataset, out: Output) -> list:
    """Fig. 7b: each law's batch fit over random subsets of K drops (identify.py), the
    spread of (mu, e) against K; `ensemble.md/.csv` and `ensemble_LAW.png`."""
    ks = sorted(k for k in set(args.ensemble) if 2 <= k <= len(ds.drops))
    if not ks:
        raise InputError(f"--ensemble: every K must lie in [2, {len(ds.drops)}] (the drops)")
    rows = []
    for law in args.laws:
        conv = identify.ensemble_convergence(ds.drops, law, ks, n_sets=args.ensemble_sets,
                                             rng=np.random.default_rng(0),
                                             weighted=args.weighted)
        rows += [{"law": law, **{k: r[k] for k in ("k", "mu_mean", "mu_std", "e_mean", "e_std")}}
                 for r in conv]
        save_figure(out, ap.plot_ensemble_convergence(conv, law), f"ensemble_{law}.png")
    save_table(out, rows, "ensemble")
    return [f"Ensemble convergence (Fig. 7b, {args.ensemble_sets} random subsets per size "
            f"{', '.join(map(str, ks))}): `ensemble.md`, `ensemble_*.png`."]


def cmd_identify(args, ds: Dataset, out: Output, fits=None, figures_only=False) -> list:
    fits = fits or fit_laws(ds.drops, args.laws, weighted=args.weighted, bootstrap=args.bootstrap)
    t1 = table1_rows(fits, ds.truth)
    if not figures_only:
        save_table(out, t1, "table1")
        save_table(out, table2_rows(fits), "table2")
        save_table(out, drop_fit_rows(fits), "drop_fits")
    sub = landscape_drops(ds.drops, args.landscape_drops)
    for law in args.laws:
        mu_max = max(0.5, 1.5 * fits.batch[law].mu)
        save_figure(out, ap.plot_cost_landscape(sub, law, mu_max=mu_max, n=args.grid,
                                                fit=fits.batch[law], weighted=args.weighted),
                    f"cost_landscape_{law}.png")
        save_figure(out, ap.plot_drop_parameters(fits.drop[law]), f"drop_parameters_{law}.png")
    lines = ensemble_figures(args, ds, out) if getattr(args, "ensemble", None) else []
    print(compliant.format_table(t1, ["law", "mu", "mu_std", "e", "e_std", "median_error_m_s",
                                      "best_pct", "worst_pct"]))
    return lines + ["Batch fits (Tab. 1): `table1.md`; predictive ranges (Tab. 2): `table2.md`; "
            "per-drop fits (Fig. 10): `drop_fits.csv`, `drop_parameters_*.png`; batch cost "
            f"(Fig. 7a, {len(sub)} drops, the batch fit marked): `cost_landscape_*.png`. "
            "Target impulses: eq. 7 "
            + ("gyration-weighted." if args.weighted else "as written.")]


def cmd_bound(args, ds: Dataset, out: Output, fits=None, figures_only=False) -> list:
    fits = fits or fit_laws(ds.drops, args.laws, per_drop=False, weighted=args.weighted)
    irb = [bounds.irb_bound(d) for d in ds.drops]
    rows, errs = bound_rows(fits, irb)
    if not figures_only:
        save_table(out, rows, "bound")
        save_table(out, bound_drop_rows(ds.drops, fits, irb), "bound_drops")
    save_figure(out, ap.plot_error_densities(errs), "error_densities.png")
    print(compliant.format_table(rows))
    return ["Errors ||K^1/2 (v_pred - v_f)|| of each law at its batch parameters, Best Post "
            "Hoc (per drop the best law) and the IRB bound: `bound.md`, per drop "
            "`bound_drops.csv`, densities (Fig. 8) `error_densities.png`."]


def cmd_plots(args, ds: Dataset, out: Output) -> list:
    fits = fit_laws(ds.drops, args.laws, weighted=args.weighted)
    lines = cmd_laws(args, ds, out, figures_only=True)
    lines += cmd_identify(args, ds, out, fits, figures_only=True)
    lines += cmd_bound(args, ds, out, fits, figures_only=True)
    return lines


def check_compliant_drops(ds: Dataset) -> None:
    for i, d in enumerate(ds.drops):
        if d.q_i is None:
            raise InputError(f"compare: drop {i} has no pose (x, y, theta columns): csim "
                             "needs the angle at impact")
        if abs(d.mass / synthetic.MASS - 1) > 1e-3 or abs(d.inertia / synthetic.INERTIA - 1) > 0.05:
            raise InputError(f"compare: drop {i} (mass {d.mass:g} kg, inertia {d.inertia:g} "
                             "kg m^2) is not the paper's ellipse, the only body csim "
                             "simulates here")


def compliant_options(args, model) -> dict:
    opts = dict(k=args.k, refine=args.refine, csim=args.csim)
    if args.quick:
        opts.update(mu_grid=np.linspace(0.0, 0.4, 5), refine=min(args.refine, 8),
                    x_grid=compliant.prior_dissipation(model, args.k) * np.logspace(-0.6, 0.6, 5))
    return opts


def compare_rows(drops, models, fits: LawFits, irb, opts_of) -> tuple[list, dict, dict]:
    """One row per compliant model, rigid law and the IRB bound; errors at batch parameters."""
    irb_mean = float(np.mean([b.error for b in irb]))
    rows, errs, model_fits = [], {}, {}
    for model in models:
        mf = compliant.identify(drops, model, **opts_of(model))
        model_fits[model], errs[model] = mf, mf.err_batch
        rows.append({"model": model, "kind": "compliant (csim)", "mu": mf.batch[0],
                     "dissipation": mf.batch[1], "dissipation_name": mf.dissipation_name,
                     "err_batch_mean": float(np.mean(mf.err_batch)),
                     "err_batch_median": float(np.median(mf.err_batch)),
                     "err_drop_mean": float(np.mean(mf.err_drop)),
                     "err_drop_median": float(np.median(mf.err_drop)),
                     "err_truth_mean": (float(np.mean(mf.err_truth))
                                        if mf.err_truth is not None else ""),
                     "csim_runs": mf.runs})
    for law, b in fits.batch.items():
        errs[law] = fits.err_batch[law]
        rows.append({"model": LAW_TITLES[law], "kind": "rigid law", "mu": b.mu,
                     "dissipation": b.e, "dissipation_name": "e",
                     "err_batch_mean": float(np.mean(fits.err_batch[law])),
                     "err_batch_median": float(np.median(fits.err_batch[law])),
                     "err_drop_mean": float(np.mean(fits.err_drop[law])),
                     "err_drop_median": float(np.median(fits.err_drop[law]))})
    irb_err = np.array([b.error for b in irb])
    errs["irb"] = irb_err
    rows.append({"model": "IRB bound", "kind": "bound", "err_drop_mean": irb_mean,
                 "err_drop_median": float(np.median(irb_err))})
    for r in rows:
        r["err_drop_over_irb"] = r["err_drop_mean"] / irb_mean if irb_mean > 0 else float("nan")
    return rows, errs, model_fits


def noise_floor_line(drops) -> list:
    if all(d.truth and "sigma_i" in d.truth for d in drops):
        nf = compliant.noise_floor(drops)
        return [f"Noise floor (the error a perfect model makes on these noisy drops, "
                f"compliant.noise_floor): mean {np.mean(nf):.4g} m/s."]
    return []


def cmd_compare(args, ds: Dataset, out: Output) -> list:
    check_compliant_drops(ds)
    check_csim(args.csim)
    fits = fit_laws(ds.drops, args.laws, weighted=args.weighted)
    irb = [bounds.irb_bound(d) for d in ds.drops]
    rows, errs, _ = compare_rows(ds.drops, args.models, fits, irb,
                                 lambda m: compliant_options(args, m))
    save_table(out, rows, "compare")
    save_figure(out, ap.plot_error_densities(errs), "compare_error_densities.png")
    print(compliant.format_table(rows, ["model", "mu", "dissipation", "err_batch_mean",
                                        "err_drop_mean", "err_drop_over_irb"]))
    return (["csim's compliant models (k = %g N/m fixed, mu and the dissipation identified "
             "through csim runs; batch = one pair for all drops, drop = each drop's own) "
             "beside the six laws and the IRB bound: `compare.md`, densities of the batch "
             "errors `compare_error_densities.png`." % args.k] + noise_floor_line(ds.drops))


def cmd_synthetic(args) -> int:
    ds = load(args.spec, args.csim)
    target = Path(args.out)
    fmt = args.format or ("csv" if target.suffix.lower() == ".csv" else "mit")
    if fmt == "csv":
        drops = [scalar_truth(d) for d in ds.drops]
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
        os.close(fd)
        try:
            data.write_csv(tmp, drops)
            os.replace(tmp, target)
        finally:
            if os.path.exists(tmp):
                os.remove(tmp)
    else:
        with Output(target) as out:
            data.write_mit(out.tmp, ds.drops)
    print(f"{ds.source}\nwrote {target} ({fmt})")
    return 0


def scalar_truth(d):
    """The drop with only the scalar entries of its truth (what a CSV cell can hold)."""
    t = {k: v for k, v in (d.truth or {}).items() if isinstance(v, (str, int, float, bool))}
    return Drop(d.mass, d.inertia, d.J, d.v_i, d.v_f, d.q_i, t or None)


COMMANDS = {"laws": cmd_laws, "identify": cmd_identify, "bound": cmd_bound,
            "compare": cmd_compare, "plots": cmd_plots}


def run_command(args) -> int:
    began = time.monotonic()
    ds = load(args.data, args.csim)
    print(ds.source)
    if ds.report:
        print(ds.report)
    with Output(args.out) as out:
        lines = COMMANDS[args.command](args, ds, out)
        write_summary(out, ds, args.command, lines)
    wall = time.monotonic() - began
    print(f"wrote {len(set(out.files)) + 1} files to {args.out} in {wall:.1f} s")
    return 0


# ---------------------------------------------------------------------- parser ----

def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python3 -m impact", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="\n\n".join(__doc__.split("\n\n")[1:]) + "\nDATA:\n  a folder holding "
        "data_ellipse.mat (the MIT layout), or\n" + SYNTHETIC_DOC + "\n  or a CSV file:\n"
        + data.CSV_DOC)
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("data", metavar="DATA", help="MIT folder, CSV file or synthetic:N[...]")
    common.add_argument("-o", "--out", required=True, metavar="DIR", help="output folder")
    common.add_argument("--laws", nargs="+", choices=list(LAWS), default=list(LAWS),
                        metavar="LAW", help="laws to use (default: all six)")
    common.add_argument("--csim", default=None, help="csim executable (default $CSIM, else "
                        "build/app/csim); needed by compare and csim-made synthetic sets")
    common.add_argument("--weighted", action="store_true",
                        help="target impulses from the gyration-weighted eq. 7")
    ell = argparse.ArgumentParser(add_help=False)
    ell.add_argument("--drops", type=int, nargs="+", default=[0], metavar="I",
                     help="drops drawn on the Energy Ellipse (default 0)")
    ell.add_argument("--mu", type=float, default=None, help="mu on the ellipse figures "
                     "(default: the data's known mu, else 0.15)")
    ell.add_argument("--e", type=float, default=None, help="e on the ellipse figures "
                     "(default: the data's known e, else 0.59)")
    fit = argparse.ArgumentParser(add_help=False)
    fit.add_argument("--bootstrap", type=int, default=0, metavar="N",
                     help="batch std by N bootstrap resamples (default: Gauss-Newton)")
    fit.add_argument("--grid", type=int, default=41, help="cost landscape grid points a side")
    fit.add_argument("--landscape-drops", type=int, default=120, metavar="N",
                     help="drops in the cost landscape, a random subset of at most N "
                     "(default 120, as the paper's Fig. 7a)")
    fit.add_argument("--ensemble", type=int, nargs="+", default=None, metavar="K",
                     help="ensemble convergence (Fig. 7b): batch fits over random subsets of "
                     "K drops each (e.g. 10 20 40 80 120); off by default")
    fit.add_argument("--ensemble-sets", type=int, default=20, metavar="N",
                     help="random subsets per K (default 20, as the paper)")
    helps = {"laws": "each law's impulse and the Energy Ellipse (Figs. 3-4)",
             "identify": "batch and per-drop fits (Tabs. 1-2, Figs. 7a, 10)",
             "bound": "IRB bound, Best Post Hoc, error densities (Fig. 8)",
             "compare": "csim's compliant models beside the laws and the IRB bound",
             "plots": "every figure of laws, identify and bound"}
    parents = {"laws": [common, ell], "identify": [common, fit], "bound": [common],
               "compare": [common], "plots": [common, ell, fit]}
    for name, text in helps.items():
        sp = sub.add_parser(name, parents=parents[name], help=text, description=text)
        sp.set_defaults(command=name, bootstrap=0, grid=41, landscape_drops=120)
        if name == "compare":
            sp.add_argument("--models", nargs="+", choices=synthetic.MODELS,
                            default=list(synthetic.MODELS), help="compliant models")
            sp.add_argument("--k", type=float, default=synthetic.STIFFNESS,
                            help="contact stiffness [N/m], fixed (default 1e6)")
            sp.add_argument("--refine", type=int, default=30,
                            help="compass-search iterations after the grid (default 30)")
            sp.add_argument("--quick", action="store_true",
                            help="5 x 5 grid and at most 8 refinements (a smoke run)")
    syn = sub.add_parser("synthetic", help="write a synthetic set (CSV file or MIT folder)",
                         description="Write a synthetic set.\n\n" + SYNTHETIC_DOC,
                         formatter_class=argparse.RawDescriptionHelpFormatter)
    syn.add_argument("spec", metavar="SPEC", help="synthetic:N[:SEED[:MODEL]][:KEY=VALUE...]")
    syn.add_argument("-o", "--out", required=True, metavar="PATH",
                     help="a .csv file, or a folder for the MIT layout")
    syn.add_argument("--format", choices=("csv", "mit"), default=None,
                     help="default: csv for a .csv path, else mit")
    syn.add_argument("--csim", default=None)
    return p


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "synthetic":
            if not (args.spec == "synthetic" or args.spec.startswith("synthetic:")):
                raise InputError(f"{args.spec}: SPEC must start with 'synthetic:'")
            return cmd_synthetic(args)
        return run_command(args)
    except InputError as exc:
        print(f"impact: error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except synthetic.CsimFailed as exc:
        print(f"impact: error: {exc}", file=sys.stderr)
        return EXIT_CSIM

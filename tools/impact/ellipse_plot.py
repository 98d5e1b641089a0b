"""Energy Ellipse figures in the impulse plane (P_t, P_n), after Fazeli et al. (2020) Figs. 3-4.

plot_energy_ellipse draws, for one pre-impact state:
- the Energy Ellipse at alpha = 1 (energy conserved) and alpha = 0.5 (corrected eq. 6);
- the line of maximum compression (v_n+ = 0) and the line of sticking (v_t+ = 0), which
  meet at the ellipse centre P_0 = -W^-1 v_c-;
- the admissible set (no energy gained, v_n+ >= 0, P_n >= 0), shaded;
- each law's sheet: its impulse for mu in [0, mu_max] along curves of fixed e, faint dots
  over the whole (mu, e) range (the law's predictive range, Fig. 4), and a marker at the
  requested (mu, e).
The caller owns the figure; use matplotlib's Agg backend for files.
"""

from __future__ import annotations

import numpy as np

from . import laws as impact_laws
from .contact_space import ContactSpace

_COLOURS = {
    'ap_newton': 'tab:blue', 'ap_poisson': 'tab:orange', 'drumwright_shell': 'tab:green',
    'wang_mason': 'tab:red', 'mirtich': 'tab:purple', 'whittaker': 'tab:brown',
}
_E_STYLES = ('-', '--', ':', '-.')


def default_mu_max(space: ContactSpace, vc_minus) -> float:
    """A friction range that reaches full stick for the laws: 1.2 times the largest of |mu_s|
    and the cone ratios |P_t|/P_n of the sticking impulses P_0 and P^N(1), capped below the
    Painleve limit W_nn/|W_tn|."""
    W = space.W
    ratios = [abs(space.stick_ratio())]
    for P in (space.ellipse_centre(vc_minus), space.sticking_impulse(vc_minus, 1.0)):
        if P[1] > 0:
            ratios.append(abs(P[0]) / P[1])
    limit = 0.95 * W[1, 1] / abs(W[0, 1]) if W[0, 1] != 0 else np.inf
    return float(min(1.2 * max(ratios), limit))


def law_sheet(name: str, space: ContactSpace, vc_minus, e: float, mus) -> np.ndarray:
    """(len(mus), 2) impulses of law `name` at restitution e over friction values mus;
    NaN rows where the law is undefined (ValueError)."""
    law = impact_laws.LAWS[name]
    out = np.full((len(mus), 2), np.nan)
    for i, mu in enumerate(mus):
        try:
            out[i] = law(space.W, vc_minus, float(mu), float(e))
        except ValueError:
            pass
    return out


def _shade_admissible(ax, space: ContactSpace, vc, xlim, ylim, n: int = 300) -> None:
    """Shade {P : T+ <= T-, v_n+ >= 0, P_n >= 0} by evaluating the three tests on a grid."""
    W = space.W
    pt, pn = np.meshgrid(np.linspace(*xlim, n), np.linspace(*ylim, n))
    P = np.stack([pt, pn], axis=-1)
    gain = P @ vc + 0.5 * np.einsum('...i,ij,...j->...', P, W, P)
    vn_plus = vc[1] + P @ W[1]
    inside = (gain <= 0) & (vn_plus >= 0) & (pn >= 0)
    ax.contourf(pt, pn, inside.astype(float), levels=[0.5, 1.5], colors=['0.85'], zorder=0)


def _draw_line(ax, coeffs, xlim, ylim, **style) -> None:
    """Draw a P_t + b P_n = c across the current limits."""
    a, b, c = coeffs
    if abs(b) > 1e-12 * abs(a):
        x = np.array(xlim)
        ax.plot(x, (c - a * x) / b, **style)
    else:
        ax.plot([c / a, c / a], list(ylim), **style)


def plot_energy_ellipse(ax, space: ContactSpace, v_minus, e: float, mu: float,
                        laws=tuple(impact_laws.LAWS), e_values=(0.0, 0.5, 1.0),
                        mu_max: float | None = None, n_mu: int = 80):
    """Draw the Energy Ellipse of one impact with the laws' sheets on matplotlib axes `ax`.

    space: the contact space; v_minus: (3,) pre-impact body velocity (m/s, m/s, rad/s);
    e, mu: the parameters marked for every law; laws: names from impact.laws.LAWS;
    e_values: restitution values of the sheet curves; mu_max: top of the friction sweep
    (default_mu_max if None). Returns ax.
    """
    vc = space.contact_velocity(v_minus)
    if vc[1] >= 0:
        raise ValueError("the contact is not approaching (v_n >= 0): nothing to draw")
    mu_max = default_mu_max(space, vc) if mu_max is None else mu_max
    outer = space.ellipse_points(vc, 1.0, n=400)
    pad = 0.08 * np.ptp(outer, axis=0)
    xlim = (outer[:, 0].min() - pad[0], outer[:, 0].max() + pad[0])
    ylim = (min(outer[:, 1].min(), 0.0) - pad[1], outer[:, 1].max() + pad[1])

    _shade_admissible(ax, space, vc, xlim, ylim)
    for alpha, style in ((1.0, '-'), (0.5, '--')):
        pts = space.ellipse_points(vc, alpha, n=400)
        pts = np.vstack([pts, pts[:1]])
        ax.plot(pts[:, 0], pts[:, 1], color='k', ls=style, lw=1.0,
                label=f'energy ellipse, alpha = {alpha:g}')
    # Solid grey lines, so that they do not share a line style with the e curves.
    _draw_line(ax, space.line_of_max_compression(vc), xlim, ylim, color='0.25', lw=1.5,
               label='max. compression (v_n+ = 0)')
    _draw_line(ax, space.line_of_sticking(vc), xlim, ylim, color='0.65', lw=1.5,
               label='sticking (v_t+ = 0)')
    P0 = space.ellipse_centre(vc)
    ax.plot(*P0, 'k+', ms=10)

    mus = np.linspace(0.0, mu_max, n_mu)
    for name in laws:
        colour = _COLOURS.get(name)
        # The whole predictive range (the union over mu and e, Fig. 4) as faint dots.
        cloud = np.vstack([law_sheet(name, space, vc, e_fill, mus[::4])
                           for e_fill in np.linspace(0.0, 1.0, 11)])
        ax.scatter(cloud[:, 0], cloud[:, 1], s=2, color=colour, alpha=0.3, lw=0)
        for k, e_sheet in enumerate(e_values):
            sheet = law_sheet(name, space, vc, e_sheet, mus)
            ax.plot(sheet[:, 0], sheet[:, 1], color=colour, lw=1.2,
                    ls=_E_STYLES[k % len(_E_STYLES)],
                    label=impact_laws.LAW_TITLES[name] if k == 0 else None)
        point = law_sheet(name, space, vc, e, [mu])[0]
        ax.plot(*point, 'o', color=colour, ms=5)

    for k, e_sheet in enumerate(e_values):      # legend entries for the e line styles
        ax.plot([], [], color='0.5', ls=_E_STYLES[k % len(_E_STYLES)], label=f'e = {e_sheet:g}')
    ax.set_xlim(xlim)
    ax.set_ylim(ylim)
    ax.set_xlabel('tangential impulse P_t (N s)')
    ax.set_ylabel('normal impulse P_n (N s)')
    ax.set_title(f'sheets for mu in [0, {mu_max:.2f}], e in {tuple(e_values)}; '
                 f'dots: mu = {mu:g}, e = {e:g}', fontsize=9)
    ax.legend(fontsize=7, loc='best')
    return ax

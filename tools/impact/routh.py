"""Numerical Routh integrator: the independent reference for Wang-Mason and Mirtich.

Routh's method follows the impulse P = (P_t, P_n) during the impact with the normal
impulse P_n as the clock: dv_c = W dP, Coulomb friction |dP_t| <= mu dP_n opposing the
slip (Fazeli et al. 2020 refs. [28], [29]; docs/design/impact-laws.md §4).

Design: the closed forms in laws.py decide stick, slide and reversal by cases. This
integrator decides nothing by cases. Each step of normal impulse h takes the tangential
increment of an implicit (maximally dissipative) Coulomb law,
    dP_t = clip(-(v_t + W_tn h) / W_tt, -mu h, mu h),
the increment that brings the slip at the end of the step closest to zero within the
cone. Sticking (the clip inactive, v_t = 0 kept exactly), sliding (clip active) and
slip reversal then emerge by themselves; the mode switch costs an O(mu h) error in the
step where it happens, so the error of the final impulse is O(h). Within a step v_n is
linear in the step fraction, so the end of compression (v_n = 0), Poisson's end
P_n = (1+e) P_q and Stronge's energetic end are located exactly by interpolation.

Vectorised over a batch of N cases: one Python loop over steps, numpy over cases.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class RouthResult:
    """Integration result for N cases.

    P:        (N, 2) final impulse (P_t, P_n) in N s.
    P_q:      (N,) normal impulse at maximum compression (v_n = 0) in N s.
    vc_plus:  (N, 2) final contact velocity in m/s.
    stuck:    (N,) the slip was held at zero for at least one whole step.
    reversed: (N,) the slip changed sign during the impact.
    h:        (N,) normal-impulse step in N s (the error scale).
    """

    P: np.ndarray
    P_q: np.ndarray
    vc_plus: np.ndarray
    stuck: np.ndarray
    reversed: np.ndarray
    h: np.ndarray


def _friction_increment(vt, Wtt, Wtn, mu, h):
    """Implicit Coulomb increment dP_t for a normal-impulse step h (arrays)."""
    return np.clip(-(vt + Wtn * h) / Wtt, -mu * h, mu * h)


def integrate(W, vc_minus, mu, e, end: str = 'poisson', steps: int = 4000,
              max_steps_factor: int = 50) -> RouthResult:
    """Integrate N impacts along Routh's path.

    W:        (N, 2, 2) or (2, 2) contact compliance in 1/kg.
    vc_minus: (N, 2) or (2,) pre-impact (v_t, v_n) in m/s, v_n < 0.
    mu, e:    scalars or (N,) arrays; friction and restitution coefficients.
    end:      'poisson' (P_n = (1+e) P_q, Wang-Mason) or 'energetic' (restitution work
              = -e^2 times the compression work, Stronge / Mirtich).
    steps:    the step is h = (-v_n / W_nn) / steps, a fraction of the frictionless
              compression impulse.
    """
    if end not in ('poisson', 'energetic'):
        raise ValueError("end must be 'poisson' or 'energetic'")
    vc = np.atleast_2d(np.asarray(vc_minus, dtype=float))
    n = vc.shape[0]
    W = np.broadcast_to(np.asarray(W, dtype=float), (n, 2, 2))
    mu = np.broadcast_to(np.asarray(mu, dtype=float), (n,)).copy()
    e = np.broadcast_to(np.asarray(e, dtype=float), (n,)).copy()
    if np.any(vc[:, 1] >= 0):
        raise ValueError("every case must approach (v_n < 0)")
    Wtt, Wtn, Wnn = W[:, 0, 0], W[:, 0, 1], W[:, 1, 1]

    h = -vc[:, 1] / Wnn / steps
    Pt, Pn = np.zeros(n), np.zeros(n)
    vt, vn = vc[:, 0].copy(), vc[:, 1].copy()
    restituting = np.zeros(n, bool)
    active = np.ones(n, bool)
    Pq, work_c, work_r = np.full(n, np.nan), np.zeros(n), np.zeros(n)
    stuck, reversed_ = np.zeros(n, bool), np.zeros(n, bool)
    slip_sign0 = np.sign(vt)

    for _ in range(max_steps_factor * steps):
        if not active.any():
            break
        dh = h.copy()
        if end == 'poisson':
            # Shorten the last step so that P_n lands on (1+e) P_q.
            remaining = np.where(restituting, (1.0 + e) * Pq - Pn, np.inf)
            dh = np.minimum(dh, np.maximum(remaining, 0.0))
        dPt = _friction_increment(vt, Wtt, Wtn, mu, dh)
        vt1 = vt + Wtt * dPt + Wtn * dh
        vn1 = vn + Wtn * dPt + Wnn * dh
        frac = np.ones(n)

        # End of compression inside this step: stop the step at v_n = 0.
        crossing = active & ~restituting & (vn1 >= 0)
        frac = np.where(crossing, -vn / np.where(crossing, vn1 - vn, 1.0), frac)

        # Stronge's end inside this step: restitution work reaches -e^2 W_c.
        if end == 'energetic':
            target = -e * e * work_c
            step_work = 0.5 * (vn + vn1) * dh
            ending = active & restituting & (work_r + step_work >= target)
            frac = np.where(ending, _work_fraction(vn, vn1, dh, target - work_r), frac)
        else:
            ending = active & restituting & (Pn + dh >= (1.0 + e) * Pq * (1 - 1e-15))

        # Advance the active cases by frac of the step (increments are linear in frac).
        f = np.where(active, frac, 0.0)
        sticking_step = active & (np.abs(dPt) < mu * dh * (1 - 1e-9)) & (f == 1.0)
        stuck |= sticking_step
        vn_new = vn + f * (vn1 - vn)
        work = 0.5 * (vn + vn_new) * f * dh
        work_c = np.where(active & ~restituting, work_c + work, work_c)
        work_r = np.where(active & restituting, work_r + work, work_r)
        Pt, Pn = Pt + f * dPt, Pn + f * dh
        vt, vn = vt + f * (vt1 - vt), vn_new
        reversed_ |= active & (slip_sign0 != 0) & (np.sign(vt) == -slip_sign0) & (np.abs(vt) > 1e-12)
        reversed_ |= active & (slip_sign0 == 0) & ~sticking_step & (np.abs(vt) > 1e-12)

        Pq = np.where(crossing, Pn, Pq)
        vn = np.where(crossing, 0.0, vn)
        restituting |= crossing
        # e = 0 ends at maximum compression.
        ending |= crossing & (e == 0)
        active &= ~ending
    else:
        raise RuntimeError("Routh integration did not finish; increase max_steps_factor")

    return RouthResult(np.stack([Pt, Pn], axis=1), Pq, np.stack([vt, vn], axis=1),
                       stuck, reversed_, h)


def _work_fraction(vn0, vn1, dh, needed):
    """Fraction f in [0, 1] of a step with v_n linear from vn0 to vn1 whose work is `needed`.

    Work(f) = dh (vn0 f + 1/2 (vn1 - vn0) f^2); the positive root of Work(f) = needed.
    """
    a = 0.5 * (vn1 - vn0) * dh
    b = vn0 * dh
    c = -needed
    disc = np.sqrt(np.maximum(b * b - 4 * a * c, 0.0))
    # Stable root form: f = 2c / (-b - disc) avoids cancellation when a is tiny.
    denom = -b - disc
    f = np.where(np.abs(denom) > 0, 2 * c / np.where(denom == 0, 1.0, denom), 1.0)
    return np.clip(f, 0.0, 1.0)


def routh_impulse(W, vc_minus, mu: float, e: float, end: str = 'poisson',
                  steps: int = 4000) -> np.ndarray:
    """Single-case convenience: the final impulse (2,) of `integrate`."""
    return integrate(W, vc_minus, mu, e, end=end, steps=steps).P[0]

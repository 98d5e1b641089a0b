"""Post hoc impulses and bounds of Fazeli et al. (paper §2.2, §3; docs/design/impact-identification.md §2-§4).

- The point impulse that explains a measured velocity change (paper eq. 7), as written
  (plain least squares on the generalized impulse) and gyration-weighted.
- The IRB bound: the admissible impulse that best predicts v_f.
- The error metric of paper Fig. 8 and the Best Post Hoc model.

Why a weighted eq. 7: eq. 7 minimises ||M dv - J^T P|| whose omega row is in N m s while
the linear rows are in N s; for the MIT ellipse the omega row is about k_g = 0.019 m times
the size of the others, so the plain fit nearly ignores omega. The weighted variant
minimises the velocity misfit in the metric of Fig. 8, ||K^1/2 (v_i + M^-1 J^T P - v_f)||,
K = diag(1, 1, k_g^2). Both agree when dv was produced by a point impulse.

The IRB bound is a convex program in two variables (a convex quadratic cost, one ellipse
and two half-planes). It is solved exactly by enumerating the KKT pieces: the free
minimiser, the minimiser on the ellipse alone (a monotone one-dimensional multiplier
equation, bracketed and solved by Brent's method) and the minimiser on each line restricted
to its feasible interval (which also covers every corner). The cheapest feasible candidate
is the global minimum because the problem is convex. A general NLP solver (SLSQP) was
rejected: it needs a feasible start and tolerances, and it fails silently at corners.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq

from .drop import Drop
from .laws import predict

# Relative feasibility tolerance of the IRB candidates (dimensionless).
_FEAS_RTOL = 1e-9


def point_impulse(drop: Drop, weighted: bool = False) -> np.ndarray:
    """(2,) impulse (P_t, P_n) [N s] that best explains dv = v_f - v_i by one point impulse.

    weighted=False: paper eq. 7 as written, argmin_P ||M (v_f - v_i) - J^T P||_2.
    weighted=True:  argmin_P ||K^1/2 (v_i + M^-1 J^T P - v_f)||_2, K = diag(1, 1, k_g^2).
    """
    A, b = _impulse_system(drop, weighted)
    return np.linalg.lstsq(A, b, rcond=None)[0]


def impulse_map(drop: Drop, weighted: bool = False) -> np.ndarray:
    """(2, 3) linear map L with point_impulse(drop) = L (v_f - v_i); used to propagate noise."""
    if weighted:
        A = drop.metric[:, None] * _minv_jt(drop)
        return np.linalg.pinv(A) * drop.metric[None, :]
    M = np.diag([drop.mass, drop.mass, drop.inertia])
    return np.linalg.pinv(drop.J.T) @ M


def point_impulse_misfit(drop: Drop) -> float:
    """Relative misfit of the best point impulse, ||K^1/2 (dv - M^-1 J^T P_w)|| / ||K^1/2 dv||.

    Dimensionless, in [0, 1]: 0 when dv is exactly a point impulse through J. Uses the
    weighted fit because the plain one hardly sees omega (module docstring).
    """
    A, b = _impulse_system(drop, weighted=True)
    P = np.linalg.lstsq(A, b, rcond=None)[0]
    norm_b = np.linalg.norm(b)
    return float(np.linalg.norm(A @ P - b) / norm_b) if norm_b > 0 else 0.0


def velocity_error(drop: Drop, v_pred: np.ndarray) -> float:
    """Paper Fig. 8 error ||K^1/2 (v_pred - v_f)|| [m/s], omega scaled by k_g."""
    return float(np.linalg.norm(drop.metric * (np.asarray(v_pred) - drop.v_f)))


def impulse_error(drop: Drop, P: np.ndarray) -> float:
    """velocity_error of the post-impact velocity v_i + M^-1 J^T P [m/s]."""
    return velocity_error(drop, drop.v_i + _minv_jt(drop) @ np.asarray(P))


@dataclass
class IrbBound:
    """The IRB bound of one drop.

    P       (2,) best admissible impulse (P_t, P_n) [N s]
    v_plus  (3,) its post-impact velocity
    error   velocity_error(drop, v_plus) [m/s]
    active  which KKT piece holds the optimum: 'free', 'energy', 'compression', 'normal'
    """

    P: np.ndarray
    v_plus: np.ndarray
    error: float
    active: str


def irb_bound(drop: Drop) -> IrbBound:
    """Best admissible impulse (paper §2.2, IRB bound), exact.

    Solves argmin_P ||K^1/2 (v_i + M^-1 J^T P - v_f)||^2 over the admissible set
    {dT(P) = P^T v_c + P^T W P / 2 <= 0, v_n+ = v_n + (W P)_n >= 0, P_n >= 0}.
    """
    prob = _IrbProblem(drop)
    best = None
    for P, name in prob.candidates():
        if P is None or not prob.feasible(P):
            continue
        f = prob.cost(P)
        if best is None or f < best[0]:
            best = (f, P, name)
    if best is None:  # cannot happen for a valid W; a bug if it does
        raise RuntimeError("irb_bound: no feasible KKT candidate")
    P = best[1]
    v_plus = drop.v_i + _minv_jt(drop) @ P
    return IrbBound(P, v_plus, velocity_error(drop, v_plus), best[2])


def law_errors(drops: list[Drop], params: dict) -> dict:
    """Fig. 8 errors of each law at given parameters.

    params: {law name: (mu, e)} (e.g. the batch fits). Returns {law name: (n,) errors [m/s]}.
    """
    out = {}
    for name, (mu, e) in params.items():
        out[name] = np.array([velocity_error(d, predict(name, d.space(), d.v_i, mu, e))
                              for d in drops])
    return out


def best_post_hoc(errors: dict) -> tuple[np.ndarray, list]:
    """Best Post Hoc model (paper §2.2): per drop, the best of the laws.

    errors: {law name: (n,) errors}, as from law_errors. Returns ((n,) best errors [m/s],
    the name of the best law per drop).
    """
    names = list(errors)
    table = np.vstack([errors[k] for k in names])
    idx = np.argmin(table, axis=0)
    return table[idx, np.arange(table.shape[1])], [names[i] for i in idx]


def _minv_jt(drop: Drop) -> np.ndarray:
    """(3, 2) M^-1 J^T."""
    return drop.J.T / np.array([drop.mass, drop.mass, drop.inertia])[:, None]


def _impulse_system(drop: Drop, weighted: bool) -> tuple[np.ndarray, np.ndarray]:
    """(A (3,2), b (3,)) with the eq. 7 impulse = argmin ||A P - b||."""
    if weighted:
        return drop.metric[:, None] * _minv_jt(drop), drop.metric * drop.dv
    M = np.array([drop.mass, drop.mass, drop.inertia])
    return drop.J.T, M * drop.dv


class _IrbProblem:
    """The IRB quadratic program: cost ||B P + c||^2, ellipse dT <= 0, two half-planes."""

    def __init__(self, drop: Drop):
        self.B = drop.metric[:, None] * _minv_jt(drop)  # (3, 2)
        self.c = drop.metric * (drop.v_i - drop.v_f)    # (3,)
        self.W = drop.space().W
        self.vc = drop.J @ drop.v_i
        self.H = self.B.T @ self.B
        self.g = self.B.T @ self.c
        # Scales for the feasibility tolerances: the centre of the Energy Ellipse (all
        # contact velocity removed) and its energy.
        P0 = -np.linalg.solve(self.W, self.vc)
        self.e_scale = max(abs(self.energy(P0)), 1e-300)
        self.p_scale = max(np.linalg.norm(P0), 1e-300)
        self.v_scale = max(np.linalg.norm(self.vc), 1e-300)

    def cost(self, P):
        return float(np.sum((self.B @ P + self.c) ** 2))

    def energy(self, P):
        """Kinetic energy change dT [J] (paper eqs. 5-6)."""
        return float(P @ self.vc + 0.5 * P @ self.W @ P)

    def feasible(self, P):
        tol = _FEAS_RTOL
        return (self.energy(P) <= tol * self.e_scale
                and self.vc[1] + self.W[1] @ P >= -tol * self.v_scale
                and P[1] >= -tol * self.p_scale)

    def candidates(self):
        yield np.linalg.solve(self.H, -self.g), "free"
        yield self._on_ellipse(), "energy"
        # Line of maximum compression v_n+ = 0: direction orthogonal to W's normal row.
        w = self.W[1]
        yield self._on_line(-self.vc[1] * w / (w @ w), np.array([w[1], -w[0]]), "normal"), \
            "compression"
        yield self._on_line(np.zeros(2), np.array([1.0, 0.0]), "compression"), "normal"

    def _on_ellipse(self):
        """Minimiser on dT = 0: (2H + lam W) P = -(2g + lam v_c), lam > 0 with dT(P(lam)) = 0.

        dT(P(lam)) decreases monotonically from dT(free minimiser) at lam = 0 to dT(centre) < 0
        as lam -> inf (its derivative is -grad^T (2H + lam W)^-1 grad), so one root exists
        when the free minimiser gains energy.
        """
        def P_of(lam):
            return np.linalg.solve(2 * self.H + lam * self.W, -(2 * self.g + lam * self.vc))

        def phi(lam):
            return self.energy(P_of(lam))

        if phi(0.0) <= 0.0:
            return None
        hi = np.trace(self.H) / np.trace(self.W)
        for _ in range(200):
            if phi(hi) < 0.0:
                break
            hi *= 4.0
        else:
            return None
        return P_of(brentq(phi, 0.0, hi, xtol=1e-300, rtol=1e-15, maxiter=500))

    def _on_line(self, p0, d, other):
        """Minimiser on the line p0 + t d, restricted to the ellipse and the other half-plane."""
        # Ellipse: dT(p0 + t d) = a t^2 + b t + c <= 0.
        a = 0.5 * d @ self.W @ d
        b = d @ (self.vc + self.W @ p0)
        c = self.energy(p0)
        disc = b * b - 4 * a * c
        if disc < 0.0:
            return None
        lo, hi = sorted(((-b - np.sqrt(disc)) / (2 * a), (-b + np.sqrt(disc)) / (2 * a)))
        # The other half-plane, linear in t: s0 + s1 t >= 0.
        if other == "normal":
            s0, s1 = p0[1], d[1]
        else:
            s0, s1 = self.vc[1] + self.W[1] @ p0, self.W[1] @ d
        if abs(s1) > 0.0:
            t_edge = -s0 / s1
            lo, hi = (max(lo, t_edge), hi) if s1 > 0 else (lo, min(hi, t_edge))
        elif s0 < 0.0:
            return None
        if lo > hi:
            return None
        Bd = self.B @ d
        t = -(Bd @ (self.B @ p0 + self.c)) / (Bd @ Bd)
        return p0 + float(np.clip(t, lo, hi)) * d

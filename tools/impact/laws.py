"""The six planar rigid impact laws of Fazeli et al. (2020) §2.2, in closed form.

Every law maps (W, v_c-, mu, e) to one contact impulse P = (P_t, P_n) in N s:
    W      (2, 2) contact-space compliance J M^-1 J^T in 1/kg (eq. 4, M_c^-1),
    v_c-   (2,) pre-impact contact velocity (v_t, v_n) in m/s, v_n < 0 approaching,
    mu     Coulomb friction coefficient (>= 0),
    e      restitution coefficient in [0, 1] (Newton, Poisson or Stronge's, per law).
The post-impact velocities follow from v_c+ = v_c- + W P, v+ = v- + M^-1 J^T P.
A contact that is not approaching (v_n >= 0) gets P = 0 from every law.

Design (docs/design/impact-laws.md §3): one contact has a two-dimensional impulse
space, so every law reduces to a few linear cases; the closed forms replace the
LCP/QP solvers and the fixed-step integrators the original implementations used, and
are checked against those formulations by the tests. The symbols (§2 of the doc):
    a_sigma = W_tn - sigma mu W_tt,  b_sigma = W_nn - sigma mu W_tn
are dv_t/dP_n and dv_n/dP_n while sliding in direction sigma (friction P_t = -sigma mu P_n),
b_0 = det W / W_tt is dv_n/dP_n while sticking, and mu_s = -W_tn/W_tt the stick ratio.

Precondition (all laws but Whittaker): b_sigma > 0 for both sigma, i.e.
mu |W_tn| < W_nn. Otherwise the normal velocity can decrease while pushing
(Painleve-type paradox) and the rigid impact problem has no unique answer; the laws
raise ValueError instead of returning an impulse.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .contact_space import ContactSpace, sticking_impulse

Law = Callable[[np.ndarray, np.ndarray, float, float], np.ndarray]


# ---------------------------------------------------------------------------
# Input checks and shared pieces
# ---------------------------------------------------------------------------

def _inputs(W, vc_minus, mu: float, e: float):
    """Validate and unpack: returns (W (2,2) array, v_t, v_n, mu, e) as floats."""
    W = np.asarray(W, dtype=float)
    vc = np.asarray(vc_minus, dtype=float)
    if W.shape != (2, 2) or vc.shape != (2,):
        raise ValueError(f"W must be (2, 2) and vc_minus (2,), got {W.shape} and {vc.shape}")
    if not (abs(W[0, 1] - W[1, 0]) <= 1e-12 * abs(W).max()
            and W[0, 0] > 0 and W[1, 1] > 0 and np.linalg.det(W) > 0):
        raise ValueError("W must be symmetric positive definite")
    if mu < 0 or not 0 <= e <= 1:
        raise ValueError(f"need mu >= 0 and 0 <= e <= 1, got mu={mu}, e={e}")
    return W, float(vc[0]), float(vc[1]), float(mu), float(e)


def _check_no_painleve(W: np.ndarray, mu: float) -> None:
    """Raise ValueError unless b_sigma = W_nn - sigma mu W_tn > 0 for both sigma."""
    if mu * abs(W[0, 1]) >= W[1, 1]:
        raise ValueError(
            f"mu = {mu:.4g} >= W_nn/|W_tn| = {W[1, 1] / abs(W[0, 1]):.4g}: sliding friction "
            "would drive the contact into the ground (b_sigma <= 0, Painleve-type "
            "non-uniqueness); the rigid impact laws are not defined here")


def _slopes(W: np.ndarray, mu: float, sigma: float) -> tuple[float, float]:
    """(a_sigma, b_sigma): dv_t/dP_n and dv_n/dP_n while sliding in direction sigma."""
    return W[0, 1] - sigma * mu * W[0, 0], W[1, 1] - sigma * mu * W[0, 1]


def _zero() -> np.ndarray:
    """The impulse of a contact that does not approach."""
    return np.zeros(2)


# ---------------------------------------------------------------------------
# Anitescu-Potra, Newton and Poisson restitution
# ---------------------------------------------------------------------------

def ap_newton(W, vc_minus, mu: float, e: float) -> np.ndarray:
    """Anitescu-Potra with Newton restitution (paper ref. [1]).

    The LCP 0 <= P_n _|_ v_n+ + e v_n- >= 0 with maximally dissipative Coulomb friction on
    the post-impact velocity, solved in closed form (doc §3.1):
    - stick: P = P^N(e) = -W^-1 (v_t-, (1+e) v_n-) when |P^N_t| <= mu P^N_n;
    - slide: sigma = -sign(P^N_t), P_n = -(1+e) v_n- / b_sigma, P_t = -sigma mu P_n.
    Either way v_n+ = -e v_n-.
    """
    W, vt, vn, mu, e = _inputs(W, vc_minus, mu, e)
    if vn >= 0:
        return _zero()
    _check_no_painleve(W, mu)
    PN = sticking_impulse(W, (vt, vn), e)
    if abs(PN[0]) <= mu * PN[1]:
        return PN
    # Along the line v_n+ = -e v_n-, v_t+ grows with P_t and vanishes at P^N_t, so the
    # sliding solution lies on the cone edge on the other side of P^N_t.
    sigma = -math.copysign(1.0, PN[0])
    _, b = _slopes(W, mu, sigma)
    Pn = -(1.0 + e) * vn / b
    return np.array([-sigma * mu * Pn, Pn])


def ap_poisson(W, vc_minus, mu: float, e: float) -> np.ndarray:
    """Anitescu-Potra with Poisson restitution (paper ref. [1]; doc §3.2).

    Compression impulse P^c = ap_newton(e = 0); restitution adds e P^c_n normally and no
    tangential impulse: P = (P^c_t, (1+e) P^c_n). A second LCP is never needed for one
    contact, since v_n+ = e W_nn P^c_n >= 0.
    """
    W, vt, vn, mu, e = _inputs(W, vc_minus, mu, e)
    if vn >= 0:
        return _zero()
    Pc = ap_newton(W, (vt, vn), mu, 0.0)
    return np.array([Pc[0], (1.0 + e) * Pc[1]])


# ---------------------------------------------------------------------------
# Drumwright-Shell
# ---------------------------------------------------------------------------

def _energy_change(W: np.ndarray, vc: np.ndarray, P: np.ndarray) -> float:
    """Kinetic energy change P^T v_c- + 1/2 P^T W P in J."""
    return float(P @ vc + 0.5 * P @ W @ P)


def drumwright_shell_compression(W, vc_minus, mu: float) -> np.ndarray:
    """Drumwright-Shell compression impulse: maximum dissipation in the cone (doc §3.3).

    P^c = argmin P^T v_c- + 1/2 P^T W P  s.t.  v_n+ >= 0, |P_t| <= mu P_n.
    The unconstrained minimiser P_0 = -W^-1 v_c- lies on v_n+ = 0; if it is in the cone it
    is the answer. Otherwise the optimum is on a cone edge P = P_n (-sigma mu, 1), where the
    energy is P_n (v_n - sigma mu v_t) + 1/2 w_sigma P_n^2 with
    w_sigma = W_nn - 2 sigma mu W_tn + mu^2 W_tt, and v_n+ >= 0 reads P_n >= -v_n/b_sigma:
    P_n = max((sigma mu v_t - v_n)/w_sigma, -v_n/b_sigma); keep the edge of lower energy.
    """
    W, vt, vn, mu, _ = _inputs(W, vc_minus, mu, 0.0)
    if vn >= 0:
        return _zero()
    _check_no_painleve(W, mu)
    vc = np.array([vt, vn])
    P0 = -np.linalg.solve(W, vc)
    if abs(P0[0]) <= mu * P0[1]:
        return P0
    best, best_energy = None, math.inf
    for sigma in (1.0, -1.0):
        _, b = _slopes(W, mu, sigma)
        w = W[1, 1] - 2.0 * sigma * mu * W[0, 1] + mu * mu * W[0, 0]
        Pn = max((sigma * mu * vt - vn) / w, -vn / b)
        P = np.array([-sigma * mu * Pn, Pn])
        energy = _energy_change(W, vc, P)
        if energy < best_energy:
            best, best_energy = P, energy
    return best


def drumwright_shell(W, vc_minus, mu: float, e: float) -> np.ndarray:
    """Drumwright-Shell (paper ref. [4]): P = (P^c_t, (1+e) P^c_n), P^c maximally dissipative.

    Unlike AP Poisson, P^c_n is not complementary to v_n+: the compression impulse may
    push past v_n+ = 0 when that dissipates more energy through friction.
    """
    W, vt, vn, mu, e = _inputs(W, vc_minus, mu, e)
    Pc = drumwright_shell_compression(W, (vt, vn), mu)
    return np.array([Pc[0], (1.0 + e) * Pc[1]])


# ---------------------------------------------------------------------------
# Routh's impulse path, shared by Wang-Mason and Mirtich
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class RouthPath:
    """The impulse path of Routh's method with the normal impulse P_n as the clock.

    Slides in direction s (P_t = -s mu P_n, slopes a_s, b_s) until P_n = P_d (inf if
    sliding never stops), then either sticks (v_t = 0, dv_n/dP_n = b_0) when mu >= |mu_s|,
    or reverses (P_t slope +s mu, dv_n/dP_n = b_{-s}). Doc §3.4.
    """

    W: np.ndarray
    vt: float
    vn: float
    mu: float
    s: float
    P_d: float
    b1: float       # dv_n/dP_n before P_d
    b2: float       # dv_n/dP_n after P_d
    sticks: bool    # after P_d: stick (True) or reverse (False)

    @classmethod
    def build(cls, W: np.ndarray, vt: float, vn: float, mu: float) -> "RouthPath":
        mu_s = -W[0, 1] / W[0, 0]
        sticks = mu >= abs(mu_s)
        if vt != 0.0:
            s = math.copysign(1.0, vt)
            a_s, _ = _slopes(W, mu, s)
            P_d = -vt / a_s if s * a_s < 0 else math.inf
        else:
            # Starting at rest tangentially: stick at once, or slide in the direction the
            # normal impulse drags the contact, sign(W_tn) (a "reversal" at P_d = 0).
            s = -math.copysign(1.0, W[0, 1]) if W[0, 1] != 0 else 1.0
            P_d = 0.0
        b1 = _slopes(W, mu, s)[1]
        b2 = np.linalg.det(W) / W[0, 0] if sticks else _slopes(W, mu, -s)[1]
        return cls(W, vt, vn, mu, s, P_d, b1, b2, sticks)

    def normal_velocity(self, Pn: float) -> float:
        """v_n after normal impulse Pn along the path (m/s)."""
        if Pn <= self.P_d:
            return self.vn + self.b1 * Pn
        return self.vn + self.b1 * self.P_d + self.b2 * (Pn - self.P_d)

    def tangential_impulse(self, Pn: float) -> float:
        """P_t accumulated when the normal impulse is Pn (N s)."""
        if Pn <= self.P_d:
            return -self.s * self.mu * Pn
        if self.sticks:
            return -(self.vt + self.W[0, 1] * Pn) / self.W[0, 0]   # keeps v_t = 0
        return self.s * self.mu * (Pn - 2.0 * self.P_d)

    def max_compression(self) -> float:
        """P_q: the normal impulse at which v_n reaches 0."""
        u_d = self.vn + self.b1 * self.P_d if math.isfinite(self.P_d) else 0.0
        if u_d >= 0.0:
            return -self.vn / self.b1
        return self.P_d - u_d / self.b2

    def segments(self):
        """[(P_start, P_end, slope)] of v_n(P_n), the last one unbounded."""
        if math.isfinite(self.P_d) and self.P_d > 0:
            return [(0.0, self.P_d, self.b1), (self.P_d, math.inf, self.b2)]
        return [(0.0, math.inf, self.b2 if self.P_d == 0 else self.b1)]

    def normal_work(self, P1: float, P2: float) -> float:
        """Work of the normal impulse int_{P1}^{P2} v_n dP_n in J (v_n piecewise linear)."""
        work = 0.0
        for lo, hi, slope in self.segments():
            a, b = max(lo, P1), min(hi, P2)
            if b > a:
                u_a, u_b = self.normal_velocity(a), self.normal_velocity(b)
                work += 0.5 * (u_a + u_b) * (b - a)
        return work


def _approaching_path(W, vc_minus, mu, e):
    """(RouthPath, e) for an approaching contact, (None, e) for a separating one."""
    W, vt, vn, mu, e = _inputs(W, vc_minus, mu, e)
    if vn >= 0:
        return None, e
    _check_no_painleve(W, mu)
    return RouthPath.build(W, vt, vn, mu), e


def wang_mason(W, vc_minus, mu: float, e: float) -> np.ndarray:
    """Wang-Mason (paper ref. [29]): Routh's path with Poisson's restitution (doc §3.4).

    The impact ends at P_n = (1+e) P_q, P_q the normal impulse at maximum compression;
    P_t is read off the path (slide, stick or reversal).
    """
    path, e = _approaching_path(W, vc_minus, mu, e)
    if path is None:
        return _zero()
    Pn = (1.0 + e) * path.max_compression()
    return np.array([path.tangential_impulse(Pn), Pn])


def mirtich(W, vc_minus, mu: float, e: float) -> np.ndarray:
    """Mirtich (paper refs. [20], [28]): Routh's path with Stronge's energetic end (doc §3.5).

    With W_c = int_0^{P_q} v_n dP_n < 0 the work of compression, the impact ends when the
    restitution work int_{P_q}^{P_f} v_n dP_n reaches -e^2 W_c. On a segment of slope b
    entered at (P_1, u_1 >= 0) with restitution work W_1 so far, the end is
    u_f = sqrt(u_1^2 + 2 b (-e^2 W_c - W_1)), P_f = P_1 + (u_f - u_1)/b.
    """
    path, e = _approaching_path(W, vc_minus, mu, e)
    if path is None:
        return _zero()
    Pq = path.max_compression()
    target = -e * e * path.normal_work(0.0, Pq)
    done = 0.0
    for lo, hi, slope in path.segments():
        if hi <= Pq:
            continue
        P1 = max(lo, Pq)
        u1 = path.normal_velocity(P1)
        seg_work = math.inf if math.isinf(hi) else path.normal_work(P1, hi)
        if done + seg_work >= target:
            uf = math.sqrt(u1 * u1 + 2.0 * slope * (target - done))
            Pf = P1 + (uf - u1) / slope
            return np.array([path.tangential_impulse(Pf), Pf])
        done += seg_work
    raise AssertionError("the last segment is unbounded")  # pragma: no cover


# ---------------------------------------------------------------------------
# Whittaker
# ---------------------------------------------------------------------------

def whittaker(W, vc_minus, mu: float, e: float) -> np.ndarray:
    """Whittaker (paper refs. [30], [12]; doc §3.6).

    P = P^N(e); when |P^N_t| > mu P^N_n the tangential impulse is clamped to the cone,
    P_t = sign(P^N_t) mu P^N_n (opposing the resulting slip), keeping P_n = P^N_n. The
    normal impulse thus depends on e only (the horizontal boundaries of Fig. 4c).
    Precondition: P^N_n(e) >= 0 (it fails only for |v_t-| > (1+e)|v_n-|/|mu_s|).
    """
    W, vt, vn, mu, e = _inputs(W, vc_minus, mu, e)
    if vn >= 0:
        return _zero()
    PN = sticking_impulse(W, (vt, vn), e)
    if PN[1] < 0:
        raise ValueError(
            f"Whittaker: the sticking impulse would pull (P^N_n = {PN[1]:.4g} N s < 0); "
            "the law is undefined for such a fast tangential approach")
    if abs(PN[0]) <= mu * PN[1]:
        return PN
    return np.array([math.copysign(mu * PN[1], PN[0]), PN[1]])


# ---------------------------------------------------------------------------
# Registry
# ---------------------------------------------------------------------------

LAWS: dict[str, Law] = {
    'ap_newton': ap_newton,
    'ap_poisson': ap_poisson,
    'drumwright_shell': drumwright_shell,
    'wang_mason': wang_mason,
    'mirtich': mirtich,
    'whittaker': whittaker,
}

LAW_TITLES: dict[str, str] = {
    'ap_newton': 'Anitescu-Potra (Newton)',
    'ap_poisson': 'Anitescu-Potra (Poisson)',
    'drumwright_shell': 'Drumwright-Shell',
    'wang_mason': 'Wang-Mason',
    'mirtich': 'Mirtich',
    'whittaker': 'Whittaker',
}


def predict(name: str, space: ContactSpace, v_minus, mu: float, e: float) -> np.ndarray:
    """Post-impact body velocity v+ (3,) of law `name` for pre-impact velocity v_minus (3,)."""
    if name not in LAWS:
        raise ValueError(f"unknown law {name!r}; choose one of {sorted(LAWS)}")
    P = LAWS[name](space.W, space.contact_velocity(v_minus), mu, e)
    return space.post_velocity(v_minus, P)

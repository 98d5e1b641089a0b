"""Planar contact space of one point contact with the ground.

Conventions (docs/design/impact-laws.md §1):
- body velocity v = (xdot, ydot, omega) in m/s, m/s, rad/s, omega counter-clockwise;
- ground normal n = +y, tangent t = +x; contact velocity v_c = J v = (v_t, v_n),
  v_n < 0 means approaching;
- contact impulse on the body P = (P_t, P_n) in N s, P_n > 0 pushes the body up;
- r = (r_x, r_y): contact point minus centre of mass, in m (r_y < 0 for a body
  resting on the ground).

The contact-space compliance (Delassus) matrix W = J M^-1 J^T is what Fazeli et al.
(2020) eq. 4 call M_c^-1. Every impact law picks one impulse P, and then
v_c+ = v_c- + W P and v+ = v- + M^-1 J^T P (eq. 2-3).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def contact_jacobian(r_x: float, r_y: float) -> np.ndarray:
    """Jacobian (2, 3) from v = (xdot, ydot, omega) to v_c = (v_t, v_n).

    The contact point velocity is (xdot - omega r_y, ydot + omega r_x), so the
    tangent row is [1, 0, -r_y] and the normal row [0, 1, r_x]. r in m.
    """
    return np.array([[1.0, 0.0, -r_y], [0.0, 1.0, r_x]])


def lowest_point_offset(a: float, b: float, theta: float) -> np.ndarray:
    """Offset (2,) in m from the centre to the lowest point of a rotated ellipse.

    The ellipse has semi-axes a (body x axis) and b (body y axis), rotated by theta
    (rad, counter-clockwise). Its points are c + S^(1/2) u with |u| = 1 and
    S = R diag(a^2, b^2) R^T; the point furthest along a unit direction d is the
    support point S d / sqrt(d^T S d). With d = (0, -1):
        r = -(S_xy, S_yy) / sqrt(S_yy),
        S_xy = (a^2 - b^2) sin(theta) cos(theta),  S_yy = a^2 sin^2(theta) + b^2 cos^2(theta),
    so the centre sits at height sqrt(S_yy) above the ground.
    """
    c, s = np.cos(theta), np.sin(theta)
    s_xy = (a * a - b * b) * s * c
    s_yy = a * a * s * s + b * b * c * c
    root = np.sqrt(s_yy)
    return np.array([-s_xy / root, -root])


@dataclass(frozen=True)
class ContactSpace:
    """A planar rigid body with one point contact on the ground y = 0.

    mass: kg; inertia: kg m^2 about the centre of mass; J: (2, 3) contact Jacobian,
    rows [tangent; normal] (see contact_jacobian).
    """

    mass: float
    inertia: float
    J: np.ndarray

    @classmethod
    def for_ellipse(cls, mass: float, inertia: float, a: float, b: float,
                    theta: float) -> "ContactSpace":
        """Ellipse (semi-axes a, b in m, rotation theta in rad) touching y = 0 at its lowest point."""
        r_x, r_y = lowest_point_offset(a, b, theta)
        return cls(mass, inertia, contact_jacobian(r_x, r_y))

    @property
    def M(self) -> np.ndarray:
        """Generalized mass matrix (3, 3) = diag(m, m, I)."""
        return np.diag([self.mass, self.mass, self.inertia])

    @property
    def M_inv(self) -> np.ndarray:
        """Inverse mass matrix (3, 3)."""
        return np.diag([1.0 / self.mass, 1.0 / self.mass, 1.0 / self.inertia])

    @property
    def W(self) -> np.ndarray:
        """Contact-space compliance (2, 2) = J M^-1 J^T in 1/kg (eq. 4, M_c^-1)."""
        return self.J @ self.M_inv @ self.J.T

    def contact_velocity(self, v: np.ndarray) -> np.ndarray:
        """Contact velocity (2,) = J v = (v_t, v_n) in m/s."""
        return self.J @ np.asarray(v, dtype=float)

    def post_velocity(self, v_minus: np.ndarray, P: np.ndarray) -> np.ndarray:
        """Body velocity (3,) after the impulse P (2,): v+ = v- + M^-1 J^T P (eq. 2)."""
        return np.asarray(v_minus, dtype=float) + self.M_inv @ self.J.T @ np.asarray(P, dtype=float)

    def kinetic_energy(self, v: np.ndarray) -> float:
        """Kinetic energy 1/2 v^T M v in J."""
        v = np.asarray(v, dtype=float)
        return 0.5 * float(v @ self.M @ v)

    def energy_change(self, v_minus: np.ndarray, P: np.ndarray) -> float:
        """Kinetic energy change T+ - T- in J caused by the impulse P.

        Computed from the body velocities; equals P^T v_c- + 1/2 P^T W P.
        """
        return self.kinetic_energy(self.post_velocity(v_minus, P)) - self.kinetic_energy(v_minus)

    def stick_ratio(self) -> float:
        """mu_s = -W_tn / W_tt: the friction ratio |P_t|/P_n needed to keep sliding stopped.

        Once v_t = 0 during an impact, sticking persists iff mu >= |mu_s|.
        """
        W = self.W
        return -W[0, 1] / W[0, 0]

    def sticking_impulse(self, vc_minus: np.ndarray, e: float) -> np.ndarray:
        """P^N(e) (2,) = -W^-1 (v_t-, (1+e) v_n-): v_t+ = 0 and v_n+ = -e v_n-."""
        return sticking_impulse(self.W, vc_minus, e)

    def line_of_max_compression(self, vc_minus: np.ndarray) -> tuple[float, float, float]:
        """(a, b, c) of the line a P_t + b P_n = c on which v_n+ = 0."""
        W = self.W
        return float(W[1, 0]), float(W[1, 1]), float(-vc_minus[1])

    def line_of_sticking(self, vc_minus: np.ndarray) -> tuple[float, float, float]:
        """(a, b, c) of the line a P_t + b P_n = c on which v_t+ = 0."""
        W = self.W
        return float(W[0, 0]), float(W[0, 1]), float(-vc_minus[0])

    def ellipse_centre(self, vc_minus: np.ndarray) -> np.ndarray:
        """P_0 = -W^-1 v_c- (2,): the impulse that removes all contact velocity."""
        return -np.linalg.solve(self.W, np.asarray(vc_minus, dtype=float))

    def ellipse_points(self, vc_minus: np.ndarray, alpha: float, n: int = 200) -> np.ndarray:
        """(n, 2) impulses on the Energy Ellipse of level alpha in [0, 1].

        Corrected eq. 6 (with M_c = W^-1): (P - P_0)^T W (P - P_0) = alpha v_c-^T W^-1 v_c-.
        On it T+ - T- = (alpha - 1)/2 v_c-^T W^-1 v_c-, so alpha = 1 conserves energy and
        alpha = 0 is the single point P_0. With W = L L^T: P = P_0 + rho L^-T u(phi).
        """
        vc = np.asarray(vc_minus, dtype=float)
        W = self.W
        rho = np.sqrt(alpha * vc @ np.linalg.solve(W, vc))
        phi = np.linspace(0.0, 2.0 * np.pi, n, endpoint=False)
        u = np.stack([np.cos(phi), np.sin(phi)])
        L = np.linalg.cholesky(W)
        offsets = rho * np.linalg.solve(L.T, u)
        return (self.ellipse_centre(vc)[:, None] + offsets).T

    def is_admissible(self, vc_minus: np.ndarray, P: np.ndarray, tol: float = 1e-12) -> bool:
        """True iff P is in the admissible set: no energy gained, v_n+ >= 0, P_n >= 0.

        tol is relative: to the pre-impact contact energy 1/2 v_c-^T W^-1 v_c-, to |v_c-|
        and to |P_0| respectively.
        """
        vc = np.asarray(vc_minus, dtype=float)
        P = np.asarray(P, dtype=float)
        W = self.W
        energy_scale = 0.5 * vc @ np.linalg.solve(W, vc)
        gain = P @ vc + 0.5 * P @ W @ P
        vn_plus = vc[1] + W[1] @ P
        speed = np.linalg.norm(vc)
        impulse = np.linalg.norm(self.ellipse_centre(vc))
        return bool(gain <= tol * energy_scale and vn_plus >= -tol * speed
                    and P[1] >= -tol * impulse)


def sticking_impulse(W: np.ndarray, vc_minus: np.ndarray, e: float) -> np.ndarray:
    """P^N(e) (2,) = -W^-1 (v_t-, (1+e) v_n-) in N s for compliance W (2, 2)."""
    vc = np.asarray(vc_minus, dtype=float)
    return -np.linalg.solve(np.asarray(W, dtype=float), np.array([vc[0], (1.0 + e) * vc[1]]))

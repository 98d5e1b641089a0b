"""One planar impact event: the record every module of the impact lab shares.

A drop is what a rigid impact law maps and what the identification fits: the body's mass
and inertia, the contact Jacobian at the instant of impact, and the velocities just before
and just after. Conventions (docs/design/impact-identification.md §1): v = (xdot, ydot,
omega) in m/s, m/s, rad/s with omega counter-clockwise; the ground normal is +y and the
tangent +x; J's rows are [tangent; normal], so v_c = J v = (v_t, v_n) and v_n < 0 approaches.

The metric that compares velocities (paper Fig. 8) scales omega by the radius of gyration
k_g = sqrt(I/m) so that all three components are speeds of comparable size:
||v||_K = ||K^1/2 v||, K = diag(1, 1, k_g^2).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .contact_space import ContactSpace


@dataclass
class Drop:
    """A planar impact: pre- and post-impact velocities of one rigid body on flat ground.

    mass     [kg]
    inertia  [kg m^2] about the centre of mass
    J        (2, 3) contact Jacobian, rows [tangent; normal] in (xdot, ydot, omega)
    v_i      (3,) pre-impact velocity (xdot [m/s], ydot [m/s], omega [rad/s])
    v_f      (3,) post-impact velocity, same units
    q_i      (3,) pose at impact (x [m], y [m], theta [rad]) when known, else None
    truth    known parameters of a synthetic drop (e.g. {'law': .., 'mu': .., 'e': ..})
    """

    mass: float
    inertia: float
    J: np.ndarray
    v_i: np.ndarray
    v_f: np.ndarray
    q_i: np.ndarray | None = None
    truth: dict | None = None

    def __post_init__(self):
        # Normalise to float arrays once, so every consumer can rely on shapes and dtype.
        self.mass = float(self.mass)
        self.inertia = float(self.inertia)
        self.J = _as_array(self.J, (2, 3), "J")
        self.v_i = _as_array(self.v_i, (3,), "v_i")
        self.v_f = _as_array(self.v_f, (3,), "v_f")
        if self.q_i is not None:
            self.q_i = _as_array(self.q_i, (3,), "q_i")
        if not (self.mass > 0.0 and self.inertia > 0.0):
            raise ValueError(f"Drop: mass and inertia must be positive, got "
                             f"{self.mass}, {self.inertia}")

    def space(self) -> ContactSpace:
        """The contact space (M, W = J M^-1 J^T) of this drop."""
        return ContactSpace(self.mass, self.inertia, self.J)

    @property
    def gyration_radius(self) -> float:
        """k_g = sqrt(I/m) [m]."""
        return float(np.sqrt(self.inertia / self.mass))

    @property
    def metric(self) -> np.ndarray:
        """(3,) diagonal of K^1/2 = (1, 1, k_g): ||K^1/2 v|| is in m/s (paper Fig. 8)."""
        return np.array([1.0, 1.0, self.gyration_radius])

    @property
    def dv(self) -> np.ndarray:
        """(3,) velocity change v_f - v_i."""
        return self.v_f - self.v_i


def _as_array(x, shape: tuple, name: str) -> np.ndarray:
    a = np.array(x, dtype=float)
    if a.shape != shape:
        raise ValueError(f"Drop: {name} must have shape {shape}, got {a.shape}")
    return a

"""Tests of impact.contact_space against kinematics and mechanics derived independently.

Body data: the ellipse of the MIT planar impact data set used by Fazeli et al. (2020):
m = 36.4 g, semi-axes 35 mm x 25 mm, I = m (a^2 + b^2) / 5.
"""

import numpy as np
import pytest

from impact.contact_space import ContactSpace, contact_jacobian, lowest_point_offset

MASS, A_AXIS, B_AXIS = 0.0364, 0.035, 0.025
INERTIA = MASS * (A_AXIS**2 + B_AXIS**2) / 5


def _rotation(theta):
    c, s = np.cos(theta), np.sin(theta)
    return np.array([[c, -s], [s, c]])


def _random_state(rng):
    """A random ellipse orientation and pre-impact velocity in the data-set ranges."""
    theta = rng.uniform(-np.pi, np.pi)
    v = np.array([rng.uniform(0.14, 1.13), rng.uniform(-2.87, -2.21), rng.uniform(-14, 25)])
    return ContactSpace.for_ellipse(MASS, INERTIA, A_AXIS, B_AXIS, theta), theta, v


def test_jacobian_is_the_derivative_of_the_material_contact_point():
    """J (and so W) equals the finite-difference derivative of the body point's position."""
    rng = np.random.default_rng(10)
    for _ in range(20):
        space, theta, _ = _random_state(rng)
        r_world = lowest_point_offset(A_AXIS, B_AXIS, theta)
        r_body = _rotation(-theta) @ r_world          # the material point carried by the body

        def point(q):
            return q[:2] + _rotation(q[2]) @ r_body

        q0, h = np.array([0.1, 0.2, theta]), 1e-6
        J_fd = np.column_stack([(point(q0 + h * d) - point(q0 - h * d)) / (2 * h) for d in np.eye(3)])
        # Rows (tangent = +x, normal = +y) are the x and y components.
        np.testing.assert_allclose(space.J, J_fd, atol=1e-9)
        W_fd = J_fd @ np.diag([1 / MASS, 1 / MASS, 1 / INERTIA]) @ J_fd.T
        np.testing.assert_allclose(space.W, W_fd, rtol=1e-7)


def test_post_velocity_conserves_angular_momentum_about_the_contact_point():
    """Any impulse applied at C leaves the angular momentum about C unchanged, and the
    linear momentum changes by exactly the impulse."""
    rng = np.random.default_rng(11)
    for _ in range(20):
        space, theta, v = _random_state(rng)
        r = lowest_point_offset(A_AXIS, B_AXIS, theta)
        P = rng.normal(size=2) * 0.05
        v_plus = space.post_velocity(v, P)

        def h_about_contact(u):
            # L_C = I omega + m (c - p_C) x v_com, with c - p_C = -r.
            return INERTIA * u[2] + MASS * (-r[0] * u[1] + r[1] * u[0])

        assert h_about_contact(v_plus) == pytest.approx(h_about_contact(v), abs=1e-15)
        np.testing.assert_allclose(MASS * (v_plus[:2] - v[:2]), P, atol=1e-15)


def test_contact_velocity_and_energy_change_agree_with_contact_space_formulas():
    rng = np.random.default_rng(12)
    space, _, v = _random_state(rng)
    P = np.array([0.01, 0.08])
    vc = space.contact_velocity(v)
    W = space.W
    np.testing.assert_allclose(space.contact_velocity(space.post_velocity(v, P)), vc + W @ P)
    assert space.energy_change(v, P) == pytest.approx(P @ vc + 0.5 * P @ W @ P, rel=1e-12)


def test_sticking_impulse_and_stick_ratio_mean_what_they_say():
    rng = np.random.default_rng(13)
    space, _, v = _random_state(rng)
    vc = space.contact_velocity(v)
    for e in (0.0, 0.4, 1.0):
        vc_plus = vc + space.W @ space.sticking_impulse(vc, e)
        np.testing.assert_allclose(vc_plus, [0.0, -e * vc[1]], atol=1e-12)
    # Pushing with P_t / P_n = mu_s leaves the slip unchanged: the friction a stick needs.
    assert space.W[0] @ np.array([space.stick_ratio(), 1.0]) == pytest.approx(0.0, abs=1e-12)


def test_ellipse_centre_is_where_the_two_lines_meet_and_stops_the_contact():
    rng = np.random.default_rng(14)
    for _ in range(10):
        space, _, v = _random_state(rng)
        vc = space.contact_velocity(v)
        lines = np.array([space.line_of_max_compression(vc), space.line_of_sticking(vc)])
        crossing = np.linalg.solve(lines[:, :2], lines[:, 2])
        np.testing.assert_allclose(space.ellipse_centre(vc), crossing, rtol=1e-12)
        np.testing.assert_allclose(space.contact_velocity(space.post_velocity(v, crossing)),
                                   0.0, atol=1e-12)


def test_ellipse_points_have_the_energy_of_their_level():
    """On the level-alpha ellipse T+ - T- = (alpha - 1) T_c, T_c = 1/2 v_c^T W^-1 v_c (eq. 5)."""
    rng = np.random.default_rng(15)
    for _ in range(5):
        space, _, v = _random_state(rng)
        vc = space.contact_velocity(v)
        T_c = 0.5 * vc @ np.linalg.solve(space.W, vc)
        for alpha in (0.0, 0.3, 1.0):
            pts = space.ellipse_points(vc, alpha, n=64)
            assert pts.shape == (64, 2)
            dT = np.array([space.energy_change(v, P) for P in pts])
            np.testing.assert_allclose(dT, (alpha - 1.0) * T_c, atol=1e-12 * T_c)
            # And eq. 6 with M_c = W^-1: (P - P0)^T W (P - P0) = alpha v_c^T W^-1 v_c.
            d = pts - space.ellipse_centre(vc)
            lhs = np.einsum('ij,jk,ik->i', d, space.W, d)
            np.testing.assert_allclose(lhs, alpha * 2 * T_c, atol=1e-12 * T_c)


def test_admissible_set():
    rng = np.random.default_rng(16)
    space, _, v = _random_state(rng)
    vc = space.contact_velocity(v)
    P0 = space.ellipse_centre(vc)
    assert space.is_admissible(vc, P0)                                    # centre: all stopped
    assert space.is_admissible(vc, P0 + np.array([0.0, 0.2 * P0[1]]))     # pushes off, dissipates
    assert not space.is_admissible(vc, np.zeros(2))                       # still penetrating
    far = space.ellipse_points(vc, 1.0, n=8) + 0.01 * (space.ellipse_points(vc, 1.0, n=8) - P0)
    assert not any(space.is_admissible(vc, P) for P in far)               # energy gained
    below = P0 - np.array([0.0, 0.1 * P0[1]])                             # v_n+ < 0
    assert not space.is_admissible(vc, below)


@pytest.mark.parametrize("theta", [0.0, 0.3, 1.2, np.pi / 2, 2.5, -0.7, -2.9])
def test_for_ellipse_contact_is_the_lowest_boundary_point(theta):
    phi = np.linspace(0, 2 * np.pi, 400001)
    boundary = _rotation(theta) @ np.stack([A_AXIS * np.cos(phi), B_AXIS * np.sin(phi)])
    lowest = boundary[:, np.argmin(boundary[1])]
    r = lowest_point_offset(A_AXIS, B_AXIS, theta)
    assert r[1] == pytest.approx(boundary[1].min(), abs=1e-12)
    np.testing.assert_allclose(r, lowest, atol=2e-6)     # sampling step a * 1.6e-5 rad
    # The point is on the ellipse and its outward normal points straight down.
    body = _rotation(-theta) @ r
    assert (body[0] / A_AXIS) ** 2 + (body[1] / B_AXIS) ** 2 == pytest.approx(1.0, abs=1e-12)
    normal = _rotation(theta) @ np.array([body[0] / A_AXIS**2, body[1] / B_AXIS**2])
    assert normal[0] == pytest.approx(0.0, abs=1e-9 * np.linalg.norm(normal))
    assert normal[1] < 0
    space = ContactSpace.for_ellipse(MASS, INERTIA, A_AXIS, B_AXIS, theta)
    np.testing.assert_allclose(space.J, contact_jacobian(*r))


def test_data_set_geometry_satisfies_the_painleve_precondition():
    """mu < W_nn/|W_tn| for every orientation and mu <= 0.4 (the identification range);
    |mu_s| stays below 0.24."""
    thetas = np.linspace(-np.pi, np.pi, 721)
    spaces = [ContactSpace.for_ellipse(MASS, INERTIA, A_AXIS, B_AXIS, t) for t in thetas]
    limit = min(s.W[1, 1] / max(abs(s.W[0, 1]), 1e-300) for s in spaces)
    assert limit > 0.4
    assert max(abs(s.stick_ratio()) for s in spaces) < 0.24

"""Tests of impact/data.py: the MIT layout with its convention check, the CSV layout.
All files are synthetic, written by the tests (the MIT data set is never needed)."""
import numpy as np
import pytest
import scipy.io

from impact import data
from impact.contact_space import ContactSpace
from impact.drop import Drop

SIGMA_V = np.array([0.003, 0.003, 0.1])  # m/s, m/s, rad/s: motion-capture-like noise


def _drops(n=40, seed=0, sigma_v=SIGMA_V):
    return data.synthetic_ellipse_drops(n, "ap_newton", 0.3, 0.55, np.random.default_rng(seed),
                                        sigma_v=sigma_v)


def _assert_same(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.J, w.J, atol=1e-14)
        np.testing.assert_allclose(g.v_i, w.v_i, atol=1e-14)
        np.testing.assert_allclose(g.v_f, w.v_f, atol=1e-14)
        np.testing.assert_allclose(g.q_i[2], w.q_i[2], atol=1e-14)
        assert g.mass == w.mass and g.inertia == pytest.approx(w.inertia, rel=1e-14)


def test_ellipse_jacobian_agrees_with_the_contact_space():
    for theta in np.linspace(-3, 3, 13):
        cs = ContactSpace.for_ellipse(1.0, 1.0, data.MIT_A, data.MIT_B, theta)
        np.testing.assert_allclose(data.ellipse_jacobian(data.MIT_A, data.MIT_B, theta), cs.J)
    # Lowest point at theta = 0 is straight below the centre, b below it.
    np.testing.assert_allclose(data.ellipse_jacobian(0.035, 0.025, 0.0),
                               [[1, 0, 0.025], [0, 1, 0]], atol=1e-15)
    assert data.ellipse_gyration_radius() == pytest.approx(0.019235, abs=1e-6)


def test_mit_round_trip_in_csim_convention(tmp_path):
    drops = _drops()
    data.write_mit(tmp_path, drops)
    got, report = data.read_mit(tmp_path)
    _assert_same(got, drops)
    assert report.chosen == data.CONVENTIONS[0] and not report.ambiguous
    assert report.explained[report.chosen.name] == 1.0
    assert report.stored_rows == "normal row matches; tangent row matches"
    assert "p_true_data.mat" in report.companions
    assert str(tmp_path / data.MIT_FILE) in report.summary()


@pytest.mark.parametrize("conv", data.CONVENTIONS[1:], ids=lambda c: c.name)
def test_mit_reader_detects_flipped_angle_conventions(tmp_path, conv):
    drops = _drops(seed=1)
    data.write_mit(tmp_path, drops, theta_sign=conv.theta_sign, omega_sign=conv.omega_sign)
    got, report = data.read_mit(tmp_path)
    assert report.chosen == conv and not report.ambiguous
    _assert_same(got, drops)  # converted back to csim's convention
    # Every other candidate leaves more of the velocity change unexplained than the
    # reader accepts. (The least distinct is the one flipping both theta and omega: it
    # differs only through the tangential impulse, 2 r_y P_t / I in omega.)
    for other in data.CONVENTIONS:
        if other != conv:
            assert report.median_misfit[other.name] > 2 * report.rtol


def test_mit_reader_reports_a_flipped_stored_tangent_row(tmp_path):
    drops = _drops(seed=2)
    data.write_mit(tmp_path, drops, tangent_sign=-1)
    got, report = data.read_mit(tmp_path)
    # The tangent sign does not change which impulses a point contact can apply (the span
    # of J^T), so the drops are unaffected; only the comparison notices it.
    _assert_same(got, drops)
    assert report.stored_rows == "normal row matches; tangent row has the opposite sign"


def test_mit_reader_refuses_garbage_velocities(tmp_path):
    rng = np.random.default_rng(3)
    drops = _drops(seed=3)
    garbage = [Drop(d.mass, d.inertia, d.J, d.v_i, rng.normal(0, [1.0, 1.0, 30.0]), d.q_i)
               for d in drops]
    data.write_mit(tmp_path, garbage)
    with pytest.raises(ValueError, match=str(tmp_path / "data_ellipse.mat")) as err:
        data.read_mit(tmp_path)
    assert "no angle convention explains" in str(err.value)


def test_mit_reader_names_the_file_on_layout_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="data_ellipse.mat"):
        data.read_mit(tmp_path)
    path = tmp_path / "data_ellipse.mat"
    scipy.io.savemat(path, {"data": {"states_i": np.zeros((3, 5)), "states_f": np.zeros((3, 5))}})
    with pytest.raises(ValueError, match=rf"{path}: data.states_i must be N x 6"):
        data.read_mit(tmp_path)
    scipy.io.savemat(path, {"other": np.zeros(3)})
    with pytest.raises(ValueError, match=rf"{path}: no struct 'data'"):
        data.read_mit(tmp_path)
    path.write_text("not a mat file")
    with pytest.raises(ValueError, match=rf"{path}: not a readable MAT file"):
        data.read_mit(tmp_path)


def test_csv_round_trip(tmp_path):
    drops = _drops(n=5, seed=4)
    path = tmp_path / "drops.csv"
    data.write_csv(path, drops)
    got = data.read_csv(path)
    _assert_same(got, drops)
    assert got[0].truth == {"law": "ap_newton", "mu": 0.3, "e": 0.55}


def test_csv_with_contact_offset_and_comments(tmp_path):
    path = tmp_path / "offset.csv"
    path.write_text("# two drops\n"
                    "mass,inertia,r_x,r_y,vx_i,vy_i,w_i,vx_f,vy_f,w_f\n"
                    "\n"
                    "0.1,2e-5,0.01,-0.02,0.5,-2,3,0.4,1,2\n")
    (d,) = data.read_csv(path)
    np.testing.assert_allclose(d.J, [[1, 0, 0.02], [0, 1, 0.01]])
    assert d.q_i is None and d.truth is None


@pytest.mark.parametrize("text, where", [
    ("mass,inertia,r_x,r_y,vx_i,vy_i,w_i,vx_f,vy_f,w_f\n0.1,2e-5,0.01,oops,0.5,-2,3,0.4,1,2\n",
     r":2:4: r_y: not a number: 'oops'"),
    ("mass,inertia,r_x,r_y,vx_i,vy_i,w_i,vx_f,vy_f,w_f\n-0.1,2e-5,0.01,-0.02,0.5,-2,3,0.4,1,2\n",
     r":2:1: mass: must be positive"),
    ("mass,inertia,r_x,vx_i,vy_i,w_i,vx_f,vy_f,w_f\n", r":1:1: missing column\(s\) r_y"),
    ("mass,inertia,r_x,r_y,vx_i,vy_i,w_i,vx_f,vy_f,w_f,spin\n", r":1:11: spin: unknown column"),
    ("# nothing\n", r":1:1: no header row"),
])
def test_csv_errors_name_file_line_and_column(tmp_path, text, where):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(ValueError, match=str(path) + where):
        data.read_csv(path)

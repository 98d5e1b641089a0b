"""The contact problems csim_export_problems writes (bench/problem_export.h) as the conic
program of SAP eq. 19, solved by CVXOPT's interior-point solver `coneqp` (Debian's
python3-cvxopt) with a KKT solver that keeps the problem's sparsity. The study that compares
SAP with it is tools/conic_solver_study.py; docs/design/conic_comparison.md derives the
program and says why it is SAP's problem.

The program (SAP eq. 19) over x = (v, sigma), v the participating velocities and sigma
three values per contact in its frame (t1, t2, n):
    minimize    1/2 (v - v*)' A (v - v*) + 1/2 sigma' R sigma
    subject to  g = J v + v_b - v_hat + R sigma  in F*  (per contact: mu |g_t| <= g_n)
in CVXOPT's form  min 1/2 x'Px + q'x  s.t.  G x + s = h,  s in K:  P = diag(A, R),
q = (-A v*, 0), s_k = S_k g_k = (g_n, mu g_t1, mu g_t2) in the second-order cone Q^3
(G_k = -S_k [J_k  R_k], h_k = S_k (v_b - v_hat)_k); a contact with mu = 0 is the linear
cone g_n >= 0. The multiplier z_k of the cone is S_k^{-T} gamma_k: at the optimum
A (v - v*) = J' gamma (the balance) and sigma = gamma.

CVXOPT's built-in KKT solvers are dense for second-order cones (order n + 3m), so by
default solve_cvxopt passes coneqp a KKT solver that keeps the problem's sparsity: each
contact's 3 x 3 block of the scaled system is eliminated in closed form and the remaining
matrix A + J' X J (the pattern of SAP's Newton matrix) is factorized by CHOLMOD
(cvxopt.cholmod), its symbolic analysis once per problem. kkt="dense" uses CVXOPT's own
('chol'), which the study runs on the small configurations only.

Timings as the study's want one thread for CVXOPT's BLAS and CHOLMOD, as SAP runs on one:
OPENBLAS_NUM_THREADS=1 before numpy loads (conic_solver_study.py sets it).
"""
import time

import h5py
import numpy as np

J0 = np.diag([1.0, -1.0, -1.0])  # the second-order cone's J (CVXOPT's scaling W = b (2vv' - J))


# ---------------------------------------------------------------------------------------
# Reading the exported problems (bench/problem_export.h)

def read_problems(path, limit=None):
    """The problems of a csim_export_problems file, as dicts of numpy arrays, in step
    order; at most `limit` of them, evenly spread over the file when it holds more."""
    with h5py.File(path, "r") as f:
        names = sorted(f["problems"])
        if limit is not None and len(names) > limit:
            names = [names[i] for i in np.linspace(0, len(names) - 1, limit).round().astype(int)]
        out = []
        for name in names:
            g = f["problems"][name]
            p = {k: g[k][()] for k in g}
            p.update({k: (v.decode() if isinstance(v, bytes) else v) for k, v in g.attrs.items()})
            p["relative_tolerance"] = float(f.attrs["relative_tolerance"])
            out.append(p)
        return out


class Problem:
    """One exported problem reduced to the participating cliques (those some contact
    touches, as SAP's), with dense per-contact Jacobian rows over the reduced velocities
    kept sparse: J is (3m x n) as index arrays."""

    def __init__(self, p):
        self.raw = p
        sizes = p["clique_size"].astype(int)
        offsets = np.concatenate([[0], np.cumsum(sizes)])
        cliques = p["clique"].astype(int).reshape(-1, 2)
        self.m = len(cliques)
        used = sorted(set(cliques[cliques >= 0].tolist()))
        start = {}
        n = 0
        for c in used:
            start[c] = n
            n += sizes[c]
        self.n = n
        self.velocities = np.concatenate([np.arange(offsets[c], offsets[c + 1]) for c in used])
        # A over the reduced velocities, block by block.
        flat = p["A"]
        A_at = np.concatenate([[0], np.cumsum(sizes ** 2)])
        self.A = np.zeros((n, n))
        self.A_blocks = []
        for c in used:
            block = flat[A_at[c]:A_at[c + 1]].reshape(sizes[c], sizes[c])
            s = slice(start[c], start[c] + sizes[c])
            self.A[s, s] = block
            self.A_blocks.append((start[c], block))
        # J: rows 3k..3k+2, the blocks of contact k in the file's order.
        rows, cols, vals = [], [], []
        at = 0
        jac = p["jacobian"]
        for k in range(self.m):
            for c in cliques[k]:
                if c < 0:
                    continue
                block = jac[at:at + 3 * sizes[c]].reshape(3, sizes[c])
                at += 3 * sizes[c]
                r, s = np.meshgrid(np.arange(3), np.arange(sizes[c]), indexing="ij")
                rows.append(3 * k + r.ravel())
                cols.append(start[c] + s.ravel())
                vals.append(block.ravel())
        self.J_rows = np.concatenate(rows)
        self.J_cols = np.concatenate(cols)
        self.J_vals = np.concatenate(vals)
        self.Jd = np.zeros((3 * self.m, n))  # dense copy for the metrics (small problems)
        np.add.at(self.Jd, (self.J_rows, self.J_cols), self.J_vals)
        self.v_star = p["v_star"][self.velocities]
        self.v_sap = p["v"][self.velocities]
        self.gamma_sap = p["gamma"].reshape(-1, 3)
        self.mu = p["mu"].astype(float)
        self.R = np.stack([p["R_t"], p["R_t"], p["R_n"]], axis=1)          # (m, 3)
        self.v_hat = np.stack([0 * p["v_hat_n"], 0 * p["v_hat_n"], p["v_hat_n"]], axis=1)
        self.bias = p["bias_velocity"].reshape(-1, 3)

    def J(self, v):
        """J v as (m, 3)."""
        return (self.Jd @ v).reshape(-1, 3)

    def JT(self, gamma):
        """J' gamma for gamma (m, 3)."""
        return self.Jd.T @ gamma.ravel()


# ---------------------------------------------------------------------------------------
# The conic program for CVXOPT

class ConicForm:
    """P, q, G, h, dims of SAP eq. 19 for coneqp (module docstring), x = (v, sigma)."""

    def __init__(self, pr):
        from cvxopt import matrix, spmatrix
        self.pr = pr
        n, m = pr.n, pr.m
        self.linear = np.flatnonzero(pr.mu == 0.0)   # contacts with the cone g_n >= 0
        self.conic = np.flatnonzero(pr.mu > 0.0)     # contacts with Q^3
        nl = len(self.linear)
        # S_k (3 x 3) maps g (t1, t2, n) to the cone's s: (g_n, mu g_t1, mu g_t2).
        self.S = np.zeros((m, 3, 3))
        self.S[:, 0, 2] = 1.0
        self.S[:, 1, 0] = pr.mu
        self.S[:, 2, 1] = pr.mu
        # Rows of G: the linear cones' single rows first (CVXOPT's order), then 3 per cone.
        self.row = np.zeros(m, dtype=int)
        self.row[self.linear] = np.arange(nl)
        self.row[self.conic] = nl + 3 * np.arange(len(self.conic))
        self.dims = {"l": nl, "q": [3] * len(self.conic), "s": []}
        cdim = nl + 3 * len(self.conic)
        # P = diag(A, R), q = (-A v*, 0).
        I, Jc, V = [], [], []
        for s0, block in pr.A_blocks:
            r, c = np.meshgrid(np.arange(len(block)), np.arange(len(block)), indexing="ij")
            I.append(s0 + r.ravel()); Jc.append(s0 + c.ravel()); V.append(block.ravel())
        I.append(n + np.arange(3 * m)); Jc.append(n + np.arange(3 * m)); V.append(pr.R.ravel())
        I, Jc, V = map(np.concatenate, (I, Jc, V))
        self.P = spmatrix(V.tolist(), I.tolist(), Jc.tolist(), (n + 3 * m, n + 3 * m))
        self.q = matrix(np.concatenate([-pr.A @ pr.v_star, np.zeros(3 * m)]))
        # G = -S [J R] and h = S (v_b - v_hat), row by row of the cones.
        GI, GJ, GV = [], [], []
        k_of_row = pr.J_rows // 3
        comp = pr.J_rows % 3
        for i in range(3):  # cone row i of contact k takes row (2, 0, 1)[i] of g, times S
            src = (2, 0, 1)[i]
            keep = comp == src
            ks = k_of_row[keep]
            use = (pr.mu[ks] > 0) | (i == 0)
            scale = np.where(i == 0, 1.0, pr.mu[ks])
            GI.append((self.row[ks] + i)[use]); GJ.append(pr.J_cols[keep][use])
            GV.append((-scale * pr.J_vals[keep])[use])
            ks = np.arange(m)
            use = (pr.mu > 0) | (i == 0)
            scale = np.where(i == 0, 1.0, pr.mu)
            GI.append((self.row + i)[use]); GJ.append((n + 3 * ks + src)[use])
            GV.append((-scale * pr.R[:, src])[use])
        GI, GJ, GV = map(np.concatenate, (GI, GJ, GV))
        self.G = spmatrix(GV.tolist(), GI.tolist(), GJ.tolist(), (cdim, n + 3 * m))
        w = np.einsum("kij,kj->ki", self.S, pr.bias - pr.v_hat)  # S (v_b - v_hat)
        h = np.zeros(cdim)
        h[self.row[self.linear]] = w[self.linear, 0]
        for i in range(3):
            h[self.row[self.conic] + i] = w[self.conic, i]
        self.h = matrix(h)

    def point_of(self, v, gamma):
        """x, s, z of the program at SAP's (v, sigma = gamma, z = S^-T gamma)."""
        pr = self.pr
        x = np.concatenate([v, gamma.ravel()])
        s = np.array(self.h).ravel() - np.array(self.G * matrix_(x)).ravel()
        z = np.zeros(len(s))
        z[self.row[self.linear]] = gamma[self.linear, 2]
        zc = np.stack([gamma[:, 2], gamma[:, 0] / np.where(pr.mu > 0, pr.mu, 1),
                       gamma[:, 1] / np.where(pr.mu > 0, pr.mu, 1)], axis=1)
        for i in range(3):
            z[self.row[self.conic] + i] = zc[self.conic, i]
        return x, s, z

    def split(self, x, z):
        """(v, sigma (m, 3), gamma from z (m, 3)) of a solution x, z."""
        pr = self.pr
        x = np.array(x).ravel()
        z = np.array(z).ravel()
        v, sigma = x[:pr.n], x[pr.n:].reshape(-1, 3)
        zc = np.zeros((pr.m, 3))
        zc[self.linear, 0] = z[self.row[self.linear]]
        for i in range(3):
            zc[self.conic, i] = z[self.row[self.conic] + i]
        gamma_z = np.einsum("kji,kj->ki", self.S, zc)  # S' z
        return v, sigma, gamma_z

    def kkt_residuals(self, x, s, z):
        """The program's optimality conditions at (x, s, z): CVXOPT's dual residual
        |Px + q + G'z| / max(1, |q|) and primal one |Gx + s - h| / max(1, |h|); the cones'
        smallest margins (linear rows as they are, u_0 - |u_1:| per cone), s's over the size
        of the terms it is the difference of (|h| + |Gx|: s is small where a contact sticks)
        and z's over |z|; and the gap |s'z| over that size times |z|."""
        X, Z = matrix_(x), matrix_(z)
        q, h = np.array(self.q).ravel(), np.array(self.h).ravel()
        Gx = np.array(self.G * X).ravel()
        dres = np.array(self.P * X + self.q + self.G.T * Z).ravel()
        pres = Gx + np.asarray(s).ravel() - h
        size_s = np.linalg.norm(h) + np.linalg.norm(Gx)
        size_z = np.linalg.norm(z) + 1e-300
        return {"dual": np.linalg.norm(dres) / max(1.0, np.linalg.norm(q)),
                "primal": np.linalg.norm(pres) / max(1.0, np.linalg.norm(h)),
                "s_margin": self.cone_margin(s) / size_s,
                "z_margin": self.cone_margin(z) / size_z,
                "gap": abs(np.dot(s, z)) / (size_s * size_z)}

    def cone_margin(self, u):
        """min over the cones of u_0 - |u_1:| (a linear row: u itself); >= 0 inside K."""
        u = np.asarray(u).ravel()
        nl = self.dims["l"]
        c = u[nl:].reshape(-1, 3)
        return min(np.concatenate([u[:nl], c[:, 0] - np.linalg.norm(c[:, 1:], axis=1)]))


def matrix_(a):
    from cvxopt import matrix
    return matrix(np.ascontiguousarray(np.asarray(a, dtype=float).ravel()))


class SparseKKT:
    """A KKT solver for coneqp (CVXOPT docs, coneqp's kktsolver) that keeps the problem's
    sparsity. coneqp asks, for its scaling W (per cone W_k = beta_k (2 v_k v_k' - J)), for
        P u_x + G' W^-1 w = b_x,   G u_x - W w = b_z.
    Contact k enters through G_k = -S_k [J_k R_k]. Eliminating w and then each contact's
    sigma block (3 x 3) in closed form leaves
        H u_v = b_v - sum_k J_k' X_k a_k,   H = A + sum_k J_k' X_k J_k,
        X_k = (S_k^-1 W_k^2 S_k^-T + R_k)^-1,   a_k = b_sigma,k + S_k^-1 b_z,k,
    then u_sigma,k = R_k^-1 b_sigma,k - X_k c_k and w_k = -W_k S_k^-T X_k c_k with
    c_k = a_k + J_k u_v. X_k is bounded by R_k^-1 however close an iterate is to the cone's
    boundary, and the huge W_k^-2 b_z of the textbook reduction (P + G'W^-2 G) never
    appears: it cancels analytically, which keeps the solve accurate to the end of the
    iteration. X_k is formed from the SVD of R_k^-1/2 S_k^-1 W_k (no W_k^2). H has the
    pattern of SAP's Newton matrix A + J'GJ; CHOLMOD factorizes it, its symbolic analysis
    once per problem (again only if the pattern changes). A contact with mu = 0 (a linear
    cone, W = d) has X = e_n e_n' / (d^2 + R_n). Accumulates its own time in `seconds`."""

    def __init__(self, form):
        from cvxopt import spmatrix
        self.form = form
        pr = form.pr
        self.pr = pr
        m, n = pr.m, pr.n
        self.J = spmatrix(pr.J_vals.tolist(), pr.J_rows.tolist(), pr.J_cols.tolist(), (3 * m, n))
        self.JT = self.J.T
        I, Jc, V = [], [], []
        for s0, block in pr.A_blocks:
            r, c = np.meshgrid(np.arange(len(block)), np.arange(len(block)), indexing="ij")
            I.append(s0 + r.ravel()); Jc.append(s0 + c.ravel()); V.append(block.ravel())
        self.Asp = spmatrix(np.concatenate(V).tolist(), np.concatenate(I).tolist(),
                            np.concatenate(Jc).tolist(), (n, n))
        r, c = np.meshgrid(np.arange(3), np.arange(3), indexing="ij")
        self.XI = (3 * np.arange(m)[:, None] + r.ravel()[None, :]).ravel().tolist()
        self.XJ = (3 * np.arange(m)[:, None] + c.ravel()[None, :]).ravel().tolist()
        con = form.conic
        mu = pr.mu[con]
        S_inv = np.zeros((len(con), 3, 3))  # S^-1 of the conic contacts: s -> g
        S_inv[:, 2, 0] = 1.0
        S_inv[:, 0, 1] = 1.0 / mu
        S_inv[:, 1, 2] = 1.0 / mu
        self.S_inv = S_inv
        self.rows_q = form.row[con][:, None] + np.arange(3)  # G's rows of each cone
        self.rows_l = form.row[form.linear]
        self.symbolic = None
        self.pattern = None
        self.seconds = 0.0          # inside the KKT solver [s]
        self.cholmod_seconds = 0.0  # of which in CHOLMOD's analysis, factorization, solve [s]
        self.factorizations = 0

    def __call__(self, W):
        from cvxopt import cholmod, spmatrix
        start = time.perf_counter()
        pr, form = self.pr, self.form
        m = pr.m
        lin, con = form.linear, form.conic
        beta = np.array([float(b) for b in W["beta"]])
        vv = np.array([list(v) for v in W["v"]]).reshape(-1, 3)
        Wq = beta[:, None, None] * (2 * np.einsum("ki,kj->kij", vv, vv) - J0)
        d = np.array(W["d"]).ravel()
        X = np.zeros((m, 3, 3))
        if len(con):
            r_half = 1.0 / np.sqrt(pr.R[con])                      # R^-1/2 (diagonal)
            C = r_half[:, :, None] * (self.S_inv @ Wq)             # R^-1/2 S^-1 W
            U, sv, _ = np.linalg.svd(C)
            inner = np.einsum("kij,kj,klj->kil", U, 1.0 / (1.0 + sv ** 2), U)
            X[con] = r_half[:, :, None] * inner * r_half[:, None, :]
        if len(lin):
            X[lin, 2, 2] = 1.0 / (d ** 2 + pr.R[lin, 2])
        Xs = spmatrix(X.ravel().tolist(), self.XI, self.XJ, (3 * m, 3 * m))
        H = self.Asp + self.JT * (Xs * self.J)
        pattern = (H.size, tuple(H.CCS[0]), tuple(H.CCS[1]))
        t_chol = time.perf_counter()
        if self.symbolic is None or pattern != self.pattern:
            self.symbolic = cholmod.symbolic(H)
            self.pattern = pattern
        F = self.symbolic
        cholmod.numeric(H, F)
        self.cholmod_seconds += time.perf_counter() - t_chol
        self.factorizations += 1
        self.seconds += time.perf_counter() - start

        def solve(x, y, z):
            t0 = time.perf_counter()
            n = pr.n
            bx = np.array(x).ravel()
            bz = np.array(z).ravel()
            b_sigma = bx[n:].reshape(-1, 3)
            a = b_sigma.copy()                                     # b_sigma + S^-1 b_z
            if len(con):
                a[con] += np.einsum("kij,kj->ki", self.S_inv, bz[self.rows_q])
            if len(lin):
                a[lin, 2] += bz[self.rows_l]
            rhs = bx[:n] - np.array(self.JT * matrix_(np.einsum("kij,kj->ki", X, a))).ravel()
            b = matrix_(rhs)
            t_chol = time.perf_counter()
            cholmod.solve(F, b)
            self.cholmod_seconds += time.perf_counter() - t_chol
            u_v = np.array(b).ravel()
            c = a + np.array(self.J * b).ravel().reshape(-1, 3)
            Xc = np.einsum("kij,kj->ki", X, c)
            u_sigma = b_sigma / pr.R - Xc
            w = np.zeros(len(bz))
            if len(con):
                w[self.rows_q] = -np.einsum("kij,kj->ki", Wq,
                                            np.einsum("kji,kj->ki", self.S_inv, Xc[con]))
            if len(lin):
                w[self.rows_l] = -d * Xc[lin, 2]
            x[:] = matrix_(np.concatenate([u_v, u_sigma.ravel()]))
            z[:] = matrix_(w)
            self.seconds += time.perf_counter() - t0
        return solve


def solve_cvxopt(form, tolerance=1e-6, kkt="sparse", max_iterations=100, repeat=1):
    """coneqp on `form`: feastol = reltol = tolerance (the residuals relative to the data,
    and the relative gap), abstol = 1e-12 J (so the relative gap decides), `repeat` times
    (CVXOPT is deterministic: the same iterates each time) keeping the fastest. Returns a
    dict: status, iterations, seconds (the coneqp call), kkt_seconds and cholmod_seconds
    (inside the sparse KKT solver, in CHOLMOD), v, sigma, gamma_z, gap and the result."""
    best = None
    for _ in range(repeat):
        c = solve_cvxopt_once(form, tolerance, kkt, max_iterations)
        if best is None or c["seconds"] < best["seconds"]:
            best = c
    return best


def solve_cvxopt_once(form, tolerance, kkt, max_iterations):
    from cvxopt import solvers
    options = {"show_progress": False, "feastol": tolerance, "reltol": tolerance,
               "abstol": 1e-12, "maxiters": max_iterations}
    kktsolver = SparseKKT(form) if kkt == "sparse" else None
    start = time.perf_counter()
    try:
        r = solvers.coneqp(form.P, form.q, form.G, form.h, form.dims, kktsolver=kktsolver,
                           options=options)
    except (ArithmeticError, ValueError) as e:
        # CVXOPT gives up with an exception when round-off takes an iterate out of its cone
        # (a tolerance below what its arithmetic reaches): no solution.
        seconds = time.perf_counter() - start
        nan = np.full(form.pr.n, np.nan)
        return {"status": f"error ({e})", "iterations": -1, "seconds": seconds,
                "kkt_seconds": kktsolver.seconds if kktsolver else float("nan"),
                "cholmod_seconds": kktsolver.cholmod_seconds if kktsolver else float("nan"),
                "v": nan, "sigma": np.full((form.pr.m, 3), np.nan),
                "gamma_z": np.full((form.pr.m, 3), np.nan), "gap": np.nan, "result": None}
    seconds = time.perf_counter() - start
    v, sigma, gamma_z = form.split(r["x"], r["z"])
    return {"status": r["status"], "iterations": r["iterations"], "seconds": seconds,
            "kkt_seconds": kktsolver.seconds if kktsolver else float("nan"),
            "cholmod_seconds": kktsolver.cholmod_seconds if kktsolver else float("nan"),
            "v": v, "sigma": sigma, "gamma_z": gamma_z, "gap": float(r["gap"]), "result": r}

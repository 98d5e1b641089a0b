#include "engine/geometry/penetration_depth.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "engine/geometry/gjk_distance.h"
#include "engine/geometry/plane_basis.h"

namespace csim::geometry {
namespace {

using Eigen::Vector3d;

// Enough for smooth pairs whose separation varies little over a wide range of directions
// (near-spheroids overlapping deeply) to close EPA's bracket to the tolerance.
constexpr int kMaxVertices = 1024;
// A closed triangulated surface on V vertices has 2 V - 4 faces; dead faces are compacted.
constexpr int kMaxFaces = 2 * kMaxVertices;

// A point of M = A - B with the support points of A and B it came from.
struct Vertex {
  Vector3d w, a, b;  // w = a - b [m]
};

// A triangle of the polytope, counter-clockwise seen from outside, with its outward unit
// normal, its plane offset d = n . w (the signed distance of its plane from the origin) and
// the faces across its edges (edge e runs from v[e] to v[e + 1]).
// No member initialisers: the polytope's storage is large, and SetFace writes every
// member of a face before it is used.
struct Face {
  std::array<int, 3> v;
  std::array<int, 3> adj;
  Vector3d n;
  double d;
  bool alive;
};

// An edge of the hole left by the faces that see a new point, with the face beyond it.
struct HorizonEdge {
  int from = 0, to = 0, outer = 0, outer_edge = 0;
};

constexpr int kMaxSharpenings = 16;

// Sharpens an overlap's normal and separation: B moved out along the normal n by its
// depth plus a clearance is apart, and GJK gives that pair's distance direction n' and
// separation; the unmoved pair's separation along n' is that minus the push times n . n'.
// A fixed-point step towards the optimum, exact on ridges of sep (a cylinder's side, a
// box's edge) where a search on the sphere stalls, and accepted only when it improves.
// True if it ends at its fixed point (the direction no longer moves).
bool Sharpen(const ContactShape& a, const math::RigidTransform& X_WA, const ContactShape& b,
             const math::RigidTransform& X_WB, double clearance, double tolerance,
             SignedDistanceResult* r) {
  for (int k = 0; k < kMaxSharpenings; ++k) {
    const Eigen::Vector3d n = r->nhat_AB_W;
    const double push = std::max(0.0, -r->phi0) + clearance;
    math::RigidTransform moved = X_WB;
    moved.p += push * n;
    const GjkResult gjk = CalcGjkDistance(a, X_WA, b, moved, 1e-3 * tolerance);
    if (gjk.overlapping || !(gjk.lower > 0.0)) return false;
    const double separation = gjk.lower - push * n.dot(gjk.nhat_AB_W);
    const bool fixed_point = (gjk.nhat_AB_W - n).norm() <= 1e-9;
    if (!(separation > r->phi0)) return fixed_point;
    const double gain = separation - r->phi0;
    r->phi0 = separation;
    r->nhat_AB_W = gjk.nhat_AB_W;
    r->p_WC = 0.5 * (gjk.p_A + gjk.p_B - push * n);
    if (gain <= 1e-3 * tolerance) return fixed_point;
  }
  return false;
}

bool IsStrictlyConvex(const ContactShape& s) {
  return s.type() == ShapeType::kSphere || s.type() == ShapeType::kEllipsoid;
}

// Ascends sep(n) = -h_A(n) - h_B(-n) on the sphere from the result's normal by BFGS in a
// chart of the tangent plane, n(x) = (n0 + U x) / |n0 + U x|, with backtracking line
// search; the gradient of sep is the support difference s_B(-n) - s_A(n). Converges fast
// where both supports are smooth (two ellipsoids, even elongated, whose overlaps EPA's
// storage may not resolve) and stops at a ridge, which Sharpen then handles. Accepted only
// when it improves. True if it ends at a stationary point of sep (a smooth optimum).
bool Ascend(const ContactShape& a, const math::RigidTransform& X_WA, const ContactShape& b,
            const math::RigidTransform& X_WB, SignedDistanceResult* r) {
  const Eigen::Vector3d n0 = r->nhat_AB_W;
  Eigen::Matrix<double, 3, 2> U;
  {
    Eigen::Vector3d u, v;
    CalcPlaneBasis(n0, &u, &v);
    U << u, v;
  }
  // F(x) = sep(n(x)) and its gradient in x.
  auto evaluate = [&](const Eigen::Vector2d& x, Eigen::Vector2d* grad) {
    const Eigen::Vector3d m = n0 + U * x;
    const double length = m.norm();
    const Eigen::Vector3d n = m / length;
    const Eigen::Vector3d g = b.Support(X_WB, -n) - a.Support(X_WA, n);
    const double f = n.dot(g);
    *grad = U.transpose() * ((g - f * n) / length);
    return f;
  };
  Eigen::Vector2d x = Eigen::Vector2d::Zero(), grad;
  double separation = evaluate(x, &grad);
  Eigen::Matrix2d H = Eigen::Matrix2d::Identity() *
      (1.0 / std::max((b.Support(X_WB, -n0) - a.Support(X_WA, n0)).norm(), 1e-300));
  for (int iteration = 0; iteration < 50 && grad.norm() > 0.0; ++iteration) {
    Eigen::Vector2d step = H * grad;  // ascent direction
    if (!(step.dot(grad) > 0.0)) {
      H = Eigen::Matrix2d::Identity() * (step.norm() / grad.norm());
      step = H * grad;
    }
    Eigen::Vector2d grad_next;
    double f_next = separation;
    double t = 1.0;
    bool improved = false;
    for (int k = 0; k < 40 && !improved; ++k, t *= 0.5) {
      f_next = evaluate(x + t * step, &grad_next);
      improved = f_next > separation;
    }
    if (!improved) break;
    const Eigen::Vector2d s_k = (t * 2.0) * step;  // the accepted step (t was halved once more)
    const Eigen::Vector2d y_k = -(grad_next - grad);  // gradient change of -F
    x += s_k;
    separation = f_next;
    grad = grad_next;
    const double sy = s_k.dot(y_k);
    if (sy > 0.0) {  // BFGS update of the inverse Hessian of -F
      const Eigen::Matrix2d V = Eigen::Matrix2d::Identity() - (s_k * y_k.transpose()) / sy;
      H = V * H * V.transpose() + (s_k * s_k.transpose()) / sy;
    }
    if (s_k.norm() < 1e-13) break;
  }
  const Eigen::Vector3d n = (n0 + U * x).normalized();
  const bool stationary =
      grad.norm() <= 1e-9 * (b.Support(X_WB, -n) - a.Support(X_WA, n)).norm();
  if (!(separation > r->phi0)) return stationary;
  r->phi0 = separation;
  r->nhat_AB_W = n;
  // The contact point from a shape whose support point is unique (the witness); between
  // two flat or ruled shapes, the previous point moved midway between the support planes.
  const Eigen::Vector3d s_A = a.Support(X_WA, n), s_B = b.Support(X_WB, -n);
  if (IsStrictlyConvex(a)) {
    r->p_WC = s_A + 0.5 * separation * n;
  } else if (IsStrictlyConvex(b)) {
    r->p_WC = s_B - 0.5 * separation * n;
  } else {
    r->p_WC += (0.5 * (s_A + s_B).dot(n) - r->p_WC.dot(n)) * n;
  }
  return stationary;
}

class ExpandingPolytope {
 public:
  ExpandingPolytope(const ContactShape& a, const math::RigidTransform& X_WA,
                    const ContactShape& b, const math::RigidTransform& X_WB)
      : a_(a), X_WA_(X_WA), b_(b), X_WB_(X_WB) {}

  // A tetrahedron of support points chosen greedily for volume: two of the supports
  // along 26 directions (a cube's face, edge and corner directions, turned off the axes)
  // farthest apart, then the support farthest from their line and then from the plane of
  // the three, each also sought along the normals of that line or plane (M can be thin:
  // two crossed needles give supports that all lie near one plane but along its normal).
  // False if M is flat.
  bool Start(double scale) {
    std::array<Vertex, 32> candidates;
    const Eigen::Matrix3d R =
        Eigen::AngleAxisd(0.3, Vector3d(1, 2, 3).normalized()).toRotationMatrix();
    int count = 0;
    for (int x = -1; x <= 1; ++x) {
      for (int y = -1; y <= 1; ++y) {
        for (int z = -1; z <= 1; ++z) {
          if (x != 0 || y != 0 || z != 0) {
            candidates[count++] = Support(R * Vector3d(x, y, z).normalized());
          }
        }
      }
    }
    auto farthest = [&](auto&& distance) {
      int best = 0;
      for (int i = 1; i < count; ++i) {
        if (distance(candidates[i].w) > distance(candidates[best].w)) best = i;
      }
      return best;
    };
    const Vector3d w0 = candidates[0].w;
    const int i1 = farthest([&](const Vector3d& w) { return (w - w0).norm(); });
    const Vector3d e = candidates[i1].w - w0;
    Vector3d u, v;
    CalcPlaneBasis(e.normalized(), &u, &v);
    for (const Vector3d& d : {u, Vector3d(-u), v, Vector3d(-v)}) candidates[count++] = Support(d);
    const int i2 = farthest([&](const Vector3d& w) { return e.cross(w - w0).norm(); });
    const Vector3d m = e.cross(candidates[i2].w - w0);
    if (!(m.norm() > 0.0)) return false;
    candidates[count++] = Support(m.normalized());
    candidates[count++] = Support(-m.normalized());
    const int i3 = farthest([&](const Vector3d& w) { return std::abs(m.dot(w - w0)); });
    const double volume = m.dot(candidates[i3].w - w0);
    if (!(std::abs(volume) > 1e-12 * scale * scale * scale)) return false;
    num_vertices_ = 0;
    AddVertex(candidates[0]);
    AddVertex(candidates[i1]);
    AddVertex(candidates[volume > 0.0 ? i2 : i3]);  // (0, 1, 2) counter-clockwise seen
    AddVertex(candidates[volume > 0.0 ? i3 : i2]);  // from 3: a positive volume
    // Faces opposite each vertex, counter-clockwise from outside, and their neighbours.
    num_faces_ = 0;
    SetFace(MakeFace(), {0, 2, 1}, {2, 3, 1});
    SetFace(MakeFace(), {0, 1, 3}, {0, 3, 2});
    SetFace(MakeFace(), {0, 3, 2}, {1, 3, 0});
    SetFace(MakeFace(), {1, 2, 3}, {0, 2, 1});
    return true;
  }

  // Grows the polytope until the nearest face is within `tolerance` of M's boundary or the
  // storage runs out, and writes the separation along that face's normal and, in `upper`,
  // minus the face's offset. True if the origin is inside the polytope (the shapes
  // overlap); `upper` is then an upper bound of the signed distance.
  bool Expand(double tolerance, SignedDistanceResult* result, double* upper) {
    while (true) {
      const int f = NearestFace();
      if (f < 0) return false;  // cannot happen on a closed surface
      const Vertex v = Support(faces_[f].n);
      const double h = faces_[f].n.dot(v.w);  // h_M(n_f) >= depth >= d_f
      if (h - faces_[f].d <= tolerance || !AddPoint(v, f)) {
        Report(f, -h, result);
        *upper = -faces_[f].d;
        return faces_[f].d >= 0.0;  // else the origin is outside M: the shapes are apart
      }
    }
  }

 private:
  Vertex Support(const Vector3d& n) const {
    Vertex v;
    v.a = a_.Support(X_WA_, n);
    v.b = b_.Support(X_WB_, -n);
    v.w = v.a - v.b;
    return v;
  }

  int AddVertex(const Vertex& v) {
    vertices_[num_vertices_] = v;
    return num_vertices_++;
  }

  // A free face slot (a removed face's, else a new one); -1 if storage is full.
  int MakeFace() {
    if (num_free_ > 0) return free_[--num_free_];
    return num_faces_ < kMaxFaces ? num_faces_++ : -1;
  }

  void SetFace(int f, const std::array<int, 3>& v, const std::array<int, 3>& adj) {
    Face& face = faces_[f];
    face.v = v;
    face.adj = adj;
    face.alive = true;
    const Vector3d& w0 = vertices_[v[0]].w;
    const Vector3d n = (vertices_[v[1]].w - w0).cross(vertices_[v[2]].w - w0);
    const double norm = n.norm();
    if (norm > 0.0 && std::isfinite(norm)) {
      face.n = n / norm;
      face.d = face.n.dot(w0);
    } else {  // a sliver: never nearest and never seen, so it only borders holes
      face.n = Vector3d::Zero();
      face.d = std::numeric_limits<double>::infinity();
    }
  }

  int NearestFace() const {
    int best = -1;
    for (int f = 0; f < num_faces_; ++f) {
      if (faces_[f].alive && (best < 0 || faces_[f].d < faces_[best].d)) best = f;
    }
    return best;
  }

  bool Sees(const Face& face, const Vector3d& w) const {
    return face.d != std::numeric_limits<double>::infinity() && face.n.dot(w) - face.d > 0.0;
  }

  // Adds support point v, seen from face f: removes the connected set of faces that see it
  // (a flood fill from f) and closes the hole with a fan of faces from its horizon edges to
  // v. False, with the polytope unchanged, if storage is full or if the hole is not a disk
  // bounded by one loop (round-off can make a face that does not see v enclosed by faces
  // that do; fanning such a rim would leave the surface open).
  bool AddPoint(const Vertex& v, int f) {
    if (num_vertices_ == kMaxVertices) return false;
    int num_horizon = 0, num_stack = 0;
    const int free_before = num_free_;
    faces_[f].alive = false;
    stack_[num_stack++] = f;
    while (num_stack > 0) {
      const Face& face = faces_[stack_[--num_stack]];
      free_[num_free_++] = &face - faces_.data();
      for (int e = 0; e < 3; ++e) {
        const int g = face.adj[e];
        if (!faces_[g].alive) continue;  // removed already (or being removed)
        if (Sees(faces_[g], v.w)) {
          faces_[g].alive = false;
          stack_[num_stack++] = g;
        } else {
          const Face& outer = faces_[g];
          int back = 0;
          while (outer.adj[back] != &face - faces_.data()) ++back;
          horizon_[num_horizon++] = {face.v[e], face.v[(e + 1) % 3], g, back};
        }
      }
    }
    if (num_horizon < 3 || num_free_ + (kMaxFaces - num_faces_) < num_horizon ||
        !IsOneLoop(num_horizon)) {
      for (int k = free_before; k < num_free_; ++k) faces_[free_[k]].alive = true;
      num_free_ = free_before;
      return false;
    }
    const int p = AddVertex(v);
    // One new face per horizon edge (from, to, p); its edge (to, p) borders the new face
    // of the horizon edge that starts at `to`.
    for (int e = 0; e < num_horizon; ++e) {
      const int g = MakeFace();
      new_face_of_start_[horizon_[e].from] = g;
      faces_[horizon_[e].outer].adj[horizon_[e].outer_edge] = g;
      stack_[e] = g;  // the new face of horizon edge e
    }
    for (int e = 0; e < num_horizon; ++e) {
      const HorizonEdge& h = horizon_[e];
      const int next = new_face_of_start_[h.to];
      int prev = -1;
      for (int k = 0; k < num_horizon; ++k) {
        if (horizon_[k].to == h.from) prev = stack_[k];
      }
      if (prev < 0) return false;
      SetFace(stack_[e], {h.from, h.to, p}, {h.outer, next, prev});
    }
    return true;
  }

  // Whether the horizon edges form one closed loop: every vertex starts exactly one edge,
  // and following the edges from the first visits them all.
  bool IsOneLoop(int num_horizon) {
    for (int e = 0; e < num_horizon; ++e) new_face_of_start_[horizon_[e].from] = -1;
    for (int e = 0; e < num_horizon; ++e) {
      if (new_face_of_start_[horizon_[e].from] != -1) return false;  // starts two edges
      new_face_of_start_[horizon_[e].from] = e;
    }
    int e = 0;
    for (int steps = 1; steps <= num_horizon; ++steps) {
      const int to = horizon_[e].to;
      bool found = false;
      for (int k = 0; k < num_horizon && !found; ++k) {
        if (horizon_[k].from == to) {
          e = k;
          found = true;
        }
      }
      if (!found) return false;
      if (e == 0) return steps == num_horizon;
    }
    return false;
  }

  // The result from face f: its normal, the given separation, and the witness points at
  // the foot of the origin on the face (barycentric in the face's support pairs).
  void Report(int f, double separation, SignedDistanceResult* result) const {
    const Face& face = faces_[f];
    const Vector3d& w0 = vertices_[face.v[0]].w;
    const Vector3d e1 = vertices_[face.v[1]].w - w0, e2 = vertices_[face.v[2]].w - w0;
    const Vector3d q = face.d * face.n - w0;
    // Solve q = s e1 + t e2 in the least-squares sense (Gram system), then keep the
    // weights in the triangle.
    const double a11 = e1.dot(e1), a12 = e1.dot(e2), a22 = e2.dot(e2);
    const double det = a11 * a22 - a12 * a12;
    double s = 0.0, t = 0.0;
    if (det > 0.0) {
      s = (a22 * e1.dot(q) - a12 * e2.dot(q)) / det;
      t = (a11 * e2.dot(q) - a12 * e1.dot(q)) / det;
    }
    s = std::clamp(s, 0.0, 1.0);
    t = std::clamp(t, 0.0, 1.0 - s);
    const double r = 1.0 - s - t;
    const Vertex& v0 = vertices_[face.v[0]];
    const Vertex& v1 = vertices_[face.v[1]];
    const Vertex& v2 = vertices_[face.v[2]];
    const Vector3d p_A = r * v0.a + s * v1.a + t * v2.a;
    const Vector3d p_B = r * v0.b + s * v1.b + t * v2.b;
    result->phi0 = separation;
    result->nhat_AB_W = face.n;
    result->p_WC = 0.5 * (p_A + p_B);
  }

  const ContactShape& a_;
  const math::RigidTransform& X_WA_;
  const ContactShape& b_;
  const math::RigidTransform& X_WB_;
  std::array<Vertex, kMaxVertices> vertices_;
  int num_vertices_ = 0;
  std::array<Face, kMaxFaces> faces_;
  int num_faces_ = 0;
  std::array<int, kMaxFaces> free_;  // removed faces' slots
  int num_free_ = 0;
  std::array<int, kMaxFaces> stack_;  // flood fill, then the new faces
  std::array<HorizonEdge, kMaxFaces> horizon_;
  std::array<int, kMaxVertices> new_face_of_start_;
};

}  // namespace

bool CalcPenetration(const ContactShape& a, const math::RigidTransform& X_WA,
                     const ContactShape& b, const math::RigidTransform& X_WB, double scale,
                     double tolerance, SignedDistanceResult* result, double* upper) {
  ExpandingPolytope polytope(a, X_WA, b, X_WB);
  if (!polytope.Start(scale)) {
    *upper = 0.0;
    result->phi0 = 0.0;
    result->nhat_AB_W = (X_WB.p - X_WA.p).norm() > 0.0 ? Vector3d((X_WB.p - X_WA.p).normalized())
                                                       : Vector3d::UnitZ();
    result->p_WC = 0.5 * (X_WA.p + X_WB.p);
    return false;
  }
  if (!polytope.Expand(tolerance, result, upper)) return false;
  Ascend(a, X_WA, b, X_WB, result);
  Sharpen(a, X_WA, b, X_WB, 1e-3 * scale, tolerance, result);
  return true;
}

}  // namespace csim::geometry

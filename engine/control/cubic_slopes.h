#pragma once
// The knot slopes of the two cubic interpolants whose slopes are not given by the user:
// the shape-preserving pchip and the C2 spline (docs/design/trajectories-and-signals.md
// §2-§4). With the slopes d_k, each segment is the cubic Hermite polynomial through
// (t_k, q_k, d_k) and (t_{k+1}, q_{k+1}, d_{k+1}), which the trajectory turns into
// polynomial coefficients (trajectory.cc).
//
// Notation: K knots t_0 < ... < t_{K-1}, h_k = t_{k+1} - t_k, secant slopes
// delta_k = (q_{k+1} - q_k) / h_k, k = 0 .. K-2.
//
// These run once, when a trajectory is built; they allocate their results.

#include <vector>

namespace csim::control {

/// Slopes of pchip (Fritsch-Butland interior slopes, §2) through (t_k, q_k), K >= 2.
/// `natural_ends`: the one-sided three-point end slopes with their shape-preserving limits
/// (§2.2; for K = 2 both ends take delta_0, the straight line); otherwise zero end slopes.
/// The result never overshoots the data: it is monotone wherever the data are.
std::vector<double> PchipSlopes(const std::vector<double>& t, const std::vector<double>& q,
                                bool natural_ends);

/// How one end of a C2 spline is closed (§3.2).
struct SplineEnd {
  enum class Kind { kClamped, kNotAKnot };
  Kind kind = Kind::kClamped;
  double slope = 0.0;  ///< the end slope when clamped [unit of q / s]
};

/// Slopes of the C2 cubic spline through (t_k, q_k), K >= 3, closed at each end by
/// `start` and `end` (§3). With K = 3 and both ends not-a-knot the spline is the parabola
/// through the three points (its two not-a-knot conditions coincide).
std::vector<double> SplineSlopes(const std::vector<double>& t, const std::vector<double>& q,
                                 SplineEnd start, SplineEnd end);

}  // namespace csim::control

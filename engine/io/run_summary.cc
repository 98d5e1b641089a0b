#include "engine/io/run_summary.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iomanip>
#include <numeric>
#include <sstream>
#include <vector>

#include "engine/common/io_error.h"
#include "engine/io/csim_file_check.h"
#include "engine/io/hdf5_file.h"

namespace csim::io {
namespace {

/// A number with 6 significant digits, "%g"-style ("0.001", "1.5e-09").
std::string Num(double value) {
  std::ostringstream out;
  out << std::setprecision(6) << value;
  return out.str();
}

/// A wall-clock duration with a readable unit ("85.2 us", "12 ms", "3.4 s").
std::string Duration(double seconds) {
  if (seconds != 0.0 && seconds < 1e-3) return Num(seconds * 1e6) + " us";
  if (seconds != 0.0 && seconds < 1.0) return Num(seconds * 1e3) + " ms";
  return Num(seconds) + " s";
}

/// Appends one aligned "label  value" line.
void Line(std::ostringstream& out, const std::string& label, const std::string& value) {
  out << std::left << std::setw(16) << label << value << '\n';
}

/// A root string attribute, or "?" if absent.
std::string StringAttribute(const Hdf5File& file, const char* name) {
  return file.HasAttribute(name) ? file.GetStringAttribute(name) : "?";
}

/// A root numeric attribute, formatted, or "?" if absent.
std::string NumberAttribute(const Hdf5File& file, const char* name) {
  return file.HasAttribute(name) ? Num(file.GetDoubleAttribute(name)) : "?";
}

/// Header lines: scene, version, creation, status.
void DescribeHeader(const Hdf5File& file, std::ostringstream& out) {
  Line(out, "scene", StringAttribute(file, "scene_name") + " (" +
                         StringAttribute(file, "scene_file") + ")");
  Line(out, "csim version", StringAttribute(file, "csim_version"));
  Line(out, "created", StringAttribute(file, "created"));
  std::string status = file.Exists("status") ? file.OpenDataset("status").ReadString() : "?";
  if (file.HasAttribute("failure_reason"))
    status += ": " + file.GetStringAttribute("failure_reason");
  Line(out, "status", status);
}

/// One line per holonomic constraint (/model/constraint_*), when the model has any.
void DescribeConstraints(const Hdf5File& file, std::ostringstream& out) {
  if (!file.Exists("model/constraint_names")) return;
  const std::vector<std::string> names = file.OpenDataset("model/constraint_names").ReadStrings();
  const std::vector<std::string> types = file.OpenDataset("model/constraint_types").ReadStrings();
  const std::vector<int64_t> first = file.OpenDataset("model/constraint_first_row").ReadInts();
  const std::vector<int64_t> count = file.OpenDataset("model/constraint_row_count").ReadInts();
  Line(out, "constraints", std::to_string(names.size()));
  for (size_t i = 0; i < names.size() && i < types.size() && i < first.size() && i < count.size();
       ++i) {
    Line(out, "  " + names[i], types[i] + ", rows " + std::to_string(first[i]) + " to " +
                                   std::to_string(first[i] + count[i] - 1) +
                                   " of /constraints/impulse");
  }
}

/// Settings and model sizes.
void DescribeSettings(const Hdf5File& file, std::ostringstream& out) {
  Line(out, "time step", NumberAttribute(file, "time_step") + " s");
  Line(out, "duration", NumberAttribute(file, "duration") + " s");
  Line(out, "integrator", StringAttribute(file, "integrator") + " (theta " +
                              NumberAttribute(file, "theta") + ", theta_q " +
                              NumberAttribute(file, "theta_q") + ")");
  Line(out, "contact model", StringAttribute(file, "contact_model"));
  if (file.HasAttribute("gyroscopic"))
    Line(out, "gyroscopic", StringAttribute(file, "gyroscopic"));
  const int64_t nq = file.OpenDataset("model/nq").ReadInts().at(0);
  const int64_t nv = file.OpenDataset("model/nv").ReadInts().at(0);
  const hsize_t nb = file.OpenDataset("model/body_names").rows();
  Line(out, "model", "nq " + std::to_string(nq) + ", nv " + std::to_string(nv) + ", " +
                         std::to_string(nb) + (nb == 1 ? " body" : " bodies"));
  DescribeConstraints(file, out);
}

/// Solver statistics over rows [first, n) of /solver/*.
void DescribeSolver(const Hdf5File& file, hsize_t first, hsize_t n, std::ostringstream& out) {
  const std::vector<int64_t> iterations = file.OpenDataset("solver/iterations").ReadInts(n);
  const std::vector<double> error = file.OpenDataset("solver/momentum_error").ReadDoubles(n);
  const std::vector<double> wall = file.OpenDataset("solver/wall_time").ReadDoubles(n);
  // Series are flushed before /time, so they hold at least n rows; a damaged file may not.
  const hsize_t end = std::min({n, hsize_t(iterations.size()), hsize_t(error.size()),
                                hsize_t(wall.size())});
  if (end <= first) return;
  const double count = static_cast<double>(end - first);
  const double iterations_sum =
      std::accumulate(iterations.begin() + first, iterations.begin() + end, 0.0);
  const int64_t iterations_max =
      *std::max_element(iterations.begin() + first, iterations.begin() + end);
  const double error_max = *std::max_element(error.begin() + first, error.begin() + end);
  const double wall_sum = std::accumulate(wall.begin() + first, wall.begin() + end, 0.0);
  Line(out, "iterations", "mean " + Num(iterations_sum / count) + ", max " +
                              std::to_string(iterations_max));
  Line(out, "momentum error", "max " + Num(error_max));
  Line(out, "wall time", Duration(wall_sum) + " total, " + Duration(wall_sum / count) +
                             " per step (mean)");
}

/// Contacts per step, when /contacts was recorded.
void DescribeContacts(const Hdf5File& file, hsize_t n, std::ostringstream& out) {
  if (!file.Exists("contacts/count")) return;
  const std::vector<int64_t> count = file.OpenDataset("contacts/count").ReadInts(n);
  if (count.empty()) return;
  const int64_t max = *std::max_element(count.begin(), count.end());
  const int64_t total = std::accumulate(count.begin(), count.end(), int64_t{0});
  Line(out, "contacts", "max " + std::to_string(max) + " per step, " + std::to_string(total) +
                            " in all");
}

/// One line per actuator, when the model has any: its joint, gains, limit, and its largest
/// effort and saturated rows over the n recorded rows.
void DescribeActuators(const Hdf5File& file, hsize_t n, std::ostringstream& out) {
  if (!file.Exists("model/actuator_names")) return;
  const std::vector<std::string> names = file.OpenDataset("model/actuator_names").ReadStrings();
  const std::vector<std::string> joints = file.OpenDataset("model/joint_names").ReadStrings();
  const std::vector<int64_t> joint = file.OpenDataset("model/actuator_joint").ReadInts();
  const std::vector<double> kp = file.OpenDataset("model/actuator_kp").ReadDoubles();
  const std::vector<double> kd = file.OpenDataset("model/actuator_kd").ReadDoubles();
  const std::vector<double> limit = file.OpenDataset("model/actuator_effort_limit").ReadDoubles();
  const size_t na = names.size();
  std::vector<double> effort;
  std::vector<int64_t> saturated;
  if (file.Exists("actuators/effort")) effort = file.OpenDataset("actuators/effort").ReadDoubles(n);
  if (file.Exists("actuators/saturated"))
    saturated = file.OpenDataset("actuators/saturated").ReadInts(n);
  Line(out, "actuators", std::to_string(na));
  for (size_t i = 0; i < na && i < joint.size() && i < kp.size() && i < kd.size() &&
                     i < limit.size(); ++i) {
    double max_effort = 0.0;
    int64_t saturated_rows = 0;
    for (size_t r = 0; r * na + i < effort.size(); ++r)
      max_effort = std::max(max_effort, std::abs(effort[r * na + i]));
    for (size_t r = 0; r * na + i < saturated.size(); ++r)
      saturated_rows += saturated[r * na + i] != 0;
    const std::string joint_name =
        joint[i] >= 0 && size_t(joint[i]) < joints.size() ? joints[joint[i]] : "?";
    const bool force = kp[i] == 0.0 && kd[i] == 0.0;
    out << "  " << std::left << std::setw(14) << names[i] << " joint " << joint_name << ", "
        << (force ? std::string("force actuator") : "kp " + Num(kp[i]) + ", kd " + Num(kd[i]))
        << ", limit " << Num(limit[i]) << "; max |effort| " << Num(max_effort) << ", saturated in "
        << saturated_rows << " rows\n";
  }
}

/// Rows, steps, time range and the per-step statistics.
void DescribeRows(const Hdf5File& file, std::ostringstream& out) {
  // len(/time) is the number of complete rows; every other series is sliced to it.
  const std::vector<double> time = file.OpenDataset("time").ReadDoubles();
  const hsize_t n = time.size();
  const std::vector<int64_t> step = file.OpenDataset("step").ReadInts(n);
  if (n == 0 || step.size() < n) {
    Line(out, "rows", "0");
    return;
  }
  Line(out, "rows", std::to_string(n) + " (steps " + std::to_string(step.front()) + " to " +
                        std::to_string(step.back()) + ")");
  Line(out, "time", Num(time.front()) + " to " + Num(time.back()) + " s");
  // The row of step 0 is the initial state: no step, no solver statistics.
  const hsize_t first = step.front() == 0 ? 1 : 0;
  DescribeSolver(file, first, n, out);
  DescribeContacts(file, n, out);
  DescribeActuators(file, n, out);
}

}  // namespace

std::string DescribeRun(const std::string& h5_path) {
  Hdf5File file = Hdf5File::Open(h5_path, Hdf5File::Mode::kSwmrRead);
  RequireCsimFile(file);
  std::ostringstream out;
  Line(out, "file", h5_path);
  DescribeHeader(file, out);
  DescribeSettings(file, out);
  DescribeRows(file, out);
  return out.str();
}

}  // namespace csim::io

#include "app/measurement_file.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "engine/common/input_error.h"
#include "engine/common/io_error.h"
#include "engine/io/hdf5_file.h"

namespace csim::app {
namespace {

bool EndsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// Refuses a CSV row of numbers (at `where`) with a value that is not finite, a width other
// than the first row's `width` or below 2 (t and at least one coordinate), or a time that
// does not increase over the rows before (`times`).
void CheckCsvRow(const SourceLocation& where, const std::vector<double>& values,
                 size_t width, const std::vector<double>& times) {
  for (double value : values) {
    if (!std::isfinite(value)) throw InputError(where, "holds a value that is not finite");
  }
  if (values.size() != width || width < 2) {
    throw InputError(where, "has " + std::to_string(values.size()) + " values; the first row " +
                                std::to_string(width) + " (t and at least one coordinate)");
  }
  if (!times.empty() && !(values[0] > times.back())) {
    throw InputError(where, "time " + std::to_string(values[0]) + " does not increase (the " +
                                "row before is at " + std::to_string(times.back()) + ")");
  }
}

// Rows `t, q...` of a CSV (ReadMeasurement).
void ReadCsv(const std::string& path, MeasurementFile* out) {
  std::ifstream in(path);
  if (!in) throw IoError(path + ": cannot open");
  std::string line;
  int line_number = 0;
  size_t width = 0;
  while (std::getline(in, line)) {
    ++line_number;
    for (char& c : line) {
      if (c == ',' || c == ';' || c == '\t' || c == '\r') c = ' ';
    }
    std::istringstream s(line);
    std::vector<double> values;
    double x;
    while (s >> x) values.push_back(x);
    if (values.empty()) {
      // Blank, a comment or a header; after the first row of numbers only blanks and
      // comments may follow.
      const size_t first = line.find_first_not_of(' ');
      if (out->time.empty() || first == std::string::npos || line[first] == '#') continue;
      throw InputError({path, line_number, 0},
                       "expected a row of numbers: t, then the coordinates");
    }
    if (!s.eof()) {
      if (out->time.empty()) continue;  // a header line that starts with a number
      throw InputError({path, line_number, 0},
                       "expected a row of numbers: t, then the coordinates (a value is not a "
                       "number)");
    }
    if (width == 0) width = values.size();
    CheckCsvRow({path, line_number, 0}, values, width, out->time);
    out->time.push_back(values[0]);
    out->q.emplace_back(values.begin() + 1, values.end());
    out->lines.push_back(line_number);
  }
}

// /time, /state/q and /state/v (if present) of a csim output, cut to the shortest.
void ReadHdf5(const std::string& path, MeasurementFile* out) {
  io::Hdf5File file = io::Hdf5File::Open(path, io::Hdf5File::Mode::kReadOnly);
  if (!file.Exists("time") || !file.Exists("state/q")) {
    throw InputError({path, 0, 0}, "not a csim output: /time or /state/q is missing");
  }
  out->time = file.OpenDataset("time").ReadDoubles();
  const io::Hdf5Dataset qd = file.OpenDataset("state/q");
  const std::vector<double> flat = qd.ReadDoubles();
  const size_t nq = qd.row_size();
  size_t rows = std::min<size_t>(out->time.size(), qd.rows());
  std::vector<double> vflat;
  size_t nv = 0;
  if (file.Exists("state/v")) {
    const io::Hdf5Dataset vd = file.OpenDataset("state/v");
    vflat = vd.ReadDoubles();
    nv = vd.row_size();
    rows = std::min<size_t>(rows, vd.rows());
  }
  out->time.resize(rows);
  for (size_t i = 0; i < rows; ++i) {
    out->q.emplace_back(flat.begin() + i * nq, flat.begin() + (i + 1) * nq);
    if (nv > 0) out->v.emplace_back(vflat.begin() + i * nv, vflat.begin() + (i + 1) * nv);
  }
}

// The --observe joints (indices into model.joints, in order) and their q coordinates.
struct ObservedJoints {
  std::vector<int> joints;
  int nq = 0;
};

ObservedJoints FindObservedJoints(const multibody::Model& model,
                                  const std::vector<std::string>& observe) {
  ObservedJoints observed;
  for (const std::string& name : observe) {
    const int j = model.FindJoint(name);
    if (j < 0) {
      throw InputError({"--observe", 0, 0}, "'" + name + "' names no joint of the scene (a "
                                            "free body's joint is named after the body)");
    }
    observed.joints.push_back(j);
    observed.nq += model.joints[j].q_start >= 0 ? model.joints[j].nq : 0;
  }
  return observed;
}

// A row of the observed joints' coordinates (each joint's nq, in order) in the scene's
// layout: the other joints keep the scene's initial coordinates `scene_q`.
Eigen::VectorXd ObservedRowToQ(const multibody::Model& model, const std::vector<int>& joints,
                               const std::vector<double>& row, const Eigen::VectorXd& scene_q) {
  Eigen::VectorXd q = scene_q;
  int column = 0;
  for (int j : joints) {
    const multibody::Joint& joint = model.joints[j];
    if (joint.q_start < 0) continue;
    q.segment(joint.q_start, joint.nq) =
        Eigen::Map<const Eigen::VectorXd>(row.data() + column, joint.nq);
    column += joint.nq;
  }
  return q;
}

}  // namespace

MeasurementFile ReadMeasurement(const std::string& path) {
  MeasurementFile out;
  if (EndsWith(path, ".csv") || EndsWith(path, ".CSV")) {
    ReadCsv(path, &out);
  } else {
    ReadHdf5(path, &out);
  }
  if (out.time.empty()) throw InputError({path, 0, 0}, "holds no rows");
  for (size_t i = 1; i < out.time.size(); ++i) {
    if (!(out.time[i] > out.time[i - 1])) {
      throw InputError({path, 0, 0}, "times are not increasing (row " + std::to_string(i) + ")");
    }
  }
  return out;
}

sim::Measurement ToMeasurement(const std::string& path, const MeasurementFile& file,
                               const multibody::Model& model,
                               const std::vector<std::string>& observe) {
  sim::Measurement m;
  m.source = path;
  m.time = file.time;
  const ObservedJoints observed = FindObservedJoints(model, observe);
  // A CSV row's width decides whether it gives every coordinate or the observed ones only.
  const int width = static_cast<int>(file.q.front().size());
  const bool partial = !file.lines.empty() && width != model.nq && !observe.empty() &&
                       width == observed.nq;
  if (!file.lines.empty() && width != model.nq && !partial) {
    std::string expected = "t and the scene's " + std::to_string(model.nq) +
                           " joint coordinates q_0 ... q_" + std::to_string(model.nq - 1);
    if (!observe.empty()) {
      expected += ", or t and the observed joints' " + std::to_string(observed.nq) +
                  " coordinates in --observe order";
    }
    throw InputError({path, file.lines.front(), 0},
                     "has " + std::to_string(width) + " coordinates after t; expected " +
                         expected);
  }
  const Eigen::VectorXd scene_q = model.InitialQ();
  for (const std::vector<double>& row : file.q) {
    if (partial) {
      m.q.push_back(ObservedRowToQ(model, observed.joints, row, scene_q));
    } else {
      m.q.emplace_back(Eigen::Map<const Eigen::VectorXd>(row.data(), row.size()));
    }
  }
  if (partial) m.joints = observe;
  for (const std::vector<double>& row : file.v)
    m.v.emplace_back(Eigen::Map<const Eigen::VectorXd>(row.data(), row.size()));
  return m;
}

}  // namespace csim::app

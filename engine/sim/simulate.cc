#include "engine/sim/simulate.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "engine/common/check.h"
#include "engine/integrator/contact_step.h"
#include "engine/integrator/theta_method.h"
#include "engine/integrator/trajectory_sensitivity.h"
#include "engine/multibody/position_update.h"
#include "engine/sim/row_filler.h"
#include "engine/sim/run_monitor.h"
#include "engine/sim/sensitivity_paths.h"

namespace csim::sim {
namespace {

// What every step of a run reads besides the state: constant over the run.
struct StepSettings {
  integrator::ThetaParameters theta;
  integrator::FreeMotionSettings free_motion;
  contact::ContactParameters contact;
  double dt = 0.0;
  // Contacts are reported every step (cheap next to the solve), so whichever step ends up
  // in the file, scheduled or the last good one after a stop, carries its own contacts.
  bool report_contacts = false;
};

StepSettings MakeStepSettings(const Settings& settings) {
  StepSettings s;
  s.theta = {settings.integrator.theta, settings.integrator.theta_q, settings.gyroscopic};
  s.contact = ContactParametersFor(settings);
  s.dt = settings.time_step;
  s.report_contacts = settings.output.contacts;
  return s;
}

// The scratch of the steps: the free motion's and the constrained step's.
struct StepWorkspaces {
  StepWorkspaces(const multibody::Model& model, const Settings& settings,
                 const RunControl& control)
      : free_motion(integrator::MakeStepWorkspace(model, settings.tree_solver)), contact(model) {
    contact.solver.set_parameters(settings.solver);
    contact.solver.set_num_threads(settings.threads);  // islands in parallel; same results
    contact.solver.set_stop_flag(control.stop_requested);  // a long solve ends at a stop request
    // A diagnostic: one more factorization per island and step, the same trajectory.
    contact.solver.set_condition_estimate(settings.output.condition_number);
  }
  integrator::StepWorkspace free_motion;
  integrator::ContactStepWorkspace contact;
};

multibody::State InitialState(const multibody::Model& model) {
  multibody::State state{0.0, model.InitialQ(), model.InitialV()};
  multibody::NormalizeQuaternions(model, &state.q);
  return state;
}

// Runs one step, turning an allocation the system refused into a failed step. A scene can
// ask for more memory than any machine has (thousands of overlapping bodies: millions of
// contacts and a dense factorization), and that must end the run like any other failure:
// the file keeps every completed step and says `failed` with the reason. The step commits
// the state only at its end, so after the exception the state is still the last completed
// step's. (The kernel's OOM killer is another matter: it strikes only when the pages are
// touched, and no process can catch it; `ulimit -v` turns it into this case.)
StepStatus TakeStep(const multibody::Model& model, const StepSettings& s,
                    multibody::State& state, StepWorkspaces& scratch) {
  try {
    return integrator::StepWithContact(model, s.theta, s.free_motion, s.contact, s.dt,
                                       s.report_contacts, state, scratch.free_motion,
                                       scratch.contact);
  } catch (const std::bad_alloc&) {
    return {StepOutcome::kOutOfMemory,
            "out of memory: the step asked for more memory than the system gives (are many "
            "bodies overlapping?)"};
  }
}

// The row the run records: its storage, the kinematics scratch that fills it, and the
// last completed step's solver statistics, contacts and joint friction, which every later
// row carries until the next step completes.
class RowRecording {
 public:
  // `record_polygons`: settings.output.contact_surfaces.
  RowRecording(const multibody::Model& model, Recorder& recorder, bool record_polygons)
      : model_(model), recorder_(recorder), ws_(multibody::MakeWorkspace(model)),
        row_(MakeRow(model)), record_polygons_(record_polygons) {}

  // A step completed with these statistics, contacts, joint friction efforts (nv),
  // constraint impulses and actuator outputs, and the contact surfaces the contacts'
  // polygons belong to; the row's vectors keep their capacity.
  void StepCompleted(const SolverStats& solver,
                     const std::vector<contact::ContactReport>& reports,
                     const Eigen::VectorXd& joint_friction,
                     const Eigen::VectorXd& constraint_impulse,
                     const contact::ActuatorOutputs& actuators,
                     const contact::HydroelasticContacts& hydroelastic) {
    row_.solver = solver;
    if (row_.joint_friction.size() > 0) row_.joint_friction = joint_friction;
    if (row_.constraint_impulse.size() > 0) row_.constraint_impulse = constraint_impulse;
    if (row_.actuator_effort.size() > 0) {
      row_.actuator_effort = actuators.effort;
      row_.actuator_q_target = actuators.q_target;
      row_.actuator_v_target = actuators.v_target;
      std::copy(actuators.saturated.begin(), actuators.saturated.end(),
                row_.actuator_saturated.begin());
    }
    row_.contacts.resize(reports.size());
    for (size_t i = 0; i < reports.size(); ++i) {
      const contact::ContactReport& r = reports[i];
      row_.contacts[i] = {r.body_a, r.body_b, r.p_WC, r.nhat_AB_W, r.phi0, r.force_on_b_W,
                          r.slip_speed, r.stiction_tolerance};
    }
    SumSurfaces(reports);
    if (record_polygons_) CopyPolygons(reports, hydroelastic);
  }

  // Records `state` as step `step`; returns false (recording nothing) when it is not
  // representable: a state can be finite while its energy overflows.
  bool Record(const multibody::State& state, int64_t step) {
    row_.step = step;
    FillRow(model_, state, ws_, &row_);
    if (!std::isfinite(row_.kinetic_energy) || !std::isfinite(row_.potential_energy)) return false;
    recorder_.Record(row_);
    return true;
  }

 private:
  // row_.surfaces from the step's contacts: a surface's polygons are consecutive contacts
  // (reports of one `surface`), summed into its area, area centroid, force, and moment
  // about that centroid.
  void SumSurfaces(const std::vector<contact::ContactReport>& reports) {
    row_.surfaces.clear();
    for (size_t i = 0; i < reports.size(); ++i) {
      const contact::ContactReport& r = reports[i];
      if (r.surface < 0) continue;
      if (i == 0 || reports[i - 1].surface != r.surface) {
        SurfaceRow& s = row_.surfaces.emplace_back();
        s.body_a = r.body_a;
        s.body_b = r.body_b;
        s.first_contact = static_cast<int>(i);
      }
      SurfaceRow& s = row_.surfaces.back();
      ++s.num_contacts;
      s.area += r.area;
      s.centroid += r.area * r.p_WC;
      s.force += r.force_on_b_W;
    }
    for (SurfaceRow& s : row_.surfaces) {
      s.centroid /= s.area;
      for (int k = s.first_contact; k < s.first_contact + s.num_contacts; ++k)
        s.moment += (row_.contacts[k].point - s.centroid).cross(row_.contacts[k].force);
    }
  }

  // The polygons of row_.surfaces, from the contact surfaces of the step's build. A
  // surface's reports are all of its polygons, in order (the builder drops a contact only
  // when neither body can move, which holds for the whole pair), so its polygon j is
  // polygon first_contact + j of HydroelasticContacts.
  void CopyPolygons(const std::vector<contact::ContactReport>& reports,
                    const contact::HydroelasticContacts& hydroelastic) {
    row_.polygon_vertex_count.clear();
    row_.vertex_position.clear();
    row_.vertex_pressure.clear();
    for (const SurfaceRow& s : row_.surfaces) {
      const contact::SurfaceRecord& record =
          hydroelastic.surfaces()[reports[s.first_contact].surface];
      CSIM_CHECK(record.num_contacts == s.num_contacts);
      for (int j = 0; j < s.num_contacts; ++j) {
        const contact::PolygonContact& p =
            hydroelastic.polygon_contacts()[record.first_contact + j];
        row_.polygon_vertex_count.push_back(p.num_vertices);
        const auto first = p.first_vertex, end = p.first_vertex + p.num_vertices;
        row_.vertex_position.insert(row_.vertex_position.end(),
                                    hydroelastic.vertices().begin() + first,
                                    hydroelastic.vertices().begin() + end);
        row_.vertex_pressure.insert(row_.vertex_pressure.end(),
                                    hydroelastic.vertex_pressure().begin() + first,
                                    hydroelastic.vertex_pressure().begin() + end);
      }
    }
  }

  const multibody::Model& model_;
  Recorder& recorder_;
  multibody::Workspace ws_;
  Row row_;

 public:
  // The next row's sensitivities (Sensitivities::Fill).
  SensitivityRow* sensitivity() { return &row_.sensitivity; }
  // The contacts of the last StepCompleted, for their regions and kink distances.
  std::vector<ContactRow>* contacts() { return &row_.contacts; }

 private:
  bool record_polygons_;
};

// How a run ends early, after `step` completed steps.
void EndRun(RunStatus status, std::string reason, RunResult* result) {
  result->status = status;
  result->reason = std::move(reason);
}

// The step after `step` did not complete.
void EndAtIncompleteStep(const StepStatus& status, int64_t step, RunResult* result) {
  if (status.outcome == StepOutcome::kInterrupted) {
    // The stop came while the step's contact solve was iterating: the step is abandoned
    // (on a huge pile it could take minutes) and the state stays the last completed one.
    EndRun(RunStatus::kInterrupted,
           "interrupted at step " + std::to_string(step) + " (step " + std::to_string(step + 1) +
               " abandoned while its contact solve iterated)",
           result);
  } else {
    EndRun(RunStatus::kFailed, "step " + std::to_string(step + 1) + ": " + status.reason, result);
  }
}

bool StopRequested(const RunControl& control) {
  return control.stop_requested != nullptr && control.stop_requested->load();
}

// Settings::trace_solver_steps as the run meets them: whether the next step is traced, and
// its history to the recorder once it ran.
class SolverTracing {
 public:
  explicit SolverTracing(const std::vector<int64_t>& steps) : steps_(steps) {}
  // Step `step` (1-based, the row it produces) is about to run: traces it if asked for.
  void StepStarting(int64_t step, solver::SapSolver& solver) {
    traced_ = next_ < steps_.size() && steps_[next_] == step;
    if (traced_) ++next_;
    solver.set_trace(traced_);
  }
  // Step `step` ran, successfully or not.
  void StepRan(int64_t step, const solver::SapSolver& solver, Recorder& recorder) const {
    if (traced_) recorder.RecordSolverTrace(step, solver.trace());
  }

 private:
  const std::vector<int64_t>& steps_;  // ascending
  size_t next_ = 0;                    // the first not yet reached
  bool traced_ = false;                // the step running now is traced
};

// The forward sensitivities of Settings::sensitivities (docs/design/sensitivities.md §7),
// advanced after each completed step from its own workspaces: the forward steps read
// nothing of it, so the trajectory is the same bits with or without it. The flags of the
// steps since the last row are accumulated into that row.
class Sensitivities {
 public:
  Sensitivities(const multibody::Model& model, const Settings& settings)
      : on_(!settings.sensitivities.empty()) {
    if (!on_) return;
    // The columns' differences on the run's threads: the same bits for every count.
    chain_ = std::make_unique<integrator::TrajectorySensitivity>(
        model, ParseSensitivityPaths(model, settings.sensitivities), settings.tree_solver,
        settings.threads);
    chain_->Reset();
    friction_bound_ = chain_->friction_bounds();
  }
  bool on() const { return on_; }
  // Before a step: its start state.
  void StepStarting(const multibody::State& state) {
    if (on_) state0_ = state;
  }
  // After a completed step to `state1`, solved in `step` (its workspace), whose contacts
  // (RowRecording::StepCompleted's) get their regions and kink distances.
  StepStatus StepCompleted(const multibody::Model& model, const StepSettings& s,
                           const multibody::State& state1, const StepWorkspaces& step,
                           std::vector<ContactRow>* contacts) {
    if (!on_) return {};
    // The step's own problem and its solver's v_c, so that the chain's pieces are the
    // solve's own (TrajectorySensitivity::Advance rebuilds the problem of a servos-only step
    // solved directly, which has no actuator rows, and forms J v then).
    const integrator::SolvedStep solved{step.free_motion, step.contact};
    const StepStatus status = chain_->Advance(model, s.theta, s.free_motion, s.contact, s.dt,
                                              state0_, state1, nullptr, &solved);
    if (!status.ok()) return status;
    // The chain's nominal assembly is the step's own (the same build at the same state),
    // so its contacts are the reports' one for one; NaN should that ever not hold.
    const std::vector<int8_t>& region = chain_->contact_regions();
    const std::vector<double>& kink = chain_->contact_kink_distances();
    const bool same = region.size() == contacts->size();
    for (size_t i = 0; i < contacts->size(); ++i) {
      (*contacts)[i].region = same ? region[i] : 0;
      (*contacts)[i].kink_distance = same ? kink[i] : std::nan("");
    }
    const integrator::SensitivityStepInfo& info = chain_->last_step();
    one_sided_ += info.num_one_sided;
    unmatched_ += info.num_unmatched;
    approximate_ = approximate_ || info.approximate_geometry;
    min_kink_ = std::min(min_kink_, info.min_kink_distance);
    friction_bound_ = friction_bound_.cwiseMax(chain_->friction_bounds());
    return status;
  }
  // Into the row about to be recorded; restarts the flags.
  void Fill(SensitivityRow* row) {
    if (!on_) return;
    row->dq = chain_->dq();
    row->dv = chain_->dv();
    row->one_sided = one_sided_;
    row->unmatched = unmatched_;
    row->approximate_geometry = approximate_ ? 1 : 0;
    row->min_kink_distance = min_kink_;
    row->friction_bound = friction_bound_;
    one_sided_ = unmatched_ = 0;
    approximate_ = false;
    min_kink_ = 1.0;
    friction_bound_.setConstant(-std::numeric_limits<double>::infinity());
  }

 private:
  bool on_;
  std::unique_ptr<integrator::TrajectorySensitivity> chain_;
  multibody::State state0_;
  int32_t one_sided_ = 0, unmatched_ = 0;
  bool approximate_ = false;
  double min_kink_ = 1.0;
  Eigen::VectorXd friction_bound_;  // per column, the largest since the last row
};

}  // namespace

int64_t StepCount(const Settings& s) {
  // A duration that is a whole number of steps up to round-off (1.0 / 1e-3) gets no extra
  // step.
  return std::max<int64_t>(1, static_cast<int64_t>(std::ceil(s.duration / s.time_step - 1e-9)));
}

contact::ContactParameters ContactParametersFor(const Settings& settings) {
  contact::ContactParameters p;
  p.near_rigid_threshold = settings.near_rigid_threshold;
  p.stiction_sigma = settings.stiction_sigma;
  p.contact_margin = settings.contact_margin;
  p.stiction_tolerance = settings.stiction_tolerance;
  p.contact_model = settings.contact_model;
  p.position_theta = settings.integrator.theta_q;
  p.delassus_estimate = settings.delassus_estimate;
  p.contact_surface = settings.contact_surface;
  return p;
}

RunResult Simulate(const multibody::Model& model, const Settings& settings, const RunInfo& info,
                   Recorder& recorder, const RunControl& control) {
  const int64_t total_steps = StepCount(settings);
  const StepSettings step_settings = MakeStepSettings(settings);
  multibody::State state = InitialState(model);
  StepWorkspaces scratch(model, settings, control);
  RowRecording rows(model, recorder, settings.output.contact_surfaces);
  RunMonitor monitor(control, total_steps);
  Sensitivities sensitivities(model, settings);

  recorder.Begin(info);
  sensitivities.Fill(rows.sensitivity());
  rows.Record(state, 0);
  if (control.on_first_row) control.on_first_row();

  RunResult result;
  int64_t step = 0, last_recorded = 0;
  SolverTracing tracing(settings.trace_solver_steps);
  while (step < total_steps) {
    monitor.StepStarted();
    tracing.StepStarting(step + 1, scratch.contact.solver);
    sensitivities.StepStarting(state);
    const StepStatus status = TakeStep(model, step_settings, state, scratch);
    tracing.StepRan(step + 1, scratch.contact.solver, recorder);
    if (!status.ok()) {
      EndAtIncompleteStep(status, step, &result);
      break;
    }
    ++step;
    state.t = step * step_settings.dt;  // no accumulated round-off in the clock
    rows.StepCompleted(monitor.StepCompleted(scratch.contact.stats), scratch.contact.contacts,
                       scratch.contact.joint_friction, scratch.contact.constraint_impulse,
                       scratch.contact.actuator_outputs,
                       scratch.contact.builder.hydroelastic());
    const StepStatus chained = sensitivities.StepCompleted(model, step_settings, state,
                                                           scratch, rows.contacts());
    if (!chained.ok()) {
      // The step completed but its derivatives did not: its state is recorded below, its
      // sensitivities are not valid (the run says why).
      EndRun(RunStatus::kFailed,
             "step " + std::to_string(step) + ": sensitivities: " + chained.reason, &result);
      break;
    }
    if (step % settings.output.every == 0 || step == total_steps) {
      sensitivities.Fill(rows.sensitivity());
      if (!rows.Record(state, step)) {
        EndRun(RunStatus::kFailed,
               "step " + std::to_string(step) + ": the energy of the state overflows", &result);
        break;
      }
      last_recorded = step;
    }
    recorder.Heartbeat();
    if (StopRequested(control)) {
      EndRun(RunStatus::kInterrupted, "interrupted at step " + std::to_string(step), &result);
      break;
    }
    monitor.ReportProgress(step, state.t);
  }
  // The last good state is always in the file, whatever output.every says (Record refuses
  // a state whose energy overflows, which is not good).
  if (step != last_recorded) {
    sensitivities.Fill(rows.sensitivity());
    rows.Record(state, step);
  }

  monitor.Summarize(step, state.t, &result);
  recorder.Finish(result.status, result.reason);
  return result;
}

}  // namespace csim::sim

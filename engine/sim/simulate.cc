#include "engine/sim/simulate.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <new>

#include "engine/integrator/contact_step.h"
#include "engine/integrator/theta_method.h"
#include "engine/multibody/position_update.h"
#include "engine/sim/row_filler.h"

namespace csim::sim {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Per-run accumulation of the end-of-run summary.
struct Totals {
  int64_t iterations = 0;
  int max_iterations = 0;
  double max_momentum_error = 0.0;
};


// The step's contacts into the row; the row's vector keeps its capacity.
void CopyContacts(const std::vector<contact::ContactReport>& reports, std::vector<ContactRow>* rows) {
  rows->resize(reports.size());
  for (size_t i = 0; i < reports.size(); ++i) {
    const contact::ContactReport& r = reports[i];
    (*rows)[i] = {r.body_a, r.body_b, r.p_WC, r.nhat_AB_W, r.phi0, r.force_on_b_W, r.slip_speed};
  }
}

// Runs one step, turning an allocation the system refused into a failed step. A scene can
// ask for more memory than any machine has (thousands of overlapping bodies: millions of
// contacts and a dense factorization), and that must end the run like any other failure:
// the file keeps every completed step and says `failed` with the reason. The step commits
// the state only at its end, so after the exception the state is still the last completed
// step's. (The kernel's OOM killer is another matter: it strikes only when the pages are
// touched, and no process can catch it; `ulimit -v` turns it into this case.)
template <typename StepFunction>
StepStatus GuardMemory(const StepFunction& take_step) {
  try {
    return take_step();
  } catch (const std::bad_alloc&) {
    return {StepOutcome::kOutOfMemory,
            "out of memory: the step asked for more memory than the system gives (are many "
            "bodies overlapping?)"};
  }
}

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
  return p;
}

RunResult Simulate(const multibody::Model& model, const Settings& settings, const RunInfo& info,
                   Recorder& recorder, const RunControl& control) {
  const integrator::ThetaParameters params{settings.integrator.theta, settings.integrator.theta_q,
                                           settings.gyroscopic};
  const integrator::FreeMotionSettings free_motion;
  const double dt = settings.time_step;
  const int64_t total_steps = StepCount(settings);

  multibody::State state{0.0, model.InitialQ(), model.InitialV()};
  multibody::NormalizeQuaternions(model, &state.q);
  integrator::StepWorkspace ws = integrator::MakeStepWorkspace(model, settings.tree_solver);
  integrator::ContactStepWorkspace cws(model);
  cws.solver.set_parameters(settings.solver);
  cws.solver.set_num_threads(settings.threads);  // islands in parallel; same results
  cws.solver.set_stop_flag(control.stop_requested);  // a long solve ends at a stop request
  const contact::ContactParameters contact_parameters = ContactParametersFor(settings);
  multibody::Workspace record_ws = multibody::MakeWorkspace(model);
  Row row = MakeRow(model);

  const auto start = Clock::now();
  // Records the current state; returns false (recording nothing) when it is not
  // representable: a state can be finite while its energy overflows (|v| ~ 1e155).
  auto record = [&](int64_t step) {
    row.step = step;
    FillRow(model, state, record_ws, &row);
    if (!std::isfinite(row.kinetic_energy) || !std::isfinite(row.potential_energy)) return false;
    recorder.Record(row);
    return true;
  };
  recorder.Begin(info);
  record(0);
  if (control.on_first_row) control.on_first_row();

  RunResult result;
  Totals totals;
  int64_t last_recorded = 0;
  double last_progress = 0.0;
  int64_t step = 0;
  while (step < total_steps) {
    const auto step_start = Clock::now();
    // Contacts are reported every step (cheap next to the solve), so whichever step ends up
    // in the file, scheduled or the last good one after a stop, carries its own contacts.
    const StepStatus status = GuardMemory([&] {
      return integrator::StepWithContact(model, params, free_motion, contact_parameters, dt,
                                         settings.output.contacts, state, ws, cws);
    });
    if (status.outcome == StepOutcome::kInterrupted) {
      // The stop came while the step's contact solve was iterating: the step is abandoned
      // (it could take minutes on a huge pile) and the state stays the last completed one.
      result.status = RunStatus::kInterrupted;
      result.reason = "interrupted at step " + std::to_string(step) + " (step " +
                      std::to_string(step + 1) + " abandoned while its contact solve iterated)";
      break;
    }
    if (!status.ok()) {
      result.status = RunStatus::kFailed;
      result.reason = "step " + std::to_string(step + 1) + ": " + status.reason;
      break;
    }
    ++step;
    state.t = step * dt;  // no accumulated round-off in the clock
    const integrator::StepStats& stats = cws.stats;
    row.solver = {stats.iterations, stats.momentum_error, stats.cost, SecondsSince(step_start)};
    CopyContacts(cws.contacts, &row.contacts);
    totals.iterations += stats.iterations;
    totals.max_iterations = std::max(totals.max_iterations, stats.iterations);
    totals.max_momentum_error = std::max(totals.max_momentum_error, stats.momentum_error);
    if (step % settings.output.every == 0 || step == total_steps) {
      if (!record(step)) {
        result.status = RunStatus::kFailed;
        result.reason = "step " + std::to_string(step) + ": the energy of the state overflows";
        break;
      }
      last_recorded = step;
    }
    recorder.Heartbeat();
    if (control.stop_requested && control.stop_requested->load()) {
      result.status = RunStatus::kInterrupted;
      result.reason = "interrupted at step " + std::to_string(step);
      break;
    }
    const double elapsed = SecondsSince(start);
    if (control.on_progress && elapsed - last_progress >= 0.2) {
      last_progress = elapsed;
      control.on_progress({step, total_steps, state.t, elapsed});
    }
  }
  // The last good state is always in the file, whatever output.every says (record()
  // refuses a state whose energy overflows, which is not good).
  if (step != last_recorded) record(step);

  result.steps = step;
  result.sim_time = state.t;
  result.wall_time = SecondsSince(start);
  result.mean_iterations = step > 0 ? static_cast<double>(totals.iterations) / step : 0.0;
  result.max_iterations = totals.max_iterations;
  result.max_momentum_error = totals.max_momentum_error;
  recorder.Finish(result.status, result.reason);
  return result;
}

}  // namespace csim::sim

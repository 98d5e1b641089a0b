#include "bench/report.h"

#include <algorithm>
#include <stdexcept>

#include "bench/clutter_scene.h"

namespace csim::bench {
namespace {

double Ms(double seconds) { return 1e3 * seconds; }

// Real-time factor: simulated time over the sum of the step times.
double RealTimeFactor(const SeriesSummary& s, double dt) {
  return s.total_seconds > 0 ? s.steps * dt / s.total_seconds : 0.0;
}

// MuJoCo time over csim time per step on the common steps (> 1: csim faster).
double Ratio(const ConfigResult& r) {
  return r.has_mujoco && r.csim_common.mean_seconds > 0
             ? r.mujoco_all.mean_seconds / r.csim_common.mean_seconds
             : 0.0;
}

void PrintLine(std::FILE* out, const char* who, const SeriesSummary& all,
               const SeriesSummary& settled, double dt) {
  std::fprintf(out,
               "  %-7s %6d steps | ms/step all: mean %8.3f median %8.3f max %8.2f | settled: "
               "mean %8.3f median %8.3f | iters %5.2f / %5.2f (max %d) | contacts %6.1f / "
               "%6.1f | RTF %6.2f\n",
               who, all.steps, Ms(all.mean_seconds), Ms(all.median_seconds), Ms(all.max_seconds),
               Ms(settled.mean_seconds), Ms(settled.median_seconds), all.mean_iterations,
               settled.mean_iterations, all.max_iterations, all.mean_contacts,
               settled.mean_contacts, RealTimeFactor(all, dt));
}

void PrintSplit(std::FILE* out, const char* label, const StepSample& m) {
  const double other_solve = m.solve - m.assembly - m.factorization - m.line_search;
  const double rest = m.seconds - m.free_motion - m.collision - m.build - m.solve;
  std::fprintf(out,
               "  split %-8s ms/step: free motion %.3f | collision %.3f | build %.3f | "
               "H assembly %.3f | factorization %.3f | line search %.3f | other solve %.3f | "
               "rest %.3f\n",
               label, Ms(m.free_motion), Ms(m.collision), Ms(m.build), Ms(m.assembly),
               Ms(m.factorization), Ms(m.line_search), Ms(other_solve), Ms(rest));
}

// Total Newton work of a (mean) step in tree-iterations.
double TotalWork(const StepSample& m) {
  double total = 0.0;
  for (double w : m.work_by_size) total += w;
  return total;
}

// csim's Newton work per step (tree-iterations) by island size and by island iterations.
void PrintWork(std::FILE* out, const char* label, const StepSample& m) {
  std::fprintf(out, "  work %-8s tree-iterations/step %.1f | by island trees", label, TotalWork(m));
  for (int b = 0; b < kWorkSizeBuckets; ++b)
    std::fprintf(out, " %s: %.1f", WorkSizeLabel(b), m.work_by_size[b]);
  std::fprintf(out, " | by island iterations");
  for (int b = 0; b < kWorkIterationBuckets; ++b)
    std::fprintf(out, " %s: %.1f", WorkIterationLabel(b), m.work_by_iterations[b]);
  std::fprintf(out, " | by update");
  for (int b = 0; b < kWorkKinds; ++b)
    std::fprintf(out, " %s: %.1f", WorkKindLabel(b), m.work_by_kind[b]);
  std::fprintf(out, "\n");
}

// What the collision time went to: csim's narrow-phase pairs per (mean) step.
void PrintPairs(std::FILE* out, const StepSample& all, const StepSample& settled) {
  std::fprintf(out,
               "  collision pairs per step (all / settled): narrow phase %.1f / %.1f | touching "
               "%.1f / %.1f | both with extended features %.1f / %.1f\n",
               all.narrow_phase_pairs, settled.narrow_phase_pairs, all.touching_pairs,
               settled.touching_pairs, all.feature_pairs, settled.feature_pairs);
}

// csim's momentum error over all steps (SAP eq. 32), against the tolerance eps_r that SAP
// eq. 26 guarantees it meets; the cost criterion (docs/design/sap-solver.md §2.2) gives no such
// bound.
void PrintAccuracy(std::FILE* out, const ConfigResult& r) {
  const SeriesSummary& a = r.csim_all;
  std::fprintf(out,
               "  csim momentum error (SAP eq. 32) over all steps: max %.2e, median %.2e | "
               "steps stopped by SAP eq. 26: %d, max %.2e (eps_r %.0e) | by the cost "
               "criterion: %d",
               a.max_momentum_error(), a.median_momentum_error, a.steps - a.cost_criterion_steps,
               a.max_certified_error, r.relative_tolerance, a.cost_criterion_steps);
  if (a.cost_criterion_steps > 0) std::fprintf(out, ", max %.2e", a.max_cost_criterion_error);
  std::fprintf(out, "\n");
}

// --compare: the paired solves (bench/paired_solve.h), per problem.
void PrintPaired(std::FILE* out, const ConfigResult& r) {
  const PairedSummary& p = r.paired;
  const double n = std::max(p.problems, 1);
  auto ratio = [](double b, double a) { return a > 0.0 ? b / a : 0.0; };
  std::fprintf(out, "  paired solves (A: the run's solver settings, B: --compare %s): the %d steps' "
               "contact problems, each solved again from its warm start by both, order alternating\n",
               r.compared.c_str(), p.problems);
  std::fprintf(out, "  paired A / B per problem: Newton rounds %.2f / %.2f | tree-iterations %.1f / %.1f "
               "(B/A %.3f) | solve ms %.4f / %.4f (B/A %.3f) | failures %d / %d | max momentum error "
               "%.3g / %.3g | max |v_B - v_A| %.3g | A's re-solves identical to the steps': %s\n",
               p.a.rounds / n, p.b.rounds / n, p.a.work / n, p.b.work / n, ratio(p.b.work, p.a.work),
               Ms(p.a.seconds / n), Ms(p.b.seconds / n), ratio(p.b.seconds, p.a.seconds),
               p.a.failures, p.b.failures, p.a.max_momentum_error, p.b.max_momentum_error,
               p.max_velocity_difference, p.a_reproduces_steps ? "yes" : "NO");
  if (p.a.failures > 0) std::fprintf(out, "  paired A's first failure: %s\n", p.a.first_failure.c_str());
  if (p.b.failures > 0) std::fprintf(out, "  paired B's first failure: %s\n", p.b.first_failure.c_str());
}

}  // namespace

void PrintConfig(const ConfigResult& r, std::FILE* out) {
  std::fprintf(out, "== %s: %s (settled = steps %d..%d)\n", ConfigName(r.config).c_str(),
               r.scene_command.c_str(), r.settled_first, r.steps);
  if (r.csim_failed) std::fprintf(out, "  csim FAILED: %s\n", r.csim_error.c_str());
  PrintLine(out, "csim", r.csim_all, r.csim_settled, r.dt);
  std::fprintf(out, "  csim islands per step %.1f / %.1f, size-weighted island iterations %.2f / %.2f, "
               "kinetic energy %.3g / %.3g J (all / settled)\n", r.csim_all.mean_islands,
               r.csim_settled.mean_islands, r.csim_all.mean_island_iterations,
               r.csim_settled.mean_island_iterations, r.csim_all.mean.kinetic_energy,
               r.csim_settled.mean.kinetic_energy);
  PrintAccuracy(out, r);
  PrintSplit(out, "all", r.csim_all.mean);
  PrintSplit(out, "settled", r.csim_settled.mean);
  PrintPairs(out, r.csim_all.mean, r.csim_settled.mean);
  PrintWork(out, "all", r.csim_all.mean);
  PrintWork(out, "settled", r.csim_settled.mean);
  const SeriesSummary& l = r.csim_last_second;
  std::fprintf(out, "  last second (steps %d..%d): csim ms/step mean %.3f median %.3f | iters %.2f "
               "(size-weighted %.2f) | kinetic energy %.3g J", r.last_second_first, r.steps,
               Ms(l.mean_seconds), Ms(l.median_seconds), l.mean_iterations,
               l.mean_island_iterations, l.mean.kinetic_energy);
  if (r.has_mujoco && r.mujoco_last_second.steps > 0)
    std::fprintf(out, " | MuJoCo ms/step mean %.3f, iters %.2f (%d steps)",
                 Ms(r.mujoco_last_second.mean_seconds), r.mujoco_last_second.mean_iterations,
                 r.mujoco_last_second.steps);
  if (r.has_mujoco && r.mujoco_last_second.steps == 0)
    std::fprintf(out, " | MuJoCo did not reach it");
  std::fprintf(out, "\n");
  if (r.repeats > 1)
    std::fprintf(out, "  csim times: fastest of %d runs per window (same simulation)\n", r.repeats);
  if (!r.compared.empty()) PrintPaired(out, r);
  if (r.has_mujoco) {
    PrintLine(out, "MuJoCo", r.mujoco_all, r.mujoco_settled, r.dt);
    if (!r.mujoco_note.empty()) std::fprintf(out, "  MuJoCo: %s\n", r.mujoco_note.c_str());
    std::fprintf(out, "  MuJoCo/csim time per step over the %d common steps: %.2f\n",
                 r.mujoco_steps, Ratio(r));
  }
  std::fflush(out);
}

void PrintSummary(const std::vector<ConfigResult>& results, std::FILE* out) {
  std::fprintf(out,
               "\n| configuration | csim ms/step mean (median) | settled | iters all / settled "
               "| contacts | settled KE [J] | csim RTF | MuJoCo ms/step (steps) | MuJoCo iters | MuJoCo/csim |\n"
               "|---|---|---|---|---|---|---|---|---|---|\n");
  for (const ConfigResult& r : results) {
    // A failed csim run says so, and after how many steps: its figures cover only those.
    const std::string name =
        ConfigName(r.config) +
        (r.csim_failed ? " (csim failed after " + std::to_string(r.steps) + " steps)" : "");
    std::fprintf(out, "| %s | %.3f (%.3f) | %.3f | %.2f / %.2f | %.0f | %.2g | %.2f |",
                 name.c_str(), Ms(r.csim_all.mean_seconds),
                 Ms(r.csim_all.median_seconds), Ms(r.csim_settled.mean_seconds),
                 r.csim_all.mean_iterations, r.csim_settled.mean_iterations,
                 r.csim_all.mean_contacts, r.csim_settled.mean.kinetic_energy,
                 RealTimeFactor(r.csim_all, r.dt));
    if (r.has_mujoco) {
      std::fprintf(out, " %.3f (%d) | %.2f | %.2f |\n", Ms(r.mujoco_all.mean_seconds),
                   r.mujoco_steps, r.mujoco_all.mean_iterations, Ratio(r));
    } else {
      std::fprintf(out, " - | - | - |\n");
    }
  }
  std::fflush(out);
}

void WriteCsv(const std::vector<ConfigResult>& results, const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) throw std::runtime_error("cannot write " + path);
  std::fprintf(f,
               "objects,walls,dt,steps,csim_ok,csim_ms_mean,csim_ms_median,csim_ms_max,"
               "csim_settled_ms_mean,csim_settled_ms_median,csim_iters_mean,"
               "csim_settled_iters_mean,csim_iters_max,csim_contacts_mean,"
               "csim_settled_contacts_mean,csim_rtf,csim_islands_mean,"
               "csim_island_iters_mean,csim_settled_island_iters_mean,free_motion_ms,collision_ms,build_ms,"
               "assembly_ms,factorization_ms,line_search_ms,solve_ms,mujoco_steps,"
               "mujoco_ms_mean,mujoco_ms_median,mujoco_settled_ms_mean,mujoco_iters_mean,"
               "mujoco_settled_iters_mean,mujoco_contacts_mean,csim_common_ms_mean,"
               "mujoco_over_csim,csim_kinetic_energy_mean,csim_settled_kinetic_energy_mean,"
               "columns,csim_last_second_ms_mean,csim_last_second_ms_median,"
               "csim_last_second_iters_mean,csim_last_second_island_iters_mean,"
               "csim_last_second_kinetic_energy_mean,mujoco_last_second_ms_mean,"
               "mujoco_last_second_iters_mean,csim_repeats,csim_settled_free_motion_ms,"
               "csim_settled_collision_ms,csim_settled_build_ms,csim_settled_solve_ms,"
               "column_spacing,csim_work_mean,csim_settled_work_mean,"
               "csim_last_second_work_mean,csim_settled_narrow_phase_pairs,"
               "csim_settled_touching_pairs,csim_settled_feature_pairs,csim_eps_r,"
               "csim_momentum_error_max,csim_momentum_error_median,"
               "csim_certified_momentum_error_max,csim_cost_criterion_steps,"
               "csim_cost_criterion_momentum_error_max,csim_work_predicted_mean,"
               "csim_work_active_set_mean,csim_work_smooth_mean,"
               "csim_settled_work_predicted_mean,csim_settled_work_active_set_mean,"
               "csim_settled_work_smooth_mean,seed,scene\n");
  for (const ConfigResult& r : results) {
    const StepSample& m = r.csim_all.mean;
    std::fprintf(f, "%d,%d,%g,%d,%d,%.6f,%.6f,%.6f,%.6f,%.6f,%.4f,%.4f,%d,%.2f,%.2f,%.4f,",
                 r.config.objects, r.config.walls ? 1 : 0, r.dt, r.steps, r.csim_failed ? 0 : 1,
                 Ms(r.csim_all.mean_seconds), Ms(r.csim_all.median_seconds),
                 Ms(r.csim_all.max_seconds), Ms(r.csim_settled.mean_seconds),
                 Ms(r.csim_settled.median_seconds), r.csim_all.mean_iterations,
                 r.csim_settled.mean_iterations, r.csim_all.max_iterations,
                 r.csim_all.mean_contacts, r.csim_settled.mean_contacts,
                 RealTimeFactor(r.csim_all, r.dt));
    std::fprintf(f, "%.2f,%.4f,%.4f,", r.csim_all.mean_islands, r.csim_all.mean_island_iterations,
                 r.csim_settled.mean_island_iterations);
    std::fprintf(f, "%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,", Ms(m.free_motion), Ms(m.collision),
                 Ms(m.build), Ms(m.assembly), Ms(m.factorization), Ms(m.line_search),
                 Ms(m.solve));
    if (r.has_mujoco) {
      std::fprintf(f, "%d,%.6f,%.6f,%.6f,%.4f,%.4f,%.2f,%.6f,%.4f,", r.mujoco_steps,
                   Ms(r.mujoco_all.mean_seconds), Ms(r.mujoco_all.median_seconds),
                   Ms(r.mujoco_settled.mean_seconds), r.mujoco_all.mean_iterations,
                   r.mujoco_settled.mean_iterations, r.mujoco_all.mean_contacts,
                   Ms(r.csim_common.mean_seconds), Ratio(r));
    } else {
      std::fprintf(f, "0,,,,,,,,,");
    }
    std::fprintf(f, "%.6g,%.6g,", r.csim_all.mean.kinetic_energy,
                 r.csim_settled.mean.kinetic_energy);
    const SeriesSummary& l = r.csim_last_second;
    std::fprintf(f, "%d,%.6f,%.6f,%.4f,%.4f,%.6g,", r.config.columns, Ms(l.mean_seconds),
                 Ms(l.median_seconds), l.mean_iterations, l.mean_island_iterations,
                 l.mean.kinetic_energy);
    if (r.has_mujoco && r.mujoco_last_second.steps > 0) {  // empty if its budget ran out
      std::fprintf(f, "%.6f,%.4f,", Ms(r.mujoco_last_second.mean_seconds),
                   r.mujoco_last_second.mean_iterations);
    } else {
      std::fprintf(f, ",,");
    }
    const StepSample& s = r.csim_settled.mean;
    std::fprintf(f, "%d,%.6f,%.6f,%.6f,%.6f,%g,", r.repeats, Ms(s.free_motion),
                 Ms(s.collision), Ms(s.build), Ms(s.solve), r.config.column_spacing);
    std::fprintf(f, "%.3f,%.3f,%.3f,", TotalWork(m), TotalWork(s), TotalWork(l.mean));
    std::fprintf(f, "%.2f,%.2f,%.2f,", s.narrow_phase_pairs, s.touching_pairs, s.feature_pairs);
    const SeriesSummary& a = r.csim_all;
    std::fprintf(f, "%g,%.4g,%.4g,%.4g,%d,%.4g,", r.relative_tolerance, a.max_momentum_error(),
                 a.median_momentum_error, a.max_certified_error, a.cost_criterion_steps,
                 a.max_cost_criterion_error);
    std::fprintf(f, "%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%d,%s\n", m.work_by_kind[0],
                 m.work_by_kind[1], m.work_by_kind[2], s.work_by_kind[0], s.work_by_kind[1],
                 s.work_by_kind[2], r.config.seed,
                 r.config.scene.empty() ? "" : ConfigName(r.config).c_str());
  }
  std::fclose(f);
}

}  // namespace csim::bench

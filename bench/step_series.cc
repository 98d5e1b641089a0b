#include "bench/step_series.h"

#include <algorithm>

namespace csim::bench {

double Median(std::vector<double> x) {
  if (x.empty()) return 0.0;
  const size_t mid = x.size() / 2;
  std::nth_element(x.begin(), x.begin() + mid, x.end());
  const double upper = x[mid];
  if (x.size() % 2 == 1) return upper;
  return 0.5 * (upper + *std::max_element(x.begin(), x.begin() + mid));
}

namespace {

void Accumulate(const StepSample& s, double w, StepSample* sum) {
  sum->seconds += w * s.seconds;
  sum->free_motion += w * s.free_motion;
  sum->collision += w * s.collision;
  sum->build += w * s.build;
  sum->assembly += w * s.assembly;
  sum->factorization += w * s.factorization;
  sum->line_search += w * s.line_search;
  sum->solve += w * s.solve;
  sum->narrow_phase_pairs += w * s.narrow_phase_pairs;
  sum->touching_pairs += w * s.touching_pairs;
  sum->feature_pairs += w * s.feature_pairs;
  sum->kinetic_energy += w * s.kinetic_energy;
  for (int b = 0; b < kWorkSizeBuckets; ++b) sum->work_by_size[b] += w * s.work_by_size[b];
  for (int b = 0; b < kWorkIterationBuckets; ++b)
    sum->work_by_iterations[b] += w * s.work_by_iterations[b];
  for (int b = 0; b < kWorkKinds; ++b) sum->work_by_kind[b] += w * s.work_by_kind[b];
}

}  // namespace

int WorkSizeBucket(int trees) {
  int b = 0;
  while (b + 1 < kWorkSizeBuckets && trees >= (2 << b)) ++b;  // [2^b, 2^(b+1))
  return b;
}

int WorkIterationBucket(int iterations) {
  if (iterations <= 1) return 0;
  if (iterations <= 4) return 1;
  if (iterations <= 9) return 2;
  if (iterations <= 19) return 3;
  return 4;
}

const char* WorkSizeLabel(int bucket) {
  static const char* const kLabels[kWorkSizeBuckets] = {"1", "2-3", "4-7", "8-15", "16-31",
                                                         "32-63", "64+"};
  return kLabels[bucket];
}

const char* WorkIterationLabel(int bucket) {
  static const char* const kLabels[kWorkIterationBuckets] = {"0-1", "2-4", "5-9", "10-19",
                                                              "20+"};
  return kLabels[bucket];
}

const char* WorkKindLabel(int kind) {
  static const char* const kLabels[kWorkKinds] = {"predicted", "active-set change", "smooth"};
  return kLabels[kind];
}

SeriesSummary Summarize(const std::vector<StepSample>& samples, int first, int last) {
  SeriesSummary r;
  first = std::max(first, 0);
  last = std::min<int>(last, static_cast<int>(samples.size()));
  if (last <= first) return r;
  r.steps = last - first;
  const double w = 1.0 / r.steps;
  std::vector<double> times, errors;
  times.reserve(r.steps);
  errors.reserve(r.steps);
  double iterations = 0.0, contacts = 0.0, island_iterations = 0.0, islands = 0.0;
  for (int i = first; i < last; ++i) {
    const StepSample& s = samples[i];
    times.push_back(s.seconds);
    errors.push_back(s.momentum_error);
    if (s.cost_criterion) {
      ++r.cost_criterion_steps;
      r.max_cost_criterion_error = std::max(r.max_cost_criterion_error, s.momentum_error);
    } else {
      r.max_certified_error = std::max(r.max_certified_error, s.momentum_error);
    }
    Accumulate(s, w, &r.mean);
    r.total_seconds += s.seconds;
    r.max_seconds = std::max(r.max_seconds, s.seconds);
    r.max_iterations = std::max(r.max_iterations, s.iterations);
    iterations += s.iterations;
    contacts += s.contacts;
    island_iterations += s.island_iterations;
    islands += s.islands;
  }
  r.mean_seconds = r.mean.seconds;
  r.median_seconds = Median(std::move(times));
  r.median_momentum_error = Median(std::move(errors));
  r.mean_iterations = iterations * w;
  r.mean_contacts = contacts * w;
  r.mean_island_iterations = island_iterations * w;
  r.mean_islands = islands * w;
  return r;
}

}  // namespace csim::bench

// csim_geometry_sweep: the contact-honesty property (contact_honesty_sweep.h) over many more
// random pairs than the unit test draws, printed as a Markdown table.
// Usage: csim_geometry_sweep [--pairs N] [--seed S] [--margin M] [--kind a-b]
// (--kind: only that pair kind, e.g. box-mesh, with the seed it has in the full sweep)
// tools/run_geometry_sweep.sh runs it and writes results/contact_geometry_sweep.md.

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "tests/geometry/contact_honesty_sweep.h"

using csim::geometry::ShapeType;
using csim::geometry::ShapeTypeName;
namespace t = csim::geometry::test;

int main(int argc, char** argv) {
  int pairs = 20000;
  uint64_t seed = 1000;
  double margin = 1e-3;
  std::string only;  // "a-b": one pair kind
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--pairs") pairs = std::atoi(argv[i + 1]);
    else if (flag == "--seed") seed = std::strtoull(argv[i + 1], nullptr, 10);
    else if (flag == "--margin") margin = std::atof(argv[i + 1]);
    else if (flag == "--kind") only = argv[i + 1];
    else {
      std::fprintf(stderr, "usage: %s [--pairs N] [--seed S] [--margin M] [--kind a-b]\n",
                   argv[0]);
      return 2;
    }
  }
  std::printf("| pair | pairs | within margin | overlapping | numeric reference | worst "
              "dishonesty [m] | worst deepest error [m] | worst / tolerance | failures |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|\n");
  const auto types = t::AllPairShapeTypes();
  int total_failures = 0, total_pairs = 0;
  for (size_t i = 0; i < types.size(); ++i) {
    for (size_t j = i; j < types.size(); ++j) {
      if (types[i] == ShapeType::kHalfspace && types[j] == ShapeType::kHalfspace) continue;
      const uint64_t kind_seed = seed++;
      const std::string kind = std::string(ShapeTypeName(types[i])) + "-" + ShapeTypeName(types[j]);
      if (!only.empty() && kind != only) continue;
      const t::HonestySweepStats s = t::SweepPairKind(types[i], types[j], pairs, kind_seed, margin);
      const double ratio = std::max(s.worst_dishonesty_ratio, s.worst_deepest_ratio);
      std::printf("| %s-%s | %d | %d | %d | %d | %.2e | %.2e | %.3f | %d |\n",
                  ShapeTypeName(types[i]), ShapeTypeName(types[j]), s.pairs, s.within_margin,
                  s.overlapping, s.numeric, s.worst_dishonesty, s.worst_deepest_error, ratio,
                  s.failures);
      std::fflush(stdout);
      for (const std::string& r : s.failure_reports) std::fprintf(stderr, "%s\n", r.c_str());
      total_failures += s.failures;
      total_pairs += s.pairs;
    }
  }
  std::printf("\n%d pairs, %d failures (margin %g m, tolerance 1e-6 m + 1e-6 of the summed "
              "bounding radii)\n", total_pairs, total_failures, margin);
  return total_failures == 0 ? 0 : 1;
}

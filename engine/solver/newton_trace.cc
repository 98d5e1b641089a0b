#include "engine/solver/newton_trace.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>

#include "engine/solver/sap_stopping_criteria.h"

namespace csim::solver {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace

void NewtonTrace::Clear() {
  current_.clear();
  island_of_clique_.clear();
  segments_.clear();
  iterates_.clear();
  rows_.clear();
}

void NewtonTrace::BeginRound(const Islands& islands, const std::vector<char>& solved) {
  const int K = islands.num_islands;
  current_.resize(K);
  for (std::vector<Iterate>& c : current_) c.clear();
  solved_ = solved;
  first_clique_.resize(K);
  for (int i = 0; i < K; ++i) first_clique_[i] = islands.cliques[islands.clique_start[i]];
  island_of_clique_.push_back(islands.island_of_clique);
}

void NewtonTrace::RecordIterate(int i, const SapIslandState& s) {
  current_[i].push_back({s.ell, s.g2, s.p2, s.j2, kNaN});
}

void NewtonTrace::RecordStep(int i, double alpha) { current_[i].back().alpha = alpha; }

void NewtonTrace::EndRound(const std::vector<SapIslandState>& island) {
  const int round = static_cast<int>(island_of_clique_.size()) - 1;
  for (size_t i = 0; i < current_.size(); ++i) {
    if (!solved_[i] || current_[i].empty()) continue;
    Segment s;
    s.round = round;
    s.island = static_cast<int>(i);
    s.first_clique = first_clique_[i];
    s.start = island[i].prior_iterations;
    s.first = static_cast<int>(iterates_.size());
    s.count = static_cast<int>(current_[i].size());
    iterates_.insert(iterates_.end(), current_[i].begin(), current_[i].end());
    segments_.push_back(s);
  }
}

void NewtonTrace::Compose(const Islands& islands) {
  rows_.clear();
  // A segment is replaced at the start of the first later segment whose island holds its
  // cliques (islands only ever merge, so holding one of them is holding all).
  int last = -1;
  for (Segment& s : segments_) {
    s.end = INT_MAX;
    for (const Segment& t : segments_)
      if (t.round > s.round && island_of_clique_[t.round][s.first_clique] == t.island)
        s.end = std::min(s.end, t.start);
    if (s.end == INT_MAX) last = std::max(last, s.start + s.count - 1);
  }
  if (last < 0) return;
  // The order of the sums: by final island, then in the order solved (see the top of
  // newton_trace.h).
  std::vector<int> order(segments_.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = static_cast<int>(k);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return islands.island_of_clique[segments_[a].first_clique] <
           islands.island_of_clique[segments_[b].first_clique];
  });
  for (int m = 0; m <= last; ++m) {
    double cost = 0.0, g2 = 0.0, p2 = 0.0, j2 = 0.0, alpha = kNaN;
    bool merged = false;
    for (int k : order) {
      const Segment& s = segments_[k];
      if (m < s.start || m >= s.end) continue;
      merged = merged || (s.round > 0 && m == s.start);  // an island a merge formed starts
      const int r = std::min(m - s.start, s.count - 1);
      const Iterate& it = iterates_[s.first + r];
      cost += it.ell;
      g2 += it.g2;
      p2 += it.p2;
      j2 += it.j2;
      // A step from here only if the island was still at this iterate (not stopped).
      if (m - s.start == r && !std::isnan(it.alpha) && !(it.alpha >= alpha))
        alpha = it.alpha;
    }
    rows_.push_back({m, cost, std::sqrt(g2), MomentumErrorOfSums(g2, p2, j2), alpha, merged});
  }
}

}  // namespace csim::solver

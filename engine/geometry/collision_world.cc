#include "engine/geometry/collision_world.h"

#include <algorithm>
#include <utility>

#include "engine/common/check.h"
#include "engine/geometry/contact_shape.h"
#include "engine/geometry/narrow_phase.h"
#include "engine/geometry/sweep_and_prune.h"

namespace csim::geometry {
namespace {

// Sorts pairs (i, j), 0 <= i < j < n, in lexicographic order in O(n + pairs): a counting
// sort on i, then insertion sort, which only has to order each run of equal i by j (an
// entry has a handful of partners): std::sort of the pairs showed in the profile of large
// piles. `first` and `scratch` are reused buffers.
void SortPairs(int n, std::vector<std::pair<int, int>>* pairs, std::vector<int>* first,
               std::vector<std::pair<int, int>>* scratch) {
  first->assign(n + 1, 0);
  for (const auto& p : *pairs) ++(*first)[p.first + 1];
  for (int i = 0; i < n; ++i) (*first)[i + 1] += (*first)[i];
  scratch->resize(pairs->size());
  for (const auto& p : *pairs) (*scratch)[(*first)[p.first]++] = p;
  for (size_t k = 1; k < scratch->size(); ++k) {
    const std::pair<int, int> moving = (*scratch)[k];
    size_t q = k;
    for (; q > 0 && moving < (*scratch)[q - 1]; --q) (*scratch)[q] = (*scratch)[q - 1];
    (*scratch)[q] = moving;
  }
  pairs->swap(*scratch);
}

}  // namespace

struct CollisionWorld::Impl {
  // One colliding geometry.
  struct Entry {
    int geometry;                  // index of its spec
    int body;                      // -1: world
    math::RigidTransform X_BG;
    ContactShape shape;
    math::RigidTransform X_WG;     // filled by UpdatePoses()
    Eigen::Vector3d lo, hi;        // tight world bounds at X_WG [m]
    HydroelasticProperties hydroelastic;
    double inflation = 0.0;        // [m] a compliant geometry's hydroelastic margin
  };

  int num_specs = 0;
  CollisionFilter filter;
  std::vector<Entry> entries;
  std::vector<int> entry_of_geometry;  // spec index -> entry, -1 for visual geometry
  std::vector<int> halfspaces;         // entries that are halfspaces
  std::vector<int> swept;              // the other entries; box k of the sweep is swept[k]
  std::vector<math::RigidTransform> visual_poses;  // X_BG of visual specs (geometry_pose)
  SweepAndPrune sweep;
  std::vector<std::pair<int, int>> boxes;  // overlapping box pairs (scratch, reused)
  std::vector<std::pair<int, int>> pairs;  // candidate entry pairs (scratch, reused)
  std::vector<std::pair<int, int>> sorted_pairs;  // SortPairs' scratch
  std::vector<int> pair_first;                    // SortPairs' scratch
  CollisionCounts counts;                         // of the last FindContacts()
  std::vector<GeometryPair> hydroelastic_pairs;   // of the last FindContacts()

  bool Allowed(int i, int j) const {
    return !filter.Excludes(entries[i].body, entries[j].body);
  }

  void AddSweptPairs(double margin, const std::vector<double>& extra);
  void AddHalfspacePairs(double margin, const std::vector<double>& extra);
  double Extra(const std::vector<double>& extra, int entry) const {
    const int body = entries[entry].body;
    return body >= 0 && !extra.empty() ? extra[body] : 0.0;
  }
};

// Inflates every swept entry's tight bounds by margin / 2 plus its body's extra margin per
// side, so two boxes overlap when the pair is within its pair margin, and adds the allowed
// overlapping pairs.
void CollisionWorld::Impl::AddSweptPairs(double margin, const std::vector<double>& extra) {
  for (int k = 0; k < static_cast<int>(swept.size()); ++k) {
    const Entry& e = entries[swept[k]];
    const Eigen::Vector3d pad =
        Eigen::Vector3d::Constant(0.5 * margin + Extra(extra, swept[k]) + e.inflation);
    sweep.SetBox(k, e.lo - pad, e.hi + pad);
  }
  boxes.clear();
  sweep.FindOverlaps(&boxes);
  for (const auto& [k, l] : boxes) {
    const int i = swept[k], j = swept[l];
    if (Allowed(i, j)) pairs.emplace_back(std::min(i, j), std::max(i, j));
  }
}

// Halfspace h against every other geometry whose bounds dip below height margin.
void CollisionWorld::Impl::AddHalfspacePairs(double margin, const std::vector<double>& extra) {
  for (int h : halfspaces) {
    const Eigen::Vector3d n = entries[h].X_WG.R.col(2);
    for (int i = 0; i < static_cast<int>(entries.size()); ++i) {
      const Entry& e = entries[i];
      if (i == h || e.shape.type() == ShapeType::kHalfspace || !Allowed(h, i)) continue;
      const Eigen::Vector3d centre = 0.5 * (e.lo + e.hi), half = 0.5 * (e.hi - e.lo);
      const double lowest = n.dot(centre - entries[h].X_WG.p) - n.cwiseAbs().dot(half);
      const double reach = margin + Extra(extra, i) + e.inflation + entries[h].inflation;
      if (lowest < reach) pairs.emplace_back(std::min(h, i), std::max(h, i));
    }
  }
}

CollisionWorld::CollisionWorld(const std::vector<CollisionObjectSpec>& specs,
                               CollisionFilter filter)
    : impl_(std::make_unique<Impl>()) {
  Impl& w = *impl_;
  w.num_specs = static_cast<int>(specs.size());
  w.filter = std::move(filter);
  w.entry_of_geometry.assign(specs.size(), -1);
  w.entries.reserve(specs.size());
  for (int g = 0; g < w.num_specs; ++g) {
    const CollisionObjectSpec& spec = specs[g];
    w.visual_poses.push_back(spec.geometry.X_BG);
    if (!spec.geometry.collide) continue;
    w.entry_of_geometry[g] = static_cast<int>(w.entries.size());
    const HydroelasticProperties& h = spec.geometry.hydroelastic;
    w.entries.push_back({g, spec.body, spec.geometry.X_BG, ContactShape(spec.geometry),
                         spec.geometry.X_BG, Eigen::Vector3d::Zero(), Eigen::Vector3d::Zero(), h,
                         h.compliance == Compliance::kCompliant ? h.margin : 0.0});
  }
  for (int i = 0; i < static_cast<int>(w.entries.size()); ++i) {
    Impl::Entry& e = w.entries[i];
    e.shape.CalcLooseWorldBounds(e.X_WG, &e.lo, &e.hi);
    if (e.shape.type() == ShapeType::kHalfspace) {
      CSIM_CHECK(w.filter.IsFixed(e.body));
      w.halfspaces.push_back(i);
    } else {
      w.swept.push_back(i);
    }
  }
  w.sweep.Resize(static_cast<int>(w.swept.size()));
}

CollisionWorld::~CollisionWorld() = default;
CollisionWorld::CollisionWorld(CollisionWorld&&) noexcept = default;
CollisionWorld& CollisionWorld::operator=(CollisionWorld&&) noexcept = default;

int CollisionWorld::num_geometries() const { return impl_->num_specs; }

void CollisionWorld::UpdatePoses(const std::vector<math::RigidTransform>& X_WB) {
  for (Impl::Entry& e : impl_->entries) {
    if (e.body >= 0) {
      CSIM_CHECK(e.body < static_cast<int>(X_WB.size()));
      e.X_WG = X_WB[e.body] * e.X_BG;
    }
    // The sweep only proposes pairs: a box around the tight one proposes a few more, which
    // the narrow phase then finds apart, and the contacts stay the same.
    e.shape.CalcLooseWorldBounds(e.X_WG, &e.lo, &e.hi);
  }
}

const CollisionCounts& CollisionWorld::counts() const { return impl_->counts; }

const std::vector<GeometryPair>& CollisionWorld::hydroelastic_pairs() const {
  return impl_->hydroelastic_pairs;
}

const math::RigidTransform& CollisionWorld::geometry_pose(int g) const {
  CSIM_CHECK(g >= 0 && g < impl_->num_specs);
  const int e = impl_->entry_of_geometry[g];
  return e >= 0 ? impl_->entries[e].X_WG : impl_->visual_poses[g];
}

void CollisionWorld::FindContacts(double margin, std::vector<PointContact>* out) {
  static const std::vector<double> kNoExtra;
  FindContacts(margin, kNoExtra, out);
}

void CollisionWorld::FindContacts(double margin, const std::vector<double>& extra,
                                  std::vector<PointContact>* out) {
  CSIM_CHECK(margin >= 0.0);
  Impl& w = *impl_;
  out->clear();
  w.pairs.clear();
  w.AddSweptPairs(margin, extra);
  w.AddHalfspacePairs(margin, extra);
  // Each pair is found once (the sweep reports a pair of boxes once, halfspaces are not
  // swept), so sorting alone gives the deterministic order.
  SortPairs(static_cast<int>(w.entries.size()), &w.pairs, &w.pair_first, &w.sorted_pairs);
  CollisionCounts& counts = w.counts;
  counts = CollisionCounts{};
  w.hydroelastic_pairs.clear();
  for (const auto& [i, j] : w.pairs) {
    const Impl::Entry& a = w.entries[i];
    const Impl::Entry& b = w.entries[j];
    if (HasContactSurface(a.hydroelastic, a.shape.type(), b.hydroelastic, b.shape.type())) {
      w.hydroelastic_pairs.push_back({a.geometry, b.geometry, a.body, b.body});
      continue;
    }
    ++counts.narrow_phase_pairs;
    const size_t first = out->size();
    const double pair_margin = margin + w.Extra(extra, i) + w.Extra(extra, j);
    CalcPairContacts(a.shape, a.X_WG, b.shape, b.X_WG, pair_margin, out);
    counts.touching_pairs += out->size() > first;
    counts.feature_pairs += HasExtendedFeatures(a.shape) && HasExtendedFeatures(b.shape);
    for (size_t k = first; k < out->size(); ++k) {
      PointContact& c = (*out)[k];
      c.geometry_a = a.geometry;
      c.geometry_b = b.geometry;
      c.body_a = a.body;
      c.body_b = b.body;
    }
  }
}

}  // namespace csim::geometry

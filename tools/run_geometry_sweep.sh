#!/usr/bin/env bash
# Writes results/contact_geometry_sweep.md: the contact-honesty property of the narrow
# phase (tests/geometry/contact_honesty_sweep.h: every reported point's phi0 is at least
# the pair's true signed distance, and the deepest equals it within the margin) over many
# random pairs of every pair kind, rich in hard cases, against the independent reference
# of tests/geometry/reference_signed_distance.h. The unit test draws 2000 pairs per kind;
# this draws more, with other seeds.
# Usage: tools/run_geometry_sweep.sh [pairs per kind, default 50000]
#   BUILD_DIR (default: build) is configured and csim_geometry_sweep built there (Release).
set -euo pipefail
cd "$(dirname "$0")/.."
pairs="${1:-50000}"
build_dir="${BUILD_DIR:-build}"
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build_dir" -j2 --target csim_geometry_sweep >/dev/null
out=results/contact_geometry_sweep.md
start=$(date +%s)
table=$("$build_dir/tests/csim_geometry_sweep" --pairs "$pairs" 2> >(tee "$build_dir/geometry_sweep_failures.txt" >&2)) \
  && status=0 || status=$?
elapsed=$(( $(date +%s) - start ))
{
  echo "# Contact honesty: random pairs against an exact signed distance"
  echo
  echo "Made by \`tools/run_geometry_sweep.sh $pairs\` ($elapsed s on $(nproc) cores)."
  echo "Each pair kind draws $pairs random pairs (tests/geometry/contact_honesty_sweep.h:"
  echo "nearly parallel faces, edges and corners on faces, equal shapes turned about a"
  echo "shared axis with flush faces, deep and shallow overlap, gaps within and just beyond"
  echo "the margin). A point is dishonest when its phi0 lies below the pair's true signed"
  echo "distance; the deepest error is |deepest phi0 - true| over pairs within the margin."
  echo "The reference is exact (enumerated) for pairs of boxes, meshes, spheres, capsules"
  echo "and halfspaces and a numeric search on the sphere of directions for pairs with a"
  echo "cylinder or an ellipsoid. Both errors must stay below the tolerance."
  echo
  echo "$table"
} > "$out"
echo "wrote $out" >&2
exit "$status"

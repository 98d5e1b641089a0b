#!/usr/bin/env bash
# Unpacks the robot models csim's URDF and MJCF readers are tested on, from Debian 12's own
# packages, without installing them:
#   dart-doc            DART's example data: urdf/wam (Barrett WAM), urdf/KR5 (KUKA KR5),
#                       urdf/drchubo (DRC-Hubo), mjcf/openai (the Fetch robotics models)
#   libmujoco-samples   MuJoCo's sample models (model/mug, ...)
# `apt-get download` fetches the .deb files and `dpkg -x` unpacks them under DEST, so this
# needs no root and works where /usr/share/doc is excluded from installs (Debian's Docker
# images). Debian compresses the larger files under /usr/share/doc; every *.gz under the
# model folders is unpacked next to itself, named without .gz, so the readers find wam.urdf
# where DART's files refer to it.
# Nothing here is csim's: the files keep their packages' licences and are never committed.
# Idempotent: a stamp file in DEST records what was unpacked; a second run does nothing.
# Safe to start twice at once (the unit tests may): the second waits for the first.
# Usage: tools/fetch-models.sh [DEST, default build/models in the source tree]
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
dest="${1:-$root/build/models}"
packages=(dart-doc libmujoco-samples)
model_dirs=(usr/share/doc/dart/data usr/share/mujoco/model)
stamp_name=.fetch-models.stamp

mkdir -p "$dest"
dest="$(cd "$dest" && pwd)"
exec 9>"$dest/.fetch-models.lock"
flock 9

# The stamp's first line names the packages unpacked; the next ones their versions.
expected="${packages[*]}"
if [[ -f "$dest/$stamp_name" ]] && [[ "$(head -n1 "$dest/$stamp_name")" == "$expected" ]]; then
  echo "fetch-models: already in $dest ($(tail -n +2 "$dest/$stamp_name" | tr '\n' ' '))"
  exit 0
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get download -q "${packages[@]}")
versions=()
for deb in "$work"/*.deb; do
  dpkg -x "$deb" "$dest"
  versions+=("$(dpkg-deb -f "$deb" Package)=$(dpkg-deb -f "$deb" Version)")
done

for dir in "${model_dirs[@]}"; do
  [[ -d "$dest/$dir" ]] || { echo "fetch-models: $dest/$dir missing after unpacking" >&2; exit 1; }
  find "$dest/$dir" -type f -name '*.gz' -print0 |
    while IFS= read -r -d '' gz; do gunzip -c "$gz" >"${gz%.gz}"; done
done

{ echo "$expected"; printf '%s\n' "${versions[@]}"; } >"$dest/$stamp_name"
echo "fetch-models: unpacked ${versions[*]} into $dest"
for dir in "${model_dirs[@]}"; do
  echo "  $dest/$dir: $(find "$dest/$dir" -type f ! -name '*.gz' | wc -l) files"
done
urdf="$dest/usr/share/doc/dart/data/urdf"
echo "  URDF:  $urdf/wam/wam.urdf, $urdf/KR5/KR5 sixx R650.urdf, $urdf/drchubo/drchubo.urdf"
echo "  MJCF:  $dest/usr/share/doc/dart/data/mjcf/openai/robotics/fetch/*.xml,"
echo "         $dest/usr/share/mujoco/model/*/"

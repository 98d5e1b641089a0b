#!/usr/bin/env bash
# Fingerprints of what a csim binary simulates: runs every scene in scenes/ and the
# benchmark's clutter-40 and clutter-160 with walls, and prints one line per scene,
#   NAME  SHA256  rows=N status=STATUS
# where SHA256 is taken over the simulation results in its HDF5 output. Two binaries that
# print the same lines simulate the same thing bit for bit; a refactoring that must not
# change behaviour is checked by comparing its listing with the one of the commit before
# (results/output_hashes.md holds a baseline listing and the command that made it).
#
# Usage:
#   tools/hash_outputs.sh CSIM [-- CSIM_RUN_OPTIONS...] > hashes.txt
#   tools/hash_outputs.sh --compare A.txt B.txt     # exit 1 when any scene differs
#     (A or B may be results/output_hashes.md: only its listing's lines are read)
#   tools/hash_outputs.sh --datasets RUN.h5         # one hash per dataset of one file
# CSIM_RUN_OPTIONS go to every `csim run`, e.g. `-- --threads 2` (docs/cli.md promises
# the same results on any number of threads). Plain `diff A.txt B.txt` works as well: the
# lines come in a fixed order.
#
# The benchmark scenes: csim_bench writes neither its scenes nor an HDF5 file; it runs
# tools/make_clutter.py into a temporary file (bench/clutter_scene.cc) and steps the scene
# in memory. This script runs the generator with the arguments csim_bench gives it by
# default (-n N --dt 0.002 --duration 2 --seed 1, with walls) and simulates the scene
# with `csim run`, so csim_bench itself is not needed.
#
# What the hash covers (docs/output-format.md): every dataset of the file, by path, with
# its type, shape and bytes (/time, /step, /status, /state, /bodies, /energy, /solver,
# /contacts where written, /model), and the root attributes that record the run's settings
# and outcome (time_step, duration, integrator, theta, theta_q, contact_model,
# gyroscopic, scene_name, format, format_version, failure_reason).
# What it leaves out, because it changes from run to run or with things that are not
# simulation results:
#   /solver/wall_time            wall-clock time of each step;
#   root attribute created       the date and time of the run;
#   root attribute csim_version  the program's version and git commit;
#   root attribute scene_file    the path of the scene as given on the command line;
#   /scene (yaml, overrides)     the scene text as read, comments included: an echo of
#                                the input, not a result;
#   attributes of datasets       units, descriptions and HDF5 dimension-scale links
#                                (object references differ between files).
# The file records no host information.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
python=/usr/bin/python3

# The hashing itself, in Python with h5py: hash FILE prints "SHA256 rows=N status=S",
# datasets FILE prints "SHA256 PATH" per dataset and attribute.
hasher='
import hashlib, sys
import h5py
import numpy as np

EXCLUDED_DATASETS = {"solver/wall_time"}
EXCLUDED_GROUPS = ("scene/",)
EXCLUDED_ATTRIBUTES = {"created", "csim_version", "scene_file"}

def canonical(value):
    """Bytes of a dataset or attribute value, independent of how HDF5 stored them."""
    if isinstance(value, (bytes, str)):
        value = np.array([value], dtype=object)
    value = np.asarray(value)
    if value.dtype.kind in "OSU":  # strings: each UTF-8 encoded, with its length
        out = bytearray()
        for item in value.reshape(-1):
            item = item.encode() if isinstance(item, str) else bytes(item).rstrip(b"\0")
            out += len(item).to_bytes(8, "little") + item
        return b"str" + bytes(out)
    value = np.ascontiguousarray(value, dtype=value.dtype.newbyteorder("<"))
    return value.dtype.str.encode() + repr(value.shape).encode() + value.tobytes()

def parts(path):
    """(name, bytes) of every hashed dataset and root attribute, in a fixed order."""
    out = []
    with h5py.File(path, "r") as f:
        for name in sorted(f.attrs):
            if name not in EXCLUDED_ATTRIBUTES:
                out.append(("@" + name, canonical(f.attrs[name])))
        names = []
        f.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else None)
        for name in sorted(names):
            if name in EXCLUDED_DATASETS or name.startswith(EXCLUDED_GROUPS):
                continue
            out.append((name, canonical(f[name][()])))
        rows = len(f["time"]) if "time" in f else 0
        status = f["status"][()] if "status" in f else b"none"
        status = status.decode() if isinstance(status, bytes) else str(status)
    return out, rows, status.rstrip("\0")

mode, path = sys.argv[1], sys.argv[2]
items, rows, status = parts(path)
if mode == "datasets":
    for name, data in items:
        print(hashlib.sha256(data).hexdigest(), name)
else:
    total = hashlib.sha256()
    for name, data in items:
        total.update(name.encode() + b"\0" + len(data).to_bytes(8, "little") + data)
    print(total.hexdigest(), "rows=%d" % rows, "status=%s" % status)
'

usage() {
  sed -n '/^# Usage:/,/^# lines come/p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

if [[ $# -ge 1 && "$1" == "--compare" ]]; then
  [[ $# -eq 3 ]] || usage
  # Join on the scene name; a scene in one listing only counts as a difference. Only
  # lines "NAME HASH ..." count, so a listing inside a text (results/output_hashes.md)
  # compares as it is.
  "$python" - "$2" "$3" <<'EOF'
import re, sys
LINE = re.compile(r"^(\S+)\s+([0-9a-f]{64}\b.*|no-output\b.*)$")
def listing(path):
    out = {}
    for line in open(path):
        match = LINE.match(line.strip())
        if match:
            out[match.group(1)] = " ".join(match.group(2).split())
    return out
a, b = listing(sys.argv[1]), listing(sys.argv[2])
differ = 0
for name in sorted(set(a) | set(b)):
    same = a.get(name) == b.get(name)
    differ += not same
    print(("same      " if same else "DIFFERENT ") + name)
    if not same:
        print("  A: %s\n  B: %s" % (a.get(name, "(missing)"), b.get(name, "(missing)")))
print("%d of %d scenes differ" % (differ, len(set(a) | set(b))))
sys.exit(1 if differ else 0)
EOF
  exit $?
fi

if [[ $# -ge 1 && "$1" == "--datasets" ]]; then
  [[ $# -eq 2 ]] || usage
  exec "$python" -c "$hasher" datasets "$2"
fi

[[ $# -ge 1 && "$1" != -* ]] || usage
csim="$1"
shift
run_options=()
if [[ $# -ge 1 ]]; then
  [[ "$1" == "--" ]] || usage
  shift
  run_options=("$@")
fi
[[ -x "$csim" ]] || { echo "hash_outputs.sh: $csim is not an executable" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The robot models some scenes import (build/models, as those scenes name it).
"$root/tools/fetch-models.sh" "$root/build/models" > /dev/null
# The benchmark's scenes, as csim_bench generates them by default.
scenes=("$root"/scenes/*.yaml)
for n in 40 160; do
  "$python" "$root/tools/make_clutter.py" -n "$n" --dt 0.002 --duration 2 --seed 1 \
    -o "$work/bench_clutter_${n}_walls.yaml"
  scenes+=("$work/bench_clutter_${n}_walls.yaml")
done

for scene in "${scenes[@]}"; do
  name=$(basename "$scene" .yaml)
  status=0
  # A failed run (exit 3) still writes its file; its hash records the failure too.
  "$csim" run "$scene" -q -o "$work/$name.h5" "${run_options[@]}" || status=$?
  if [[ ! -f "$work/$name.h5" ]]; then
    echo "$name  no-output exit=$status"
    continue
  fi
  echo "$name  $("$python" -c "$hasher" hash "$work/$name.h5")"
  rm -f "$work/$name.h5"
done

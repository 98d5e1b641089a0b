#!/usr/bin/env bash
# Runs a Catch2 test program's cases in P parallel processes, for the sanitized test program
# of .ci/run, whose single process would leave one of the machine's cores idle
# (results/sanitizers.md). The cases are dealt into 4 P shards (every 4P-th test name of the
# program's own list, written to a file with Catch2's special characters escaped), and P
# workers take the shards one after another, so a worker that drew quick cases takes more
# shards instead of waiting for the other. The run fails if any shard fails, or if the
# shards together did not run every listed case exactly once.
# Usage: tools/run_test_shards.sh PROGRAM [P, default 2]
# Shard K's output, with each case's duration, goes to PROGRAM.shardK.log beside the
# program; a failing shard's is printed.
set -euo pipefail
program=$1
processes=${2:-2}
shards=$((4 * processes))
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Catch2 exits with the number of cases listed, not 0.
"$program" --list-test-names-only > "$work/listing" || true
sed '/^$/d' "$work/listing" > "$work/names"
total=$(wc -l < "$work/names")
if [[ $total -eq 0 ]]; then echo "$program lists no test case"; exit 1; fi
# In a test spec, ',' separates names, '[' opens a tag, '*' is a wildcard, a leading '~'
# negates and '"' quotes; '\' escapes each of them.
sed 's/[][\\,*"~]/\\&/g' "$work/names" |
  awk -v n="$shards" -v dir="$work" '{ print > (dir "/shard" (NR - 1) % n) }'

# One shard: its cases, its log, and its exit status in a file (xargs keeps going).
run_shard() {
  local k=$1
  if "$program" -f "$work/shard$k" --durations yes > "$program.shard$k.log" 2>&1; then
    echo 0 > "$work/status$k"
  else
    echo 1 > "$work/status$k"
  fi
}
export -f run_shard
export program work
seq 0 $((shards - 1)) | xargs -P "$processes" -I{} bash -c 'run_shard {}'

status=0
ran=0
for ((k = 0; k < shards; ++k)); do
  log="$program.shard$k.log"
  if [[ "$(cat "$work/status$k" 2>/dev/null)" != 0 ]]; then
    status=1
    echo "shard $k of $shards failed:"
    cat "$log"
  fi
  # "All tests passed (A assertions in C test cases)" or "test cases: C | ..."
  cases=$(grep -Eo '(in [0-9]+ test cases?\)|test cases: +[0-9]+)' "$log" | grep -Eo '[0-9]+' |
          tail -n 1)
  grep -E '^(All tests passed|test cases:)' "$log" | tail -n 1 | sed "s/^/shard $k: /"
  ran=$((ran + ${cases:-0}))
done
if [[ $status -eq 0 && $ran -ne $total ]]; then
  echo "the shards ran $ran test cases of the $total listed"
  status=1
fi
exit $status

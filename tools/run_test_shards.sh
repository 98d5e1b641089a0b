#!/usr/bin/env bash
# Runs a Catch2 test program's cases in N parallel processes (shards), for the sanitized
# test program of .ci/run, whose single process would leave one of the machine's cores idle
# (results/sanitizers.md). Each shard gets every N-th test name (the program's own list, in
# its order), written to a file with Catch2's special characters escaped; the run fails if
# any shard fails, or if the shards together did not run every listed case exactly once.
# Usage: tools/run_test_shards.sh PROGRAM [SHARDS, default 2]
# A shard's output goes to PROGRAM.shardK.log beside the program; a failing shard's is printed.
set -euo pipefail
program=$1
shards=${2:-2}
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

pids=()
for ((k = 0; k < shards; ++k)); do
  log="$program.shard$k.log"
  "$program" -f "$work/shard$k" --durations yes > "$log" 2>&1 &
  pids+=($!)
done
status=0
ran=0
for ((k = 0; k < shards; ++k)); do
  log="$program.shard$k.log"
  if ! wait "${pids[$k]}"; then
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

#!/usr/bin/env bash
# Issue 22 item 4: the browser suite N times in a row while a busy loop keeps one core busy.
# Run it in a clean clone of main after build-scripts/setup and build-scripts/build:
#   git clone -q <repo> /tmp/series && cd /tmp/series && bash build-scripts/setup && bash build-scripts/build
#   bash tests/browser/busy-loop-series.sh 5 /tmp/series-out
# Each run's output goes to OUT/runK.log and one line per run to OUT/summary.txt; the series
# stops at the first red run (a red run must mean a defect: read its log before going on).
set -u
N=${1:-5}
OUT=${2:-build/busy-loop}
mkdir -p "$OUT"
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
bash -c 'while :; do :; done' &
BUSY=$!
trap 'kill $BUSY 2>/dev/null' EXIT
echo "series at $(git log --oneline -1 | cut -c1-7), $N runs, busy loop pid $BUSY" >> "$OUT/summary.txt"
for i in $(seq 1 "$N"); do
  start=$(date -u +%H:%M:%S); t0=$(date +%s)
  node tests/browser/run.mjs > "$OUT/run$i.log" 2>&1; rc=$?
  t1=$(date +%s)
  echo "run $i: $start-$(date -u +%H:%M:%S) UTC, rc=$rc, $((t1 - t0)) s, $(grep -E '^# (pass|fail) ' "$OUT/run$i.log" | tr '\n' ' ')" >> "$OUT/summary.txt"
  [ "$rc" -ne 0 ] && break
done

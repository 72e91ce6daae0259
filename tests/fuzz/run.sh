#!/usr/bin/env bash
# Builds the libFuzzer target (CMake preset `fuzz`: clang 14, ASan + UBSan) and
# runs it for a bounded time: every input of the committed seed corpus first
# (tests/fuzz/corpus, the defects of issue 13 among them), then new inputs.
# New interesting inputs go to build/fuzz/corpus-work, never into the repo;
# a failing input is saved as build/fuzz/artifacts/crash-* and the run fails.
# Usage: tests/fuzz/run.sh [seconds=60] [extra libFuzzer flags...]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
seconds="${1:-60}"
shift || true

cmake --preset fuzz >/dev/null
cmake --build --preset fuzz
mkdir -p build/fuzz/corpus-work build/fuzz/artifacts
# detect_leaks: LeakSanitizer after every input that allocated more than it freed
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
exec build/fuzz/fuzz_engine -max_total_time="$seconds" -max_len=4096 -timeout=20 -rss_limit_mb=2048 \
  -print_final_stats=1 -artifact_prefix=build/fuzz/artifacts/ "$@" \
  build/fuzz/corpus-work tests/fuzz/corpus

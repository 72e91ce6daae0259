#!/bin/sh
# Before/after of multihead_attention's per-group switch in one run:
#   engine/bench/heads-bench.sh OLD_BINARY [ROUNDS]
# OLD_BINARY: attn_heads_bench built against the older library and header,
# e.g. (from a checkout of the older commit, after its native-release build)
#   g++ -std=c++17 -O3 -march=native -Iengine/include engine/bench/heads_bench.cpp \
#       build/native-release/libattn_engine.a -o /tmp/heads_bench_before
# The two binaries alternate for ROUNDS rounds (default 3), so load from
# other jobs falls on both; each prints the best of its runs (thread CPU time).
set -eu
old=$1
rounds=${2:-3}
new=$(dirname "$0")/../../build/native-release/attn_heads_bench
i=0
while [ "$i" -lt "$rounds" ]; do
  "$old" --label before --runs 3
  "$new" --label after --runs 3 --calls-per-group
  i=$((i + 1))
done

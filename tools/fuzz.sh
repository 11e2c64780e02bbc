#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) and runs each for a bounded time,
# seeded from the sample graphs and golden files: tools/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET="${1:-60}"

cmake -S . -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DREMAT_BUILD_FUZZ=ON -DREMAT_SANITIZE=ON -DREMAT_BUILD_TESTS=OFF -DREMAT_BUILD_BENCH=OFF >/dev/null
cmake --build build-fuzz

corpus=build-fuzz/corpus/fxgraph_json
mkdir -p "$corpus"
cp -n tests/data/torch-1.13/*.json tests/golden/io/*.json "$corpus"/ 2>/dev/null || true
log=build-fuzz/fuzz_fxgraph_json.log
rc=0
build-fuzz/fuzz/fuzz_fxgraph_json -max_total_time="$SECONDS_PER_TARGET" -max_len=65536 \
  -print_final_stats=1 -artifact_prefix=build-fuzz/ "$corpus" >"$log" 2>&1 || rc=$?
if [[ $rc -ne 0 ]]; then
  tail -60 "$log"
  echo "fuzz: fuzz_fxgraph_json FAILED (crash input under build-fuzz/)"
  exit 1
fi
runs=$(grep -E "^stat::number_of_executed_units" "$log" | awk '{print $2}')
echo "fuzz: fuzz_fxgraph_json ran ${SECONDS_PER_TARGET}s, ${runs:-?} inputs, no failure"

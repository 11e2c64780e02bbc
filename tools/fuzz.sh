#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) and runs each for a bounded time,
# seeded from the sample graphs and golden files: tools/fuzz.sh [SECONDS]
# The mutation seed is fixed (REMAT_FUZZ_SEED, default 1) so a CI run is reproducible; set
# another seed, or run longer, to explore.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET="${1:-60}"

cmake -S . -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DREMAT_BUILD_FUZZ=ON -DREMAT_SANITIZE=ON -DREMAT_BUILD_TESTS=OFF -DREMAT_BUILD_BENCH=OFF -DREMAT_WITH_TORCH=OFF >/dev/null
# Only the fuzz targets: Debian's clang 14 lacks std::source_location, which the tracer uses.
cmake --build build-fuzz --target fuzz_fxgraph_json fuzz_readable fuzz_schema

# run_target NAME SEED_FILES...: fuzz for SECONDS_PER_TARGET seconds from a seeded corpus.
run_target() {
  local name=$1
  shift
  local corpus=build-fuzz/corpus/$name log=build-fuzz/$name.log rc=0
  mkdir -p "$corpus"
  cp -n "$@" "$corpus"/ 2>/dev/null || true
  build-fuzz/fuzz/"$name" -max_total_time="$SECONDS_PER_TARGET" -max_len=65536 \
    -seed="${REMAT_FUZZ_SEED:-1}" -print_final_stats=1 -artifact_prefix=build-fuzz/"$name"- \
    "$corpus" >"$log" 2>&1 || rc=$?
  if [[ $rc -ne 0 ]]; then
    tail -60 "$log"
    echo "fuzz: $name FAILED (crash input under build-fuzz/)"
    return 1
  fi
  local runs
  runs=$(grep -E "^stat::number_of_executed_units" "$log" | awk '{print $2}')
  echo "fuzz: $name ran ${SECONDS_PER_TARGET}s, ${runs:-?} inputs, no failure"
}

status=0
run_target fuzz_fxgraph_json tests/data/torch-1.13/*.json tests/golden/io/*.json || status=1
run_target fuzz_readable tests/data/torch-1.13/*.txt tests/golden/print/*.txt \
  tests/golden/print/samples/*.txt || status=1
run_target fuzz_schema fuzz/seeds/schema/* || status=1
exit $status

#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) and fuzzes each one, seeded from the
# sample graphs, the golden files, the crafted inputs of tests/security/ and fuzz/seeds/<target>/
# (past findings):
#   tools/fuzz.sh --runs N   N inputs per target from a fresh corpus with a fixed mutation seed:
#                            the same commit always runs the same inputs (what CI does)
#   tools/fuzz.sh [SECONDS]  explore for SECONDS per target (default 60), keeping the corpus in
#                            build-fuzz/corpus/ between runs; REMAT_FUZZ_SEED picks the seed
# A crash leaves its input under build-fuzz/; add it to fuzz/seeds/<target>/ with the fix.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=""
SECONDS_PER_TARGET=60
if [[ "${1:-}" == "--runs" ]]; then
  RUNS="${2:?--runs needs a count}"
elif [[ -n "${1:-}" ]]; then
  SECONDS_PER_TARGET="$1"
fi

cmake -S . -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo -DREMAT_BUILD_PYTHON=OFF \
  -DREMAT_BUILD_FUZZ=ON -DREMAT_SANITIZE=ON -DREMAT_BUILD_TESTS=OFF -DREMAT_BUILD_BENCH=OFF -DREMAT_WITH_TORCH=OFF >/dev/null
# Only the fuzz targets: Debian's clang 14 lacks std::source_location, which the tracer uses.
cmake --build build-fuzz --target fuzz_fxgraph_json fuzz_partition_record fuzz_readable fuzz_schema \
  fuzz_trace_log

# run_target NAME SEED_FILES...: fuzz one target from a seeded corpus.
run_target() {
  local name=$1
  shift
  local corpus=build-fuzz/corpus/$name log=build-fuzz/$name.log rc=0 limit
  if [[ -n "$RUNS" ]]; then
    rm -rf "$corpus"
    limit=(-runs="$RUNS")
  else
    limit=(-max_total_time="$SECONDS_PER_TARGET")
  fi
  mkdir -p "$corpus"
  # Seeds keep their folder in their name: files of the same name in two folders both count.
  local f
  for f in "$@"; do cp "$f" "$corpus/$(basename "$(dirname "$f")")_$(basename "$f")"; done
  if [[ -d fuzz/seeds/$name ]]; then cp -n fuzz/seeds/"$name"/* "$corpus"/ 2>/dev/null || true; fi
  # Trace-log records are independent of each other: 8 KB inputs reach every path, ten times faster.
  local max_len=65536
  [[ $name == fuzz_trace_log ]] && max_len=8192
  build-fuzz/fuzz/"$name" "${limit[@]}" -max_len="$max_len" \
    -seed="${REMAT_FUZZ_SEED:-1}" -print_final_stats=1 -artifact_prefix=build-fuzz/"$name"- \
    "$corpus" >"$log" 2>&1 || rc=$?
  if [[ $rc -ne 0 ]]; then
    tail -60 "$log"
    echo "fuzz: $name FAILED (crash input under build-fuzz/)"
    return 1
  fi
  local runs
  runs=$(grep -E "^stat::number_of_executed_units" "$log" | awk '{print $2}')
  echo "fuzz: $name ran ${runs:-?} inputs, no failure"
}

status=0
run_target fuzz_fxgraph_json tests/data/torch-1.13/*.json tests/golden/io/*.json tests/security/*.json || status=1
run_target fuzz_readable tests/data/torch-1.13/*.txt tests/golden/print/*.txt \
  tests/golden/print/samples/*.txt tests/golden/print/eras/*.txt || status=1
run_target fuzz_partition_record tests/data/records/*.json || status=1
run_target fuzz_schema || status=1
run_target fuzz_trace_log tests/data/tlparse-logs/*.log tests/security/*.log || status=1
exit $status

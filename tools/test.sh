#!/usr/bin/env bash
# The whole test suite, as CI runs it (.ci/run): warnings as errors, every gtest binary, the
# same tests under AddressSanitizer + UndefinedBehaviorSanitizer, the clang-format check, and a
# bounded fuzzing run of every parser. Ends with one "tests: N passed, N failed" line.
set -euo pipefail
cd "$(dirname "$0")/.."
# A fixed number of inputs per target, so that a commit passes or fails the same way every time.
FUZZ_RUNS="${REMAT_FUZZ_RUNS:-200000}"

tools/setup.sh --deps-only

total_passed=0
total_failed=0
run_ctest() {  # run_ctest BUILD_DIR LABEL
  local log
  log=$(mktemp)
  local rc=0
  ctest --test-dir "$1" -j2 --output-on-failure >"$log" 2>&1 || rc=$?
  # Progress lines are noise; failures (with their output) and the summary are kept.
  grep -v -E "^ *Start +[0-9]+:|^ *[0-9]+/[0-9]+ Test +#[0-9]+:.* Passed" "$log" || true
  local line
  line=$(grep -E "tests passed, [0-9]+ tests? failed out of [0-9]+" "$log" | tail -1 || true)
  rm -f "$log"
  if [[ -z "$line" ]]; then echo "test: $2: ctest printed no summary"; exit 1; fi
  local failed total
  failed=$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\1/' <<<"$line")
  total=$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\2/' <<<"$line")
  total_passed=$((total_passed + total - failed))
  total_failed=$((total_failed + failed))
  echo "test: $2: $line"
  return "$rc"
}

status=0
echo "== build (warnings as errors)"
# REMAT_BUILD_PYTHON=ON: without pybind11 this fails here instead of skipping the Python tests.
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DREMAT_WERROR=ON -DREMAT_BUILD_PYTHON=ON >/dev/null
cmake --build build
run_ctest build "gcc" || status=1

echo "== format (clang-format, .clang-format)"
format_log=$(mktemp)
if tools/format.sh --check >"$format_log" 2>&1; then
  total_passed=$((total_passed + 1))
else
  status=1
  total_failed=$((total_failed + 1))
fi
tail -n 20 "$format_log"
rm -f "$format_log"

echo "== Python (pytest, Debian's python3-torch)"
pytest_log=$(mktemp)
pytest_rc=0
# -s: the saved-set table beside functorch's min-cut is part of the output.
PYTHONPATH=build/python REMAT_EXE=build/remat /usr/bin/python3 -m pytest -q -s -p no:cacheprovider python/tests >"$pytest_log" 2>&1 || pytest_rc=$?
tail -n 25 "$pytest_log"
pytest_line=$(tail -n 1 "$pytest_log")
rm -f "$pytest_log"
count_of() { sed -nE "s/.* ([0-9]+) $1.*/\1/p; s/^([0-9]+) $1.*/\1/p" <<<"$pytest_line" | head -1; }
py_passed=$(count_of passed); py_failed=$(count_of failed); py_errors=$(count_of error)
total_passed=$((total_passed + ${py_passed:-0}))
total_failed=$((total_failed + ${py_failed:-0} + ${py_errors:-0}))
if [[ "$pytest_rc" -ne 0 ]]; then
  # 5: nothing collected, which is a failure of its own here.
  echo "test: python: pytest exited with $pytest_rc"
  status=1
  [[ -z "$py_failed$py_errors" ]] && total_failed=$((total_failed + 1))
fi
echo "test: python: ${py_passed:-0} passed, $((${py_failed:-0} + ${py_errors:-0})) failed"

echo "== AddressSanitizer + UndefinedBehaviorSanitizer"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DREMAT_WERROR=ON -DREMAT_SANITIZE=ON -DREMAT_BUILD_PYTHON=OFF \
  -DREMAT_BUILD_BENCH=OFF >/dev/null
cmake --build build-asan
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 run_ctest build-asan "asan+ubsan" || status=1

echo "== fuzzing (${FUZZ_RUNS} inputs per target)"
tools/fuzz.sh --runs "$FUZZ_RUNS" || status=1

echo "tests: ${total_passed} passed, ${total_failed} failed"
exit "$status"

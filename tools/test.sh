#!/usr/bin/env bash
# The whole test suite, as CI runs it (.ci/run): warnings as errors, every gtest binary, the
# clang-format check, the Python tests against PyTorch 2.13 (pip) and Debian's 1.13, `pip install
# .` in a fresh venv, the gtests under AddressSanitizer + UndefinedBehaviorSanitizer, and a
# bounded fuzzing run of every parser. Ends with one "tests: N passed, N failed" line.
set -euo pipefail
cd "$(dirname "$0")/.."
# A fixed number of inputs per target, so that a commit passes or fails the same way every time.
FUZZ_RUNS="${REMAT_FUZZ_RUNS:-200000}"

# The wheel's build (tools/test_pip_install.sh, build-wheel/) compiles the same sources with the
# same flags as build/: without the working folder in its hash, ccache serves them from the first
# build. (Not CCACHE_BASEDIR: it makes the compiler see relative source paths, and __FILE__ and
# std::source_location, which the tracer's stack traces read, with them.)
export CCACHE_NOHASHDIR=1

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
  # CMake 3's ctest: "100% tests passed, 0 tests failed out of 328"; CMake 4's (pip's) leaves
  # out the failures when there are none: "100% tests passed out of 328".
  local line
  line=$(grep -E "tests passed,? .*out of [0-9]+" "$log" | tail -1 || true)
  rm -f "$log"
  if [[ -z "$line" ]]; then echo "test: $2: ctest printed no summary"; exit 1; fi
  local failed total
  failed=$(sed -nE 's/.* ([0-9]+) tests? failed out of .*/\1/p' <<<"$line")
  failed=${failed:-0}
  total=$(sed -E 's/.*out of ([0-9]+).*/\1/' <<<"$line")
  total_passed=$((total_passed + total - failed))
  total_failed=$((total_failed + failed))
  echo "test: $2: $line"
  return "$rc"
}

status=0
# Each part's wall time, printed as it ends and summed up at the end: CI's budget is 45 minutes.
timings=()
part_started=$SECONDS
part() {  # part TITLE: ends the running part (if any) and starts the next
  if [[ -n "${part_title:-}" ]]; then
    local took=$((SECONDS - part_started))
    echo "   ($part_title: ${took} s)"
    timings+=("$part_title ${took} s")
  fi
  part_title="${1:-}"
  part_started=$SECONDS
  [[ -z "$part_title" ]] || echo "== $part_title"
}
part "build (warnings as errors)"
# REMAT_BUILD_PYTHON=ON: without pybind11 this fails here instead of skipping the Python tests.
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DREMAT_WERROR=ON -DREMAT_BUILD_PYTHON=ON >/dev/null
cmake --build build
run_ctest build "gcc" || status=1

part "format (clang-format and ruff)"
format_log=$(mktemp)
if tools/format.sh --check >"$format_log" 2>&1; then
  total_passed=$((total_passed + 1))
else
  status=1
  total_failed=$((total_failed + 1))
fi
tail -n 20 "$format_log"
rm -f "$format_log"

run_pytest() {  # run_pytest LABEL PYTHON: the Python tests under one interpreter (one PyTorch era)
  local log rc=0
  log=$(mktemp)
  # -s: the saved-set tables beside PyTorch's partitioners are part of the output.
  PYTHONPATH=build/python REMAT_EXE=build/remat "$2" -m pytest -q -s -p no:cacheprovider python/tests >"$log" 2>&1 || rc=$?
  tail -n 25 "$log"
  local line
  line=$(tail -n 1 "$log")
  rm -f "$log"
  count_of() { sed -nE "s/.* ([0-9]+) $1.*/\1/p; s/^([0-9]+) $1.*/\1/p" <<<"$line" | head -1; }
  local passed failed errors
  passed=$(count_of passed); failed=$(count_of failed); errors=$(count_of error)
  total_passed=$((total_passed + ${passed:-0}))
  total_failed=$((total_failed + ${failed:-0} + ${errors:-0}))
  if [[ "$rc" -ne 0 ]]; then
    # 5: nothing collected, which is a failure of its own here.
    echo "test: $1: pytest exited with $rc"
    [[ -z "$failed$errors" ]] && total_failed=$((total_failed + 1))
  fi
  echo "test: $1: ${passed:-0} passed, $((${failed:-0} + ${errors:-0})) failed"
  return "$rc"
}

part "Python (pytest, PyTorch 2.13 from pip)"
run_pytest "python (torch 2.13)" python3 || status=1
if /usr/bin/python3 -c "import torch" 2>/dev/null; then
  part "Python (pytest, Debian's python3-torch)"
  run_pytest "python (Debian's torch)" /usr/bin/python3 || status=1
fi

part "pip install . (a fresh venv)"
pip_log=$(mktemp)
pip_rc=0
tools/test_pip_install.sh >"$pip_log" 2>&1 || pip_rc=$?
tail -n 20 "$pip_log"
pip_line=$(grep -E "^pip install: [0-9]+ passed, [0-9]+ failed" "$pip_log" | tail -1 || true)
rm -f "$pip_log"
pip_passed=$(sed -nE 's/^pip install: ([0-9]+) passed.*/\1/p' <<<"$pip_line")
pip_failed=$(sed -nE 's/.* ([0-9]+) failed.*/\1/p' <<<"$pip_line")
total_passed=$((total_passed + ${pip_passed:-0}))
total_failed=$((total_failed + ${pip_failed:-1}))
[[ "$pip_rc" -eq 0 ]] || status=1

part "AddressSanitizer + UndefinedBehaviorSanitizer"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DREMAT_WERROR=ON -DREMAT_SANITIZE=ON -DREMAT_BUILD_PYTHON=OFF \
  -DREMAT_BUILD_BENCH=OFF >/dev/null
cmake --build build-asan
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 run_ctest build-asan "asan+ubsan" || status=1

part "fuzzing (${FUZZ_RUNS} inputs per target)"
tools/fuzz.sh --runs "$FUZZ_RUNS" || status=1

part
echo "test: times: $(printf "%s, " "${timings[@]}")all ${SECONDS} s"
echo "tests: ${total_passed} passed, ${total_failed} failed"
exit "$status"

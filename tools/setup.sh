#!/usr/bin/env bash
# Installs remat's build dependencies from Debian's packages and PyTorch 2.13.0, tlparse 0.4.3 and
# transformers 5.23.0 from PyPI into the machine's pip Python (`python3`; skipping what is
# present), builds HiGHS from PyPI's highspy source (tools/build_highs.sh), then configures and
# builds the remat and remat-check executables into build/. Safe to run again.
#   tools/setup.sh              install what is missing, then build
#   tools/setup.sh --deps-only  only install what is missing
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  cmake ninja-build g++ ccache pkg-config
  clang libclang-rt-14-dev            # libFuzzer and sanitizers for tools/fuzz.sh
  clang-format                        # tools/format.sh, checked by tools/test.sh
  libsimdjson-dev nlohmann-json3-dev libabsl-dev libfmt-dev libcli11-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libtorch-dev                        # ATen: schema and shape oracle in tests, executor
  libboost-graph-dev                  # max-flow for the min-cut partitioner
  libssl-dev                          # MD5 of trace-log payloads
  libjemalloc-dev                     # the executables' allocator (CMakeLists.txt: REMAT_JEMALLOC)
  chromium                            # the report's browser test
  python3-torch python3-networkx python3-pytest  # PyTorch 1.13 (functorch): the Python tests' oracle
  pybind11-dev python3-dev            # the Python package's C++ extension (build/python)
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${#missing[@]} Debian packages: ${missing[*]}"
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
  # apt's progress goes to a log, shown only if it fails.
  apt_log=$(mktemp)
  if ! { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"$apt_log" 2>&1; then
    cat "$apt_log"
    echo "setup: apt-get failed (above)"
    exit 1
  fi
  rm -f "$apt_log"
else
  echo "setup: all ${#PACKAGES[@]} packages present"
fi

# PyPI: PyTorch 2.13 (the live oracle of the Python tests: torch.compile, its partitioner, its
# printer and its TORCH_TRACE logs), tlparse (the report's peer), transformers (the real-model
# corpus: python/tests/transformers_corpus.py), pytest, ruff (the Python formatter
# tools/format.sh checks). torch is pinned exactly:
# the CPU build lies on the machine, an unpinned torch would pull a CUDA build of several GB.
# `python3` is the machine's pip Python; Debian's /usr/bin/python3 keeps its own torch 1.13.
PIP_PYTHON="${REMAT_PYTHON:-python3}"
PIP_PACKAGES=(torch==2.13.0 tlparse==0.4.3 transformers==5.23.0 pytest ruff==0.17.6)
pip_present() {
  "$PIP_PYTHON" - "$@" <<'PY'
import sys
from importlib import metadata
for spec in sys.argv[1:]:
    name, _, version = spec.partition("==")
    try:
        have = metadata.version(name)
    except metadata.PackageNotFoundError:
        sys.exit(1)
    if version and have.split("+")[0] != version:
        sys.exit(1)
PY
}
if [[ "$(command -v "$PIP_PYTHON")" == /usr/bin/python3 ]]; then
  echo "setup: python3 is Debian's /usr/bin/python3; set REMAT_PYTHON to a pip Python 3.11 for PyTorch 2.13"
  exit 1
elif pip_present "${PIP_PACKAGES[@]}"; then
  echo "setup: PyPI packages present: ${PIP_PACKAGES[*]}"
else
  echo "setup: installing from PyPI into $("$PIP_PYTHON" -c 'import sys; print(sys.prefix)'): ${PIP_PACKAGES[*]}"
  pip_log=$(mktemp)
  if ! "$PIP_PYTHON" -m pip install --disable-pip-version-check --root-user-action=ignore "${PIP_PACKAGES[@]}" >"$pip_log" 2>&1; then
    cat "$pip_log"
    echo "setup: pip install failed (above)"
    exit 1
  fi
  rm -f "$pip_log"
fi

tools/build_highs.sh

[[ "${1:-}" == "--deps-only" ]] && exit 0

# The main job needs the two executables, and the Python package in build/python
# (PYTHONPATH=build/python: remat.partition_fn for torch.compile); tools/test.sh builds the tests
# and benchmarks in the same configuration, so nothing is compiled twice.
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DREMAT_WERROR=ON -DREMAT_BUILD_PYTHON=ON >/dev/null
# remat-check comes with remat (remat depends on it when libtorch is there).
cmake --build build --target remat remat_core
echo "setup: built build/remat$([[ -x build/remat-check ]] && echo ', build/remat-check') and the" \
  "Python package in build/python (PYTHONPATH=build/python)"

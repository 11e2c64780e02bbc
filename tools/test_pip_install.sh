#!/usr/bin/env bash
# `pip install .` as a user runs it: a fresh venv, PyTorch 2.13 from pip, then remat from this
# checkout (scikit-build-core builds the C++ core). Checks that the `remat` command is on the
# venv's PATH with remat-check beside it, that the package and its extension import, and that
# remat.partition_fn partitions a torch.compile graph. Prints "pip install: N passed, N failed".
#   tools/test_pip_install.sh [VENV_DIR]    (default: a temporary folder, removed afterwards)
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${1:-}"
if [[ -z "$venv" ]]; then
  venv=$(mktemp -d)
  trap 'rm -rf "$venv"' EXIT
fi
log=$(mktemp)
python3 -m venv "$venv"
"$venv/bin/pip" install --disable-pip-version-check -q torch==2.13.0 >"$log" 2>&1 || { cat "$log"; exit 1; }
# The compiler build/ used: scikit-build-core would take Python's (sysconfig's CXX, g++) where
# CMake took c++, and ccache keys on the compiler's name, so none of build/'s objects would serve.
if [[ -z "${CXX:-}" && -f build/CMakeCache.txt ]]; then
  CXX=$(sed -n 's/^CMAKE_CXX_COMPILER:FILEPATH=//p' build/CMakeCache.txt)
  export CXX
fi
# Warnings as errors, as tools/test.sh builds. (The wheel's build folder compiles everything
# anew unless ccache serves it: tools/test.sh sets CCACHE_NOHASHDIR so that build/ fills it.)
if ! "$venv/bin/pip" install --disable-pip-version-check -q . -Ccmake.define.REMAT_WERROR=ON \
  >"$log" 2>&1; then
  cat "$log"
  echo "pip install: 0 passed, 1 failed"
  exit 1
fi
rm -f "$log"
passed=0 failed=0
check() {  # check NAME COMMAND...
  if "${@:2}" >/dev/null 2>&1; then passed=$((passed + 1)); else echo "pip install: FAILED: $1"; failed=$((failed + 1)); fi
}
check "remat on the venv's PATH" test "$(PATH="$venv/bin:/usr/bin:/bin" command -v remat)" = "$venv/bin/remat"
check "remat --version" "$venv/bin/remat" --version
check "remat-check beside remat" test -x "$venv/bin/remat-check"
check "remat trace runs" "$venv/bin/remat" trace --model seed
cd /  # import the installed package, not the checkout's python/ folder
check "import remat, remat._core" "$venv/bin/python" -c "import remat, remat._core"
check "partition_fn under torch.compile" "$venv/bin/python" -c "
import torch, remat
from functorch.compile import make_boxed_func
from torch._dynamo.backends.common import aot_autograd
model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.GELU(), torch.nn.Linear(4, 1))
compiled = torch.compile(model, backend=aot_autograd(fw_compiler=lambda g, _: make_boxed_func(g), partition_fn=remat.partition_fn))
compiled(torch.randn(2, 4)).sum().backward()
assert remat.last_report().saved and not remat.last_report().fallback
"
echo "pip install: $passed passed, $failed failed"
[[ "$failed" -eq 0 ]]

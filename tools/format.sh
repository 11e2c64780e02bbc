#!/usr/bin/env bash
# clang-format (the repository's .clang-format) over every C++ source, and ruff's formatter
# (pyproject.toml's [tool.ruff]) over every Python file:
#   tools/format.sh           rewrites the files in place
#   tools/format.sh --check   lists the files it would change and exits 1 if there are any
#                             (tools/test.sh runs this)
set -euo pipefail
cd "$(dirname "$0")/.."
# Tracked files and new ones not yet added (but not ignored ones: build trees).
mapfile -t files < <(git ls-files --cached --others --exclude-standard '*.cpp' '*.h' | grep -v '^tests/data/')
if [[ "${1:-}" == "--check" ]]; then
  bad=0
  for f in "${files[@]}"; do
    if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then
      echo "format: $f differs from clang-format (tools/format.sh rewrites it)"
      bad=$((bad + 1))
    fi
  done
  echo "format: ${#files[@]} files, ${bad} to reformat"
  python_bad=0
  if ! ruff format --check --quiet . >/dev/null 2>&1; then
    python_bad=1
    ruff format --check . 2>/dev/null |
      sed -n 's|^ *--> \([^:]*\):.*|format: \1 differs from ruff format (tools/format.sh rewrites it)|p' || true
  fi
  echo "format: Python: $(ruff format --check . 2>&1 | tail -1 || true)"
  [[ "$bad" -eq 0 && "$python_bad" -eq 0 ]]
else
  clang-format -i "${files[@]}"
  ruff format --quiet .
fi

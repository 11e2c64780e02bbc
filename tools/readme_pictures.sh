#!/usr/bin/env bash
# The README's pictures, made by the quick start's own command: `remat compile` of gpt2 (4
# layers, each checkpointed), then headless Chromium (Debian's) on the report it writes.
#   tools/readme_pictures.sh     rewrites docs/images/{index,partition,joint-graph}.png
# Needs build/remat (tools/setup.sh builds it) and chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
chromium=$(command -v chromium || command -v chromium-browser || true)
[[ -n "$chromium" ]] || { echo "readme_pictures: chromium is not installed" >&2; exit 2; }
[[ -x build/remat ]] || { echo "readme_pictures: build/remat is missing (run tools/setup.sh)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

build/remat compile --model gpt2 --layers 4 --checkpoint each-layer -o "$work/out" >"$work/compile.log"
site="$work/out/report"
compile_dir="$site/-_0_0_0"

shoot() {  # shoot PAGE PNG WIDTH HEIGHT
  timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --user-data-dir="$work/profile" --window-size="$3,$4" --screenshot="$2" "file://$1" \
    >"$work/chromium.log" 2>&1 || { cat "$work/chromium.log" >&2; exit 1; }
  echo "readme_pictures: $2 ($(stat -c %s "$2") bytes) from ${1#"$work"/}"
}

mkdir -p docs/images
shoot "$site/index.html" docs/images/index.png 1100 760
shoot "$(ls "$compile_dir"/remat_partition_*.html | head -1)" docs/images/partition.png 1100 900
shoot "$(ls "$compile_dir"/aot_joint_graph_*.html | head -1)" docs/images/joint-graph.png 1400 820

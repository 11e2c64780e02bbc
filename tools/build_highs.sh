#!/usr/bin/env bash
# Builds and installs HiGHS (the optimal partition's MILP solver) as a static C++ library, from
# the source PyPI's highspy publishes: Debian 12 packages no HiGHS, and highspy's wheels bundle it
# inside a Python module. Skips when that version is installed. About 2 minutes on 2 cores.
#   tools/build_highs.sh [PREFIX]   (default /usr/local, where CMake finds it)
set -euo pipefail
VERSION=1.16.0
PREFIX="${1:-/usr/local}"
PIP_PYTHON="${REMAT_PYTHON:-python3}"
if grep -qs "PACKAGE_VERSION \"$VERSION\"" "$PREFIX/lib/cmake/highs/highs-config-version.cmake"; then
  echo "setup: HiGHS $VERSION present in $PREFIX"
  exit 0
fi
SUDO=""
if [[ $(id -u) -ne 0 && ! -w "$PREFIX" ]]; then SUDO="sudo"; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log="$work/log"
echo "setup: building HiGHS $VERSION from PyPI's highspy source into $PREFIX (about 2 minutes)"
fail() {
  cat "$log"
  echo "setup: HiGHS: $1 failed (above)"
  exit 1
}
"$PIP_PYTHON" -m pip download --disable-pip-version-check --no-deps --no-binary highspy \
  "highspy==$VERSION" -d "$work" >"$log" 2>&1 || fail "pip download"
tar xzf "$work/highspy-$VERSION.tar.gz" -C "$work"
src="$work/highspy-$VERSION"
# The Python source distribution leaves out the command-line app and the pkg-config template
# that HiGHS's CMakeLists.txt still names; empty stand-ins let it configure the library alone.
mkdir -p "$src/app"
touch "$src/app/CMakeLists.txt"
[[ -f "$src/highs.pc.in" ]] || echo "Name: highs" >"$src/highs.pc.in"
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache); fi
cmake -S "$src" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
  -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DBUILD_TESTING=OFF -DBUILD_EXAMPLES=OFF -DZLIB=OFF \
  "${launcher[@]}" -DCMAKE_INSTALL_PREFIX="$PREFIX" >"$log" 2>&1 || fail "configure"
# ccache keys on paths: the fresh temporary folder counts as the same one each time.
CCACHE_BASEDIR="$work" cmake --build "$work/build" >"$log" 2>&1 || fail "build"
$SUDO cmake --install "$work/build" >"$log" 2>&1 || fail "install"
$SUDO rm -f "$PREFIX/lib/pkgconfig/highs.pc"  # the stand-in's, not a usable one
echo "setup: installed HiGHS $VERSION into $PREFIX"

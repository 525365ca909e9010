#!/usr/bin/env bash
# Installs a build folder's `fastmu` program, its plotting scripts and data,
# the Python package, libraries, headers and CMake package under
# CMAKE_INSTALL_PREFIX (default /usr/local: `fastmu` on the PATH and
# `import fastmu` for Debian's python3), through sudo when not root.
# Usage: bash tools/install.sh [build]
set -euo pipefail
build=${1:-build}
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
$SUDO cmake --install "$build"
hash -r
prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$build/CMakeCache.txt")
if [[ $(command -v fastmu) != "$prefix/bin/fastmu" ]]; then
  echo "install: $prefix/bin is not first on PATH: add it (export PATH=\"$prefix/bin:\$PATH\")" >&2
fi

#!/usr/bin/env bash
# Installs fastmu's CMake package from a build folder into a fresh prefix and
# builds and runs examples/cmake_consumer against it (find_package(fastmu CONFIG)).
# Usage: cmake_consumer.sh <source dir> <build dir> <scratch dir>
set -euo pipefail
src=$1 build=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" --component devel > "$work/install.log"
cmake -S "$src/examples/cmake_consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix" \
      -DCMAKE_BUILD_TYPE=Release > "$work/configure.log"
cmake --build "$work/consumer" > "$work/build.log"
"$work/consumer/consumer"

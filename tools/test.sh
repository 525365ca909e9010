#!/usr/bin/env bash
# CI (called by .ci/run): format check; the Release build (CUDA when nvcc is
# present) with the whole test suite; a second build with clang,
# AddressSanitizer + UndefinedBehaviorSanitizer (CUDA, Python and benchmarks
# off) running the C++ tests; and the libFuzzer targets of that build, each
# for FASTMU_FUZZ_SECONDS (default 20; one per core at a time) on its seed
# corpus.
#
# The build folders are $FASTMU_BUILD_ROOT/build and .../build-sanitize:
# by default the checkout's own, or a new temporary folder when the checkout
# is read-only.
set -euo pipefail
if [[ -n ${FASTMU_BUILD_ROOT:-} ]]; then FASTMU_BUILD_ROOT=$(realpath -m "$FASTMU_BUILD_ROOT"); fi
cd "$(dirname "$0")/.."
if [[ -z ${FASTMU_BUILD_ROOT:-} ]]; then
  if [[ -w . ]]; then FASTMU_BUILD_ROOT=.; else FASTMU_BUILD_ROOT=$(mktemp -d -t fastmu-test.XXXXXX); fi
fi
mkdir -p "$FASTMU_BUILD_ROOT"
build=$FASTMU_BUILD_ROOT/build
sanitize=$FASTMU_BUILD_ROOT/build-sanitize
echo "build folders: $build, $sanitize"
jobs=$(nproc)
step() { printf '\n== %s (%(%H:%M:%S)T)\n' "$1" -1; }

step "dependencies"
bash tools/install-deps.sh
if command -v ccache > /dev/null; then
  export CMAKE_C_COMPILER_LAUNCHER=${CMAKE_C_COMPILER_LAUNCHER:-ccache}
  export CMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER:-ccache}
fi

step "format check"
bash tools/check-format.sh

step "Release build and tests"
cuda_args=()
if ! nvidia-smi -L > /dev/null 2>&1; then
  # No GPU here: the CUDA code is compiled for one virtual architecture only
  # (a compile check; the CUDA tests skip), a third of the default's nvcc time.
  cuda_args=(-DCMAKE_CUDA_ARCHITECTURES=90-virtual)
fi
# Tests and benchmarks on, whatever a set-up build in the same folder chose.
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DFASTMU_BUILD_TESTS=ON -DFASTMU_BUILD_BENCH=ON \
  "${cuda_args[@]}"
cmake --build "$build" -j"$jobs"
ctest --test-dir "$build" --output-on-failure -j"$jobs"

step "sanitizer build (clang, ASan + UBSan) and its C++ tests"
# Debug keeps assertions on; its -g is replaced by the sanitizer flags' -gline-tables-only.
cmake -S . -B "$sanitize" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG= -DCMAKE_CXX_FLAGS_DEBUG= \
  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
  -DFASTMU_ENABLE_CUDA=OFF -DFASTMU_BUILD_PYTHON=OFF -DFASTMU_BUILD_BENCH=OFF \
  -DFASTMU_SANITIZERS=address,undefined -DFASTMU_BUILD_FUZZERS=ON
cmake --build "$sanitize" -j"$jobs"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# The packaging tests install and link outside the build, and the doc test
# replays whole example runs (10^6-muon jobs, table builds) that the Release
# suite above has run: under the sanitizers they would take most of CI's time
# and add no code. The hostile inputs stay (their errors are the point here).
ctest --test-dir "$sanitize" --output-on-failure -j"$jobs" -LE "packaging|docs"

step "fuzzers"
bash tools/fuzz.sh "$sanitize" "${FASTMU_FUZZ_SECONDS:-20}"
step "done"

#!/usr/bin/env bash
# Builds fastmu with the CUDA backend HERE and stages, in the git-ignored
# folder .device/, everything the GPU machine needs (it has nvcc and a driver
# but none of the Debian libraries): the executables, the non-glibc shared
# libraries they load, the tables (from the table cache) and the Geant4 slab
# reference, and what the Python extension needs to be built there
# (build_python_module.sh). Then run tools/device/gpu_bench.sh there with
# carry [".device"].
#
#   FASTMU_CACHE=DIR  table cache to take G4_Fe / G4_AIR / G4_CONCRETE (all steps) from
#   EXTRA_MATERIALS="G4_W G4_Pb G4_Cu"  more materials to stage (stepping_bench.sh sheets)
#   BUILD_DIR=DIR     build folder (default build-gpu), JOBS=N parallel jobs (2)
#   FASTMU_CUDA=OFF   build without the CUDA backend (for cpu_bench.sh only)
#   FASTMU_PYTHON=ON  keep the Python extension configured in that build folder
#   OLD_BUILD=DIR     an older build folder: its fastmu and fastmu_bench are staged
#                     as fastmu_old / fastmu_bench_old (same-run baselines)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD_DIR:-$root/build-gpu}
stage=$root/.device
cache=${FASTMU_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fastmu}

cmake -S "$root" -B "$build" -DFASTMU_BUILD_PYTHON=${FASTMU_PYTHON:-OFF} -DFASTMU_ENABLE_CUDA=${FASTMU_CUDA:-ON} \
  -DCMAKE_CUDA_ARCHITECTURES="90-real;90-virtual" -DCMAKE_BUILD_RPATH='$ORIGIN/lib' >/dev/null
cmake --build "$build" --target fastmu fastmu_tests_transport fastmu_bench -j"${JOBS:-2}"

rm -rf "$stage/bin" "$stage/lib"
mkdir -p "$stage/bin" "$stage/lib" "$stage/cache" "$stage/reference"
cp "$build/fastmu" "$build/fastmu_bench" "$build/tests/fastmu_tests_transport" "$stage/bin/"
if [ -n "${OLD_BUILD:-}" ]; then
  for b in fastmu fastmu_bench; do
    [ -f "$OLD_BUILD/$b" ] && cp "$OLD_BUILD/$b" "$stage/bin/${b}_old"
  done
fi
strip --strip-debug "$stage"/bin/*
# Shared libraries other than glibc and the compiler runtime (the device has newer ones).
for b in "$stage"/bin/*; do ldd "$b" | awk '/=> \//{print $3}'; done | sort -u |
  grep -vE '/(libc|libm|libpthread|libdl|librt|libresolv|ld-linux-x86-64|libstdc\+\+|libgcc_s)\.so' |
  while read -r lib; do cp -L "$lib" "$stage/lib/"; done
# Every step of these materials: the per-material steps and their ladders
# (transport/StepLengths.hh), the fixed 2 cm of older builds.
for m in G4_Fe G4_AIR G4_CONCRETE ${EXTRA_MATERIALS:-}; do
  found=0
  for f in "$cache/${m}"_step*_v1.h5; do
    [ -f "$f" ] && cp "$f" "$stage/cache/" && found=1
  done
  [ $found = 1 ] || echo "note: no $cache/${m}_step*_v1.h5 (built on the device if needed)"
done
# What build_python_module.sh needs to build the Python extension there for
# the device's own Python: the static libraries and the header-only packages.
rm -rf "$stage/pylib" "$stage/include"
mkdir -p "$stage/pylib" "$stage/include/fastmu/core"
cp "$build"/src/fastmu/libfastmu_*.a "$stage/pylib/"
cp -r /usr/include/pybind11 /usr/include/nlohmann /usr/include/Random123 "$stage/include/"
cp "$build/include/fastmu/core/Version.hh" "$stage/include/fastmu/core/"
ref="$root/../shared/reference/geant4/slab_G4_Fe_10m_50GeV_mu-.f32"
[ -f "$ref" ] && cp "$ref" "$stage/reference/"
cp "$root/tools/device/gpu_bench.sh" "$root/tools/device/cpu_bench.sh" "$root/tools/device/pipeline_bench.sh" \
  "$root/tools/device/stepping_bench.sh" "$root/tools/device/process_bench.sh" \
  "$root/tools/device/session_bench.sh" "$root/tools/device/long_steps_check.sh" \
  "$root/tools/device/slab_compare.py" "$root/tools/device/window_quantiles.py" \
  "$root/tools/device/ship_reference_check.sh" "$root/tools/device/two_gpu_bench.sh" "$root/tools/device/session7_check.sh" "$root/tools/device/timing.sh" \
  "$root/tools/device/session8_check.sh" "$root/tools/device/order_check.sh" "$root/tools/device/build_python_module.sh" \
  "$root/tools/device/python_checks.py" "$root/tools/ship_gradient_check.py" \
  "$root/tools/sheet_matrix.py" "$stage/"
du -sh "$stage"

#!/usr/bin/env bash
# Runs ON the GPU machine from the repository root: builds fastmu's Python
# extension for the machine's own Python (3.12 there, 3.11 here: an extension
# built here does not load there) from the static libraries and header-only
# packages that build_for_device.sh staged in .device/, into
# .device/python/fastmu (PYTHONPATH=.device/python). The CUDA runtime is the
# machine's toolkit's static one. Prints the module's path, or why not.
set -euo pipefail
py=${PYTHON:-python3}
inc=$($py -c "import sysconfig; print(sysconfig.get_paths()['include'])")
[ -f "$inc/Python.h" ] || { echo "build_python_module: no Python.h for $py in $inc"; exit 1; }
suffix=$($py -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
cuda=${CUDA_HOME:-$(dirname "$(dirname "$(command -v nvcc)")")}
# The machine's own pybind11 when it knows NumPy 2 (>= 2.12), else Debian's
# staged 2.10 (the module then refuses NumPy 2 at import).
own=$($py -c "import pybind11 as p; v = tuple(int(x) for x in p.__version__.split('.')[:2]); print(p.get_include() if v >= (2, 12) else '')" 2>/dev/null || true)
if [ -z "$own" ]; then
  # torch bundles a recent pybind11; only that folder is put on the path.
  tinc=$($py -c "import os, torch; print(os.path.join(os.path.dirname(torch.__file__), 'include'))" 2>/dev/null || true)
  h=$tinc/pybind11/detail/common.h
  if [ -f "$h" ] && [ "$(awk '/define PYBIND11_VERSION_MINOR/{print $3}' "$h")" -ge 12 ]; then
    own=$(mktemp -d)
    ln -s "$tinc/pybind11" "$own/pybind11"
  fi
fi
echo "pybind11: ${own:-staged Debian headers}"
# PKG: where the package goes; SRC: the bindings' sources (an older copy
# for a same-run baseline).
pkg=${PKG:-.device/python/fastmu}
src=${SRC:-python/src}
objs=$(mktemp -d)
mkdir -p "$pkg"
cp python/fastmu/*.py "$pkg/"
pids=()
for f in "$src"/*.cc; do
  g++ -std=c++20 -O2 -fPIC -fvisibility=hidden -DFASTMU_HAVE_CUDA=1 -DFASTMU_PYTHON_HAVE_CUDA=1 \
    -fno-math-errno -fno-trapping-math -Isrc -Ipython/src ${own:+-I"$own"} -I.device/include -I"$inc" \
    -c "$f" -o "$objs/$(basename "$f" .cc).o" &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
libs=$(ls .device/lib/*.so* | grep -E 'lib(hdf5|fmt|pugixml|z|sz|aec|curl|crypto)' || true)
g++ -shared -o "$pkg/_fastmu$suffix" "$objs"/*.o -Wl,--start-group .device/pylib/*.a -Wl,--end-group \
  $libs -L"$cuda/lib64" -L"$cuda/lib" -lcudart_static -lpthread -ldl -lrt \
  -Wl,-rpath,"$PWD/.device/lib"
rm -rf "$objs"
echo "$pkg/_fastmu$suffix"

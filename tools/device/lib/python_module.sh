# shellcheck shell=bash disable=SC2154 # globals (root, out, work, log, stage, bin, opt) set by bench.sh
# Builds fastmu's Python extension ON the GPU machine for its own Python (an
# extension built for the development machine's Python does not load
# there), from the static libraries and header-only packages that `bench.sh
# stage` put in .device/, into $stage/python/fastmu (PYTHONPATH=$stage/python).
# The CUDA runtime is the machine's toolkit's static one. Sourced by
# tools/device/bench.sh (python case).

# `pybind11_include PY`: a pybind11 that knows NumPy 2 (>= 2.12): the
# Python's own, or the one torch bundles; empty for the staged Debian
# headers (the module then refuses NumPy 2 at import).
pybind11_include() {
  local py=$1 own torch_inc header
  own=$($py -c "import pybind11 as p; v = tuple(int(x) for x in p.__version__.split('.')[:2]); print(p.get_include() if v >= (2, 12) else '')" 2>/dev/null || true)
  if [ -z "$own" ]; then
    torch_inc=$($py -c "import os, torch; print(os.path.join(os.path.dirname(torch.__file__), 'include'))" 2>/dev/null || true)
    header=$torch_inc/pybind11/detail/common.h
    if [ -f "$header" ] && [ "$(awk '/define PYBIND11_VERSION_MINOR/{print $3}' "$header")" -ge 12 ]; then
      # Only torch's pybind11 goes on the include path, not its other headers.
      own=$(mktemp -d)
      ln -s "$torch_inc/pybind11" "$own/pybind11"
    fi
  fi
  echo "$own"
}

# `build_python_module`: prints the module's path, or why not (status 1).
build_python_module() {
  local py=${PYTHON:-python3} inc suffix cuda own pkg objs f pids=() p libs
  inc=$($py -c "import sysconfig; print(sysconfig.get_paths()['include'])")
  [ -f "$inc/Python.h" ] || {
    echo "python module: no Python.h for $py in $inc"
    return 1
  }
  suffix=$($py -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
  cuda=${CUDA_HOME:-$(dirname "$(dirname "$(command -v nvcc)")")}
  own=$(pybind11_include "$py")
  echo "pybind11: ${own:-staged Debian headers}"
  pkg=$stage/python/fastmu
  objs=$(mktemp -d)
  mkdir -p "$pkg"
  cp python/fastmu/*.py "$pkg/"
  for f in python/src/*.cc; do
    g++ -std=c++20 -O2 -fPIC -fvisibility=hidden -DFASTMU_HAVE_CUDA=1 -DFASTMU_PYTHON_HAVE_CUDA=1 \
      -fno-math-errno -fno-trapping-math -Isrc -Ipython/src ${own:+-I"$own"} -I"$stage/include" \
      -I"$inc" -c "$f" -o "$objs/$(basename "$f" .cc).o" &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || return 1; done
  libs=()
  for f in "$stage"/lib/lib{hdf5,fmt,pugixml,z,sz,aec,curl,crypto}*.so*; do
    if [ -f "$f" ]; then libs+=("$f"); fi
  done
  g++ -shared -o "$pkg/_fastmu$suffix" "$objs"/*.o -Wl,--start-group "$stage"/pylib/*.a \
    -Wl,--end-group "${libs[@]}" -L"$cuda/lib64" -L"$cuda/lib" -lcudart_static -lpthread -ldl -lrt \
    -Wl,-rpath,"$stage/lib" || return 1
  rm -rf "$objs"
  echo "$pkg/_fastmu$suffix"
}

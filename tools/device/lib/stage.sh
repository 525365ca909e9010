# shellcheck shell=bash disable=SC2154 # globals (root, out, work, log, stage, bin, opt) set by bench.sh
# The `stage` case (sourced by tools/device/bench.sh), run on the development
# machine: builds fastmu here and stages in .device/ what the GPU machine
# needs, which has nvcc and a driver but none of the Debian libraries.

# Libraries the GPU machine has in newer versions: never staged.
system_libs='/(libc|libm|libpthread|libdl|librt|libresolv|ld-linux-x86-64|libstdc\+\+|libgcc_s)\.so'

stage_settings() {
  build=${opt[--build-dir]:-${BUILD_DIR:-$root/build-gpu}}
  jobs=$(count --jobs "${JOBS:-1}")
  [[ $jobs =~ ^[1-9][0-9]*$ ]] || die "JOBS wants a positive integer, not '$jobs'"
  cache=${opt[--cache]:-${FASTMU_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fastmu}}
  materials="G4_Fe G4_AIR G4_CONCRETE ${opt[--materials]:-${EXTRA_MATERIALS:-}}"
  old_build=${opt[--old-build]:-${OLD_BUILD:-}}
  reference=${opt[--reference]:-$root/../shared/reference/geant4/slab_G4_Fe_10m_50GeV_mu-.f32}
  cuda=ON
  has --cpu-only && cuda=OFF
  python=OFF
  has --python && python=ON
  stage=$root/.device
  configure=(cmake -S "$root" -B "$build" "-DFASTMU_BUILD_PYTHON=$python" "-DFASTMU_ENABLE_CUDA=$cuda"
    "-DCMAKE_CUDA_ARCHITECTURES=90-real;90-virtual" "-DCMAKE_BUILD_RPATH=\$ORIGIN/lib")
  has --lineinfo && configure+=(-DCMAKE_CUDA_FLAGS=-lineinfo)
  if command -v ccache >/dev/null; then
    configure+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache
      -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
  fi
  compile=(cmake --build "$build" --target fastmu fastmu_tests_transport fastmu_tests_tables fastmu_tests_physics fastmu_bench -j"$jobs")
}

stage_case() {
  stage_settings
  [ -z "$old_build" ] || [ -x "$old_build/fastmu" ] || die "--old-build: no $old_build/fastmu"
  if has --dry-run; then
    stage_plan
    return 0
  fi
  (
    set -e
    "${configure[@]}" >/dev/null
    "${compile[@]}"
    stage_binaries
    stage_libraries
    stage_tables
    stage_python_inputs
    if [ -f "$reference" ]; then cp "$reference" "$stage/reference/"; fi
    if has --openmpi; then stage_openmpi; fi
    if has --compress; then stage_compress; fi
    du -sh "$stage"
  )
}

stage_plan() {
  echo "build:      ${configure[*]}"
  echo "            ${compile[*]}"
  echo "stage into: $stage"
  echo "tables:     ${materials% } from $cache (FASTMU_CACHE_SAMPLES of those tables must match the run's)"
  echo "old build:  ${old_build:-none}"
  echo "reference:  $reference $([ -f "$reference" ] && echo "(found)" || echo "(missing: validate skips the slab)")"
  echo "openmpi:    $(has --openmpi && echo yes || echo no), compress: $(has --compress && echo yes || echo no)"
}

stage_binaries() {
  rm -rf "${stage:?}/bin" "${stage:?}/lib" "${stage:?}/cache" "${stage:?}"/*.tar.xz
  mkdir -p "$stage/bin" "$stage/lib" "$stage/cache" "$stage/reference"
  cp "$build/fastmu" "$build/fastmu_bench" "$build/tests/fastmu_tests_transport" \
    "$build/tests/fastmu_tests_tables" "$build/tests/fastmu_tests_physics" "$stage/bin/"
  local b
  if [ -n "$old_build" ]; then
    for b in fastmu fastmu_bench; do
      if [ -f "$old_build/$b" ]; then cp "$old_build/$b" "$stage/bin/${b}_old"; fi
    done
  fi
  strip --strip-debug "$stage"/bin/*
}

# The shared libraries the binaries load, other than glibc's and the compiler runtime's.
stage_libraries() {
  local b
  for b in "$stage"/bin/*; do ldd "$b" | awk '/=> \//{print $3}'; done | sort -u |
    { grep -vE "$system_libs" || true; } | while read -r lib; do cp -L "$lib" "$stage/lib/"; done
}

# Every step of each material: the per-material steps and their ladders
# (transport/step/StepLengths.hh), the fixed 2 cm of older builds.
stage_tables() {
  local m f found
  for m in $materials; do
    found=0
    for f in "$cache/${m}"_step*_v1.h5; do
      if [ -f "$f" ]; then
        cp "$f" "$stage/cache/"
        found=1
      fi
    done
    [ $found = 1 ] || echo "note: no $cache/${m}_step*_v1.h5 (built on the GPU machine when needed)"
  done
}

# What the python case needs to build the extension there for the machine's
# own Python: the static libraries and the header-only packages.
stage_python_inputs() {
  rm -rf "$stage/pylib" "$stage/include" "$stage/python"
  mkdir -p "$stage/pylib" "$stage/include/fastmu/core"
  cp "$build"/src/fastmu/libfastmu_*.a "$stage/pylib/"
  cp -r /usr/include/pybind11 /usr/include/nlohmann /usr/include/Random123 "$stage/include/"
  cp "$build/include/fastmu/core/Version.hh" "$stage/include/fastmu/core/"
}

# This machine's Debian OpenMPI runtime (mpirun, its plugins, help texts and
# the libraries they load) as openmpi.tar.xz: Debian's libmpi.so.40 wants its
# own launcher and plugins. Transports the GPU machine cannot use (UCX,
# libfabric, verbs, PSM) and the OpenSHMEM, Fortran and Java parts are left
# out. Unpacked there by use_openmpi (lib/device_env.sh).
stage_openmpi() {
  local tmp f lib
  tmp=$(mktemp -d)
  mkdir -p "$tmp/openmpi/tree" "$tmp/openmpi/lib"
  for p in openmpi-bin libopenmpi3 openmpi-common libpmix2; do dpkg -L "$p"; done |
    grep -v -E '/share/(doc|man|lintian)/|/include/|pkgconfig|ucx|ofi|openib|psm|verbs|oshmem|spml|sshmem|scoll|memheap|atomic_|java|mpifh|usempi|fortran|hcoll' |
    while read -r f; do if [ -f "$f" ]; then echo "$f"; fi; done >"$tmp/files"
  while read -r f; do
    mkdir -p "$tmp/openmpi/tree$(dirname "$f")"
    cp -a "$f" "$tmp/openmpi/tree$f"
  done <"$tmp/files"
  # Symbolic links of the libraries (libmpi.so.40 -> libmpi.so.40.30.4 ...).
  for f in $(dpkg -L libopenmpi3 libpmix2 | grep -E '\.so\.[0-9]+$'); do
    if [ -L "$f" ]; then cp -a "$f" "$tmp/openmpi/tree$f"; fi
  done
  ln -sf orterun "$tmp/openmpi/tree/usr/bin/mpirun"
  grep -E '\.so|/bin/' "$tmp/files" | xargs ldd 2>/dev/null | awk '/=> \//{print $3}' | sort -u |
    { grep -vE "$system_libs" || true; } | while read -r lib; do cp -L "$lib" "$tmp/openmpi/lib/"; done
  tar -C "$tmp" -cJf "$stage/openmpi.tar.xz" openmpi
  rm -rf "$tmp"
  du -h "$stage/openmpi.tar.xz"
}

# lib/ and cache/ packed (the carry to the GPU machine is limited to 64 MiB);
# use_stage unpacks them there.
stage_compress() {
  local part
  for part in lib cache; do
    tar -C "$stage" -cJf "$stage/$part.tar.xz" "$part"
    rm -rf "${stage:?}/$part"
  done
}

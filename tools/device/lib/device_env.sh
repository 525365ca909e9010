# shellcheck shell=bash disable=SC2154 # globals (root, out, work, log, stage, bin, opt) set by bench.sh
# The GPU machine's side of the staging (sourced by tools/device/bench.sh):
# unpacks what `bench.sh stage` packed, points the loader, the table cache
# and the reference data at .device/, sets up the staged OpenMPI.

# `use_stage`: sets $stage and $bin and the environment the cases run in.
use_stage() {
  stage=${STAGE:-$root/.device}
  bin=$stage/bin
  [ -x "$bin/fastmu" ] || die "no $bin/fastmu: run 'bash tools/device/bench.sh stage' first and carry .device"
  local part
  for part in lib cache; do
    if [ -f "$stage/$part.tar.xz" ] && [ ! -d "$stage/$part" ]; then
      tar -xJf "$stage/$part.tar.xz" -C "$stage" || die "cannot unpack $stage/$part.tar.xz"
    fi
  done
  export LD_LIBRARY_PATH=$stage/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export FASTMU_CACHE=${FASTMU_CACHE:-$stage/cache}
  export FASTMU_CACHE_SAMPLES=${opt[--samples]:-${FASTMU_CACHE_SAMPLES:-20000}}
  export FASTMU_REFERENCE_DIR=$stage/reference FASTMU_PROGRESS=0
  mkdir -p "$FASTMU_CACHE"
}

gpu_count() { nvidia-smi -L 2>/dev/null | grep -c '^GPU'; }

# `warm_tables BACKEND NAME`: the tables each build of NAME (old and new)
# needs, built into the cache before any timing (a build with other steps
# needs other tables).
warm_tables() {
  local backend=$1 b
  for b in $(builds "$2"); do
    echo "tables for $b ($backend), FASTMU_CACHE_SAMPLES=$FASTMU_CACHE_SAMPLES" | tee -a "$log"
    timeout 600 "$bin/$b" bench --backend "$backend" --case all --n 1000 --repeat 1 \
      >>"$out/warm_tables.log" 2>&1 || echo "  $b: exit $? (see warm_tables.log)" | tee -a "$log"
  done
}

# `use_openmpi`: this machine's Debian OpenMPI runtime, staged by
# `bench.sh stage --openmpi`, unpacked under /tmp/openmpi-stage and
# relocated there (OPAL_PREFIX, PMIX_INSTALL_PREFIX), so that neither loads
# the plugins of an OpenMPI the machine may have at the Debian paths. Ranks
# talk through shared memory and TCP. Returns 1 when nothing is staged.
use_openmpi() {
  [ -f "$stage/openmpi.tar.xz" ] || return 1
  local tree=/tmp/openmpi-stage/openmpi/tree
  mkdir -p /tmp/openmpi-stage
  tar -C /tmp/openmpi-stage -xJf "$stage/openmpi.tar.xz" || return 1
  export OPAL_PREFIX=$tree/usr PMIX_INSTALL_PREFIX=$tree/usr/lib/x86_64-linux-gnu/pmix2
  export PMIX_MCA_mca_base_component_path=$tree/usr/lib/x86_64-linux-gnu/pmix2/lib/pmix
  export PATH=$tree/usr/bin:$PATH
  export LD_LIBRARY_PATH=$tree/usr/lib/x86_64-linux-gnu:/tmp/openmpi-stage/openmpi/lib:$LD_LIBRARY_PATH
  export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_pml=ob1
  # Commands run as root there.
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
}

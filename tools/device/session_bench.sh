#!/usr/bin/env bash
# Runs ON the GPU machine after build_for_device.sh's staging (.device/, with
# OLD_BUILD for the same-run baseline): the measurements of one device call,
# most wanted first, each bounded so that a slow one leaves time for the rest:
# stepping (SHiP old vs new, physics summary, CUDA sheets), the pipeline
# timings (iron/SHiP, one and all GPUs), then whole processes with HDF5 files.
#   usage: bash tools/device/session_bench.sh [N_LARGE] [N_HUGE]
set -uo pipefail
out=${OUT:-/tmp/fastmu_session_out}
mkdir -p "$out"
export FASTMU_CACHE=$PWD/.device/cache FASTMU_CACHE_SAMPLES=${FASTMU_CACHE_SAMPLES:-20000}
export LD_LIBRARY_PATH=$PWD/.device/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
stamp() { echo "== $1 $(date -u +%T)" | tee -a "$out/session.log"; }
stamp "tables (built once into the cache, 2e4 samples per bin)"
for v in fastmu fastmu_old; do
  timeout 100 .device/bin/$v bench --backend cuda --case ship --n 1000 --repeat 1 > "$out/warm_$v.log" 2>&1
  timeout 30 .device/bin/$v bench --backend cuda --case iron-block --n 1000 --repeat 1 >> "$out/warm_$v.log" 2>&1
done
stamp "stepping"
OUT=$out timeout 150 bash .device/stepping_bench.sh 1000000
stamp "pipeline"
OUT=$out timeout 110 bash .device/pipeline_bench.sh
stamp "process"
OUT=$out timeout 140 bash .device/process_bench.sh "${1:-40000000}" "${2:-200000000}"
stamp "done"

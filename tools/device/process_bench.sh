#!/usr/bin/env bash
# Runs ON the GPU machine, from the repository root, with .device/ staged by
# build_for_device.sh (OLD_BUILD=... for a same-run baseline): whole `fastmu
# run` processes as a user meets them, HDF5 muon file in and HDF5 file out,
# on one GPU. For each: wall time and peak RSS of the process (measured
# around it), the transport time and kernel time the run reports, and the
# file sizes (GB/s through storage). Input files are written first
# (bench/make_muon_file.py) under $WORK (default /tmp/fastmu_process).
#   usage: bash tools/device/process_bench.sh [N_LARGE=40000000] [N_HUGE=200000000]
set -uo pipefail
stage=${STAGE:-.device}
out=${OUT:-/tmp/fastmu_process_out}
work=${WORK:-/tmp/fastmu_process}
mkdir -p "$out" "$work"
export LD_LIBRARY_PATH=$PWD/$stage/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export FASTMU_CACHE=$PWD/$stage/cache FASTMU_CACHE_SAMPLES=${FASTMU_CACHE_SAMPLES:-20000}
log=$out/process_bench.log
bin=$stage/bin
n_large=${1:-40000000}
n_huge=${2:-200000000}
source "$(dirname "$0")/timing.sh"
size_gb() { python3 -c "import os,sys; print(f'{os.path.getsize(sys.argv[1])/1e9:.3f} GB')" "$1"; }

{ date -u; nproc; nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv; df -h "$work" | tail -1; } 2>&1 | tee "$log"
gen() { [ -f "$work/$1" ] || python3 bench/make_muon_file.py --out "$work/$1" "${@:2}" | tee -a "$log"; }
gen ship4e6.h5 --n 4000000 --spectrum ship
gen iron4e6.h5 --n 4000000
gen ship_large.h5 --n "$n_large" --spectrum ship
gen iron_large.h5 --n "$n_large"
sync
ship=examples/ship_warm.json iron=examples/iron_block.json
one() {  # binary geometry muons output [extra...]
  rm -f "$work/$4"
  CUDA_VISIBLE_DEVICES=0 timed "$bin/$1" run --geometry "$2" --muons "$work/$3" --out "$work/$4" --backend cuda --gpus 1 "${@:5}"
  [ -f "$work/$4" ] && echo "in $(size_gb "$work/$3"), out $(size_gb "$work/$4")" | tee -a "$log"
}
# Same-run baseline (the old build) and the new one, 4e6 muons, twice.
for rep in 1 2; do
  for v in fastmu_old fastmu; do
    [ -x "$bin/$v" ] || continue
    one $v $iron iron4e6.h5 out_iron4e6_$v.h5
    one $v $ship ship4e6.h5 out_ship4e6_$v.h5
  done
done
# The issue's sizes (new build only; the old one takes minutes here).
for rep in 1 2; do
  one fastmu $ship ship_large.h5 out_ship_large.h5
  one fastmu $iron iron_large.h5 out_iron_large.h5
done
# Larger than memory: 2e8 muons under --max-memory 2GB.
if [ "$n_huge" -gt 0 ]; then
  gen iron_huge.h5 --n "$n_huge"
  one fastmu $iron iron_huge.h5 out_iron_huge.h5 --max-memory 2GB
  rm -f "$work/out_iron_huge.h5"
fi

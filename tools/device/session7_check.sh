#!/usr/bin/env bash
# Runs ON one GPU from the repository root (.device/ staged by
# build_for_device.sh): the checks of session 7 in one call.
#  1. the CUDA transport and gradient tests;
#  2. the value-and-gradient pass against the forward pass (fastmu_bench,
#     SHiP-like warm_baseline, 1e6 muons) for each launch bound of the
#     gradient kernel (FASTMU_OBJECTIVE_MIN_BLOCKS, an experiment build
#     of session 7 only; later builds ignore it), alternating, twice;
#  3. whole `fastmu run` processes, HDF5 in and out, 4e7 SHiP-like and
#     iron-block muons, with the run's own time breakdown.
#   usage: bash .device/session7_check.sh [N_RUN=40000000]
set -uo pipefail
out=${OUT:-/tmp/fastmu_s7_out}
work=${WORK:-/tmp/fastmu_s7}
mkdir -p "$out" "$work"
export LD_LIBRARY_PATH=$PWD/.device/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export FASTMU_CACHE=$PWD/.device/cache FASTMU_CACHE_SAMPLES=${FASTMU_CACHE_SAMPLES:-20000}
export FASTMU_PROGRESS=0 FASTMU_REFERENCE_DIR=$PWD/.device/reference
log=$out/session7.log
bin=$PWD/.device/bin
n_run=${1:-40000000}
source "$(dirname "$0")/timing.sh"
{ date -u; nproc; nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv; } 2>&1 | tee "$log"
timeout 150 "$bin/fastmu" bench --backend cuda --case all --n 1000 --repeat 1 --gpus 1 >"$out/warm.log" 2>&1
echo "== tests $(date -u +%T)" | tee -a "$log"
for b in 4 3 2; do
  FASTMU_OBJECTIVE_MIN_BLOCKS=$b run "$bin/fastmu_tests_transport" --gtest_brief=1 \
    --gtest_filter='Cuda*:ResultRows*:ShipGradient.Cuda*:*Objective*Cuda*'
done
echo "== objective cost $(date -u +%T)" | tee -a "$log"
for rep in 1 2; do
  for b in 4 3 2; do
    FASTMU_OBJECTIVE_MIN_BLOCKS=$b run "$bin/fastmu_bench" --benchmark_filter='Ship.*/1000000/1' \
      --benchmark_min_time=2
  done
done
echo "== processes $(date -u +%T)" | tee -a "$log"
gen() { [ -f "$work/$1" ] || python3 bench/make_muon_file.py --out "$work/$1" "${@:2}" | tee -a "$log"; }
gen ship.h5 --n "$n_run" --spectrum ship
gen iron.h5 --n "$n_run"
sync
for rep in 1 2; do
  for case in ship iron; do
    geo=examples/ship_warm.json
    [ $case = iron ] && geo=examples/iron_block.json
    rm -f "$work/out_$case.h5"
    timed "$bin/fastmu" run --geometry "$geo" --muons "$work/$case.h5" --out "$work/out_$case.h5" \
      --backend cuda --gpus 1
  done
done
run "$bin/fastmu" bench --backend cuda --case iron-block --n 4000000 --repeat 5 --gpus 1
run "$bin/fastmu" bench --backend cuda --case iron-block --n 4000000 --repeat 5 --gpus 1 --reuse-output --at-plane
date -u | tee -a "$log"

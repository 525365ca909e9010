#!/usr/bin/env bash
# Runs ON one GPU from the repository root: the muon ordering of the CUDA
# launches (transport/MuonOrder.cuh) checked and timed in one call.
# .device/ staged by build_for_device.sh; .device/extra.tar.xz holds
# bin/fastmu_fixed (the fixed-step build, 88c553f) and bin/fastmu_prev +
# bin/fastmu_bench_prev (the build before the ordering), compressed to fit
# the carry limit.
#  1. the CUDA tests (the streamed, ordered pipeline against one launch in
#     id order, bitwise; the objective);
#  2. the same SHiP-like file through the previous and this build: outputs
#     compared byte for byte;
#  3. `fastmu bench`, SHiP-like and iron block, 4e6 muons: fixed step,
#     previous, this build, alternating, twice;
#  4. the objective's cost (fastmu_bench) previous and this build;
#  5. whole 4e7 SHiP-like and iron-block processes.
#   usage: bash .device/order_check.sh [N_RUN=40000000]
#   BUILDS="fastmu_fixed fastmu_prev fastmu" (default) names the builds step 3
#   compares (others may be staged in extra.tar.xz too).
set -uo pipefail
out=${OUT:-/tmp/fastmu_order_out}
work=${WORK:-/tmp/fastmu_order}
mkdir -p "$out" "$work"
tar -xJf .device/extra.tar.xz -C .device
export LD_LIBRARY_PATH=$PWD/.device/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export FASTMU_CACHE=$PWD/.device/cache FASTMU_CACHE_SAMPLES=${FASTMU_CACHE_SAMPLES:-20000}
export FASTMU_PROGRESS=0
log=$out/order.log
bin=$PWD/.device/bin
n_run=${1:-40000000}
source "$(dirname "$0")/timing.sh"
{ date -u; nvidia-smi --query-gpu=name --format=csv,noheader; } 2>&1 | tee "$log"
builds=${BUILDS:-fastmu_fixed fastmu_prev fastmu}
for b in $builds; do
  timeout 300 "$bin/$b" bench --backend cuda --case all --n 1000 --repeat 1 --gpus 1 >"$out/warm_$b.log" 2>&1
done
echo "== tests $(date -u +%T)" | tee -a "$log"
run "$bin/fastmu_tests_transport" --gtest_brief=1 \
  --gtest_filter='Cuda*:Fixture*:ResultRows*:ShipGradient.*:*Objective*:Gradient*'
echo "== same output $(date -u +%T)" | tee -a "$log"
python3 bench/make_muon_file.py --out "$work/ship4e6.h5" --n 4000000 --spectrum ship | tee -a "$log"
for b in fastmu_prev fastmu; do
  rm -f "$work/o_$b.h5"
  run "$bin/$b" run --geometry examples/ship_warm.json --muons "$work/ship4e6.h5" \
    --out "$work/o_$b.h5" --backend cuda --gpus 1 --all
done
run cmp "$work/o_fastmu_prev.h5" "$work/o_fastmu.h5" && echo "outputs identical" | tee -a "$log"
echo "== bench $(date -u +%T)" | tee -a "$log"
for rep in 1 2; do
  for case in ship iron-block; do
    for b in $builds; do
      run "$bin/$b" bench --backend cuda --case $case --n 4000000 --repeat 3 --gpus 1
    done
  done
done
echo "== objective cost $(date -u +%T)" | tee -a "$log"
for rep in 1 2; do
  for b in fastmu_bench_prev fastmu_bench; do
    run "$bin/$b" --benchmark_filter='Ship.*/1000000/1' --benchmark_min_time=2
  done
done
echo "== processes $(date -u +%T)" | tee -a "$log"
make_inputs "$n_run"
whole_runs 2
date -u | tee -a "$log"

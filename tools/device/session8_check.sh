#!/usr/bin/env bash
# Runs ON one GPU from the repository root (.device/ staged by
# build_for_device.sh with OLD_BUILD=<the previous commit's build>): the
# checks of session 8 in one call.
#  1. the CUDA transport and objective tests;
#  2. the window objective's cost against the forward pass (fastmu_bench,
#     SHiP-like warm_baseline, 1e6 muons), this build and the previous one
#     (fastmu_bench_old) alternating, twice;
#  3. the Python extension built there for the machine's Python
#     (build_python_module.sh), then python_checks.py (repeated calls,
#     objective with muons on the GPU, the torch wrapper) and the gradient
#     against central differences on N_FD SHiP muons (ship_gradient_check.py);
#  4. what the storage gives (bench_storage.cc; PROBE=0 skips it), whole
#     `fastmu run` processes, HDF5 in and out, N_RUN SHiP-like and
#     iron-block muons, and the fixed cost of one transport() call.
#   usage: bash .device/session8_check.sh [N_FD=1000000] [N_RUN=40000000]
set -uo pipefail
out=${OUT:-/tmp/fastmu_s8_out}
work=${WORK:-/tmp/fastmu_s8}
mkdir -p "$out" "$work"
export LD_LIBRARY_PATH=$PWD/.device/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export FASTMU_CACHE=$PWD/.device/cache FASTMU_CACHE_SAMPLES=${FASTMU_CACHE_SAMPLES:-20000}
export FASTMU_PROGRESS=0 FASTMU_REFERENCE_DIR=$PWD/.device/reference
log=$out/session8.log
bin=$PWD/.device/bin
n_fd=${1:-1000000}
n_run=${2:-40000000}
source "$(dirname "$0")/timing.sh"
{ date -u; nproc; nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv; } 2>&1 | tee "$log"
bash .device/build_python_module.sh >"$out/python_build.log" 2>&1 &
pybuild=$!
timeout 200 "$bin/fastmu" bench --backend cuda --case all --n 1000 --repeat 1 --gpus 1 >"$out/warm.log" 2>&1
echo "== tests $(date -u +%T)" | tee -a "$log"
run "$bin/fastmu_tests_transport" --gtest_brief=1 \
  --gtest_filter='Cuda*:ResultRows*:ShipGradient.*:*Objective*:Gradient*:MuonReader*:MuonWriter*'
echo "== objective cost $(date -u +%T)" | tee -a "$log"
for rep in 1 2; do
  for b in fastmu_bench_old fastmu_bench; do
    [ -x "$bin/$b" ] || continue
    run "$bin/$b" --benchmark_filter='Ship.*/1000000/1' --benchmark_min_time=2
  done
done
echo "== python $(date -u +%T)" | tee -a "$log"
wait $pybuild; echo "python build rc $?" | tee -a "$log"
tail -3 "$out/python_build.log" | tee -a "$log"
export PYTHONPATH=$PWD/.device/python
run timeout 200 python3 .device/python_checks.py --n 1000000
run timeout 200 python3 .device/ship_gradient_check.py --n "$n_fd" --backend cuda
FASTMU_SHIP_FD_MUONS=$n_fd run "$bin/fastmu_tests_transport" \
  --gtest_filter=ShipGradient.CudaMatchesCentralDifferences
echo "== storage and processes $(date -u +%T)" | tee -a "$log"
make_inputs "$n_run"
[ "${PROBE:-1}" = 1 ] && FASTMU_BENCH_DIR=$work FASTMU_BENCH_STORAGE_GB=2.7 \
  run "$bin/fastmu_bench" --benchmark_filter=StorageWrite
sync
whole_runs 2
run "$bin/fastmu" bench --backend cuda --case iron-block --n 4000000 --repeat 5 --gpus 1
run "$bin/fastmu" bench --backend cuda --case iron-block --n 4000000 --repeat 5 --gpus 1 --reuse-output --at-plane
# The fixed cost of one transport() call (what a repeated Python call pays).
for n in 1 1000; do
  run "$bin/fastmu" bench --backend cuda --case iron-block --n $n --repeat 20 --gpus 1
done
date -u | tee -a "$log"

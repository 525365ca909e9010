#!/usr/bin/env bash
# Runs ON the GPU machine, from the repository root, with .device/ staged by
#   OLD_BUILD=<fixed-step build> EXTRA_MATERIALS="G4_W G4_Pb G4_Cu" \
#   FASTMU_CACHE=<cache with the tables> bash tools/device/build_for_device.sh
# (issue 11): the SHiP-like shield timed with the fixed-step build
# (.device/bin/fastmu_old) and the adaptive one alternately on the same GPU,
# with the reach / window summary of both; then the thin-sheet subset of
# tools/sheet_matrix.py on the CUDA backend against the detailed engine.
# Everything it prints is also saved under $OUT.
#   usage: bash tools/device/stepping_bench.sh [N_SHIP]
set -uo pipefail
stage=.device
out=${OUT:-/tmp/fastmu_stepping_out}
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/$stage/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export FASTMU_CACHE=$PWD/$stage/cache FASTMU_REFERENCE_DIR=$PWD/$stage/reference
export FASTMU_CACHE_SAMPLES=${FASTMU_CACHE_SAMPLES:-20000}
n=${1:-1000000}
log=$out/stepping_bench.log
run() { echo "\$ $*" | tee -a "$log"; "$@" 2>&1 | tee -a "$log"; }

{ date -u; nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv; } 2>&1 | tee "$log"
run "$stage/bin/fastmu_tests_transport" --gtest_brief=1 \
  --gtest_filter='Cuda*:*Fixture*:ResultRows*:Trapped*:BoundaryStep*:ShipGradient*'
for rep in 1 2; do
  for v in _old ""; do
    [ -x "$stage/bin/fastmu$v" ] || continue
    run "$stage/bin/fastmu$v" bench --backend cuda --case ship --n "$n" --repeat 3 --gpus 1
    run "$stage/bin/fastmu$v" bench --backend cuda --case ship --n $((4 * n)) --repeat 2 --gpus 1
    run "$stage/bin/fastmu$v" bench --backend cuda --case iron-block --n 4000000 --repeat 3 --gpus 1
  done
done
# Issue 12: the objective's value and gradient against the forward transport (1e6, CUDA).
run "$stage/bin/fastmu_bench" --benchmark_filter='Ship.*/1000000/1'
[ -n "${STEPPING_QUICK:-}" ] && exit 0
# Physics of the shield: each prints its status counts and window fraction;
# ship_run.h5 of both (under $OUT) holds the window muons for the |p|, x, y quantiles.
for v in _old ""; do
  [ -x "$stage/bin/fastmu$v" ] || continue
  mkdir -p "$out/ship$v"
  run "$stage/bin/fastmu$v" run --example ship --n "$n" --backend cuda --out-dir "$out/ship$v" --no-plot
done
# CUDA sheets against the detailed engine (the subset the CPU tests use, more muons).
run python3 "$stage/sheet_matrix.py" --fastmu "$stage/bin/fastmu" --backend cuda --quick \
  --n 200000 --n-ref 20000 --work "$out/sheets"

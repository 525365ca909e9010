#!/usr/bin/env bash
# Runs ON the GPU machine, from the repository root, with .device/ staged by
#   OLD_BUILD=<fixed-step build> FASTMU_CACHE=<empty or a cache> bash tools/device/build_for_device.sh
# (issue 11, long steps for fast muons): the CUDA tests; the SHiP-like shield
# and the iron block timed with the fixed-step build (.device/bin/fastmu_old)
# and this one alternately on the same GPU; the objective's cost; then the
# physics with tables of TABLE_SAMPLES per momentum bin built here (default
# 2e5, in the cache folder ship_reference_check.sh uses): the shield with
# --long-steps 0 and 3 and the fixed-step build, and the iron block against
# the Geant4 slab. Everything printed is saved under $OUT.
#   usage: bash tools/device/long_steps_check.sh [N_SHIP]
set -uo pipefail
stage=.device
out=${OUT:-/tmp/fastmu_long_steps_out}
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/$stage/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export FASTMU_REFERENCE_DIR=$PWD/$stage/reference
n=${1:-1000000}
log=$out/long_steps.log
run() { echo "\$ $*" | tee -a "$log"; "$@" 2>&1 | grep -v "^fastmu: building" | tee -a "$log"; }

{ date -u; nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv; } 2>&1 | tee "$log"
# Timing tables: few samples (the transport's speed does not depend on them).
export FASTMU_CACHE=$PWD/$stage/cache FASTMU_CACHE_SAMPLES=20000
run "$stage/bin/fastmu_tests_transport" --gtest_brief=1 \
  --gtest_filter='Cuda*:*Fixture*:ResultRows*:Trapped*:BoundaryStep*:ShipGradient*'
for v in _old ""; do  # build the tables outside the timings
  "$stage/bin/fastmu$v" bench --backend cuda --case all --n 1000 --repeat 1 --gpus 1 >/dev/null 2>&1
done
for rep in 1 2; do
  for v in _old ""; do
    run "$stage/bin/fastmu$v" bench --backend cuda --case ship --n "$n" --repeat 3 --gpus 1
    run "$stage/bin/fastmu$v" bench --backend cuda --case ship --n $((4 * n)) --repeat 2 --gpus 1
    run "$stage/bin/fastmu$v" bench --backend cuda --case iron-block --n 4000000 --repeat 3 --gpus 1
  done
done
run "$stage/bin/fastmu_bench" --benchmark_filter='Ship.*/1000000/1'
[ -n "${TIMING_ONLY:-}" ] && exit 0
# Physics with well-sampled tables.
export FASTMU_CACHE=/tmp/fastmu_ship_reference/cache FASTMU_CACHE_SAMPLES=${TABLE_SAMPLES:-200000}
mkdir -p "$FASTMU_CACHE"
for k in 3 0; do
  mkdir -p "$out/ship_k$k" "$out/iron_k$k"
  run "$stage/bin/fastmu" run --example ship --n "$n" --backend cuda --out-dir "$out/ship_k$k" --no-plot --long-steps $k
  run "$stage/bin/fastmu" run --example iron-block --n 100000 --n-detailed 0 --backend cuda --out-dir "$out/iron_k$k" --no-plot --long-steps $k
done
mkdir -p "$out/ship_old"
run "$stage/bin/fastmu_old" run --example ship --n "$n" --backend cuda --out-dir "$out/ship_old" --no-plot
run python3 "$stage/window_quantiles.py" "$out/ship_old/ship_run.h5" "$out/ship_k0/ship_run.h5" "$out/ship_k3/ship_run.h5"
run python3 "$stage/slab_compare.py" "$stage/reference/slab_G4_Fe_10m_50GeV_mu-.f32" "$out/iron_k0/iron_block_fast.f32" "$out/iron_k3/iron_block_fast.f32"
rm -rf "$out"/ship_*/ship_run.h5
# CUDA sheets against the detailed engine (the quick subset of tools/sheet_matrix.py).
export FASTMU_CACHE=$PWD/$stage/cache FASTMU_CACHE_SAMPLES=20000
run python3 "$stage/sheet_matrix.py" --fastmu "$stage/bin/fastmu" --backend cuda --quick \
  --n 200000 --n-ref 20000 --work "$out/sheets"

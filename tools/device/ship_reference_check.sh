#!/usr/bin/env bash
# Runs ON the GPU machine, from the repository root, with .device/ staged by
# tools/device/build_for_device.sh (issue 11): the SHiP-like shield through the
# detailed engine (`fastmu validate --example ship`, CPU threads) and the fast
# transport (CUDA) with --long-steps 3 and 0 and the fixed-step build, on the
# same N muons, with tables of TABLE_SAMPLES per bin built here (default 2e5):
# status counts and window |p|, x, y quantiles of each. Saved under $OUT.
#   usage: bash tools/device/ship_reference_check.sh [N]
set -uo pipefail
stage=.device
out=${OUT:-/tmp/fastmu_ship_reference_out}
work=/tmp/fastmu_ship_reference
mkdir -p "$out" "$work"
export LD_LIBRARY_PATH=$PWD/$stage/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export FASTMU_CACHE=$work/cache FASTMU_CACHE_SAMPLES=${TABLE_SAMPLES:-200000}
n=${1:-1000000}
log=$out/ship_reference.log
run() { echo "\$ $*" | tee -a "$log"; "$@" 2>&1 | grep -v "^fastmu: building" | tee -a "$log"; }
date -u | tee "$log"
run "$stage/bin/fastmu" validate --example ship --n "$n" --backend cuda --long-steps 3 --out-dir "$work/v3"
cp "$work/v3/summary.md" "$out/validate_k3_summary.md"
for k in 0 3; do
  mkdir -p "$work/k$k"
  run "$stage/bin/fastmu" run --example ship --n "$n" --backend cuda --out-dir "$work/k$k" --no-plot --long-steps $k
done
mkdir -p "$work/old"
run "$stage/bin/fastmu_old" run --example ship --n "$n" --backend cuda --out-dir "$work/old" --no-plot
run python3 "$stage/window_quantiles.py" "$work/v3/detailed.csv" "$work/v3/fast.csv" \
  "$work/k3/ship_run.h5" "$work/k0/ship_run.h5" "$work/old/ship_run.h5"

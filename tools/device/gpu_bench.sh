#!/usr/bin/env bash
# Runs ON the GPU machine, from the repository root, with .device/ staged by
# build_for_device.sh: checks (transport tests incl. CPU-vs-CUDA agreement),
# then timings of the CUDA and CPU backends on the iron-block case (and the
# SHiP-like shield). Everything it prints is also saved under $OUT.
# Baselines in the same run, when staged by hand: .device/bin/fastmu_old and
# .device/bin/fastmu_bench_old (an older build, CPU only is enough) are timed
# alternately with the current build on one CPU core. With several GPUs the
# iron block is also timed on all of them.
#   usage: bash tools/device/gpu_bench.sh [quick]
set -uo pipefail
stage=.device
out=${OUT:-/tmp/fastmu_gpu_out}
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/$stage/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export FASTMU_CACHE=$PWD/$stage/cache FASTMU_REFERENCE_DIR=$PWD/$stage/reference
export FASTMU_CACHE_SAMPLES=${FASTMU_CACHE_SAMPLES:-20000}
log=$out/gpu_bench.log
run() { echo "\$ $*" | tee -a "$log"; "$@" 2>&1 | tee -a "$log"; }

{ date -u; uname -a; nproc; grep -m1 "model name" /proc/cpuinfo; nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv; } 2>&1 | tee "$log"
run "$stage/bin/fastmu" --version
run "$stage/bin/fastmu_tests_transport" --gtest_brief=1
run "$stage/bin/fastmu" bench --backend cuda --case iron-block --n 4000000 --repeat 5 --gpus 1
gpus=$(nvidia-smi -L | wc -l)
if [ "$gpus" -gt 1 ]; then
  for g in 1 "$gpus"; do
    run "$stage/bin/fastmu" bench --backend cuda --case iron-block --n $((4000000 * gpus)) \
      --repeat 5 --gpus "$g"
  done
fi
for rep in 1 2; do
  for v in _old ""; do
    [ -x "$stage/bin/fastmu$v" ] &&
      run "$stage/bin/fastmu$v" bench --backend cpu --case iron-block --n 30000 --repeat 5 --threads 1
  done
done
for v in _old ""; do
  [ -x "$stage/bin/fastmu$v" ] &&
    run "$stage/bin/fastmu$v" bench --backend cpu --case iron-block --n 400000 --repeat 3
done
for v in _old ""; do
  [ -x "$stage/bin/fastmu_bench$v" ] && run "$stage/bin/fastmu_bench$v" \
    --benchmark_filter='SingleStep|Slab_Fe_50GeV_10m$' --benchmark_repetitions=3 \
    --benchmark_report_aggregates_only=true
done
[ "${1:-}" = quick ] && exit 0
run "$stage/bin/fastmu" bench --backend cuda --case iron-block --n 16000000 --repeat 3
run "$stage/bin/fastmu" bench --backend cuda --case ship --n 1000000 --repeat 3
run "$stage/bin/fastmu" bench --backend cpu --case ship --n 50000 --repeat 1
run "$stage/bin/fastmu_bench" --benchmark_filter=IronBlock --benchmark_min_time=1
run "$stage/bin/fastmu" run --example iron-block --backend cuda --n 400000 --n-detailed 0 \
  --no-plot --out-dir "$out"

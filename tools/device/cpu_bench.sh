#!/usr/bin/env bash
# Runs ON the device machine, from the repository root, with .device/ staged by
# build_for_device.sh (FASTMU_CUDA=OFF is enough): CPU-backend timings only, on
# the iron-block case. If .device/bin/fastmu_bench_old exists (an older build
# put there by hand), it is timed in the same run as a baseline.
#   usage: [STAGE=dir] bash tools/device/cpu_bench.sh   (STAGE: another staged folder)
set -uo pipefail
stage=${STAGE:-.device}
out=${OUT:-/tmp/fastmu_cpu_out}
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/$stage/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export FASTMU_CACHE=$PWD/$stage/cache FASTMU_REFERENCE_DIR=$PWD/$stage/reference
export FASTMU_CACHE_SAMPLES=${FASTMU_CACHE_SAMPLES:-20000}
log=$out/cpu_bench.log
run() { echo "\$ $*" | tee -a "$log"; "$@" 2>&1 | tee -a "$log"; }

{ date -u; uname -a; nproc; grep -m1 "model name" /proc/cpuinfo; grep -m1 -o -w "avx2\|fma" /proc/cpuinfo | sort -u; } 2>&1 | tee "$log"
run "$stage/bin/fastmu" --version
for rep in 1 2; do
  [ -x "$stage/bin/fastmu_bench_old" ] &&
    run "$stage/bin/fastmu_bench_old" --benchmark_filter=IronBlock --benchmark_min_time=1
  run "$stage/bin/fastmu_bench" --benchmark_filter=IronBlock --benchmark_min_time=1
done
run "$stage/bin/fastmu" bench --backend cpu --case iron-block --n 30000 --repeat 5 --threads 1
run "$stage/bin/fastmu" bench --backend cpu --case iron-block --n 400000 --repeat 3

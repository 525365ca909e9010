#!/usr/bin/env bash
# Runs ON the GPU machine, from the repository root, with a folder staged by
# build_for_device.sh (OLD_BUILD=... for a same-run baseline): the transport
# tests, then the CUDA transport's reported time against its kernel time, old
# build against new, for the iron block and the SHiP-like shield, on one GPU
# and (with several visible) on all. Everything printed is saved under $OUT.
#   usage: [STAGE=dir] bash tools/device/pipeline_bench.sh [quick]
set -uo pipefail
stage=${STAGE:-.device}
out=${OUT:-/tmp/fastmu_pipeline_out}
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/$stage/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export FASTMU_CACHE=$PWD/$stage/cache FASTMU_REFERENCE_DIR=$PWD/$stage/reference
export FASTMU_CACHE_SAMPLES=${FASTMU_CACHE_SAMPLES:-20000}
log=$out/pipeline_bench.log
run() { echo "\$ $*" | tee -a "$log"; "$@" 2>&1 | tee -a "$log"; }
bin=$stage/bin
gpus=$(nvidia-smi -L | wc -l)

{ date -u; nproc; grep -m1 "model name" /proc/cpuinfo; nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv; } 2>&1 | tee "$log"
run "$bin/fastmu_tests_transport" --gtest_brief=1 --gtest_filter='Cuda*:*Fixture*:ResultRows*'
b() { run "$bin/$1" bench --backend cuda "${@:2}"; }
# One GPU: old (single launch, pageable copies) and new, twice, alternating.
for rep in 1 2; do
  for v in fastmu_old fastmu; do
    [ -x "$bin/$v" ] && CUDA_VISIBLE_DEVICES=0 b $v --case iron-block --n 4000000 --repeat 5
  done
done
CUDA_VISIBLE_DEVICES=0 b fastmu --case iron-block --n 4000000 --repeat 5 --at-plane
# Result arrays reused between calls, as a run streaming chunk after chunk has them.
CUDA_VISIBLE_DEVICES=0 b fastmu --case iron-block --n 4000000 --repeat 5 --reuse-output
CUDA_VISIBLE_DEVICES=0 b fastmu --case iron-block --n 4000000 --repeat 5 --reuse-output --at-plane
CUDA_VISIBLE_DEVICES=0 b fastmu --case iron-block --n 16000000 --repeat 3 --reuse-output
for v in fastmu_old fastmu; do
  [ -x "$bin/$v" ] && CUDA_VISIBLE_DEVICES=0 b $v --case iron-block --n 16000000 --repeat 3
done
[ "${1:-}" = quick ] && exit 0
for v in fastmu_old fastmu; do
  [ -x "$bin/$v" ] && CUDA_VISIBLE_DEVICES=0 b $v --case ship --n 4000000 --repeat 3
done
CUDA_VISIBLE_DEVICES=0 b fastmu --case ship --n 4000000 --repeat 3 --at-plane
# All GPUs against one, same muons.
if [ "$gpus" -gt 1 ]; then
  for n in 4000000 16000000; do
    for g in 1 "$gpus"; do
      for v in fastmu_old fastmu; do
        [ -x "$bin/$v" ] && b $v --case iron-block --n $n --repeat 5 --gpus "$g"
      done
      b fastmu --case iron-block --n $n --repeat 5 --gpus "$g" --reuse-output
    done
  done
  for g in 1 "$gpus"; do
    for v in fastmu_old fastmu; do
      [ -x "$bin/$v" ] && b $v --case ship --n 4000000 --repeat 3 --gpus "$g"
    done
    b fastmu --case ship --n 4000000 --repeat 3 --gpus "$g" --at-plane
  done
fi

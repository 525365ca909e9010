#!/usr/bin/env bash
# Runs ON a two-GPU machine from the repository root, with .device/ staged by
# build_for_device.sh and stage_openmpi.sh: one GPU against two, in one
# process (`--gpus 2`) and as two MPI ranks (`mpirun -np 2`, one GPU each),
# for the transport (`fastmu bench`) and for whole `fastmu run` processes with
# HDF5 files in and out; the outputs of one GPU, two GPUs and two ranks are
# compared byte for byte. Everything printed is saved under $OUT.
#   usage: bash .device/two_gpu_bench.sh [N_RUN=40000000]
set -uo pipefail
out=${OUT:-/tmp/fastmu_two_gpu_out}
work=${WORK:-/tmp/fastmu_two_gpu}
mkdir -p "$out" "$work"
export LD_LIBRARY_PATH=$PWD/.device/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export FASTMU_CACHE=$PWD/.device/cache FASTMU_CACHE_SAMPLES=${FASTMU_CACHE_SAMPLES:-20000}
export FASTMU_PROGRESS=0
source .device/openmpi_env.sh
log=$out/two_gpu_bench.log
bin=$PWD/.device/bin
n_run=${1:-40000000}
source "$(dirname "$0")/timing.sh"
{ date -u; nproc; grep -m1 "model name" /proc/cpuinfo; nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv
  ls /dev | grep nvidia | tr '\n' ' '; echo; mpirun --version | head -1; } 2>&1 | tee "$log"
# Tables into the cache once (long-step ladders included).
timeout 120 "$bin/fastmu" bench --backend cuda --case all --n 1000 --repeat 1 --gpus 1 >"$out/warm.log" 2>&1
run mpirun -np 2 "$bin/fastmu" --version

# Transport in one process: 1 GPU against 2, alternating (skip: BENCH=0).
if [ "${BENCH:-1}" = 1 ]; then
  for rep in 1 2; do
    for g in 1 2; do
      run "$bin/fastmu" bench --backend cuda --case ship --n 16000000 --repeat 2 --gpus $g
      run "$bin/fastmu" bench --backend cuda --case iron-block --n 16000000 --repeat 3 --gpus $g --reuse-output
    done
  done
  run "$bin/fastmu" bench --backend cuda --case iron-block --n 4000000 --repeat 5 --gpus 1
fi

# Whole processes, HDF5 in and out.
gen() { [ -f "$work/$1" ] || python3 bench/make_muon_file.py --out "$work/$1" "${@:2}" | tee -a "$log"; }
gen ship.h5 --n "$n_run" --spectrum ship
gen iron.h5 --n "$n_run"
sync
for case in ship iron; do
  geo=examples/ship_warm.json
  [ $case = iron ] && geo=examples/iron_block.json
  args=(run --geometry "$geo" --muons "$work/$case.h5" --backend cuda)
  for rep in 1 2; do
    rm -f "$work"/out_${case}_*.h5
    CUDA_VISIBLE_DEVICES=0 timed "$bin/fastmu" "${args[@]}" --out "$work/out_${case}_1gpu.h5" --gpus 1
    timed "$bin/fastmu" "${args[@]}" --out "$work/out_${case}_2gpu.h5" --gpus 2
    timed mpirun -np 2 --bind-to none "$bin/fastmu" "${args[@]}" --out "$work/out_${case}_2ranks.h5"
    ls -l "$work"/out_${case}_*.h5 | tee -a "$log"
    for v in 2gpu 2ranks; do
      if cmp -s "$work/out_${case}_1gpu.h5" "$work/out_${case}_$v.h5"; then
        echo "cmp $case 1gpu $v: identical" | tee -a "$log"
      else
        echo "cmp $case 1gpu $v: DIFFER" | tee -a "$log"
      fi
    done
  done
  rm -f "$work"/out_${case}_*.h5
done
date -u | tee -a "$log"

#!/usr/bin/env bash
# Runs ON one GPU from the repository root (session 10, issue 9: the iron
# block's output), with .device/ staged by build_for_device.sh (.device/lib
# compressed in lib.tar.xz) and the default tables in .device/cache1e6.tar.
#  1. (PROCESS=1) whole `fastmu run` processes on 4e7 iron-block muons (three,
#     the first on the machine's fresh memory) and one SHiP-like, HDF5 in and
#     out, one GPU; with .device/bin/fastmu_prev staged, it alternates with it;
#  2. (PROBE=1, WRITER=0) what the storage under $WORK gives (bench/bench_storage.cc:
#     fresh memory first, then buffered, mmap and O_DIRECT writes of 2.7 GB by
#     1-16 threads) and MuonWriter's rate (bench/bench_output.cc); WRITER=1:
#     MuonWriter's rate, this build and fastmu_bench_prev alternating.
#  3. (IRON4E6=1) `fastmu run` on 4e6 iron-block muons at 50 GeV/c, transport
#     against kernels (FASTMU_TRACE_LANES), both builds; (TESTS=1) the CUDA
#     tests and the writer's.
#   usage: bash tools/device/session10_check.sh [N_RUN=40000000]
set -uo pipefail
out=${OUT:-/tmp/fastmu_s10_out}
work=${WORK:-/tmp/fastmu_s10}
mkdir -p "$out" "$work"
source "$(dirname "$0")/timing.sh"
unpack_stage
log=$out/session10.log
bin=$PWD/.device/bin
n_run=${1:-40000000}
{
  date -u; nvidia-smi --query-gpu=name,persistence_mode --format=csv,noheader; nproc; uname -r; free -g
  df -T "$work"; grep -H . /proc/sys/vm/dirty_ratio /proc/sys/vm/dirty_background_ratio
} 2>&1 | tee "$log"
builds=fastmu
[ -x "$bin/fastmu_prev" ] && builds="fastmu fastmu_prev"
if [ "${PROCESS:-1}" = 1 ]; then
  echo "== whole processes, $n_run muons $(date -u +%T)" | tee -a "$log"
  make_inputs "$n_run"
  # The machine's first write of 2.7 GB meets fresh memory (1.5x slower):
  # one run of the first build before the timed ones.
  rm -f "$work/out_iron.h5"
  timed "$bin/${builds##* }" run --geometry examples/iron_block.json --muons "$work/iron.h5" \
    --out "$work/out_iron.h5" --backend cuda --gpus 1
  # `whole BUILD CASE GEOMETRY`: one timed process, this build traced.
  whole() {
    rm -f "$work/out_$2.h5"
    timed env FASTMU_TRACE=$([ "$1" = fastmu ] && echo 1 || echo 0) "$bin/$1" run \
      --geometry "examples/$3.json" --muons "$work/$2.h5" --out "$work/out_$2.h5" \
      --backend cuda --gpus 1
  }
  for rep in 1 2 3; do
    for b in $builds; do whole "$b" iron iron_block; done
  done
  for b in $builds; do whole "$b" ship ship_warm; done
  rm -f "$work"/out_*.h5
fi
if [ "${IRON4E6:-0}" = 1 ]; then
  echo "== iron block 4e6, fastmu run (transport / kernels) $(date -u +%T)" | tee -a "$log"
  [ -f "$work/iron4e6.h5" ] || python3 bench/make_muon_file.py --out "$work/iron4e6.h5" \
    --n 4000000 --p-min 50 --p-max 50 | tee -a "$log"
  for rep in 1 2; do
    for b in $builds; do
      rm -f "$work/o4.h5"
      timed env FASTMU_TRACE_LANES=1 "$bin/$b" run --geometry examples/iron_block.json \
        --muons "$work/iron4e6.h5" --out "$work/o4.h5" --backend cuda --gpus 1
    done
  done
fi
if [ "${TESTS:-0}" = 1 ]; then
  echo "== CUDA and stream tests $(date -u +%T)" | tee -a "$log"
  FASTMU_CACHE=$work/test_cache FASTMU_CACHE_SAMPLES=20000 run "$bin/fastmu_tests_transport" \
    --gtest_brief=1 --gtest_filter='Cuda*:Fixture*:ResultRows*:ShipGradient.Cuda*:*Objective*:MuonWriter*'
fi
if [ "${PROBE:-1}" = 1 ]; then
  echo "== storage under $work $(date -u +%T)" | tee -a "$log"
  export FASTMU_BENCH_DIR=$work FASTMU_BENCH_STORAGE_GB=2.7
  run "$bin/fastmu_bench" --benchmark_filter='StorageWrite/way:3'
  run "$bin/fastmu_bench" --benchmark_filter='StorageWrite|MuonWriterHdf5'
fi
if [ "${WRITER:-0}" = 1 ]; then
  echo "== MuonWriter, this build and prev $(date -u +%T)" | tee -a "$log"
  export FASTMU_BENCH_DIR=$work
  for rep in 1 2; do
    for b in fastmu_bench fastmu_bench_prev; do
      [ -x "$bin/$b" ] && run "$bin/$b" --benchmark_filter='MuonWriterHdf5/34'
    done
  done
fi
date -u | tee -a "$log"

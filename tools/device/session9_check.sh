#!/usr/bin/env bash
# Runs ON one GPU from the repository root (session 9), with .device/ staged
# by build_for_device.sh, the default tables (1e6 samples per bin) of G4_Fe,
# G4_AIR and G4_CONCRETE in .device/cache1e6.tar, and bin/fastmu_fixed (the
# fixed-step build, 88c553f) in .device/extra.tar.xz (.device/lib compressed in
# lib.tar.xz when the carry limit needs it).
#  1. issue 11: the stack 20 x (1 cm Fe + 1 cm air) and the 1 mm sheet at
#     100 GeV/c, CUDA, default tables, 1e6 fast and 1e6 detailed muons, three
#     seeds (tools/sheet_matrix.py);
#  2. issue 11: the SHiP-like shield, N muons, detailed engine / this build /
#     the fixed-step build on the same muons, default tables: status counts
#     and window quantiles (window_quantiles.py);
#  3. issue 11: the SHiP-like shield on the CPU (`fastmu bench --backend cpu`),
#     fixed-step build and this one, alternating, twice;
#  4. issue 9: `fastmu run` on 4e6 iron-block muons (transport / kernels);
#  5. (TESTS=1) the CUDA tests; (PROCESS=1) whole 4e7-muon processes, SHiP-like
#     and iron block, HDF5 in and out, bin/fastmu_prev (in extra.tar.xz) and
#     this build alternating, twice.
#   usage: bash .device/session9_check.sh [N_SHIP=1000000] [N_RUN=40000000]
#   STACK=0 SHIP=0 CPU=0 IRON=0 skip those parts; TRACE=1 traces the iron runs'
#   host lanes (FASTMU_TRACE_LANES).
set -uo pipefail
out=${OUT:-/tmp/fastmu_s9_out}
work=${WORK:-/tmp/fastmu_s9}
mkdir -p "$out" "$work"
source "$(dirname "$0")/timing.sh"
unpack_stage
log=$out/session9.log
bin=$PWD/.device/bin
n_ship=${1:-1000000}
n_run=${2:-40000000}
{ date -u; nvidia-smi --query-gpu=name --format=csv,noheader; nproc; } 2>&1 | tee "$log"
if [ "${STACK:-1}" = 1 ]; then
  echo "== stack at 100 GeV/c, CUDA, default tables $(date -u +%T)" | tee -a "$log"
  for s in 7 11 12; do
    run python3 tools/sheet_matrix.py --fastmu "$bin/fastmu" --backend cuda --materials G4_Fe \
      --thickness 0.001 --p 100 --starts vacuum --n 1000000 --n-ref 1000000 --seed $s \
      --work "$work/sheets"
  done
fi
if [ "${SHIP:-1}" = 1 ]; then
  echo "== SHiP-like shield, $n_ship muons, default tables $(date -u +%T)" | tee -a "$log"
  run "$bin/fastmu" validate --example ship --n "$n_ship" --backend cuda --out-dir "$work/v"
  mkdir -p "$work/fixed"
  run "$bin/fastmu_fixed" run --example ship --n "$n_ship" --backend cuda --out-dir "$work/fixed" \
    --no-plot
  run python3 tools/device/window_quantiles.py "$work/v/detailed.csv" "$work/v/fast.csv" \
    "$work/fixed/ship_run.h5"
  cp "$work/v/summary.md" "$out/validate_summary.md"
fi
if [ "${CPU:-1}" = 1 ]; then
  echo "== SHiP-like shield on the CPU: fixed step and this build $(date -u +%T)" | tee -a "$log"
  for rep in 1 2; do
    for b in fastmu_fixed fastmu; do
      run "$bin/$b" bench --backend cpu --case ship --n 200000 --repeat 1
    done
  done
fi
if [ "${IRON:-1}" = 1 ]; then
  echo "== iron block 4e6, fastmu run $(date -u +%T)" | tee -a "$log"
  # TRACE=1: where the streamed calls' host lanes spend their time (stderr)
  [ "${TRACE:-0}" = 1 ] && export FASTMU_TRACE_LANES=1
  [ -f "$work/iron4e6.h5" ] || python3 bench/make_muon_file.py --out "$work/iron4e6.h5" --n 4000000 |
    tee -a "$log"
  builds=fastmu
  [ -x "$bin/fastmu_prev" ] && builds="fastmu_prev fastmu"
  for rep in 1 2; do
    for b in $builds; do
      rm -f "$work/o_iron.h5"
      timed "$bin/$b" run --geometry examples/iron_block.json --muons "$work/iron4e6.h5" \
        --out "$work/o_iron.h5" --backend cuda --gpus 1
    done
  done
  run "$bin/fastmu" bench --backend cuda --case iron-block --n 4000000 --repeat 5 --gpus 1
  run "$bin/fastmu" bench --backend cuda --case iron-block --n 4000000 --repeat 5 --gpus 1 \
    --reuse-output --at-plane
fi
unset FASTMU_TRACE_LANES
if [ "${TESTS:-0}" = 1 ]; then
  echo "== CUDA tests $(date -u +%T)" | tee -a "$log"
  FASTMU_CACHE=$work/test_cache FASTMU_CACHE_SAMPLES=20000 run "$bin/fastmu_tests_transport" \
    --gtest_brief=1 --gtest_filter='Cuda*:Fixture*:ResultRows*:ShipGradient.Cuda*:*Objective*'
fi
if [ "${PROCESS:-0}" = 1 ]; then
  echo "== whole processes, $n_run muons $(date -u +%T)" | tee -a "$log"
  make_inputs "$n_run"
  for rep in 1 2; do
    for case in ship iron; do
      geo=examples/ship_warm.json
      [ $case = iron ] && geo=examples/iron_block.json
      for b in fastmu_prev fastmu; do
        rm -f "$work/out_$case.h5"
        timed "$bin/$b" run --geometry "$geo" --muons "$work/$case.h5" --out "$work/out_$case.h5" \
          --backend cuda --gpus 1
      done
    done
  done
fi
date -u | tee -a "$log"

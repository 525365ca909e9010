#!/usr/bin/env bash
# Runs ON a two-GPU machine from the repository root (session 10, issue 9:
# the ranks' parts written into the output at their places by every rank),
# with .device/ staged by build_for_device.sh (lib in lib.tar.xz), the
# default tables in .device/cache1e6.tar, bin/fastmu_prev (the build before)
# in .device/extra.tar.xz and OpenMPI by stage_openmpi.sh. 4e7-muon iron-block
# and SHiP-like runs, HDF5 in and out: one GPU, two ranks of this build
# (traced) and of the build before, alternating; outputs compared with cmp.
#   usage: bash tools/device/session10_two.sh [N_RUN=40000000]
set -uo pipefail
out=${OUT:-/tmp/fastmu_s10two_out}
work=${WORK:-/tmp/fastmu_s10two}
mkdir -p "$out" "$work"
source "$(dirname "$0")/timing.sh"
unpack_stage
source .device/openmpi_env.sh
log=$out/session10_two.log
bin=$PWD/.device/bin
n_run=${1:-40000000}
{ date -u; nproc; nvidia-smi --query-gpu=name,persistence_mode --format=csv; free -g; df -T "$work"; } 2>&1 | tee "$log"
make_inputs "$n_run"
same() {
  if cmp -s "$1" "$2"; then echo "cmp $(basename "$1") $(basename "$2"): identical"; else
    echo "cmp $(basename "$1") $(basename "$2"): DIFFER"; fi | tee -a "$log"
}
for case in iron ship; do
  geo=examples/ship_warm.json
  [ $case = iron ] && geo=examples/iron_block.json
  args=(run --geometry "$geo" --muons "$work/$case.h5" --backend cuda)
  rm -f "$work"/o_*.h5
  CUDA_VISIBLE_DEVICES=0 timed "$bin/fastmu" "${args[@]}" --out "$work/o_1gpu.h5" --gpus 1
  reps=2
  [ $case = ship ] && reps=1
  for ((rep = 0; rep < reps; ++rep)); do
    rm -f "$work/o_prev.h5" "$work/o_new.h5"
    timed mpirun -np 2 --bind-to none "$bin/fastmu_prev" "${args[@]}" --out "$work/o_prev.h5"
    timed mpirun -np 2 --bind-to none -x FASTMU_TRACE=1 "$bin/fastmu" "${args[@]}" --out "$work/o_new.h5"
    same "$work/o_1gpu.h5" "$work/o_prev.h5"
    same "$work/o_1gpu.h5" "$work/o_new.h5"
  done
  rm -f "$work"/o_*.h5
done
date -u | tee -a "$log"

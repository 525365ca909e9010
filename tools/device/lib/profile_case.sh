# shellcheck shell=bash disable=SC2154 # globals (root, out, work, log, stage, bin, opt) set by bench.sh
# The `profile` case of tools/device/bench.sh: Nsight Compute on one launch
# of each transport kernel, with the clocks left alone (--clock-control none).

# `ncu_kernel LABEL KERNEL_REGEX SKIP CMD...`: profiles the launch of the
# kernel under CMD after SKIP earlier ones. `fastmu bench` transports one
# muon at its set-up, then its warm-up run in chunks that start at 16384
# muons and double (PipelineChunks.hh), taken by a dozen streams at once,
# so that the first launches come in any order: with 4e6 muons, skip 12
# profiles a later chunk of about 1.4e5 muons, one wave of the GPU, as a
# run's chunks are. Into $out/profile_LABEL.txt (a report file stays in
# $work: too large to bring back) and profile_LABEL_source.csv.
ncu_kernel() {
  local label=$1 kernel=$2 skip=$3 ncu
  shift 3
  ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
  note "ncu: $label"
  echo "\$ $*" | tee -a "$log"
  "$ncu" --clock-control none --kernel-name "regex:$kernel" --launch-skip "$skip" --launch-count 1 --set full \
    --import-source yes -f -o "$work/profile_$label" "$@" >>"$log" 2>&1 ||
    echo "  ncu: exit $? (see $(basename "$log"))" | tee -a "$log"
  [ -f "$work/profile_$label.ncu-rep" ] || return 0
  "$ncu" -i "$work/profile_$label.ncu-rep" --page details >"$out/profile_$label.txt" 2>&1
  "$ncu" -i "$work/profile_$label.ncu-rep" --page source --csv --print-source cuda,sass \
    >"$out/profile_${label}_source.csv" 2>&1 &&
    python3 "$device_tools/ncu_source_share.py" "$out/profile_${label}_source.csv" |
    tee -a "$log" "$out/profile_$label.txt" >/dev/null
}

profile_case() {
  local n nd
  n=$(count --n 4000000)
  nd=$(count --detailed-n 20000)
  machine_info
  warm_tables cuda fastmu
  ncu_kernel iron transport_kernel 12 "$bin/fastmu" bench --backend cuda --case iron-block --n "$n" --repeat 1 --gpus 1
  ncu_kernel ship transport_kernel 12 "$bin/fastmu" bench --backend cuda --case ship --n "$n" --repeat 1 --gpus 1
  rm -f "$work/profile_detailed.h5"
  muon_file "ship_$nd.h5" --n "$nd" --spectrum ship
  ncu_kernel detailed detailed_kernel 0 "$bin/fastmu" run --engine detailed \
    --geometry examples/ship_warm.json --muons "$work/ship_$nd.h5" --out "$work/profile_detailed.h5" \
    --backend cuda
}

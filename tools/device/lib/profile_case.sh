# shellcheck shell=bash disable=SC2154 # globals (root, out, work, log, stage, bin, opt) set by bench.sh
# The `profile` case of tools/device/bench.sh: Nsight Compute on one launch
# of each transport kernel, with the clocks left alone (--clock-control none).

# `ncu_kernel LABEL KERNEL_REGEX CMD...`: profiles the first launch of the
# kernel under CMD into $out/profile_LABEL.{txt,csv} (a report file stays in
# $work: too large to bring back) and profile_LABEL_source.csv.
ncu_kernel() {
  local label=$1 kernel=$2 ncu
  shift 2
  ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
  note "ncu: $label"
  echo "\$ $*" | tee -a "$log"
  "$ncu" --clock-control none --kernel-name "regex:$kernel" --launch-count 1 --set full \
    --import-source yes -f -o "$work/profile_$label" "$@" >>"$log" 2>&1 ||
    echo "  ncu: exit $? (see $(basename "$log"))" | tee -a "$log"
  [ -f "$work/profile_$label.ncu-rep" ] || return 0
  "$ncu" -i "$work/profile_$label.ncu-rep" --page details >"$out/profile_$label.txt" 2>&1
  "$ncu" -i "$work/profile_$label.ncu-rep" --page source --csv --print-source cuda \
    >"$out/profile_${label}_source.csv" 2>&1 &&
    python3 "$device_tools/ncu_source_share.py" "$out/profile_${label}_source.csv" |
    tee -a "$log" "$out/profile_$label.txt" >/dev/null
}

profile_case() {
  local n nd
  n=$(count --n 1000000)
  nd=$(count --detailed-n 20000)
  machine_info
  warm_tables cuda fastmu
  ncu_kernel iron transport_kernel "$bin/fastmu" bench --backend cuda --case iron-block --n "$n" --repeat 1 --gpus 1
  ncu_kernel ship transport_kernel "$bin/fastmu" bench --backend cuda --case ship --n "$n" --repeat 1 --gpus 1
  ncu_kernel detailed detailed_kernel "$bin/fastmu" run --example ship --n 1000 --n-detailed "$nd" \
    --backend cuda --no-plot --out-dir "$work/profile_detailed"
}

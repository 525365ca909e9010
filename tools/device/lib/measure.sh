# shellcheck shell=bash disable=SC2154 # globals (root, out, work, log, stage, bin, opt) set by bench.sh
# Logging and timing of the benchmark cases (sourced by tools/device/bench.sh).
# Everything printed goes to the terminal and to $log; timed processes also
# get one row each in $runs_csv (tools/device/timed_run.py).

# `start_case NAME`: $out, $work, $log and $runs_csv for this case.
start_case() {
  out=${OUT:-$PWD/out}
  work=${opt[--work]:-${WORK:-/tmp/fastmu_bench}}
  mkdir -p "$out" "$work" || exit 1
  log=$out/$1.log
  runs_csv=$out/$1_runs.csv
  case_started=$SECONDS
  echo "== bench.sh $1 $(date -u '+%F %T') UTC" | tee "$log"
}
finish_case() {
  note "done in $((SECONDS - case_started)) s; results in $out"
}

# `note TEXT`: a section header with the time of day.
note() { echo "== $* $(date -u +%T)" | tee -a "$log"; }

# `run CMD...`: echoes and runs a command; its exit status is returned.
run() {
  echo "\$ $*" | tee -a "$log"
  "$@" 2>&1 | tee -a "$log"
}

# `timed LABEL CMD...`: runs CMD measured from outside (wall time, peak RSS
# of it and all its children, mpirun's ranks too) and appends a row to
# $runs_csv under LABEL.
timed() {
  local label=$1
  shift
  echo "\$ $*" | tee -a "$log"
  python3 "$device_tools/timed_run.py" --csv "$runs_csv" --label "$label" -- "$@" 2>&1 |
    tee -a "$log"
}

# `machine_info`: what the numbers were measured on.
machine_info() {
  {
    date -u
    uname -r
    echo "cores: $(nproc)"
    grep -m1 "model name" /proc/cpuinfo
    free -g | sed -n 2p
    command -v nvidia-smi >/dev/null &&
      nvidia-smi --query-gpu=name,memory.total,driver_version,persistence_mode --format=csv,noheader
    df -T "$work" | tail -1
  } 2>&1 | tee -a "$log"
}

# `builds NAME`: NAME_old (when staged) then NAME: the builds a case alternates.
builds() {
  local b list=""
  for b in "$1_old" "$1"; do
    [ -x "$bin/$b" ] && list+="$b "
  done
  echo "$list"
}

# `same_file A B`: whether two outputs are byte for byte the same.
same_file() {
  if [ ! -f "$1" ] || [ ! -f "$2" ]; then
    echo "cmp $(basename "$1") $(basename "$2"): missing"
  elif cmp -s "$1" "$2"; then
    echo "cmp $(basename "$1") $(basename "$2"): identical"
  else
    echo "cmp $(basename "$1") $(basename "$2"): DIFFER"
  fi | tee -a "$log"
}

# `muon_file NAME ARGS...`: $work/NAME written by bench/make_muon_file.py ARGS
# unless there (kept between calls on a warm machine).
muon_file() {
  [ -f "$work/$1" ] || python3 bench/make_muon_file.py --out "$work/$1" "${@:2}" | tee -a "$log"
}

# Sourced by the device scripts (tools/device/*.sh, staged in .device/):
# `run CMD...` echoes and runs a command, `timed CMD...` also prints the
# process's wall time and peak RSS (all its children, mpirun's ranks too);
# both append to $log. `unpack_stage` unpacks what build_for_device.sh
# staged: the compressed libraries and extra binaries when there, the
# default tables (.device/cache1e6.tar) into $work/cache; it points
# LD_LIBRARY_PATH and FASTMU_CACHE at them.
run() { echo "\$ $*" | tee -a "$log"; "$@" 2>&1 | tee -a "$log"; }
timed() {
  echo "\$ $*" | tee -a "$log"
  python3 - "$@" <<'PY' 2>&1 | tee -a "$log"
import resource, subprocess, sys, time
t = time.perf_counter()
rc = subprocess.run(sys.argv[1:]).returncode
wall = time.perf_counter() - t
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(f"process: rc {rc}, wall {wall:.3f} s, peak RSS {rss:.0f} MB", flush=True)
PY
}
# `make_inputs N`: SHiP-like and iron-block muon files of N rows in $work
# (kept between calls on a warm machine). `whole_runs [REPEATS]`: whole
# `fastmu run` processes on them, HDF5 in and out, one GPU, SHiP-like and
# iron block alternating, timed.
make_inputs() {
  [ -f "$work/ship.h5" ] || python3 bench/make_muon_file.py --out "$work/ship.h5" --n "$1" \
    --spectrum ship | tee -a "$log"
  [ -f "$work/iron.h5" ] || python3 bench/make_muon_file.py --out "$work/iron.h5" --n "$1" |
    tee -a "$log"
}
whole_runs() {
  local rep case geo
  for ((rep = 0; rep < ${1:-2}; ++rep)); do
    for case in ship iron; do
      geo=examples/ship_warm.json
      [ $case = iron ] && geo=examples/iron_block.json
      rm -f "$work/out_$case.h5"
      timed "$bin/fastmu" run --geometry "$geo" --muons "$work/$case.h5" \
        --out "$work/out_$case.h5" --backend cuda --gpus 1
    done
  done
}
unpack_stage() {
  local f
  for f in lib extra; do
    [ -f ".device/$f.tar.xz" ] && tar -xJf ".device/$f.tar.xz" -C .device
  done
  mkdir -p "$work/cache" && tar -xf .device/cache1e6.tar -C "$work/cache"
  export LD_LIBRARY_PATH=$PWD/.device/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export FASTMU_CACHE=$work/cache FASTMU_PROGRESS=0
  unset FASTMU_CACHE_SAMPLES
}

# Sourced by the device scripts (tools/device/*.sh, staged in .device/):
# `run CMD...` echoes and runs a command, `timed CMD...` also prints the
# process's wall time and peak RSS (all its children, mpirun's ranks too);
# both append to $log.
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

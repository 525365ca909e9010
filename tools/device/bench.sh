#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# fastmu's benchmark driver for the GPU machine.
#
#   bash tools/device/bench.sh CASE [options]
#
# The GPU machine has nvcc and a driver but none of the Debian libraries, so
# the work is split in two. HERE, on the development machine, `stage` builds
# fastmu and stages everything the other machine needs in the git-ignored
# folder .device/. THERE, from the repository root with .device carried, the
# other cases measure; each writes CASE.log (all it printed) and, for timed
# processes, CASE_runs.csv (one row per process: label, exit code, wall time,
# peak RSS, the wall and kernel times `fastmu bench` reports, the `time:` line
# of `fastmu run`) under $OUT (default ./out). Builds staged as fastmu_old and
# fastmu_bench_old (stage --old-build DIR) are run alternately with the new
# ones in the same call: same machine, same state, so their difference is
# what the code changed.
#
# Cases run here:
#   stage         build with CUDA (sm_90 real + virtual, rpath $ORIGIN/lib)
#                 into build-gpu/ and stage in .device/: bin/ (fastmu,
#                 fastmu_bench, fastmu_tests_transport and _tables, *_old), lib/ (the
#                 non-glibc shared libraries they load), cache/ (tables from
#                 the table cache), reference/ (the Geant4 slab sample),
#                 pylib/ + include/ (the Python extension's inputs).
#       --build-dir DIR   build folder (default $BUILD_DIR or build-gpu)
#       --jobs N          parallel build jobs (default $JOBS or 1)
#       --cache DIR       table cache to copy tables from (default
#                         $FASTMU_CACHE or ~/.cache/fastmu)
#       --materials "M.." more materials whose tables to stage (default
#                         $EXTRA_MATERIALS; G4_Fe G4_AIR G4_CONCRETE always)
#       --old-build DIR   stage DIR's fastmu, fastmu_bench as *_old (default
#                         $OLD_BUILD)
#       --reference FILE  Geant4 slab sample (default
#                         ../shared/reference/geant4/slab_G4_Fe_10m_50GeV_mu-.f32)
#       --cpu-only        build without CUDA (for the cpu case)
#       --python          keep the Python extension configured in that build
#       --openmpi         also stage this machine's OpenMPI runtime (two-gpu)
#       --compress        pack lib/ and cache/ as .tar.xz (the carry limit)
#       --lineinfo        CUDA line information (the profile case's source
#                         counters; the machine code is the same)
#       --dry-run         print what would be built and staged, do nothing
#
# Cases run on the GPU machine (options: --n N muons, --repeat R rounds of
# the old/new alternation (default 2), --quick a shorter variant, --work DIR
# scratch folder for large files (default $WORK or /tmp/fastmu_bench),
# --samples S table samples per momentum bin (default $FASTMU_CACHE_SAMPLES
# or 20000: the transport's speed does not depend on them)):
#   kernel        `fastmu bench` on the iron block and the SHiP-like shield,
#                 CUDA, new and old alternating (4e6 muons), result arrays
#                 reused, rows at the plane, the fixed cost of a call, 16e6
#                 muons, the objective's cost, one GPU against all.
#                 Options: --n --repeat --quick --work --samples
#   process       whole `fastmu run` processes, HDF5 in and HDF5 out, one
#                 GPU, iron block and SHiP-like (4e7 muons), new and old
#                 alternating after one run on fresh memory; outputs of new
#                 and old compared with cmp. --huge N adds an N-muon run under
#                 --max-memory 2GB; --trace sets FASTMU_TRACE=1 on the new one.
#                 Options: --n --repeat --quick --work --samples --huge --trace
#   cpu           the CPU backend: `fastmu bench` on one thread and on all
#                 cores (--n, default 400000), fastmu_bench's IronBlock and
#                 single-step benchmarks, new and old alternating.
#                 Options: --n --repeat --quick --work --samples
#   two-gpu       one GPU against two: `fastmu bench --gpus 1|2`, and whole
#                 processes (4e7 muons) on one GPU, on two (`--gpus 2`) and
#                 as two MPI ranks (needs stage --openmpi); outputs compared
#                 with the one-GPU file by cmp.
#                 Options: --n --repeat --quick --work --samples --trace
#   python        builds the Python extension there for the machine's own
#                 Python, then python_checks.py (repeated calls, a loop of
#                 calls, the objective with muons on the GPU, the torch
#                 wrapper) and tools/ship_gradient_check.py on CUDA.
#                 Options: --n --sections LIST --n-fd N --work --samples
#   storage       what the storage under --work gives (bench_storage.cc:
#                 fresh memory first, then buffered, mmap and O_DIRECT
#                 writes of --gb GB) and MuonWriter's rate, new and old.
#                 Options: --gb --repeat --work --samples
#   validate      the transport tests (--quick: the CUDA ones only), then the
#                 physics with tables of --table-samples (default 2e5) built
#                 there: the SHiP-like shield through `fastmu validate` and
#                 each build's `fastmu run --example ship` (window
#                 quantiles), the iron block against the Geant4 slab, the
#                 quick CUDA sheet matrix against the detailed engine.
#                 Options: --n --quick --work --samples --table-samples
#   extreme-rows  examples/iron_block.json on a small muon file (--n, default
#                 1000) with one extra row: pz 1e15, 1e20, 1e30, 3e38, -1e25,
#                 1e-30, 1e-40; px 1e30; x 1e30; z -1e30; CSV and HDF5; each
#                 backend of --backends (default cuda,cpu) under `timeout
#                 --timeout` (default 60 s); exit code, wall time, the
#                 one-line error or the output's status column and whether
#                 any NaN is in it go to $OUT/extreme_rows.csv.
#                 Options: --n --backends --timeout --work --samples
#   profile       Nsight Compute (ncu) on one launch of each transport
#                 kernel: the fast transport's on the iron block and the
#                 SHiP-like shield, the detailed engine's on the SHiP-like
#                 shield (--detailed-n muons, default 20000); --n muons
#                 (default 4e6) for the fast transport, of which a chunk of
#                 5e5 is profiled; the full
#                 section set with source counters (build with -lineinfo,
#                 `stage --lineinfo`). Writes profile_CASE.txt (sections,
#                 then the stall samples summed per source file by
#                 tools/device/ncu_source_share.py) and
#                 profile_CASE_source.csv (per source line).
#                 Options: --n --detailed-n --work --samples
#   tables        table builds from an empty cache with the default sampling:
#                 G4_Fe's ladder (iron block) and the SHiP-like shield's
#                 materials, the engine on the GPU and on all cores
#                 (FASTMU_TABLE_BACKEND), the old build's iron block; first
#                 the GPU's samples against the CPU's (gtest Ladder*, DetailedEngine.*).
#                 Options: --work
#
# Environment: OUT (results, default ./out), WORK, STAGE (default .device),
# FASTMU_CACHE (default .device/cache), FASTMU_CACHE_SAMPLES.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
device_tools=$root/tools/device

usage() { sed -n '3,/^set -uo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; }
die() {
  echo "bench.sh: $*" >&2
  exit 2
}

# Options each case accepts (anything else is refused, not ignored).
declare -A case_options=(
  [stage]="--build-dir --jobs --cache --materials --old-build --reference --cpu-only --python --openmpi --compress --lineinfo --dry-run"
  [kernel]="--n --repeat --quick --work --samples"
  [process]="--n --repeat --quick --work --samples --huge --trace"
  [cpu]="--n --repeat --quick --work --samples"
  [two-gpu]="--n --repeat --quick --work --samples --trace"
  [python]="--n --sections --n-fd --work --samples"
  [storage]="--gb --repeat --work --samples"
  [validate]="--n --quick --work --samples --table-samples"
  [extreme-rows]="--n --backends --timeout --work --samples"
  [tables]="--work"
  [profile]="--n --detailed-n --work --samples"
)
flag_options=" --quick --trace --cpu-only --python --openmpi --compress --lineinfo --dry-run "
count_options=" --n --repeat --jobs --huge --n-fd --timeout --samples --table-samples --detailed-n "

# Parsed options: opt[--name] = value ("1" for flags).
declare -A opt=()
parse_options() {
  local name value
  while [ $# -gt 0 ]; do
    name=${1%%=*}
    case " ${case_options[$bench_case]} " in
      *" $name "*) ;;
      *) die "$bench_case does not take $1 (see --help)" ;;
    esac
    if [[ $flag_options == *" $name "* ]]; then
      opt[$name]=1
      shift
      continue
    fi
    if [[ $1 == *=* ]]; then
      value=${1#*=}
      shift
    else
      [ $# -ge 2 ] || die "$name needs a value"
      value=$2
      shift 2
    fi
    if [[ $count_options == *" $name "* ]] && ! [[ $value =~ ^[0-9]+$ && $value -gt 0 ]]; then
      die "$name wants a positive integer, not '$value'"
    fi
    opt[$name]=$value
  done
}

# `count NAME DEFAULT`: the option's value (checked by parse_options) or DEFAULT.
count() { echo "${opt[$1]:-$2}"; }
has() { [ -n "${opt[$1]:-}" ]; }

[ $# -ge 1 ] || {
  usage
  exit 2
}
case $1 in
  -h | --help | help)
    usage
    exit 0
    ;;
esac
bench_case=$1
shift
[ -n "${case_options[$bench_case]+set}" ] || die "unknown case '$bench_case' (see --help)"
parse_options "$@"

# shellcheck source=lib/measure.sh
source "$device_tools/lib/measure.sh"
if [ "$bench_case" = stage ]; then
  # shellcheck source=lib/stage.sh
  source "$device_tools/lib/stage.sh"
  stage_case
  exit
fi

# shellcheck source=lib/device_env.sh
source "$device_tools/lib/device_env.sh"
# shellcheck source=lib/timing_cases.sh
source "$device_tools/lib/timing_cases.sh"
# shellcheck source=lib/check_cases.sh
source "$device_tools/lib/check_cases.sh"
# shellcheck source=lib/python_module.sh
source "$device_tools/lib/python_module.sh"
# shellcheck source=lib/profile_case.sh
source "$device_tools/lib/profile_case.sh"
cd "$root" || exit 1
start_case "$bench_case"
use_stage
case $bench_case in
  kernel) kernel_case ;;
  process) process_case ;;
  cpu) cpu_case ;;
  two-gpu) two_gpu_case ;;
  python) python_case ;;
  storage) storage_case ;;
  validate) validate_case ;;
  extreme-rows) extreme_rows_case ;;
  tables) tables_case ;;
  profile) profile_case ;;
esac
finish_case

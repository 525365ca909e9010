#!/usr/bin/env bash
# Runs every libFuzzer target of a fuzzer build for a bounded time on its seed
# corpus (fuzz/corpus/<target>, read only: new inputs go to a scratch copy).
# A finding (crash, sanitizer report, exception other than fastmu::Error)
# leaves its input in <build>/fuzz/findings/<target>/ and fails the script.
# Usage: tools/fuzz.sh <build dir> [seconds per target, default 30] [targets...]
# FASTMU_FUZZ_JOBS=N runs N targets at a time (default: the number of cores).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: tools/fuzz.sh <build dir> [seconds] [targets...]}
seconds=${2:-30}
shift $(($# < 2 ? $# : 2))
targets=("$@")
if ((${#targets[@]} == 0)); then
  mapfile -t targets < <(find "$build/fuzz" -maxdepth 1 -type f -name 'fuzz_*' -perm -u+x -printf '%f\n' | sort)
fi
((${#targets[@]})) || { echo "fuzz: no fuzz_* targets in $build/fuzz (FASTMU_BUILD_FUZZERS=ON?)"; exit 1; }
# One target: its findings folder, log and one summary line; non-zero on a finding.
fuzz_one() {
  local t=$1 work="$build/fuzz/run/$1" findings="$build/fuzz/findings/$1"
  rm -rf "$work" && mkdir -p "$work/corpus" "$findings"
  cp -r "fuzz/corpus/$t/." "$work/corpus/" 2>/dev/null || true
  local log="$work/log.txt"
  if "$build/fuzz/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
       -artifact_prefix="$findings/" "$work/corpus" > "$log" 2>&1; then
    local runs cov
    runs=$(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || echo '?')
    echo "fuzz: $t: ${seconds} s, $runs inputs, coverage $cov, no finding"
  else
    echo "fuzz: $t: FINDING (input in $findings/); last lines of $log:"
    tail -25 "$log"
    return 1
  fi
}
# FASTMU_FUZZ_JOBS targets at a time (default: one per core); each leaves
# its outcome in a file, so the order in which they end does not matter.
jobs=${FASTMU_FUZZ_JOBS:-$(nproc)}
outcome="$build/fuzz/outcome"
rm -rf "$outcome" && mkdir -p "$outcome"
for t in "${targets[@]}"; do
  while (($(jobs -rp | wc -l) >= jobs)); do wait -n || true; done
  (fuzz_one "$t" && touch "$outcome/$t.ok") &
done
wait
status=0
for t in "${targets[@]}"; do
  [ -f "$outcome/$t.ok" ] || status=1
done
exit $status

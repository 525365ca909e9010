#!/usr/bin/env bash
# Builds the tables shipped with fastmu (data/tables) with fastmu's own
# detailed engine on a GPU: for each material of data/tables/materials.txt
# (or those named), the whole ladder to 100 TeV/c that runs with the default
# step options use, at the table cache's default statistics, through
# `fastmu tables prepare`. Writes the tables and BUILD.txt (the command,
# fastmu's version, the GPU, the time per material) to the output folder.
#
#   bash tools/build-shipped-tables.sh [--fastmu PROGRAM] [--out DIR] [MATERIAL...]
#
# Defaults: the fastmu on PATH, data/tables of this checkout. Run it on a
# machine with a GPU (a CPU build of every ladder takes hours), then commit
# data/tables; tests/transport/ShippedTablesTest.cc checks them against the
# engine of every later build.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
fastmu=fastmu
out=$root/data/tables
materials=()
while [ $# -gt 0 ]; do
  case $1 in
    --fastmu) fastmu=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    -*) echo "build-shipped-tables: unknown option $1" >&2; exit 2 ;;
    *) materials+=("$1"); shift ;;
  esac
done
if [ ${#materials[@]} -eq 0 ]; then
  mapfile -t materials < <(grep -v '^#' "$root/data/tables/materials.txt" | grep -v '^$')
fi
mkdir -p "$out"
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
# A cache of its own, the default statistics, nothing already shipped.
export FASTMU_CACHE=$cache FASTMU_SHIPPED_TABLES=none
unset FASTMU_CACHE_SAMPLES FASTMU_TABLE_BACKEND
{
  echo "# Tables shipped with fastmu, built by tools/build-shipped-tables.sh"
  echo "fastmu: $("$fastmu" --version)"
  echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "gpu: $(nvidia-smi -L 2>/dev/null | head -1 || echo none)"
  echo "command per material: fastmu tables prepare --backend cuda MATERIAL"
  echo "seconds per material (empty cache, whole process):"
} > "$cache/BUILD.txt"
for m in "${materials[@]}"; do
  start=$(date +%s%N)
  "$fastmu" tables prepare --backend cuda "$m"
  ms=$((($(date +%s%N) - start) / 1000000))
  printf '  %-14s %4d.%d\n' "$m" $((ms / 1000)) $((ms % 1000 / 100)) >> "$cache/BUILD.txt"
done
rm -f "$cache"/*.lock
cp "$cache"/*.h5 "$cache/BUILD.txt" "$out"/
du -ch "$out"/*.h5 | tail -1

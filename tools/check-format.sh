#!/usr/bin/env bash
# Checks that the C++/CUDA sources follow .clang-format (clang-format-14, as
# Debian 12 ships it); exits non-zero naming the files that do not.
#   bash tools/check-format.sh          check (CI)
#   bash tools/check-format.sh --fix    reformat those files in place
set -euo pipefail
cd "$(dirname "$0")/.."
clang_format=${CLANG_FORMAT:-clang-format-14}
command -v "$clang_format" > /dev/null || { echo "check-format: $clang_format not found (apt-get install clang-format-14)"; exit 2; }
mapfile -t files < <(git ls-files '*.cc' '*.hh' '*.cu' '*.cuh')  # not *.hh.in: @VAR@ is not C++
if [[ ${1:-} == --fix ]]; then
  "$clang_format" -i --style=file "${files[@]}"
  exit 0
fi
bad=()
for f in "${files[@]}"; do
  "$clang_format" --style=file --dry-run --Werror "$f" > /dev/null 2>&1 || bad+=("$f")
done
if ((${#bad[@]})); then
  echo "check-format: ${#bad[@]} of ${#files[@]} files differ from .clang-format (bash tools/check-format.sh --fix):"
  printf '  %s\n' "${bad[@]}"
  exit 1
fi
echo "check-format: ${#files[@]} files follow .clang-format"

#!/usr/bin/env bash
# Stages THIS machine's Debian OpenMPI runtime (mpirun, its plugins, help
# texts and the libraries they load) as .device/openmpi.tar.xz, for the GPU
# machine, whose own MPI (if any) is not the one fastmu is linked against:
# Debian's libmpi.so.40 wants its own launcher and plugins. Transports the
# GPU machine cannot use (UCX, libfabric, verbs, PSM) and the OpenSHMEM,
# Fortran and Java parts are left out; ranks talk through shared memory and
# TCP. On the GPU machine: `source .device/openmpi_env.sh` (unpacks it under
# /tmp/openmpi-stage, relocated there by OPAL_PREFIX, and puts mpirun on
# PATH).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
stage=$root/.device
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/openmpi/tree" "$work/openmpi/lib" "$stage"
for p in openmpi-bin libopenmpi3 openmpi-common libpmix2; do dpkg -L "$p"; done |
  grep -v -E '/share/(doc|man|lintian)/|/include/|pkgconfig|ucx|ofi|openib|psm|verbs|oshmem|spml|sshmem|scoll|memheap|atomic_|java|mpifh|usempi|fortran|hcoll' |
  while read -r f; do [ -f "$f" ] && echo "$f"; done >"$work/files"
while read -r f; do
  mkdir -p "$work/openmpi/tree$(dirname "$f")"
  cp -a "$f" "$work/openmpi/tree$f"
done <"$work/files"
# Symbolic links of the libraries (libmpi.so.40 -> libmpi.so.40.30.4 ...).
for f in $(dpkg -L libopenmpi3 libpmix2 | grep -E '\.so\.[0-9]+$'); do
  [ -L "$f" ] && cp -a "$f" "$work/openmpi/tree$f"
done
ln -sf orterun "$work/openmpi/tree/usr/bin/mpirun"
# The libraries they load other than glibc and the compiler runtime.
grep -E '\.so|/bin/' "$work/files" | xargs ldd 2>/dev/null | awk '/=> \//{print $3}' | sort -u |
  grep -vE '/(libc|libm|libpthread|libdl|librt|libresolv|ld-linux-x86-64|libstdc\+\+|libgcc_s)\.so' |
  while read -r lib; do cp -L "$lib" "$work/openmpi/lib/"; done
tar -C "$work" -cJf "$stage/openmpi.tar.xz" openmpi
cp "$root/tools/device/openmpi_env.sh" "$stage/"
du -h "$stage/openmpi.tar.xz"

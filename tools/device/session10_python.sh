#!/usr/bin/env bash
# Runs ON one GPU from the repository root (session 10, issue 9: what a loop
# of fastmu.transport calls pays per call): builds the Python extension from
# the staged static libraries twice, with this tree's bindings and with the
# previous ones (.device/old/TransportBindings.cc), and times
# `python_checks.py --sections loop` with each, alternating, twice.
#   usage: bash tools/device/session10_python.sh
set -uo pipefail
out=${OUT:-/tmp/fastmu_s10py_out}
mkdir -p "$out"
tar -xJf .device/lib.tar.xz -C .device
export LD_LIBRARY_PATH=$PWD/.device/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export FASTMU_CACHE=/tmp/fastmu_s10py_cache FASTMU_CACHE_SAMPLES=20000 FASTMU_PROGRESS=0
log=$out/session10_python.log
{ date -u; nvidia-smi --query-gpu=name --format=csv,noheader; nproc; } 2>&1 | tee "$log"
bash tools/device/build_python_module.sh 2>&1 | tee -a "$log"
old=/tmp/fastmu_old_bindings
mkdir -p "$old/src" && cp python/src/* "$old/src/" && cp .device/old/TransportBindings.cc "$old/src/"
PKG=$old/python/fastmu SRC=$old/src bash tools/device/build_python_module.sh 2>&1 | tee -a "$log"
# The tables, built once into the cache (reduced statistics: timing only).
PYTHONPATH=.device/python python3 -c "import fastmu; fastmu.transport(fastmu.examples.iron_block_muons(10), fastmu.examples.iron_block_geometry(), backend='cuda')" 2>&1 | tail -2 | tee -a "$log"
for rep in 1 2; do
  PYTHONPATH=$old/python python3 tools/device/python_checks.py --sections loop 2>&1 | sed 's/^/old: /' | tee -a "$log"
  PYTHONPATH=.device/python python3 tools/device/python_checks.py --sections loop 2>&1 | sed 's/^/new: /' | tee -a "$log"
done
date -u | tee -a "$log"

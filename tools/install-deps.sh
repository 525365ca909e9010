#!/usr/bin/env bash
# Installs fastmu's build and test dependencies from Debian 12 packages.
# nvcc (CUDA toolkit) is optional: when present the CUDA backend is built too.
# OpenMPI gives `mpirun -np N fastmu ...` (FASTMU_ENABLE_MPI=AUTO finds it).
set -euo pipefail
packages=(
  build-essential cmake
  libhdf5-dev zlib1g-dev libdeflate-dev libcli11-dev nlohmann-json3-dev librandom123-dev libfmt-dev
  libgtest-dev libgmock-dev libbenchmark-dev libpugixml-dev
  pybind11-dev python3-dev python3-numpy python3-pytest python3-matplotlib python3-h5py
  libopenmpi-dev openmpi-bin python3-mpi4py
  # pip install . into a venv (tests/packaging/pip_install.sh)
  python3-venv python3-pip python3-setuptools python3-wheel
  # format check, static analysis, sanitizer build and libFuzzer (tools/test.sh)
  clang-14 libclang-rt-14-dev clang-format-14 clang-tidy-14
  ccache
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

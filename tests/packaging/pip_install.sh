#!/usr/bin/env bash
# `pip install --no-build-isolation .` into a fresh virtual environment, offline
# (--no-index; NumPy, setuptools and wheel come from the system through
# --system-site-packages), then the `fastmu` command and `import fastmu`.
# The CMake build folder under <scratch> is kept between runs (only the venv is
# new each time), so a rerun rebuilds only what changed.
# Usage: pip_install.sh <source dir> <scratch dir> [python]
set -euo pipefail
src=$1 work=$2 python=${3:-/usr/bin/python3}
mkdir -p "$work"
# pip builds in the source tree (build/, fastmu.egg-info): a read-only
# checkout is copied first, without its build folders.
if [[ ! -w $src ]]; then
  rm -rf "$work/src" && mkdir -p "$work/src"
  tar -C "$src" --exclude='./build*' --exclude=./.git -cf - . | tar -C "$work/src" -xf -
  src=$work/src
fi
rm -rf "$work/venv" "$src/build/lib."* "$src/build/bdist."* "$src/fastmu.egg-info"
"$python" -m venv --system-site-packages "$work/venv"
export FASTMU_PIP_BUILD_DIR="$work/cmake"
export FASTMU_CMAKE_ARGS="-DFASTMU_ENABLE_CUDA=OFF ${FASTMU_CMAKE_ARGS:-}"
"$work/venv/bin/python" -m pip install --no-build-isolation --no-index -q "$src" > "$work/pip.log" 2>&1 ||
  { tail -30 "$work/pip.log"; exit 1; }
cd "$work"  # not the source tree: import the installed package
"$work/venv/bin/fastmu" --version
"$work/venv/bin/python" - <<'PY'
import os, sys
import fastmu
assert os.path.realpath(fastmu.__file__).startswith(os.path.realpath(sys.prefix)), fastmu.__file__
# The plotting scripts and their data travel with the package's program.
for f in ("scripts/plot_run.py", "data/geant4_iron_block_10m_50GeV_mu-.csv"):
    assert os.path.isfile(os.path.join(os.path.dirname(fastmu.__file__), f)), f
print("import fastmu", fastmu.__version__, "from", os.path.dirname(fastmu.__file__))
PY

#!/usr/bin/env bash
# Installs the `fastmu` Python package of a build folder into Debian's
# /usr/local/lib/python3.X/dist-packages (through sudo when not root), so that
# `python3 -c "import fastmu"` works anywhere. Usage: bash tools/install-python.sh [build]
set -euo pipefail
build=${1:-build}
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
$SUDO cmake --install "$build" --component python

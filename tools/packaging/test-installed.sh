#!/usr/bin/env bash
# Builds Tessera's wheel with pip from the source tree (from the configured
# build tree $1), installs it into a fresh virtual environment in $2 that
# sees the system's packages (numpy, pytest) and runs the Python suite on
# the installed package, outside the source tree and with no PYTHONPATH.
#   tools/packaging/test-installed.sh <build dir> <work dir> [python]
set -euo pipefail
source=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$1" && pwd)
work=$2
python=${3:-python3}
rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd)
"$python" -m venv --system-site-packages "$work/venv"
unset PYTHONPATH
TESSERA_BUILD_DIR="$build" "$work/venv/bin/python" -m pip wheel -q --no-index --no-deps \
  -w "$work/dist" "$source"
"$work/venv/bin/python" -m pip install -q --no-index "$work"/dist/tessera-*.whl
cd "$work"
PATH="$work/venv/bin:$PATH" "$work/venv/bin/python" -m pytest -q -p no:cacheprovider \
  "$source/test/python"

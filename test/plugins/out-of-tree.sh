#!/usr/bin/env bash
# Installs the build tree $1 into $2/sdk, builds test/plugins and the CPU
# backend (examples/backend-plugin) against it as projects of their own
# (find_package(Tessera)), loads them in the installed tessera-opt and
# tessera-compile and in Python, and runs the Python suite on the CPU backend.
#   test/plugins/out-of-tree.sh <build dir> <work dir> [python]
set -euo pipefail
source=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$1" && pwd)
work=$2
python=${3:-python3}
rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd)
cmake --install "$build" --prefix "$work/sdk" > "$work/install.log"
launcher=()
if command -v ccache > /dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake -S "$source/test/plugins" -B "$work/plugins" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DTessera_DIR="$work/sdk/lib/cmake/Tessera" "${launcher[@]}" > "$work/configure.log"
cmake --build "$work/plugins" > "$work/build.log"
plugin=$work/plugins/libtessera_probe_plugin.so
# A plugin that links a static LLVM library too is refused at configure.
mkdir -p "$work/bad"
cat > "$work/bad/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(Bad LANGUAGES CXX)
find_package(Tessera REQUIRED CONFIG)
tessera_add_backend_plugin(bad SOURCES bad.cpp)
target_link_libraries(bad PRIVATE LLVMSupport)
CMAKE
touch "$work/bad/bad.cpp"
if cmake -S "$work/bad" -B "$work/bad/build" -G Ninja \
    -DTessera_DIR="$work/sdk/lib/cmake/Tessera" > "$work/bad.log" 2>&1; then
  echo "a plugin linking LLVMSupport was configured" >&2
  exit 1
fi
grep -q "backend plugin bad links LLVMSupport" "$work/bad.log"
sdk=$work/sdk/bin
echo "built $plugin against $work/sdk"

# The installed tools run the plugin's pass and compile for its backend.
"$sdk/tessera-opt" "$source/examples/tile/vector_add.mlir" --load-backend="$plugin" \
  -probe-mark | grep -q "probe.marked"
"$sdk/tessera-opt" "$source/examples/tile/vector_add.mlir" -tile-default-pipeline \
  -o "$work/vector_add.mlir"
"$sdk/tessera-compile" "$work/vector_add.mlir" --load-backend="$plugin" \
  --target=probe:sm_80 --emit=metadata | grep -q "backend: probe"
# A plugin of another ABI is refused, naming both.
if "$sdk/tessera-opt" "$work/vector_add.mlir" \
    --load-backend="$work/plugins/libtessera_mismatch_plugin.so" 2> "$work/refused.txt"; then
  echo "the mismatched plugin was loaded" >&2
  exit 1
fi
grep -q "it was built against 'tessera 0.0.1, llvm 21.1.8'" "$work/refused.txt"
# Python loads it too.
PYTHONPATH="$build/python" "$python" -c "
import sys, tessera
assert tessera.load_backend(sys.argv[1]) == ['probe']
" "$plugin"
echo "loaded in tessera-opt, tessera-compile and Python"

# The CPU backend: compiled by the installed tools, run from Python.
cmake -S "$source/examples/backend-plugin" -B "$work/cpu" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DTessera_DIR="$work/sdk/lib/cmake/Tessera" "${launcher[@]}" > "$work/cpu-configure.log"
cmake --build "$work/cpu" > "$work/cpu-build.log"
cpu=$work/cpu/libtessera_cpu.so
"$sdk/tessera-compile" "$work/vector_add.mlir" --load-backend="$cpu" --target=cpu:native \
  --emit=metadata | grep -q "warp_size: 1"
"$sdk/tessera-compile" "$work/vector_add.mlir" --load-backend="$cpu" --target=cpu:native \
  --emit=bin -o "$work/vector_add.o"
head -c 4 "$work/vector_add.o" | grep -q "ELF"  # a relocatable object
# The Python suite on the CPU backend: its kernels through the plugin's
# driver (TESSERA_DEVICE=cpu), and test_cpu_backend.py.
cd "$source/test"
TESSERA_CPU_PLUGIN="$cpu" TESSERA_BACKEND_PLUGINS="$cpu" PYTHONPATH="$build/python" \
  "$python" -m pytest -q -p no:cacheprovider python --device=cpu
echo "ran the Python suite on the CPU backend"

#!/usr/bin/env bash
# Tessera's quick start on Debian 12: installs what is missing, builds, then
#   tools/quickstart.sh run    compiles the example kernels and prints each stage
#   tools/quickstart.sh test   runs every test (lit and unit tests, via ctest)
# The build uses the CMake preset `default` (`ci` when CI=true, or
# TESSERA_PRESET if set).
set -euo pipefail
cd "$(dirname "$0")/.."

preset=${TESSERA_PRESET:-default}
if [[ "${CI:-}" == true && -z "${TESSERA_PRESET:-}" ]]; then
  preset=ci
fi

packages=(
  cmake ninja-build ccache g++ git
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools lld-22 liblld-22-dev
  libzstd-dev zlib1g-dev libgtest-dev
  python3 python3-dev python3-numpy python3-pytest python3-matplotlib pybind11-dev
  python3-venv python3-pip
)

install_missing_packages() {
  local missing=() p
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
      missing+=("$p")
  done
  ((${#missing[@]})) || return 0
  echo "==> installing ${missing[*]}"
  local sudo=()
  [[ "$(id -u)" -eq 0 ]] || sudo=(sudo)
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq \
    --no-install-recommends "${missing[@]}"
}

build() {
  echo "==> configuring and building (preset ${preset})"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset"
}

run_examples() {
  local opt="build/${preset}/bin/tessera-opt" example count=0
  for example in examples/tile/*.mlir; do
    echo
    echo "==> ${example}"
    echo "--- stage: input (parsed and verified)"
    "$opt" "$example"
    # Each pass of the target-independent pipeline, then layout assignment
    # for a GPU (4 warps of 32 lanes), prints the IR after it.
    "$opt" "$example" -tile-default-pipeline -tile-assign-layouts -cse \
      -mlir-print-ir-after-all \
      -mlir-print-ir-module-scope -mlir-disable-threading -o /dev/null 2>&1 |
      sed -E 's|^// -----// IR Dump After ([A-Za-z]+) \(([a-z-]+)\).*|--- stage: after \2|'
    echo "--- stage: axis analysis of the optimised kernel"
    # The values whose elements form runs (what vectorised accesses need).
    "$opt" "$example" -tile-default-pipeline -test-print-axis-info -o /dev/null \
      2>&1 | grep "remark: contiguity" | grep -v "contiguity = \[1\(, 1\)*\]" || true
    echo "--- stage: PTX for sm_90 (NVIDIA backend)"
    "$opt" "$example" -tile-default-pipeline |
      "build/${preset}/bin/tessera-compile" --target=sm_90 --emit=asm |
      grep -E "^\.(target|visible|reqntid)|ld\.global|st\.global|shfl|bar\.sync" | head -12
    echo "--- stage: AMDGCN for gfx942 (AMD backend, 64-lane wavefronts)"
    "$opt" "$example" -tile-default-pipeline |
      "build/${preset}/bin/tessera-compile" --target=gfx942 --emit=asm |
      grep -E "^\s*\.amdgcn_target|global_load|global_store|ds_bpermute|s_barrier|^\s+\.(wavefront_size|group_segment_fixed_size):" |
      head -12
    echo "--- stage: binaries"
    local target binary
    for target in sm_90 gfx942 gfx1100; do
      binary=$("$opt" "$example" -tile-default-pipeline |
        "build/${preset}/bin/tessera-compile" --target="$target" --emit=bin | wc -c)
      echo "    ${target}: ${binary} bytes ($([[ $target == sm_* ]] && echo cubin || echo HSACO))"
    done
    count=$((count + 1))
  done
  echo
  echo "==> ${count} tile IR examples verified, optimised by the target-independent pipeline, given GPU layouts and compiled to cubins (sm_90) and HSACO (gfx942, gfx1100)"

  # The Python examples: compiled by @tessera.jit and run on the GPU where
  # one is here (numpy arrays staged to it), else on the host interpreter.
  local python="${PYTHON:-/usr/bin/python3}" ran=0 where="host interpreter"
  local platform
  platform=$(PYTHONPATH="build/${preset}/python" "$python" -c \
      "from tessera.runtime import gpu; print(gpu.platform() if gpu.available() else '')" \
      2>/dev/null || true)
  if [[ -n "${platform}" ]]; then
    export TESSERA_DEVICE="${platform}"
    where="GPU ($([[ ${platform} == cuda ]] && echo NVIDIA || echo AMD) backend)"
  fi
  for example in examples/python/*.py; do
    echo
    echo "==> ${example} (${where}; every kernel also compiled for sm_90, gfx942 and gfx1100)"
    TESSERA_COMPILE_CHECK=cuda:90,hip:gfx942,hip:gfx1100 \
      PYTHONPATH="build/${preset}/python" "$python" "$example"
    ran=$((ran + 1))
  done
  echo
  echo "==> ${ran} Python examples compiled to cubins and HSACO, run on the ${where} and checked against numpy"

  # Ahead of time: the vector add for this machine's GPU (else sm_90), with
  # its C launcher, built into a C program that runs it where a GPU is.
  local aot="build/${preset}/aot" target=cuda:90 c_platform=TESSERA_PLATFORM_CUDA
  if [[ -n "${platform}" ]]; then
    target=$(PYTHONPATH="build/${preset}/python" "$python" -c \
        "from tessera.runtime import gpu; print(gpu.target(0))")
    [[ ${platform} == hip ]] && c_platform=TESSERA_PLATFORM_HIP
  fi
  echo
  echo "==> ahead of time: examples/python/vector_add.py for ${target}, launched from C"
  rm -rf "${aot}"
  "build/${preset}/bin/tessera-compile" examples/python/vector_add.py -n add_kernel \
      -s "*fp32:16, *fp32:16, *fp32:16, i32, 1024" --target "${target}" -o "${aot}"
  local lib="build/${preset}/python/tessera/lib"
  cc -std=c11 -DPLATFORM="${c_platform}" examples/c/vector_add.c \
      "${aot}/add_kernel.c" -I "${aot}" -L "${lib}" -ltessera_runtime \
      -Wl,-rpath,"$(cd "${lib}" && pwd)" -o "${aot}/vector_add"
  local status=0
  "${aot}/vector_add" || status=$?
  if [[ ${status} -eq 2 ]]; then
    echo "(built and linked; no GPU here to launch it on)"
  elif [[ ${status} -ne 0 ]]; then
    return "${status}"
  fi
}

case "${1:-}" in
  run)
    install_missing_packages
    build
    run_examples
    ;;
  test)
    install_missing_packages
    echo "==> configure, build and test (workflow preset ${preset})"
    cmake --workflow --preset "$preset"
    ;;
  *)
    echo "usage: $0 run|test" >&2
    exit 2
    ;;
esac

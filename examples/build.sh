#!/usr/bin/env bash
# Configures and builds examples/ with clang++ (LLVM 22) as the CUDA compiler.
#   examples/build.sh BUILD_DIR [LAUNCHER...]
# LAUNCHER words, if given, become CMAKE_CUDA_COMPILER_LAUNCHER: each CUDA
# compile runs as `LAUNCHER... clang++ ARGS...`. Works from any directory.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 BUILD_DIR [LAUNCHER...]" >&2; exit 2; }
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/../scripts/env.sh"
BUILD_DIR="$1"; shift
export PATH="$VENV/bin:$PATH"
[ -x "$VENV/bin/cmake" ] && [ -x "$VENV/bin/ninja" ] || { echo "cmake/ninja missing: run scripts/setup.sh" >&2; exit 1; }
[ -n "$CUDA_ROOT" ] || { echo "CUDA root missing: run scripts/setup.sh" >&2; exit 1; }

args=(-G Ninja -S "$HERE" -B "$BUILD_DIR"
  -DCMAKE_BUILD_TYPE=Release
  -DCMAKE_EXPORT_COMPILE_COMMANDS=ON
  -DCMAKE_MAKE_PROGRAM="$VENV/bin/ninja"
  -DCMAKE_CXX_COMPILER="$LLVM_BIN/clang++"
  -DCMAKE_CUDA_COMPILER="$LLVM_BIN/clang++"
  # CMake finds the toolkit through its nvcc and adds --cuda-path=$CUDA_ROOT itself.
  -DCUDAToolkit_ROOT="$CUDA_ROOT"
  # The stubs dir holds curand_mtgp32_kernel.h, which clang's CUDA wrappers include.
  -DCMAKE_CUDA_FLAGS="-isystem $CUDA_STUBS -Wno-unknown-cuda-version")
if [ $# -gt 0 ]; then
  launcher="$(IFS=';'; echo "$*")"  # a CMake list: one element per word
  args+=(-DCMAKE_CUDA_COMPILER_LAUNCHER="$launcher")
else
  args+=(-UCMAKE_CUDA_COMPILER_LAUNCHER)  # drop one cached by an earlier run
fi
"$VENV/bin/cmake" "${args[@]}"
"$VENV/bin/cmake" --build "$BUILD_DIR"

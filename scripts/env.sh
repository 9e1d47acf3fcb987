# Sourced by the other scripts: where the toolchain lives. Nothing here
# installs anything (that is setup.sh); it only finds what setup.sh installed.
NVREGALLOC_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export NVREGALLOC_ROOT
export LLVM_BIN="${LLVM_BIN:-/usr/lib/llvm-22/bin}"
export LLVM_CONFIG="${LLVM_CONFIG:-$LLVM_BIN/llvm-config}"
# llvm-sys (the IR fuzzer) finds libLLVM 22 through this.
export LLVM_SYS_221_PREFIX="${LLVM_SYS_221_PREFIX:-/usr/lib/llvm-22}"
# The packages every release build here names (setup.sh, scripts/fuzz-ir):
# cargo compiles a dependency once per feature set, and the packages named
# decide the features.
export CARGO_BUILD_SET="-p nvregalloc -p nvregalloc-tune -p nvregalloc-fuzz-ir"
# ... and the packages test.sh's cargo test suite runs (setup.sh builds
# their test binaries).
export CARGO_TEST_SET="-p nvregalloc -p nvregalloc-testkit -p nvregalloc-fuzz-ir -p nvregalloc-tune"
export VENV="$NVREGALLOC_ROOT/.venv"
export PATH="$LLVM_BIN:$HOME/.cargo/bin:$PATH"
# NVIDIA's CUDA 13 from the Python registry: nvcc, cicc, ptxas, headers.
CUDA_ROOT="$(ls -d "$VENV"/lib/python3*/site-packages/nvidia/cu13 2>/dev/null | head -n 1 || true)"
export CUDA_ROOT
export PTXAS="$CUDA_ROOT/bin/ptxas"
export NVCC="$CUDA_ROOT/bin/nvcc"
# cuobjdump -sass needs nvdisasm beside it (both from the Python registry).
export CUOBJDUMP="$CUDA_ROOT/bin/cuobjdump"
# Headers clang's CUDA wrappers want but the wheels lack (see setup.sh).
export CUDA_STUBS="$NVREGALLOC_ROOT/build/cuda-stubs"
export PLUGIN="$NVREGALLOC_ROOT/target/release/libnvregalloc.so"
# nvregalloc-tune finds the plugin through this (or beside itself).
export NVREGALLOC_PLUGIN="$PLUGIN"
# nvregalloc-tune (setup.sh links it there).
export PATH="$NVREGALLOC_ROOT/build/bin:$PATH"
# The device kernels: clang 22 compiling CUDA against the wheels' CUDA root.
# CCCL (CUB, Thrust, libcu++) sits in include/cccl, where nvcc looks and clang does not.
export CLANG_CUDA_FLAGS="-x cuda --cuda-device-only --cuda-gpu-arch=sm_90 --cuda-path=$CUDA_ROOT -isystem $CUDA_STUBS -isystem $CUDA_ROOT/include/cccl -Wno-unknown-cuda-version -O3"

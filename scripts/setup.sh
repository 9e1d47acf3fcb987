#!/usr/bin/env bash
# Installs what nvregalloc needs and is missing, and builds the plugin.
# Idempotent: a second run installs nothing and rebuilds only what changed.
#   - LLVM 22 (llc, clang, FileCheck, lit, llvm-config, libclang for bindgen)
#     from Debian's registry
#   - the Rust toolchain, from rustup, if cargo is missing
#   - NVIDIA's nvcc/cicc/ptxas (CUDA 13) and CCCL's headers (CUB, Thrust,
#     libcu++: real CUDA code includes them) from the Python registry, into .venv
#   - an empty curand_mtgp32_kernel.h that clang's CUDA wrappers include
#   - csmith and its headers (Debian csmith, libcsmith-dev), for ptxsim's
#     differential tests
#   - redis-server (Debian), for the test of nvregalloc-tune's remote cache
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"

log() { printf '[setup] %s\n' "$*"; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

if ! [ -x "$LLVM_BIN/llc" ] || ! [ -x "$LLVM_BIN/FileCheck" ] || ! [ -x "$LLVM_BIN/clang" ] ||
   ! [ -e /usr/lib/llvm-22/include/llvm/Target/RegisterTargetPassConfigCallback.h ] ||
   ! ls /usr/lib/llvm-22/lib/libclang*.so* >/dev/null 2>&1; then
  log "installing LLVM 22 (Debian packages)"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    llvm-22-dev llvm-22-tools clang-22 libclang-22-dev python3-venv >/dev/null
fi
"$LLVM_CONFIG" --version | grep -q '^22\.' || { echo "LLVM 22 required, found $("$LLVM_CONFIG" --version)"; exit 1; }

if ! command -v csmith >/dev/null 2>&1 || ! [ -e /usr/include/csmith/csmith.h ]; then
  log "installing csmith (Debian packages)"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq csmith libcsmith-dev >/dev/null
fi

if ! command -v redis-server >/dev/null 2>&1; then
  log "installing redis-server (Debian package)"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
fi

if ! command -v cargo >/dev/null 2>&1; then
  log "installing Rust (rustup)"
  curl -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal -c rustfmt >/dev/null
fi

if ! [ -x "$VENV/bin/python" ]; then
  log "creating .venv"
  python3 -m venv "$VENV"
fi
if [ -z "$CUDA_ROOT" ] || ! [ -x "$CUDA_ROOT/bin/ptxas" ]; then
  log "installing nvidia-cuda-nvcc (nvcc, cicc, ptxas) into .venv"
  "$VENV/bin/pip" install -q nvidia-cuda-nvcc
  source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
fi
if ! [ -e "$CUDA_ROOT/include/cccl/cub/cub.cuh" ]; then
  log "installing nvidia-cuda-cccl (CUB, Thrust, libcu++ headers) into .venv"
  "$VENV/bin/pip" install -q nvidia-cuda-cccl
fi
if ! [ -x "$CUDA_ROOT/bin/cuobjdump" ] || ! [ -x "$CUDA_ROOT/bin/nvdisasm" ]; then
  log "installing nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm (SASS for scripts/bench) into .venv"
  "$VENV/bin/pip" install -q nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm
fi
if ! [ -x "$VENV/bin/cmake" ] || ! [ -x "$VENV/bin/ninja" ]; then
  log "installing cmake and ninja (examples/build.sh) into .venv"
  "$VENV/bin/pip" install -q cmake ninja
fi
mkdir -p "$CUDA_STUBS"
: > "$CUDA_STUBS/curand_mtgp32_kernel.h"

# The packages scripts/fuzz-ir builds too (env.sh's CARGO_BUILD_SET): with
# other packages named, cargo would compile the plugin, the tuner and their
# dependencies a second time, for other features.
log "building the plugin, nvregalloc-tune and nvregalloc-fuzz-ir"
(cd "$NVREGALLOC_ROOT" && cargo build --release --quiet $CARGO_BUILD_SET)
# The test binaries scripts/test.sh runs (its cargo test and differential
# suites, with the same package sets): built here with everything else, so
# that the tier's time is its tests' (about two minutes of compiling on 2
# cores from a fresh clone); a rebuild that finds them current costs seconds.
log "building the test binaries (scripts/test.sh)"
(cd "$NVREGALLOC_ROOT" && cargo test --release --quiet --no-run $CARGO_TEST_SET >/dev/null &&
  cargo test --release --quiet --no-run -p ptxsim >/dev/null)
mkdir -p "$NVREGALLOC_ROOT/build/bin"
ln -sf ../../target/release/nvregalloc-tune "$NVREGALLOC_ROOT/build/bin/nvregalloc-tune"
log "ready: $PLUGIN, nvregalloc-tune (on PATH through scripts/env.sh)"

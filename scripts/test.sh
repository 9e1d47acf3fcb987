#!/usr/bin/env bash
# README command 2: install what is missing, build, and run every test.
#   scripts/test.sh          the default tier: every suite, at sizes that finish
#                            in about 10 minutes on 2 cores after setup (CI runs it)
#   scripts/test.sh --full   the same suites at full size (about 31 minutes)
# Sizes (default / --full): differential csmith programs 100 / 340, fuzz-ir
# programs 300 / 3,000, llvm-nvptx every 8th input / all of them.
#   0. format        cargo fmt --check: the Rust as rustfmt.toml lays it out
#   1. cargo test    the Rust core: unit, property and checker tests (testkit/:
#                    the random programs and interpreter the plugin never links);
#                    nvregalloc-tune's (tune/)
#   2. lit           tests/lit, the real llc 22 + FileCheck on .ll and .mir;
#                    nvregalloc-tune on tests/kernels and as CMake's and make's
#                    launcher on examples/ (twice: the second from the cache)
#   3. corpus        tests/kernels through stock llc/clang and every plugin mode
#                    (-verify-machineinstrs, ptxas, byte-identity of analysis mode)
#   4. differential  ptxsim: stock and every plugin mode run in a PTX interpreter
#                    on the corpus and csmith programs; outputs must match
#   5. fuzz-ir       random LLVM IR kernels through the NVPTX backend in
#                    process, stock and every plugin mode: machine verifier,
#                    ptxas, ptxsim (scripts/fuzz-ir); and the same fuzzer must
#                    catch a deliberately broken mode
#   6. llvm-nvptx    LLVM's own NVPTX CodeGen test inputs through llc in every
#                    mode, judged against stock llc on each; only where the
#                    corpus is there ($NVREGALLOC_LLVM_NVPTX, default
#                    ../shared/corpora/llvm-nvptx), as it lives outside the repo
set -uo pipefail
csmith=100 fuzz_programs=300 llvm_sample=8
case "${1:-}" in
  "") ;;
  --full) csmith=340 fuzz_programs=3000 llvm_sample=1 ;;
  *) echo "usage: scripts/test.sh [--full]" >&2; exit 2 ;;
esac
here="$(dirname "${BASH_SOURCE[0]}")"
bash "$here/setup.sh" || exit 1
source "$here/env.sh"
cd "$NVREGALLOC_ROOT"

passed=0 failed=0 all_start=$SECONDS
suite() {
  local name=$1; shift
  echo "=== $name: $*"
  local start=$SECONDS
  if "$@"; then passed=$((passed + 1)); echo "=== $name passed ($((SECONDS - start)) s)"
  else failed=$((failed + 1)); echo "=== $name FAILED ($((SECONDS - start)) s)"; fi
}
suite "format" cargo fmt --all -- --check
suite "cargo test" cargo test --release --quiet $CARGO_TEST_SET
suite "lit" lit -sv tests/lit
suite "corpus" python3 scripts/corpus.py
suite "differential" env PTXSIM_CSMITH_PROGRAMS=$csmith cargo test --release --quiet -p ptxsim -- --test-threads=1 --nocapture
suite "fuzz-ir" scripts/fuzz-ir --seed 1 --programs "$fuzz_programs" --jobs 2
# The fuzzer's own test: with two interfering registers merged and the
# plugin's checker off, ptxsim must see differences (exit status 1).
fuzz_catches_fault() {
  scripts/fuzz-ir --fault --seed 1 --programs 5 --save build/fuzz-ir-fault | tail -n 1
  [ "${PIPESTATUS[0]}" = 1 ]
}
suite "fuzz-ir fault" fuzz_catches_fault
llvm_nvptx="${NVREGALLOC_LLVM_NVPTX:-$NVREGALLOC_ROOT/../shared/corpora/llvm-nvptx}"
if [ -d "$llvm_nvptx" ]; then
  suite "llvm-nvptx" python3 scripts/corpus.py --corpus "$llvm_nvptx" --llc-only --sample "$llvm_sample"
else
  echo "=== llvm-nvptx: skipped ($llvm_nvptx not found; set NVREGALLOC_LLVM_NVPTX)"
fi
echo "all suites: $((SECONDS - all_start)) s"
echo "suites: $passed passed, $failed failed"
[ "$failed" = 0 ]

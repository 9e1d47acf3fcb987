#!/usr/bin/env bash
# README command 1, the main job: install what is missing, build the plugin,
# and compile one CUDA kernel four ways: NVIDIA's nvcc, stock clang 22, clang
# 22 with libnvregalloc.so as it comes (coalescing), and with its renaming on
# (-nvregalloc-color=rename, MaxLive PTX registers). Prints, per kernel
# function, the PTX registers declared, register-to-register moves and
# ptxas's registers/spills.
#   scripts/demo.sh [KERNEL.cu]   (default: tests/kernels/sgemm_tiled_reg4x4.cu)
set -euo pipefail
here="$(dirname "${BASH_SOURCE[0]}")"
bash "$here/setup.sh"
source "$here/env.sh"
kernel="${1:-$NVREGALLOC_ROOT/tests/kernels/sgemm_tiled_reg4x4.cu}"
out="$NVREGALLOC_ROOT/build/demo"
mkdir -p "$out"
name="$(basename "$kernel" .cu)"

"$NVCC" -ptx -arch=sm_90 -O3 "$kernel" -o "$out/$name.nvcc.ptx"
clang++ $CLANG_CUDA_FLAGS -S "$kernel" -o "$out/$name.stock.ptx"
clang++ $CLANG_CUDA_FLAGS -fpass-plugin="$PLUGIN" -S "$kernel" -o "$out/$name.plugin.ptx"
clang++ $CLANG_CUDA_FLAGS -fpass-plugin="$PLUGIN" -mllvm -nvregalloc-color=rename -S "$kernel" \
  -o "$out/$name.rename.ptx" -Rpass-analysis=nvregalloc 2>"$out/$name.remarks.txt"

python3 - "$out" "$name" "$PTXAS" <<'PY'
import sys
sys.path.insert(0, sys.argv[0] and __import__("os").path.join(__import__("os").environ["NVREGALLOC_ROOT"], "scripts"))
import ptx_stats
out, name, ptxas = sys.argv[1:4]
builds = ["nvcc", "stock", "plugin", "rename"]
figures = {}
for b in builds:
    path = f"{out}/{name}.{b}.ptx"
    f = ptx_stats.parse_ptx(open(path).read())
    for fn, hw in ptx_stats.ptxas_figures(ptxas, path).items():
        f.setdefault(fn, {}).update(hw)
    figures[b] = f
print(f"\n{name}: per function, for nvcc (CICC) | stock clang 22 | clang 22 + nvregalloc | + renaming")
print(f"{'function':32} {'PTX regs declared':>22} {'reg-reg moves':>18} {'ptxas regs':>18} {'spill bytes':>14}"
      f" {'local frame bytes':>22}")
for fn in figures["stock"]:
    row = lambda key: " / ".join(str(figures[b].get(fn, {}).get(key, "-")) for b in builds)
    spill = " / ".join(str(figures[b].get(fn, {}).get("spill_stores", 0) + figures[b].get(fn, {}).get("spill_loads", 0))
                       for b in builds)
    print(f"{fn[:32]:32} {row('declared'):>22} {row('moves'):>18} {row('hw_regs'):>18} {spill:>14}"
          f" {row('frame'):>22}")
PY
echo
echo "Register declarations, stock clang 22:";  grep -m4 '\.reg ' "$out/$name.stock.ptx"
echo "Register declarations, with nvregalloc renaming:"; grep -m4 '\.reg ' "$out/$name.rename.ptx"
echo
echo "What the passes report (-Rpass-analysis=nvregalloc, renaming on), first function:"
grep -m2 'remark' "$out/$name.remarks.txt" | sed 's/^/  /'
echo
echo "PTX files: $out/$name.{nvcc,stock,plugin,rename}.ptx"

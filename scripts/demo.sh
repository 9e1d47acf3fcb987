#!/usr/bin/env bash
# README command 1, the main job: install what is missing, build the plugin,
# and compile one CUDA kernel three ways: NVIDIA's nvcc, stock clang 22, and
# clang 22 with libnvregalloc.so as it comes. Prints, per kernel, what ptxas
# and cuobjdump report for each (the legend below the table says what each
# column is), then what the plugin did, in its own remarks.
#   scripts/demo.sh [KERNEL.cu]   (default: tests/kernels/local_window_smooth.cu,
#                                  a local array stock clang leaves in memory)
set -euo pipefail
here="$(dirname "${BASH_SOURCE[0]}")"
bash "$here/setup.sh"
source "$here/env.sh"
kernel="${1:-$NVREGALLOC_ROOT/tests/kernels/local_window_smooth.cu}"
out="$NVREGALLOC_ROOT/build/demo"
mkdir -p "$out"
name="$(basename "$kernel" .cu)"

"$NVCC" -ptx -arch=sm_90 -O3 "$kernel" -o "$out/$name.nvcc.ptx"
clang++ $CLANG_CUDA_FLAGS -S "$kernel" -o "$out/$name.stock.ptx"
clang++ $CLANG_CUDA_FLAGS -fpass-plugin="$PLUGIN" -S "$kernel" -o "$out/$name.plugin.ptx" \
  -Rpass=nvregalloc-promote-locals.* 2>"$out/$name.remarks.txt"

python3 - "$out" "$name" <<'PY'
import os
import sys
sys.path.insert(0, os.path.join(os.environ["NVREGALLOC_ROOT"], "scripts"))
import ptx_stats
out, name = sys.argv[1:3]
builds = ["nvcc", "stock", "plugin"]
figures = {}
for b in builds:
    path = f"{out}/{name}.{b}.ptx"
    f = ptx_stats.parse_ptx(open(path).read())
    for fn, hw in ptx_stats.ptxas_figures(os.environ["PTXAS"], path, cuobjdump=os.environ["CUOBJDUMP"]).items():
        f.setdefault(fn, {}).update(hw)
    figures[b] = f
columns = [("LDL+STL", lambda f: f.get("ldl", 0) + f.get("stl", 0)),
           ("registers", lambda f: f.get("hw_regs", "-")),
           ("warps/SM", lambda f: f.get("warps", "-")),
           ("spill bytes", lambda f: f.get("spill_stores", 0) + f.get("spill_loads", 0)),
           ("SASS insts", lambda f: f.get("sass_insts", "-")),
           ("PTX moves", lambda f: f.get("moves", "-"))]
print(f"\n{name} on sm_90, each column nvcc (CICC 13) / stock clang 22 / clang 22 + nvregalloc:")
print(f"{'kernel':24}" + "".join(f"{title:>18}" for title, _ in columns))
kernels = [fn for fn in figures["stock"] if "sass_insts" in figures["stock"][fn]]
for fn in kernels:
    cells = [" / ".join(str(value(figures[b].get(fn, {}))) for b in builds) for _, value in columns]
    print(f"{fn[:24]:24}" + "".join(f"{cell:>18}" for cell in cells))
PY
cat <<'LEGEND'

  LDL+STL      local-memory loads and stores in the machine code (cuobjdump -sass):
               each goes through L1 and beyond, where a register read does not
  registers    per thread, as ptxas allocates them (ptxas -v): what runs
  warps/SM     the warps an SM's 65,536 registers hold at that count (64 at most on
               sm_90; 32 registers or fewer keep all 64)
  spill bytes  ptxas's own spill stores and loads (bytes)
  SASS insts   machine instructions (NOPs aside)
  PTX moves    register-to-register moves in the PTX: the backend's coalescing removes
               those it can (ptxas re-allocates registers after)
LEGEND
echo
echo "What the plugin did to the local arrays (-Rpass=nvregalloc-promote-locals.*):"
grep 'remark' "$out/$name.remarks.txt" | sed -e "s|^$NVREGALLOC_ROOT/||" -e 's/^/  /' || echo "  nothing: no local array to keep in registers"
echo
echo "PTX files: $out/$name.{nvcc,stock,plugin}.ptx"

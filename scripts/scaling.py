#!/usr/bin/env python3
"""How the passes' time and llc's memory grow with function size.

Generates one synthetic NVPTX kernel per size: a chain of regions, each an
if/else diamond that swaps two values on one arm (so PHI elimination makes
copies), with a value defined before the chain and read after it (a live
range across everything). Then, for each size, runs llc with
the plugin and -time-passes and reports PTX instructions, our passes' time,
RegisterCoalescer + LiveIntervals, llc's total, and peak memory with and
without the plugin.

  scripts/scaling.py                       sizes 1k, 10k, 100k, 1M instructions
  scripts/scaling.py --sizes 1000,10000    chosen sizes
  scripts/scaling.py --json F
"""
import argparse
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LLVM_BIN = os.environ.get("LLVM_BIN", "/usr/lib/llvm-22/bin")
PLUGIN = os.environ.get("PLUGIN", os.path.join(ROOT, "target/release/libnvregalloc.so"))
# PTX instructions one region compiles to (measured: about 13).
INSTS_PER_REGION = 13


def kernel(regions):
    out = ['target triple = "nvptx64-nvidia-cuda"',
           "define ptx_kernel void @scaling(ptr addrspace(1) %p, i32 %n, i32 %seed) {",
           "entry:", "  %long = mul i32 %seed, 7919", "  br label %r0"]
    carry = "%seed"
    for r in range(regions):
        end = f"r{r + 1}" if r + 1 < regions else "exit"
        # Each region: two values, a diamond that swaps them on one arm (PHI
        # elimination makes copies there), and their sum for the next region.
        # The sum goes through memory (volatile) so that ScalarEvolution, which
        # is superlinear on long chains, sees no chain across regions.
        out += [f"r{r}:",
                f"  store volatile i32 {carry}, ptr addrspace(1) %p",
                f"  %r{r}.in = load volatile i32, ptr addrspace(1) %p",
                f"  %r{r}.a0 = mul i32 %r{r}.in, {2 * r + 3}",
                f"  %r{r}.b0 = xor i32 %r{r}.in, %n",
                f"  %r{r}.c = icmp slt i32 %r{r}.a0, %n",
                f"  br i1 %r{r}.c, label %r{r}.then, label %r{r}.else",
                f"r{r}.then:",
                f"  store volatile i32 %r{r}.a0, ptr addrspace(1) %p",
                f"  br label %r{r}.join",
                f"r{r}.else:",
                f"  store volatile i32 %r{r}.b0, ptr addrspace(1) %p",
                f"  br label %r{r}.join",
                f"r{r}.join:",
                f"  %r{r}.a = phi i32 [ %r{r}.a0, %r{r}.then ], [ %r{r}.b0, %r{r}.else ]",
                f"  %r{r}.b = phi i32 [ %r{r}.b0, %r{r}.then ], [ %r{r}.a0, %r{r}.else ]",
                f"  %r{r}.s = sub i32 %r{r}.a, %r{r}.b",
                f"  br label %{end}"]
        carry = f"%r{r}.s"
    out += ["exit:", f"  %end = add i32 {carry}, %long", "  store i32 %end, ptr addrspace(1) %p", "  ret void", "}"]
    return "\n".join(out) + "\n"


def parse_time_passes(text):
    ours = stock = total = 0.0
    for line in text.splitlines():
        m = re.match(r"\s*(?:[\d.]+ \(\s*[\d.]+%\)\s+){3}([\d.]+) \(\s*[\d.]+%\)\s+(.*)$", line)
        if not m:
            continue
        wall, name = float(m.group(1)), m.group(2).strip()
        if name.startswith("nvregalloc:"):
            ours += wall
        elif name in ("Register Coalescer", "Live Interval Analysis"):
            stock += wall
        elif name == "Total" and total == 0.0:
            total = wall
    return ours, stock, total


def llc(ll, plugin, extra=()):
    cmd = ["/usr/bin/time", "-f", "%M", f"{LLVM_BIN}/llc", "-march=nvptx64", "-mcpu=sm_90", "-O3", *extra,
           ll, "-o", ll.replace(".ll", ".plugin.ptx" if plugin else ".ptx")]
    if plugin:
        cmd.insert(4, f"-load-pass-plugin={PLUGIN}")
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(r.stderr[-2000:])
    peak_kb = int(r.stderr.strip().splitlines()[-1])
    return r.stderr, peak_kb


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1000,10000,100000,1000000")
    ap.add_argument("--dir", default=os.path.join(ROOT, "build/scaling"))
    ap.add_argument("--json")
    args = ap.parse_args()
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import ptx_stats
    os.makedirs(args.dir, exist_ok=True)
    rows = []
    print(f"{'target':>9}{'PTX insts':>11}{'ours s':>9}{'RC+LI s':>9}{'llc s':>8}"
          f"{'peak MB':>9}{'stock MB':>10}")
    for size in (int(s) for s in args.sizes.split(",")):
        ll = os.path.join(args.dir, f"k{size}.ll")
        with open(ll, "w") as fh:
            fh.write(kernel(max(1, size // INSTS_PER_REGION)))
        stderr, peak = llc(ll, True, ["-time-passes"])
        ours, stock, total = parse_time_passes(stderr)
        _, stock_peak = llc(ll, False)
        insts = sum(f["insts"] for f in ptx_stats.parse_ptx(open(ll.replace(".ll", ".plugin.ptx")).read()).values())
        row = {"target": size, "ptx_insts": insts, "ours_s": ours, "stock_rc_li_s": stock, "llc_s": total,
               "peak_mb": peak / 1024, "stock_peak_mb": stock_peak / 1024}
        rows.append(row)
        print(f"{size:>9}{insts:>11}{ours:>9.3f}{stock:>9.3f}{total:>8.2f}{peak / 1024:>9.0f}{stock_peak / 1024:>10.0f}",
              flush=True)
    for a, b in zip(rows, rows[1:]):
        if a["ours_s"] > 0:
            print(f"{a['ptx_insts']} -> {b['ptx_insts']} instructions: our passes' time x{b['ours_s'] / a['ours_s']:.1f}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()

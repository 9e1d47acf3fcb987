#!/usr/bin/env python3
"""How the passes' time and llc's memory grow with function size, in two
families of synthetic NVPTX kernels.

Sparse (long functions, few values live at once): a chain of regions, each
an if/else diamond that swaps two values on one arm (so PHI elimination
makes copies), with a value defined before the chain and read after it (a
live range across everything). For each size, llc with the plugin and
-time-passes: PTX instructions, our passes' time, RegisterCoalescer +
LiveIntervals, llc's total, and peak memory with and without the plugin.

Dense (N values live at once): a `<N x float>` load, multiply and ordered
`llvm.vector.reduce.fadd` (LLVM's bug211018.ll at N lanes), and a loop that
adds a `<N x float>` load into N accumulators carried around it (N PHIs).
For each kernel and N, stock llc and llc with the plugin in each mode, all
with -time-passes: wall time and peak memory, their ratios to stock's in the
same run, our passes' share, and the method each pass took (graph,
graph-free or guard, from -nvregalloc-report).

  scripts/scaling.py                         both families, default sizes
  scripts/scaling.py --sparse 1000,10000     chosen sparse sizes (instructions)
  scripts/scaling.py --reduction 8192,65536  chosen reduction lanes
  scripts/scaling.py --accumulation 8192     chosen accumulators
  scripts/scaling.py --dense-modes 'default,budget 8'
  scripts/scaling.py --json F
A kernel given an empty list of sizes (`--sparse ''`) is skipped. Stock llc
itself takes 23 s on the accumulation at 16,384 and many minutes at 65,536
(instruction selection), so that one stops at 16,384 by default.
"""
import argparse
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import modes  # noqa: E402
import ptx_stats  # noqa: E402

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


def reduction_kernel(lanes):
    return "\n".join([
        'target triple = "nvptx64-nvidia-cuda"',
        f"declare float @llvm.vector.reduce.fadd.v{lanes}f32(float, <{lanes} x float>)",
        "define ptx_kernel void @reduction(ptr addrspace(1) %out, ptr addrspace(1) %in) {",
        f"  %val = load <{lanes} x float>, ptr addrspace(1) %in, align 32",
        f"  %mul = fmul <{lanes} x float> %val, %val",
        f"  %res = call float @llvm.vector.reduce.fadd.v{lanes}f32(float 0.0, <{lanes} x float> %mul)",
        "  store float %res, ptr addrspace(1) %out, align 4",
        "  ret void",
        "}"]) + "\n"


def accumulation_kernel(lanes):
    vec = f"<{lanes} x float>"
    return "\n".join([
        'target triple = "nvptx64-nvidia-cuda"',
        "define ptx_kernel void @accumulation(ptr addrspace(1) %in, ptr addrspace(1) %out, i32 %n) {",
        "entry:", "  br label %loop",
        "loop:",
        "  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]",
        f"  %acc = phi {vec} [ zeroinitializer, %entry ], [ %acc.next, %loop ]",
        f"  %offset = mul i32 %i, {lanes}",
        "  %p = getelementptr float, ptr addrspace(1) %in, i32 %offset",
        f"  %x = load {vec}, ptr addrspace(1) %p, align 16",
        f"  %acc.next = fadd {vec} %acc, %x",
        "  %i.next = add i32 %i, 1",
        "  %more = icmp slt i32 %i.next, %n",
        "  br i1 %more, label %loop, label %exit",
        "exit:",
        f"  store {vec} %acc.next, ptr addrspace(1) %out, align 16",
        "  ret void",
        "}"]) + "\n"


DENSE_KERNELS = {"reduction": reduction_kernel, "accumulation": accumulation_kernel}
# The modes the dense functions are compiled in (tests/modes.json).
DENSE_MODES = ["default", "both", "replace", "cssa", "analyze", "budget 8", "budget 32"]


def llc(ll, plugin, extra=(), out=None):
    """Runs llc; returns its stderr, peak memory in KB and wall seconds."""
    out = out or ll.replace(".ll", ".plugin.ptx" if plugin else ".ptx")
    cmd = ["/usr/bin/time", "-f", "%M %e", f"{LLVM_BIN}/llc", "-march=nvptx64", "-mcpu=sm_90", "-O3", *extra,
           ll, "-o", out]
    if plugin:
        cmd.insert(4, f"-load-pass-plugin={PLUGIN}")
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(r.stderr[-2000:])
    peak_kb, wall = r.stderr.strip().splitlines()[-1].split()
    return r.stderr, int(peak_kb), float(wall)


def sizes(text):
    return [int(s) for s in text.split(",") if s]


def sparse_family(args):
    rows = []
    print(f"{'target':>9}{'PTX insts':>11}{'ours s':>9}{'RC+LI s':>9}{'llc s':>8}"
          f"{'peak MB':>9}{'stock MB':>10}")
    for size in sizes(args.sparse):
        ll = os.path.join(args.dir, f"k{size}.ll")
        with open(ll, "w") as fh:
            fh.write(kernel(max(1, size // INSTS_PER_REGION)))
        # Coalescing and renaming: all the default pipeline's work and the color pass's.
        stderr, peak, _ = llc(ll, True, ["-time-passes", "-nvregalloc-color=rename"])
        ours, stock, total = ptx_stats.parse_time_passes(stderr)
        _, stock_peak, _ = llc(ll, False)
        insts = sum(f["insts"] for f in ptx_stats.parse_ptx(open(ll.replace(".ll", ".plugin.ptx")).read()).values())
        row = {"target": size, "ptx_insts": insts, "ours_s": ours, "stock_rc_li_s": stock, "llc_s": total,
               "peak_mb": peak / 1024, "stock_peak_mb": stock_peak / 1024}
        rows.append(row)
        print(f"{size:>9}{insts:>11}{ours:>9.3f}{stock:>9.3f}{total:>8.2f}{peak / 1024:>9.0f}{stock_peak / 1024:>10.0f}",
              flush=True)
    for a, b in zip(rows, rows[1:]):
        if a["ours_s"] > 0:
            print(f"{a['ptx_insts']} -> {b['ptx_insts']} instructions: our passes' time x{b['ours_s'] / a['ours_s']:.1f}")
    return rows


def methods(report, stderr):
    """pass -> method, from an -nvregalloc-report file of one function and
    llc's warnings ('refused': the pass left the function unchanged with a
    warning, as budget mode does past the graph limit)."""
    with open(report) as fh:
        functions = json.load(fh)["functions"]
    (passes,) = functions.values()
    how = {p: e.get("method", "-") for p, e in passes.items()}
    for p in ("cssa", "coalesce", "color"):
        if re.search(rf"nvregalloc-{p}: function '[^']*' left unchanged", stderr):
            how[p] = "refused"
    return dict(sorted(how.items()))


def dense_family(args):
    rows = []
    print(f"{'kernel':<13}{'N':>6} {'mode':<14}{'llc s':>8}{'x stock':>8}{'ours s':>8}"
          f"{'peak MB':>9}{'x stock':>8}  methods")
    for kernel, make in DENSE_KERNELS.items():
        for lanes in sizes(getattr(args, kernel)):
            ll = os.path.join(args.dir, f"{kernel}{lanes}.ll")
            with open(ll, "w") as fh:
                fh.write(make(lanes))
            _, stock_peak, stock_wall = llc(ll, False, ["-time-passes"])
            print(f"{kernel:<13}{lanes:>6} {'stock':<14}{stock_wall:>8.2f}{'':>8}{'':>8}{stock_peak / 1024:>9.0f}",
                  flush=True)
            for mode in args.dense_modes.split(","):
                report = ll.replace(".ll", f".{mode}.json")
                if os.path.exists(report):
                    os.remove(report)
                stderr, peak, wall = llc(ll, True, ["-time-passes", f"-nvregalloc-report={report}",
                                                    *modes.options(mode)])
                ours, _, _ = ptx_stats.parse_time_passes(stderr)
                how = methods(report, stderr)
                row = {"kernel": kernel, "values": lanes, "mode": mode, "llc_s": wall, "stock_llc_s": stock_wall,
                       "ours_s": ours, "peak_mb": peak / 1024, "stock_peak_mb": stock_peak / 1024,
                       "methods": how}
                rows.append(row)
                print(f"{'':<13}{'':>6} {mode:<14}{wall:>8.2f}{wall / stock_wall:>8.2f}{ours:>8.2f}"
                      f"{peak / 1024:>9.0f}{peak / stock_peak:>8.2f}  "
                      + " ".join(f"{p}={m}" for p, m in how.items()), flush=True)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sparse", "--sizes", default="1000,10000,100000,1000000",
                    help="sparse family: instructions per function")
    ap.add_argument("--reduction", default="1024,8192,65536", help="dense family: reduction lanes")
    ap.add_argument("--accumulation", default="1024,8192,16384", help="dense family: accumulators")
    ap.add_argument("--dense-modes", default=",".join(DENSE_MODES))
    ap.add_argument("--dir", default=os.path.join(ROOT, "build/scaling"))
    ap.add_argument("--json")
    args = ap.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    result = {}
    if sizes(args.sparse):
        result["sparse"] = sparse_family(args)
    if sizes(args.reduction) or sizes(args.accumulation):
        result["dense"] = dense_family(args)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(result, fh, indent=1)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Figures of merit read off PTX text, per function: registers declared per
class, register-to-register moves, instructions; and, given ptxas, the
hardware registers and spill bytes it reports, the register-limited warps per
SM they allow; given cuobjdump too, the SASS instructions and local-memory
loads and stores (LDL/STL) of the machine code. ptxas's and cuobjdump's
output is read by nvregalloc-tune (--figures), the project's one reader of
it. Also llc's -time-passes table, read into our passes' time and stock's
(parse_time_passes).

  ptx_stats.py FILE.ptx            one line per function
  ptx_stats.py --moves FILE.ptx    total register-to-register moves
  ptx_stats.py --json FILE.ptx     all figures as JSON
"""
import argparse
import functools
import json
import re
import os
import subprocess
import sys

FUNC_RE = re.compile(r"^\s*(?:\.visible\s+|\.weak\s+)?\.(entry|func)\s+(?:\([^)]*\)\s*)?([\w$]+)")
REG_DECL_RE = re.compile(r"^\s*\.reg\s+\.(\w+)\s+%(\w+)<(\d+)>;")
# A move between two numbered virtual registers (not %SP, immediates, symbols).
MOVE_RE = re.compile(r"^\s*(?:@!?%p\d+\s+)?mov\.\w+\s+%[a-z]+\d+,\s*%[a-z]+\d+;")
INST_RE = re.compile(r"^\s*(?:@!?%p\d+\s+)?[a-z][\w.:]*\b[^;]*;")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def tuner():
    """nvregalloc-tune: $NVREGALLOC_TUNE, else setup.sh's build/bin, else the cargo build."""
    for path in (os.environ.get("NVREGALLOC_TUNE"), os.path.join(ROOT, "build/bin/nvregalloc-tune"),
                 os.path.join(ROOT, "target/release/nvregalloc-tune")):
        if path and os.access(path, os.X_OK):
            return path
    return "nvregalloc-tune"


@functools.lru_cache(maxsize=None)
def occupancy_table(arch="sm_90"):
    """The project's one occupancy model (src/occupancy.rs, NVIDIA's
    calculation), as nvregalloc-tune --occupancy prints it: {"gpu",
    "max_warps", "warps_by_registers": [warps at 0..255 registers]}."""
    out = subprocess.run([tuner(), "--occupancy", arch], capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def max_warps(arch="sm_90"):
    return occupancy_table(arch)["max_warps"]


def register_limited_warps(regs_per_thread, arch="sm_90"):
    """Warps per SM the register file holds at this many registers per thread."""
    table = occupancy_table(arch)["warps_by_registers"]
    return table[min(regs_per_thread, len(table) - 1)]


# "   0.0521 (  8.2%)   0.0026 (  5.0%)   0.0547 (  8.0%)   0.0547 (  8.0%)  name":
# user, system, user+system and wall seconds, then the pass's name.
TIME_PASSES_RE = re.compile(r"\s*(?:[\d.]+ \(\s*[\d.]+%\)\s+){3}([\d.]+) \(\s*[\d.]+%\)\s+(.*)$")


def parse_time_passes(text):
    """(our passes, RegisterCoalescer + LiveIntervals, total) in wall seconds,
    from llc -time-passes output; the total is the first table's, the
    codegen pass manager's."""
    ours = stock = total = 0.0
    for line in text.splitlines():
        m = TIME_PASSES_RE.match(line)
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


def parse_ptx(text):
    """{function: {"regs": {prefix: count}, "moves": n, "insts": n, "entry": is a kernel}}"""
    functions = {}
    current = None
    depth = 0
    for line in text.splitlines():
        m = FUNC_RE.match(line)
        if m and depth == 0:
            current = functions.setdefault(
                m.group(2), {"regs": {}, "moves": 0, "insts": 0, "entry": m.group(1) == "entry"})
        depth += line.count("{") - line.count("}")
        if current is None or depth <= 0:
            if depth <= 0 and "}" in line:
                current = None
            continue
        d = REG_DECL_RE.match(line)
        if d:
            # LLVM numbers each class from 1, so %r<N> declares N - 1 registers.
            current["regs"][d.group(2)] = int(d.group(3)) - 1
            continue
        if line.lstrip().startswith((".", "//", "$")):
            continue
        if MOVE_RE.match(line):
            current["moves"] += 1
        if INST_RE.match(line):
            current["insts"] += 1
    for f in functions.values():
        f["declared"] = sum(f["regs"].values())
    return functions


def ptxas_figures(ptxas, ptx_path, cuobjdump=None):
    """{function: {"hw_regs": n, "warps": n, "spill_stores": bytes, "spill_loads": bytes,
    "frame": local stack frame bytes}}, for the GPU the PTX's .target names;
    with cuobjdump also "sass_insts" (not counting NOPs), "ldl" and "stl" for
    the functions the SASS holds. Read by nvregalloc-tune --figures."""
    cmd = [tuner(), "--figures", ptx_path, "--ptxas", ptxas]
    if cuobjdump:
        cmd += ["--sass", "--cuobjdump", cuobjdump]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        raise subprocess.CalledProcessError(out.returncode, cmd, out.stdout, out.stderr)
    figures = {}
    for name, f in json.loads(out.stdout).items():
        figures[name] = {"hw_regs": f["registers"], "spill_stores": f["spill_stores"],
                         "spill_loads": f["spill_loads"], "frame": f["frame"],
                         "warps": register_limited_warps(f["registers"])}
        if f["sass"]:  # a function ptxas compiled into its callers has no SASS of its own
            figures[name].update({"sass_insts": f["sass"], "ldl": f["ldl"], "stl": f["stl"]})
    return figures


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("ptx")
    ap.add_argument("--moves", action="store_true", help="print total moves only")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--ptxas", help="also run this ptxas -v")
    ap.add_argument("--cuobjdump", help="with --ptxas: also count SASS instructions and LDL/STL")
    args = ap.parse_args()
    with open(args.ptx) as fh:
        functions = parse_ptx(fh.read())
    if args.ptxas:
        for name, figures in ptxas_figures(args.ptxas, args.ptx, cuobjdump=args.cuobjdump).items():
            functions.setdefault(name, {}).update(figures)
    if args.moves:
        print(sum(f.get("moves", 0) for f in functions.values()))
    elif args.json:
        json.dump(functions, sys.stdout, indent=1, sort_keys=True)
        print()
    else:
        for name, f in functions.items():
            regs = " ".join(f"%{k}={v}" for k, v in sorted(f.get("regs", {}).items()))
            print(f"{name}: declared={f.get('declared', 0)} ({regs}) moves={f.get('moves', 0)} insts={f.get('insts', 0)}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Figures of merit read off PTX text, per function: registers declared per
class, register-to-register moves, instructions; and, given ptxas, the
hardware registers and spill bytes it reports, the register-limited warps per
SM they allow; given cuobjdump too, the SASS instructions and local-memory
loads and stores (LDL/STL) of the machine code. Also llc's -time-passes
table, read into our passes' time and stock's (parse_time_passes).

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
import tempfile

FUNC_RE = re.compile(r"^\s*(?:\.visible\s+|\.weak\s+)?\.(entry|func)\s+(?:\([^)]*\)\s*)?([\w$]+)")
REG_DECL_RE = re.compile(r"^\s*\.reg\s+\.(\w+)\s+%(\w+)<(\d+)>;")
# A move between two numbered virtual registers (not %SP, immediates, symbols).
MOVE_RE = re.compile(r"^\s*(?:@!?%p\d+\s+)?mov\.\w+\s+%[a-z]+\d+,\s*%[a-z]+\d+;")
INST_RE = re.compile(r"^\s*(?:@!?%p\d+\s+)?[a-z][\w.:]*\b[^;]*;")
PTXAS_FUNC_RE = re.compile(r"Compiling entry function '([\w$]+)'|Function properties for ([\w$]+)")
PTXAS_USED_RE = re.compile(r"Used (\d+) registers")
PTXAS_SPILL_RE = re.compile(r"(\d+) bytes spill stores, (\d+) bytes spill loads")
PTXAS_FRAME_RE = re.compile(r"(\d+) bytes stack frame")
SASS_FUNC_RE = re.compile(r"^\s*Function : ([\w$]+)")
# "/*0040*/  @!P0 LDL.64 R2, [R1+0x8] ;": the opcode after an optional predicate.
SASS_INST_RE = re.compile(r"^\s*/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P[T\d]+\s+)?([A-Z][A-Z0-9_]*)")

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


def ptxas_figures(ptxas, ptx_path, arch="sm_90", cuobjdump=None):
    """{function: {"hw_regs": n, "warps": n, "spill_stores": bytes, "spill_loads": bytes,
    "frame": local stack frame bytes}},
    and with cuobjdump also "sass_insts" (not counting NOPs), "ldl" and "stl"."""
    with tempfile.TemporaryDirectory(prefix="nvra-sass-") as tmp:
        cubin = os.path.join(tmp, "out.cubin") if cuobjdump else os.devnull
        out = subprocess.run([ptxas, f"-arch={arch}", "-v", ptx_path, "-o", cubin],
                             capture_output=True, text=True, check=True)
        sass = subprocess.run([cuobjdump, "-sass", cubin], capture_output=True, text=True,
                              check=True).stdout if cuobjdump else ""
    figures, name = {}, None
    for line in out.stderr.splitlines():
        m = PTXAS_FUNC_RE.search(line)
        if m:
            name = m.group(1) or m.group(2)
            figures.setdefault(name, {"hw_regs": 0, "spill_stores": 0, "spill_loads": 0, "frame": 0})
            continue
        if name is None:
            continue
        s = PTXAS_SPILL_RE.search(line)
        if s:
            figures[name]["spill_stores"] = int(s.group(1))
            figures[name]["spill_loads"] = int(s.group(2))
        fr = PTXAS_FRAME_RE.search(line)
        if fr:
            figures[name]["frame"] = int(fr.group(1))
        u = PTXAS_USED_RE.search(line)
        if u:
            figures[name]["hw_regs"] = int(u.group(1))
    for f in figures.values():
        f["warps"] = register_limited_warps(f["hw_regs"])
    name = None
    for line in sass.splitlines():
        m = SASS_FUNC_RE.match(line)
        if m:
            name = m.group(1)
            figures.setdefault(name, {}).update({"sass_insts": 0, "ldl": 0, "stl": 0})
            continue
        i = SASS_INST_RE.match(line)
        if name is None or not i or i.group(1) == "NOP":
            continue
        figures[name]["sass_insts"] += 1
        for op in ("ldl", "stl"):
            if i.group(1) == op.upper():
                figures[name][op] += 1
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

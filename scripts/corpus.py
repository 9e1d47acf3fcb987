#!/usr/bin/env python3
"""Compiles every kernel of a corpus with stock LLVM 22 and with the plugin in
each mode, checks each build, and gathers the PTX figures.

Checks, per kernel and mode: llc with -verify-machineinstrs succeeds, no
function was left unchanged by a checker rejection or an internal error, and
ptxas accepts the PTX; in a register budget mode every function declares at
most the budget per class, or the plugin said why it left the function
unchanged (one instruction needing more registers of a class at once, or an
interference graph past -nvregalloc-graph-limit). Across modes: with both passes in analysis-only mode
the PTX is byte-identical to stock, and register-to-register moves never
exceed stock's in after-stock mode, nor, with CSSA coalescing, those of the
same mode without it. The clang 22 -fpass-plugin path is checked the same
way against stock clang.

  corpus.py                 check tests/kernels, print '<N> passed, <N> failed'
  corpus.py --report        also print the per-kernel figures table
  corpus.py --json FILE     write every figure as JSON
  corpus.py --corpus ../shared/corpora/hecbench --modes both,replace --llc-only
                            an external corpus: a folder of .cu files, or of
                            benchmark folders (HeCBench's src/<name>-cuda/),
                            each .cu that no other includes compiled with -I
                            its folder; what clang or nvcc cannot compile is
                            listed, not failed, and so is what stock llc
                            itself fails on; plugin failures are judged
                            against stock's on the same input
Every run ends with the functions the plugin left unchanged, per mode and
reason.
"""
import argparse
import collections
import concurrent.futures as futures
import json
import os
import re
import subprocess
import sys
import tempfile
from typing import NamedTuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import modes  # noqa: E402
import ptx_stats  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LLVM_BIN = os.environ.get("LLVM_BIN", "/usr/lib/llvm-22/bin")
PLUGIN = os.environ.get("PLUGIN", os.path.join(ROOT, "target/release/libnvregalloc.so"))
PTXAS = os.environ.get("PTXAS", "")
NVCC = os.environ.get("NVCC", "")
CLANG_CUDA_FLAGS = os.environ.get("CLANG_CUDA_FLAGS", "").split()

# Mode -> llc options (tests/modes.json, through scripts/modes.py); stock: none.
MODES = {"stock": None, **modes.table(["analyze", "cssa", "coalesce", "replace", "color", "both", "replace+color",
                                       "both, cssa", "pressure forced", "no lsr", "recompute invariants",
                                       "sched pressure", "widen",
                                       "budget 8", "budget 15", "budget 32"])}
# Register budget modes: mode -> N. Every function must declare at most N
# registers per class, unless the plugin left it unchanged for one of
# BUDGET_EXCUSES (and said so).
BUDGET_MODES = {"budget 8": 8, "budget 15": 15, "budget 32": 32}
BUDGET_EXCUSES = ("registers at once", "nvregalloc-graph-limit")
# A function a pass left unchanged: its warning, or its report's note.
LEFT_UNCHANGED = re.compile(r"warning: (nvregalloc-[a-z-]+): function '([^']*)' left unchanged: (.*?)(?: \[-W[\w-]+\])?$")
# The color pass's figures summed in the budget table.
SPILL_FIGURES = ("spilled-values", "remat-values", "spill-stores", "reloads", "reloads-every-use",
                 "remats", "remats-every-use", "spill-slots", "spill-slot-bytes", "rounds")
# CSSA coalescing must never add moves: mode -> the same without it.
CSSA_BASELINES = {"cssa": "stock", "both, cssa": "both"}
# Warnings that mean a pass misbehaved (unsupported functions are expected).
BAD_WARNINGS = ("the checker rejected", "internal error", "ABI")


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def llc_cmd(ll, out, options, verify, attrs=()):
    cmd = [f"{LLVM_BIN}/llc", "-march=nvptx64", "-mcpu=sm_90", "-O3", *attrs, *verify, ll, "-o", out]
    if options is not None:
        cmd[1:1] = [f"-load-pass-plugin={PLUGIN}"] + options
    return cmd


def ir_attributes(ll):
    """The -mattr= of an LLVM test input's first llc RUN line: the features
    its IR was written for (elect.ll needs +ptx80), tried where the plain
    sm_90 build fails."""
    with open(ll, errors="replace") as fh:
        for line in fh:
            if line.startswith(";") and "RUN:" in line and "llc" in line:
                return re.findall(r"(-mattr=\S+)", line)[:1]
    return []


def verifier_flags(cu):
    """A kernel whose first lines say 'corpus: no-verify' (LLVM itself fails the
    machine verifier on it, plugin or not) is compiled without the verifier."""
    with open(cu, errors="replace") as fh:
        head = fh.read(2000)
    return [] if "corpus: no-verify" in head else ["-verify-machineinstrs"]


def first_error(text):
    lines = [line for line in text.splitlines() if "error" in line] or text.splitlines() or [""]
    return lines[0].strip()[:300]


def unchanged_functions(stderr, report_json):
    """{(function, reason)} a plugin build left unchanged: warnings, and the
    passes that stood aside past the graph limit (the report's notes)."""
    left = set()
    for line in stderr.splitlines():
        m = LEFT_UNCHANGED.search(line)
        if m:
            left.add((m.group(2), re.sub(r"(?<![A-Za-z0-9])\d+|\b[iv]\d+\b", "N", m.group(3))))
    if os.path.exists(report_json):
        with open(report_json) as fh:
            for fn, passes in json.load(fh)["functions"].items():
                for entry in passes.values():
                    if entry.get("method") == "guard":
                        left.add((fn, "graph past -nvregalloc-graph-limit"))
    return left


def build_kernel(unit, workdir, modes, clang_path=True, external=False):
    """Compiles one kernel every way; returns (failures, figures by mode,
    why it was skipped or None). `unit`: a Unit."""
    name, cu = unit.name, unit.cu
    stem = name.replace("/", "__")
    verify = verifier_flags(cu)
    failures, figures, ptx_text = [], {}, {}
    is_ir = cu.endswith(".ll")
    ll = cu if is_ir else os.path.join(workdir, f"{stem}.ll")
    attrs = []
    if is_ir:
        clang_path = False
        stock_builds = lambda: run(llc_cmd(ll, os.devnull, None, [], attrs)).returncode == 0
        if not stock_builds():
            attrs = ir_attributes(ll)
        # Judged against stock on the same input: where stock llc itself
        # fails the machine verifier, every build goes without it.
        if stock_builds() and verify and run(llc_cmd(ll, os.devnull, None, verify, attrs)).returncode:
            verify = []
            figures["(stock fails the verifier)"] = True
    else:
        r = run([f"{LLVM_BIN}/clang++", *CLANG_CUDA_FLAGS, *unit.clang_flags(), "-emit-llvm", "-S", cu, "-o", ll])
        if r.returncode:
            if external:
                return [], {}, f"clang: {first_error(r.stderr)}"
            return [f"{name}: clang -emit-llvm failed: {r.stderr.strip()[:400]}"], {}, None
    if external and NVCC and not is_ir:
        r = run([NVCC, "-ptx", "-arch=sm_90", "-O3", *unit.nvcc_flags(), cu, "-o",
                 os.path.join(workdir, f"{stem}.nvcc.ptx")])
        if r.returncode:
            return [], {}, f"nvcc: {first_error(r.stderr)}"
    stock_rejected = None
    for mode, options in modes.items():
        ptx = os.path.join(workdir, f"{stem}.{mode}.ptx")
        report_json = os.path.join(workdir, f"{stem}.{mode}.json")
        if options is not None:
            options = options + [f"-nvregalloc-report={report_json}"]
        r = run(llc_cmd(ll, ptx, options, verify, attrs))
        if r.returncode:
            if mode == "stock" and external:
                return [], {}, f"stock llc: {first_error(r.stderr)}"
            failures.append(f"{name} [{mode}]: llc failed: {r.stderr.strip()[:600]}")
            continue
        bad = [line for line in r.stderr.splitlines() if any(w in line for w in BAD_WARNINGS)]
        if bad:
            failures.append(f"{name} [{mode}]: " + "; ".join(bad)[:600])
        try:
            stats = ptx_stats.parse_ptx(open(ptx).read())
            if PTXAS:
                for fn, hw in ptx_stats.ptxas_figures(PTXAS, ptx).items():
                    stats.setdefault(fn, {}).update(hw)
        except subprocess.CalledProcessError as e:
            if mode == "stock":
                stock_rejected = first_error(e.stderr)
            elif stock_rejected is None:
                failures.append(f"{name} [{mode}]: ptxas rejected the PTX: {e.stderr.strip()[:600]}")
            continue
        if options is not None:
            stats["(left unchanged)"] = sorted(unchanged_functions(r.stderr, report_json))
        figures[mode] = stats
        ptx_text[mode] = open(ptx).read()
        if mode in BUDGET_MODES:
            failures += check_budget(name, mode, BUDGET_MODES[mode], stats, r.stderr, report_json)

    if "stock" in ptx_text and ptx_text.get("analyze") not in (None, ptx_text["stock"]):
        failures.append(f"{name}: analysis-only PTX differs from stock")
    total = lambda mode, key: sum(f.get(key, 0) for f in functions(figures.get(mode, {})))
    if "coalesce" in figures and total("coalesce", "moves") > total("stock", "moves"):
        failures.append(f"{name}: after-stock coalescing has more moves than stock")
    for mode, baseline in CSSA_BASELINES.items():
        if mode in figures and baseline in figures and total(mode, "moves") > total(baseline, "moves"):
            failures.append(f"{name}: [{mode}] has more moves than [{baseline}]")
    if not clang_path:
        return failures, figures, None
    figures["copies after PHI elimination"] = {
        label: phi_elimination_copies(ll, os.path.join(workdir, f"{stem}.phi-elim.{label}.mir"), flag, verify)
        for label, flag in (("without cssa", "false"), ("with cssa", "true"))
    }

    # The clang path: -fpass-plugin by default must pass ptxas, and in
    # analysis-only mode, with the middle end's promote-locals and the
    # nounroll marks off (they change the IR by design), must match stock
    # clang byte for byte. (clang targets a newer PTX ISA than llc, so its
    # PTX is compared with clang's own.)
    def clang(out, *extra):
        flags = [f for v in verify for f in ("-mllvm", v)]
        return run([f"{LLVM_BIN}/clang++", *CLANG_CUDA_FLAGS, *unit.clang_flags(), *flags, *extra, "-S", cu,
                    "-o", out])

    builds = {
        "clang": clang(os.path.join(workdir, f"{stem}.clang.ptx")),
        "clang+plugin": clang(os.path.join(workdir, f"{stem}.clang+plugin.ptx"), f"-fpass-plugin={PLUGIN}"),
        "clang+plugin analyze": clang(os.path.join(workdir, f"{stem}.clang+plugin analyze.ptx"),
                                      f"-fpass-plugin={PLUGIN}", "-mllvm", "-nvregalloc-cssa-coalesce=false",
                                      "-mllvm", "-nvregalloc-pressure=analyze",
                                      "-mllvm", "-nvregalloc-coalesce=analyze",
                                      "-mllvm", "-nvregalloc-color=analyze",
                                      "-mllvm", "-nvregalloc-promote-locals=false",
                                      "-mllvm", "-nvregalloc-keep-loops-rolled=false"),
    }
    for build, r in builds.items():
        if r.returncode:
            failures.append(f"{name} [{build}]: {r.stderr.strip()[:600]}")
    if not failures:
        out = lambda build: os.path.join(workdir, f"{stem}.{build}.ptx")
        if PTXAS and run([PTXAS, "-arch=sm_90", out("clang+plugin"), "-o", "/dev/null"]).returncode:
            failures.append(f"{name} [clang -fpass-plugin]: ptxas rejected the PTX")
        if open(out("clang")).read() != open(out("clang+plugin analyze")).read():
            failures.append(f"{name}: clang -fpass-plugin in analysis-only mode differs from stock clang")
    return failures, figures, None


def functions(stats):
    """The per-function figures of one build (without its bookkeeping)."""
    return [f for fn, f in stats.items() if not fn.startswith("(")]


def check_budget(name, mode, budget, stats, stderr, report_json):
    """Every function within `budget` registers per class, or left unchanged
    with an excuse; adds the color pass's spill figures and the excuses to
    `stats`. Returns failures."""
    failures = []
    color = {}
    if os.path.exists(report_json):
        with open(report_json) as fh:
            for fn, passes in json.load(fh)["functions"].items():
                color[fn] = passes.get("color", {}).get("figures", {})
    for fn, figs in stats.items():
        if fn.startswith("("):
            continue
        figs.update({k: color.get(fn, {}).get(k, 0) for k in SPILL_FIGURES})
        over = {cls: n for cls, n in figs["regs"].items() if n > budget}
        if not over:
            continue
        excuse = next((e for e in BUDGET_EXCUSES for line in stderr.splitlines()
                       if f"'{fn}' left unchanged" in line and e in line), None)
        if excuse is None:
            failures.append(f"{name} [{mode}]: {fn} declares {over}, over the budget {budget}")
        else:
            figs["over budget"] = excuse
    return failures


def phi_elimination_copies(ll, mir, cssa, verify):
    """COPY instructions in the function right after PHI elimination."""
    options = [f"-nvregalloc-cssa-coalesce={cssa}", "-stop-after=phi-node-elimination"]
    if run(llc_cmd(ll, mir, options, verify)).returncode:
        return None
    with open(mir) as fh:
        return sum(1 for line in fh if " = COPY " in line)


class Unit(NamedTuple):
    """One compilation of a corpus: a .cu (or .ll) file and its flags."""
    name: str
    cu: str
    # Flags for both compilers (-I, -std), then each one's own.
    flags: tuple = ()
    clang_only: tuple = ()
    nvcc_only: tuple = ()

    def clang_flags(self):
        return [*self.flags, *self.clang_only]

    def nvcc_flags(self):
        return [*self.flags, *self.nvcc_only]


# CUTLASS (its README in the corpus): clang knows no version for the Python
# wheels' CUDA root, and the examples' host code tests it; 12.6 keeps
# CUTLASS off the CUDA 12.8+ atomics clang's headers lack, and the PFN_
# defines map CUDA 12's tensor-map typedefs to CUDA 13's names. nvcc
# defines its own version and needs CUTLASS's relaxed constexpr.
CUTLASS_CLANG = ("-D__CUDACC_VER_MAJOR__=12", "-D__CUDACC_VER_MINOR__=6",
                 "-DPFN_cuTensorMapEncodeTiled=PFN_cuTensorMapEncodeTiled_v12000",
                 "-DPFN_cuTensorMapEncodeIm2col=PFN_cuTensorMapEncodeIm2col_v12000")
CUTLASS_NVCC = ("--expt-relaxed-constexpr",)


def corpus_units(corpus):
    """A Unit per compilation: the folder's .cu and .ll files (LLVM IR goes
    straight to llc); for a folder of benchmark folders (HeCBench: DIR or
    DIR/src), each benchmark's .cu files that no other of its .cu files
    includes, with -I the benchmark's folder; for CUTLASS (include/cutlass
    and examples/), each example's .cu file with CUTLASS's headers."""
    top = sorted(f for f in os.listdir(corpus) if f.endswith((".cu", ".ll")))
    if top:
        return [Unit(os.path.splitext(f)[0], os.path.join(corpus, f)) for f in top]
    if os.path.isdir(os.path.join(corpus, "include", "cutlass")):
        return cutlass_units(corpus)
    if os.path.isdir(os.path.join(corpus, "src")):
        corpus = os.path.join(corpus, "src")
    benches = sorted(os.listdir(corpus))
    # A HeCBench clone holds each benchmark's HIP, SYCL and OpenMP versions
    # beside its CUDA one: only the CUDA ones are ours to compile.
    if any(b.endswith("-cuda") for b in benches):
        benches = [b for b in benches if b.endswith("-cuda")]
    units = []
    for bench in benches:
        folder = os.path.join(corpus, bench)
        if not os.path.isdir(folder):
            continue
        cus = sorted(f for f in os.listdir(folder) if f.endswith(".cu"))
        included = set()
        for f in cus:
            with open(os.path.join(folder, f), errors="replace") as fh:
                included.update(os.path.basename(m) for m in re.findall(r'#\s*include\s+"([^"]+)"', fh.read()))
        for f in cus:
            if f not in included:
                units.append(Unit(f"{bench}/{os.path.splitext(f)[0]}", os.path.join(folder, f), ("-I", folder)))
    return units


def cutlass_units(corpus):
    """Each CUTLASS example's .cu files, C++17, with the library's headers,
    its tools' and the examples' common ones."""
    headers = ("-std=c++17", "-I", os.path.join(corpus, "include"), "-I", os.path.join(corpus, "tools", "util", "include"),
               "-I", os.path.join(corpus, "examples", "common"))
    examples = os.path.join(corpus, "examples")
    units = []
    for example in sorted(os.listdir(examples)):
        folder = os.path.join(examples, example)
        if not os.path.isdir(folder) or example == "common":
            continue
        for f in sorted(f for f in os.listdir(folder) if f.endswith(".cu")):
            units.append(Unit(f"{example}/{os.path.splitext(f)[0]}", os.path.join(folder, f),
                              (*headers, "-I", folder), CUTLASS_CLANG, CUTLASS_NVCC))
    return units


def kernel_key(name):
    """A kernel's name as both compilers spell it: clang gives a template
    kernel internal linkage in places nvcc gives it external linkage
    (CUTLASS's `_ZN7cutlassL6Kernel...` against `_ZN7cutlass6Kernel...`),
    and the `L` marking it in a nested name is dropped."""
    if not name.startswith("_ZN"):
        return name
    out, i = ["_ZN"], 3
    while i < len(name):
        if name[i] == "L" and i + 1 < len(name) and name[i + 1].isdigit():
            i += 1
            continue
        m = re.match(r"\d+", name[i:])
        if not m:
            break
        end = i + len(m.group()) + int(m.group())
        out.append(name[i:end])
        i = end
    return "".join(out) + name[i:]


def left_unchanged_report(results, modes):
    """Per mode: functions compiled, and those left unchanged by reason."""
    print("functions left unchanged, per mode (of all functions compiled):")
    for mode in modes:
        counts, total = collections.Counter(), 0
        for _, figures, _ in results.values():
            stats = figures.get(mode)
            if stats is None:
                continue
            total += len(functions(stats))
            counts.update(reason for _, reason in set(stats.get("(left unchanged)", [])))
        left = sum(counts.values())
        detail = "; ".join(f"{n} {reason}" for reason, n in counts.most_common())
        print(f"  {mode:24} {left} of {total} ({100.0 * left / max(total, 1):.2f}%){': ' + detail if detail else ''}")


def report(results, modes):
    print(f"{'kernel':28} " + " ".join(f"{m[:13]:>13}" for m in modes))
    print(f"{'':28} " + " ".join(f"{'decl/mov/hw':>13}" for _ in modes))
    totals = {m: [0, 0, 0] for m in modes}
    for name, (_, figures, _) in sorted(results.items()):
        cells = []
        for m in modes:
            fs = functions(figures.get(m, {}))
            t = [sum(f.get(k, 0) for f in fs) for k in ("declared", "moves", "hw_regs")]
            totals[m] = [a + b for a, b in zip(totals[m], t)]
            cells.append(f"{t[0]:>5}/{t[1]:>3}/{t[2]:>3}")
        print(f"{name[:28]:28} " + " ".join(f"{c:>13}" for c in cells))
    print(f"{'TOTAL':28} " + " ".join(f"{'/'.join(str(x) for x in totals[m]):>13}" for m in modes))
    print()
    print(f"{'budget':8} {'within':>6} {'excused':>24} " + " ".join(f"{k[:12]:>12}" for k in SPILL_FIGURES))
    for mode, budget in BUDGET_MODES.items():
        fns = [f for _, figures, _ in results.values() for f in functions(figures.get(mode, {}))]
        within = sum(1 for f in fns if "over budget" not in f)
        excused = {}
        for f in fns:
            if "over budget" in f:
                excused[f["over budget"]] = excused.get(f["over budget"], 0) + 1
        excused_text = ", ".join(f"{n} {e}" for e, n in sorted(excused.items()))
        sums = [sum(f.get(k, 0) for f in fns) for k in SPILL_FIGURES]
        print(f"{budget:<8} {within:>6} {excused_text:>24} " + " ".join(f"{v:>12}" for v in sums))
    copies = [figures.get("copies after PHI elimination", {}) for _, figures, _ in results.values()]
    before = sum(c.get("without cssa") or 0 for c in copies)
    after = sum(c.get("with cssa") or 0 for c in copies)
    print(f"COPY instructions right after PHI elimination: {before} without CSSA, {after} with")


def parse_modes(text):
    """Splits a --modes list on commas. A few mode names hold a comma and a
    space ("both, cssa"), so a comma followed by a space splits only where
    the words around it are no mode name together."""
    chosen = []
    for part in re.split(r",(?! )", text):
        part = part.strip()
        chosen += [part] if part in MODES else [p.strip() for p in part.split(",")]
    return chosen


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", default=os.path.join(ROOT, "tests/kernels"))
    ap.add_argument("--modes", help="comma-separated modes to build (stock always), default all: "
                    + ", ".join(m for m in MODES if m != "stock"))
    ap.add_argument("--llc-only", action="store_true",
                    help="skip the clang -fpass-plugin builds and the PHI elimination counts")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--sample", type=int, default=1, metavar="N",
                    help="build every Nth input of the corpus (sorted by name), for a quicker run")
    ap.add_argument("--report", action="store_true")
    ap.add_argument("--json")
    ap.add_argument("--list", action="store_true",
                    help="print the corpus's .cu files, one per line, and stop (for ptxsim corpus)")
    args = ap.parse_args()
    if args.list:
        print("\n".join(unit.cu for unit in corpus_units(os.path.abspath(args.corpus))))
        return 0
    chosen = parse_modes(args.modes) if args.modes else list(MODES)
    unknown = [m for m in chosen if m not in MODES]
    if unknown:
        ap.error(f"unknown modes {unknown}; known: {', '.join(MODES)}")
    modes = {m: MODES[m] for m in ["stock", *[m for m in chosen if m != "stock"]]}
    corpus = os.path.abspath(args.corpus)
    external = corpus != os.path.join(ROOT, "tests/kernels")
    results, skipped = {}, {}
    with tempfile.TemporaryDirectory(prefix="nvra-corpus-") as workdir, \
            futures.ThreadPoolExecutor(args.jobs) as pool:
        jobs = {pool.submit(build_kernel, unit, workdir, modes, not args.llc_only, external): unit.name
                for unit in corpus_units(corpus)[::args.sample]}
        for job in futures.as_completed(jobs):
            name = jobs[job]
            try:
                failures, figures, why_skipped = job.result()
            except Exception as e:  # a bug of this script must not lose the other results
                failures, figures, why_skipped = [f"{name}: corpus.py failed: {e!r}"], {}, None
            if why_skipped:
                skipped[name] = why_skipped
                print(f"skip {name}: {why_skipped}", flush=True)
                continue
            results[name] = (failures, figures, None)
            print(f"{'FAIL' if failures else 'ok  '} {name}", flush=True)
    failed = {n: f for n, (f, _, _) in results.items() if f}
    for name, failures in sorted(failed.items()):
        for failure in failures:
            print(f"  {failure}")
    if args.report:
        report(results, [m for m in modes if m != "analyze"])
    if skipped:
        print(f"not compared ({len(skipped)}):")
        for name, why in sorted(skipped.items()):
            print(f"  {name}: {why}")
    unverified = sorted(n for n, (_, figs, _) in results.items() if figs.get("(stock fails the verifier)"))
    if unverified:
        print(f"compared without -verify-machineinstrs, which stock llc fails on them ({len(unverified)}): "
              + ", ".join(unverified))
    left_unchanged_report(results, [m for m in modes if MODES[m] is not None])
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"results": {n: figs for n, (_, figs, _) in results.items()}, "skipped": skipped},
                      fh, indent=1, sort_keys=True)
    print(f"corpus: {len(results) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed or not results else 0


if __name__ == "__main__":
    sys.exit(main())

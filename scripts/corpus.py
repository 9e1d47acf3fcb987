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
"""
import argparse
import concurrent.futures as futures
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ptx_stats  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LLVM_BIN = os.environ.get("LLVM_BIN", "/usr/lib/llvm-22/bin")
PLUGIN = os.environ.get("PLUGIN", os.path.join(ROOT, "target/release/libnvregalloc.so"))
PTXAS = os.environ.get("PTXAS", "")
CLANG_CUDA_FLAGS = os.environ.get("CLANG_CUDA_FLAGS", "").split()

# Mode name -> llc options (None: stock llc without the plugin).
MODES = {
    "stock": None,
    "analyze": ["-nvregalloc-cssa-coalesce=false", "-nvregalloc-coalesce=analyze", "-nvregalloc-color=analyze"],
    "cssa": ["-nvregalloc-coalesce=off", "-nvregalloc-color=off"],
    "coalesce": ["-nvregalloc-coalesce=after-stock", "-nvregalloc-color=off"],
    "replace": ["-nvregalloc-coalesce=replace-stock", "-nvregalloc-color=off"],
    "color": ["-nvregalloc-coalesce=off", "-nvregalloc-color=rename"],
    "both": ["-nvregalloc-coalesce=after-stock", "-nvregalloc-color=rename"],
    "replace+color": ["-nvregalloc-coalesce=replace-stock", "-nvregalloc-color=rename"],
    "both, no cssa": ["-nvregalloc-cssa-coalesce=false", "-nvregalloc-coalesce=after-stock",
                      "-nvregalloc-color=rename"],
    "both, cssa edge copies": ["-nvregalloc-cssa-edge-copies", "-nvregalloc-coalesce=after-stock",
                               "-nvregalloc-color=rename"],
    "budget 8": ["-nvregalloc-max-regs=8"],
    "budget 15": ["-nvregalloc-max-regs=15"],
    "budget 32": ["-nvregalloc-max-regs=32"],
}
# Register budget modes: mode -> N. Every function must declare at most N
# registers per class, unless the plugin left it unchanged for one of
# BUDGET_EXCUSES (and said so).
BUDGET_MODES = {"budget 8": 8, "budget 15": 15, "budget 32": 32}
BUDGET_EXCUSES = ("registers at once", "nvregalloc-graph-limit")
# The color pass's figures summed in the budget table.
SPILL_FIGURES = ("spilled-values", "remat-values", "spill-stores", "reloads", "reloads-every-use",
                 "remats", "remats-every-use", "spill-slots", "spill-slot-bytes", "rounds")
# CSSA coalescing must never add moves: mode -> the same without it.
CSSA_BASELINES = {"cssa": "stock", "both": "both, no cssa"}
# Warnings that mean a pass misbehaved (unsupported functions are expected).
BAD_WARNINGS = ("the checker rejected", "internal error", "ABI")


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def llc_cmd(ll, out, options, verify):
    cmd = [f"{LLVM_BIN}/llc", "-march=nvptx64", "-mcpu=sm_90", "-O3", *verify, ll, "-o", out]
    if options is not None:
        cmd[1:1] = [f"-load-pass-plugin={PLUGIN}"] + options
    return cmd


def verifier_flags(cu):
    """A kernel whose first lines say 'corpus: no-verify' (LLVM itself fails the
    machine verifier on it, plugin or not) is compiled without the verifier."""
    with open(cu) as fh:
        head = fh.read(2000)
    return [] if "corpus: no-verify" in head else ["-verify-machineinstrs"]


def build_kernel(cu, workdir, extra_modes=()):
    """Compiles one kernel every way; returns (failures, figures by mode)."""
    name = os.path.splitext(os.path.basename(cu))[0]
    verify = verifier_flags(cu)
    failures, figures, ptx_text = [], {}, {}
    ll = os.path.join(workdir, f"{name}.ll")
    r = run([f"{LLVM_BIN}/clang++", *CLANG_CUDA_FLAGS, "-emit-llvm", "-S", cu, "-o", ll])
    if r.returncode:
        return [f"{name}: clang -emit-llvm failed: {r.stderr.strip()[:400]}"], {}
    modes = dict(MODES)
    modes.update(extra_modes)
    for mode, options in modes.items():
        ptx = os.path.join(workdir, f"{name}.{mode}.ptx")
        report_json = os.path.join(workdir, f"{name}.{mode}.json")
        if mode in BUDGET_MODES:
            options = options + [f"-nvregalloc-report={report_json}"]
        r = run(llc_cmd(ll, ptx, options, verify))
        if r.returncode:
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
            failures.append(f"{name} [{mode}]: ptxas rejected the PTX: {e.stderr.strip()[:600]}")
            continue
        figures[mode] = stats
        ptx_text[mode] = open(ptx).read()
        if mode in BUDGET_MODES:
            failures += check_budget(name, mode, BUDGET_MODES[mode], stats, r.stderr, report_json)

    if "stock" in ptx_text and ptx_text.get("analyze") not in (None, ptx_text["stock"]):
        failures.append(f"{name}: analysis-only PTX differs from stock")
    total = lambda mode, key: sum(f.get(key, 0) for f in figures.get(mode, {}).values())
    if "coalesce" in figures and total("coalesce", "moves") > total("stock", "moves"):
        failures.append(f"{name}: after-stock coalescing has more moves than stock")
    for mode, baseline in CSSA_BASELINES.items():
        if mode in figures and baseline in figures and total(mode, "moves") > total(baseline, "moves"):
            failures.append(f"{name}: [{mode}] has more moves than [{baseline}]")
    figures["copies after PHI elimination"] = {
        label: phi_elimination_copies(ll, os.path.join(workdir, f"{name}.phi-elim.{label}.mir"), flag, verify)
        for label, flag in (("without cssa", "false"), ("with cssa", "true"))
    }

    # The clang path: -fpass-plugin by default must pass ptxas, and in
    # analysis-only mode must match stock clang byte for byte. (clang targets a
    # newer PTX ISA than llc, so its PTX is compared with clang's own.)
    def clang(out, *extra):
        flags = [f for v in verify for f in ("-mllvm", v)]
        return run([f"{LLVM_BIN}/clang++", *CLANG_CUDA_FLAGS, *flags, *extra, "-S", cu, "-o", out])

    builds = {
        "clang": clang(os.path.join(workdir, f"{name}.clang.ptx")),
        "clang+plugin": clang(os.path.join(workdir, f"{name}.clang+plugin.ptx"), f"-fpass-plugin={PLUGIN}"),
        "clang+plugin analyze": clang(os.path.join(workdir, f"{name}.clang+plugin analyze.ptx"),
                                      f"-fpass-plugin={PLUGIN}", "-mllvm", "-nvregalloc-cssa-coalesce=false",
                                      "-mllvm", "-nvregalloc-coalesce=analyze",
                                      "-mllvm", "-nvregalloc-color=analyze"),
    }
    for build, r in builds.items():
        if r.returncode:
            failures.append(f"{name} [{build}]: {r.stderr.strip()[:600]}")
    if not failures:
        out = lambda build: os.path.join(workdir, f"{name}.{build}.ptx")
        if PTXAS and run([PTXAS, "-arch=sm_90", out("clang+plugin"), "-o", "/dev/null"]).returncode:
            failures.append(f"{name} [clang -fpass-plugin]: ptxas rejected the PTX")
        if open(out("clang")).read() != open(out("clang+plugin analyze")).read():
            failures.append(f"{name}: clang -fpass-plugin in analysis-only mode differs from stock clang")
    return failures, figures


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


def kernel_files(corpus):
    return sorted(os.path.join(corpus, f) for f in os.listdir(corpus) if f.endswith(".cu"))


def report(results):
    modes = [m for m in MODES if m != "analyze"]
    print(f"{'kernel':28} " + " ".join(f"{m[:13]:>13}" for m in modes))
    print(f"{'':28} " + " ".join(f"{'decl/mov/hw':>13}" for _ in modes))
    totals = {m: [0, 0, 0] for m in modes}
    for name, (_, figures) in sorted(results.items()):
        cells = []
        for m in modes:
            fs = figures.get(m, {}).values()
            t = [sum(f.get(k, 0) for f in fs) for k in ("declared", "moves", "hw_regs")]
            totals[m] = [a + b for a, b in zip(totals[m], t)]
            cells.append(f"{t[0]:>5}/{t[1]:>3}/{t[2]:>3}")
        print(f"{name[:28]:28} " + " ".join(f"{c:>13}" for c in cells))
    print(f"{'TOTAL':28} " + " ".join(f"{'/'.join(str(x) for x in totals[m]):>13}" for m in modes))
    print()
    print(f"{'budget':8} {'within':>6} {'excused':>24} " + " ".join(f"{k[:12]:>12}" for k in SPILL_FIGURES))
    for mode, budget in BUDGET_MODES.items():
        fns = [f for _, figures in results.values() for f in figures.get(mode, {}).values()]
        within = sum(1 for f in fns if "over budget" not in f)
        excused = {}
        for f in fns:
            if "over budget" in f:
                excused[f["over budget"]] = excused.get(f["over budget"], 0) + 1
        excused_text = ", ".join(f"{n} {e}" for e, n in sorted(excused.items()))
        sums = [sum(f.get(k, 0) for f in fns) for k in SPILL_FIGURES]
        print(f"{budget:<8} {within:>6} {excused_text:>24} " + " ".join(f"{v:>12}" for v in sums))
    copies = [figures.get("copies after PHI elimination", {}) for _, figures in results.values()]
    before = sum(c.get("without cssa") or 0 for c in copies)
    after = sum(c.get("with cssa") or 0 for c in copies)
    print(f"COPY instructions right after PHI elimination: {before} without CSSA, {after} with")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", default=os.path.join(ROOT, "tests/kernels"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--report", action="store_true")
    ap.add_argument("--json")
    args = ap.parse_args()
    results = {}
    with tempfile.TemporaryDirectory(prefix="nvra-corpus-") as workdir, \
            futures.ThreadPoolExecutor(args.jobs) as pool:
        jobs = {pool.submit(build_kernel, cu, workdir): cu for cu in kernel_files(args.corpus)}
        for job in futures.as_completed(jobs):
            name = os.path.splitext(os.path.basename(jobs[job]))[0]
            results[name] = job.result()
            print(f"{'FAIL' if results[name][0] else 'ok  '} {name}", flush=True)
    failed = {n: f for n, (f, _) in results.items() if f}
    for name, failures in sorted(failed.items()):
        for failure in failures:
            print(f"  {failure}")
    if args.report:
        report(results)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({n: figs for n, (_, figs) in results.items()}, fh, indent=1, sort_keys=True)
    print(f"corpus: {len(results) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed or not results else 0


if __name__ == "__main__":
    sys.exit(main())

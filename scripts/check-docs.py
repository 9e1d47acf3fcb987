#!/usr/bin/env python3
"""Reads README.md, CHANGELOG.md and docs/*.md against the code, and lists
what they say that is not so:
- an option `-nvregalloc-...` that the plugin's -help does not list;
- a flag on a line or in a code span naming nvregalloc-tune that its --help
  does not list;
- a path into the repository (scripts/, tests/, src/, ...) that does not
  exist;
- a relative link to a file that does not exist, or to an anchor no heading
  of that file makes.

  check-docs.py [--plugin SO] [--llc LLC] [FILE.md ...]
Exit status 1 if anything is. The plugin: $PLUGIN (else target/release's);
llc: $LLVM_BIN's; the tuner: target/release/nvregalloc-tune.
tests/lit/docs.test runs it."""
import argparse
import functools
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OPTION_RE = re.compile(r"(?<![\w=/-])-(nvregalloc-[a-z0-9][a-z0-9-]*[a-z0-9])")
FLAG_RE = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*[a-z0-9])")
PATH_RE = re.compile(
    r"(?<![\w./-])((?:scripts|tests|src|cpp-shim|tune|examples|fuzz-ir|fuzz|ptxsim|testkit|docs)/[\w./-]*[\w])")
LINK_RE = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
CODE_SPAN_RE = re.compile(r"`([^`]+)`")


def plugin_options(plugin, llc):
    out = subprocess.run([llc, f"-load-pass-plugin={plugin}", "--help-hidden"],
                         capture_output=True, text=True).stdout
    return set(re.findall(r"--(nvregalloc-[a-z0-9-]+)", out))


def tuner_flags(root):
    out = subprocess.run([os.path.join(root, "target/release/nvregalloc-tune"), "--help"],
                         capture_output=True, text=True).stdout
    return set(re.findall(r"(--[a-z][a-z0-9-]*)", out))


def slug(heading):
    """GitHub's anchor for a heading."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


@functools.lru_cache(maxsize=None)
def anchors(path):
    """The anchors of a file's headings (read once per file)."""
    found, seen = set(), {}
    in_code = False
    for line in open(path, encoding="utf-8"):
        if line.startswith("```"):
            in_code = not in_code
        if in_code or not line.startswith("#"):
            continue
        base = slug(line.lstrip("#"))
        n = seen.get(base, 0)
        seen[base] = n + 1
        found.add(base if n == 0 else f"{base}-{n}")
    return found


def check(path, root, options, flags):
    problems = []
    here = os.path.dirname(path)
    for number, line in enumerate(open(path, encoding="utf-8"), 1):
        where = f"{os.path.relpath(path, root)}:{number}"
        for name in OPTION_RE.findall(line):
            if name not in options:
                problems.append(f"{where}: -{name}: not an option of the plugin (-help)")
        spans = CODE_SPAN_RE.findall(line)
        tuner_texts = [s for s in spans if "nvregalloc-tune" in s]
        if "nvregalloc-tune" in line and not spans:
            tuner_texts.append(line)
        for text in tuner_texts:
            # The flags after the name, up to the command it launches.
            after = text[text.index("nvregalloc-tune") + len("nvregalloc-tune"):]
            for flag in FLAG_RE.findall(after.split(" -- ")[0]):
                if flag not in flags:
                    problems.append(f"{where}: nvregalloc-tune {flag}: not in its --help")
        for rel in PATH_RE.findall(line):
            if any(c in rel for c in "*{}") or rel.endswith(".."):
                continue
            if not os.path.exists(os.path.join(root, rel)):
                problems.append(f"{where}: {rel}: no such path")
        for target in LINK_RE.findall(line):
            if re.match(r"[a-z]+:", target):
                continue
            file, _, anchor = target.partition("#")
            linked = os.path.normpath(os.path.join(here, file)) if file else path
            if not os.path.exists(linked):
                problems.append(f"{where}: link {target}: no such file")
            elif anchor and linked.endswith(".md") and anchor not in anchors(linked):
                problems.append(f"{where}: link {target}: no such heading")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", default=ROOT)
    ap.add_argument("--plugin", default=os.environ.get("PLUGIN", os.path.join(ROOT, "target/release/libnvregalloc.so")))
    ap.add_argument("--llc", default=os.path.join(os.environ.get("LLVM_BIN", "/usr/lib/llvm-22/bin"), "llc"))
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    files = args.files or [os.path.join(root, f) for f in ("README.md", "CHANGELOG.md")] + sorted(
        glob.glob(os.path.join(root, "docs", "*.md")))
    options, flags = plugin_options(args.plugin, args.llc), tuner_flags(root)
    if not options or not flags:
        sys.exit("check-docs.py: no options from the plugin's -help or the tuner's --help")
    problems = [p for f in files for p in check(os.path.abspath(f), root, options, flags)]
    for p in problems:
        print(p)
    print(f"{len(files)} documents, {len(problems)} problems")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()

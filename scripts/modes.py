"""The plugin's modes, by name, from tests/modes.json: the one table every
script takes its modes from (ptxsim's Rust harness reads the same file).

  modes.options("both")      the options of one mode ({root} filled in)
  modes.table(["a", "b"])    {name: options} for the names a tool runs
  python3 scripts/modes.py   lists them
"""
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
with open(os.path.join(ROOT, "tests", "modes.json")) as _fh:
    MODES = json.load(_fh)["modes"]


def options(name):
    """The options of mode `name`; an unknown name is an error that lists the known ones."""
    if name not in MODES:
        raise KeyError(f"unknown mode {name!r}; tests/modes.json has: {', '.join(MODES)}")
    return [o.replace("{root}", ROOT) for o in MODES[name]["options"]]


def table(names):
    """{name: options} for `names`, in that order."""
    return {name: options(name) for name in names}


if __name__ == "__main__":
    for name, mode in MODES.items():
        print(f"{name:16} {' '.join(options(name)) or '(no options)'}   # {mode['about']}")

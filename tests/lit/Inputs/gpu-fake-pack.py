"""Writes a scripts/gpu-corpus pack whose 'programs' are shell scripts, so
that the comparison can be tested without a GPU: every build prints a
nondeterministic line and a time; 'both' prints stock's result, 'fault' a
wrong one, and 'nvcc' (another compiler, timed but not judged) one of its
own."""
import json
import os
import sys
import tarfile
import tempfile

RESULT = {"stock": "PASS", "both": "PASS", "fault": "FAIL", "nvcc": "PASS, to 1e-6"}
TIME = {"stock": "2.0", "both": "1.0", "fault": "2.0", "nvcc": "4.0"}

with tempfile.TemporaryDirectory() as tmp:
    bench = os.path.join(tmp, "gpu", "k")
    os.makedirs(bench)
    for build, result in RESULT.items():
        path = os.path.join(bench, build)
        with open(path, "w") as f:
            f.write(f"#!/bin/sh\necho \"args $*\"\necho \"seed $$\"\n"
                    f"echo \"Average kernel execution time: {TIME[build]} (ms)\"\necho {result}\n")
        os.chmod(path, 0o755)
    manifest = {"modes": ["both", "fault", "nvcc"],
                "benchmarks": {"k": {"args": ["7"], "builds": {b: b for b in RESULT}}}}
    with open(os.path.join(tmp, "gpu", "manifest.json"), "w") as f:
        json.dump(manifest, f)
    with tarfile.open(sys.argv[1], "w:xz") as tar:
        tar.add(os.path.join(tmp, "gpu"), arcname="gpu")

# lit configuration for nvregalloc: LLVM 22's lit and FileCheck drive the real
# llc (and clang) with the plugin loaded.
import os
import tomllib

import lit.formats

config.name = "nvregalloc"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".ll", ".mir", ".cu", ".test"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)
root = os.path.dirname(os.path.dirname(config.test_source_root))
config.test_exec_root = os.path.join(root, "build", "lit")

llvm_bin = os.environ.get("LLVM_BIN", "/usr/lib/llvm-22/bin")
plugin = os.environ.get("PLUGIN", os.path.join(root, "target", "release", "libnvregalloc.so"))
cuda_root = os.environ.get("CUDA_ROOT", "")

config.environment["PATH"] = os.pathsep.join([llvm_bin, config.environment.get("PATH", os.environ["PATH"])])
for var in ("HOME", "NVREGALLOC_LOG"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

# The workspace's version (Cargo.toml), which the plugin and the tuner print.
with open(os.path.join(root, "Cargo.toml"), "rb") as manifest:
    version = tomllib.load(manifest)["workspace"]["package"]["version"]
config.substitutions.append(("%version", version))
config.substitutions.append(("%plugin", plugin))
config.substitutions.append(("%llvm_clang", f"{llvm_bin}/clang"))
config.substitutions.append(("%llc_bin", f"{llvm_bin}/llc"))
config.substitutions.append(("%llc_nvptx", f"{llvm_bin}/llc -march=nvptx64 -mcpu=sm_90"))
config.substitutions.append(("%opt_plugin", f"{llvm_bin}/opt -load-pass-plugin={plugin}"))
config.substitutions.append(("%llc_plugin", f"{llvm_bin}/llc -load-pass-plugin={plugin} -march=nvptx64 -mcpu=sm_90"))
config.substitutions.append(("%ptx_moves", f"python3 {root}/scripts/ptx_stats.py --moves"))
config.substitutions.append(("%ptx_stats", f"python3 {root}/scripts/ptx_stats.py"))
config.substitutions.append(("%python", "python3"))
config.substitutions.append(("%llvm_dwarfdump", f"{llvm_bin}/llvm-dwarfdump"))
config.substitutions.append(("%root", root))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))
if cuda_root:
    config.available_features.add("cuda")
    config.substitutions.append(("%ptxas", os.path.join(cuda_root, "bin", "ptxas")))
    # CLANG_CUDA_FLAGS for a whole compile, host and device.
    config.substitutions.append(
        ("%cuda_flags_whole",
         " ".join(f for f in os.environ.get("CLANG_CUDA_FLAGS", "").split() if f != "--cuda-device-only"))
    )
    config.substitutions.append(
        ("%clang_cuda", f"{llvm_bin}/clang++ " + os.environ.get("CLANG_CUDA_FLAGS", ""))
    )
    # nvregalloc-tune with the toolchain named and a cache of the test's own
    # (tests pass --cache-dir, or --no-cache).
    tune_env = {"NVREGALLOC_PLUGIN": plugin, "PTXAS": os.path.join(cuda_root, "bin", "ptxas"),
                "CUOBJDUMP": os.environ.get("CUOBJDUMP", os.path.join(cuda_root, "bin", "cuobjdump"))}
    config.substitutions.append(("%cuobjdump", tune_env["CUOBJDUMP"]))
    config.substitutions.append(
        ("%tune", "env " + " ".join(f"{k}='{v}'" for k, v in tune_env.items())
         + f" {root}/target/release/nvregalloc-tune")
    )
    # scripts/gpu-corpus's build half, with the toolchain scripts/env.sh names.
    gpu_env = {"LLVM_BIN": llvm_bin, "CUDA_ROOT": cuda_root, "PLUGIN": plugin,
               "NVCC": os.path.join(cuda_root, "bin", "nvcc"), "CUOBJDUMP": tune_env["CUOBJDUMP"],
               "CLANG_CUDA_FLAGS": os.environ.get("CLANG_CUDA_FLAGS", "")}
    config.substitutions.append(
        ("%gpu_corpus", "env " + " ".join(f"{k}='{v}'" for k, v in gpu_env.items())
         + f" python3 {root}/scripts/gpu-corpus")
    )
    if os.path.exists(os.path.join(root, ".venv", "bin", "cmake")):
        config.available_features.add("cmake")
        # CMake on examples/ with the toolchain named in full (no scripts/env.sh),
        # for builds that must not reach into the checkout's environment.
        config.substitutions.append(
            ("%cmake_examples",
             f"{root}/.venv/bin/cmake -G Ninja -S {root}/examples -DCMAKE_BUILD_TYPE=Release"
             f" -DCMAKE_MAKE_PROGRAM={root}/.venv/bin/ninja -DCMAKE_CXX_COMPILER={llvm_bin}/clang++"
             f" -DCMAKE_CUDA_COMPILER={llvm_bin}/clang++ -DCUDAToolkit_ROOT={cuda_root}"))
        config.substitutions.append(("%cmake", f"{root}/.venv/bin/cmake"))
        config.substitutions.append(
            ("%cuda_stubs", os.environ.get("CUDA_STUBS", os.path.join(root, "build", "cuda-stubs"))))

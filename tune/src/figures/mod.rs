//! What ptxas makes of each function of a PTX file: `measure` runs `ptxas
//! -v` and `cuobjdump -sass` and gathers what their parsers read
//! (`ptxas`: registers, spills, stack frame, static shared memory; `sass`:
//! instructions and local loads and stores by loop depth) with the
//! occupancy those allow. `ptx` reads the PTX side the tuner needs: kernels,
//! their block sizes, function definitions and who calls whom.
//!
//! Both tools' output is parsed by hand (small, fixed formats; see the
//! captured samples in the tests). Formats seen with CUDA 13's ptxas and
//! cuobjdump:
//!
//! ```text
//! ptxas info    : Compiling entry function 'k' for 'sm_90'
//! ptxas info    : Function properties for k
//!     64 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads
//! ptxas info    : Used 28 registers, used 1 barriers, 4096 bytes smem, 64 bytes cumulative stack size
//!         /*01f0*/               @P1 BRA 0xc0 ;      /* 0x...  */
//! ```

mod ptx;
mod ptxas;
mod sass;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::{Deserialize, Serialize};

use nvregalloc::occupancy::{Gpu, Occupancy};

pub use ptx::Ptx;
pub use sass::ByDepth;

/// One function's figures. A function that kernels call, and that ptxas
/// compiles into each of them, gets only stack frame and spill figures of its
/// own (ptxas reports no registers for it, so its occupancy means nothing).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Figures {
    pub registers: u32,
    pub spill_stores: u32,
    pub spill_loads: u32,
    /// Stack frame bytes (local arrays and spill slots).
    pub frame: u32,
    /// Static shared memory bytes (`smem`).
    pub shared: u32,
    /// SASS instructions, NOPs not counted.
    pub sass: u32,
    /// The same, by the loops around them (`sass::parse_sass`); the
    /// objective weighs them.
    pub sass_by_depth: ByDepth,
    /// Local memory loads and stores in the SASS (spills and local arrays).
    pub ldl: u32,
    pub stl: u32,
    /// The same, by the loops around them.
    pub local_by_depth: ByDepth,
    /// Threads a block, from the kernel's `.reqntid` or `.maxntid`.
    pub block_threads: Option<u32>,
    pub occupancy: Occupancy,
}

impl Figures {
    /// Spill bytes, stored and loaded.
    pub fn spills(&self) -> u32 {
        self.spill_stores + self.spill_loads
    }

    /// Local memory instructions, loads and stores.
    pub fn local(&self) -> u32 {
        self.ldl + self.stl
    }
}

/// cuobjdump where none is named: beside `ptxas` (the CUDA toolkit's `bin`),
/// else on `PATH`.
pub fn cuobjdump_beside(ptxas: &Path) -> PathBuf {
    match ptxas.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.join("cuobjdump"),
        _ => "cuobjdump".into(),
    }
}

/// Runs `ptxas -v` on `ptx_path` for `gpu` and `cuobjdump -sass` on what it
/// makes (with no `cuobjdump`, the SASS figures stay 0), and reads each
/// function's figures off both, with the occupancy they allow. Where the
/// PTX targets an `a`/`f` variant of `gpu` (`.target sm_90a`), ptxas is
/// given that variant: the plain architecture would refuse the PTX.
pub fn measure(
    ptxas: &Path,
    cuobjdump: Option<&Path>,
    ptx_path: &Path,
    gpu: &Gpu,
) -> Result<BTreeMap<String, Figures>, String> {
    let text = std::fs::read_to_string(ptx_path).map_err(|e| format!("{}: {e}", ptx_path.display()))?;
    let ptx = Ptx::new(&text);
    let arch = ptx
        .target()
        .filter(|t| nvregalloc::occupancy::gpu(t).is_some_and(|g| g.name == gpu.name))
        .unwrap_or(gpu.name);
    let dir = tempfile::Builder::new()
        .prefix("nvra-tune-")
        .tempdir()
        .map_err(|e| format!("temporary directory: {e}"))?;
    let cubin = dir.path().join("out.cubin");

    let out = Command::new(ptxas)
        .arg(format!("-arch={arch}"))
        .arg("-v")
        .arg(ptx_path)
        .arg("-o")
        .arg(&cubin)
        .output()
        .map_err(|e| format!("{}: {e}", ptxas.display()))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        return Err(format!("{} -arch={arch} {} failed:\n{stderr}", ptxas.display(), ptx_path.display()));
    }
    let mut figures = ptxas::parse_ptxas(&stderr);
    let sass = match cuobjdump {
        Some(cuobjdump) => {
            let out = Command::new(cuobjdump)
                .arg("-sass")
                .arg(&cubin)
                .output()
                .map_err(|e| format!("{}: {e}", cuobjdump.display()))?;
            if !out.status.success() {
                return Err(format!(
                    "{} -sass failed:\n{}",
                    cuobjdump.display(),
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
            String::from_utf8_lossy(&out.stdout).into_owned()
        }
        None => String::new(),
    };
    for (name, counts) in sass::parse_sass(&sass) {
        let f = figures.entry(name).or_default();
        (f.sass, f.sass_by_depth, f.ldl, f.stl, f.local_by_depth) =
            (counts.total(), counts.instructions, counts.ldl, counts.stl, counts.local);
    }
    for (name, f) in &mut figures {
        f.block_threads = ptx.block_threads(name);
        f.occupancy = gpu.occupancy(f.registers, f.shared, f.block_threads);
    }
    Ok(figures)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the real tools on a kernel from tests/kernels (needs
    /// scripts/env.sh's PTXAS, CUOBJDUMP, LLVM_BIN, CLANG_CUDA_FLAGS):
    /// `cargo test --release -p nvregalloc-tune -- --ignored`.
    #[test]
    #[ignore]
    fn measure_real_kernel() {
        let var =
            |name: &str| std::env::var(name).unwrap_or_else(|_| panic!("{name}: source scripts/env.sh"));
        let dir = tempfile::tempdir().unwrap();
        let ptx = dir.path().join("k.ptx");
        let source = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/kernels/local_array_dynamic_index.cu");
        let status = Command::new(format!("{}/clang++", var("LLVM_BIN")))
            .args(var("CLANG_CUDA_FLAGS").split_whitespace())
            .args(["-S", source, "-o"])
            .arg(&ptx)
            .status()
            .unwrap();
        assert!(status.success());
        let gpu = nvregalloc::occupancy::gpu("sm_90").unwrap();
        let figures = measure(var("PTXAS").as_ref(), Some(var("CUOBJDUMP").as_ref()), &ptx, gpu).unwrap();
        for (name, f) in &figures {
            eprintln!("{name}: {f:?}");
        }
        let f = &figures["local_perm_walk"];
        assert!(f.registers > 0 && f.frame > 0 && f.sass > f.sass_by_depth[0] && f.local() > 0);
        assert_eq!(f.occupancy, gpu.occupancy(f.registers, 0, None));

        let bad = dir.path().join("bad.ptx");
        std::fs::write(&bad, ".version 8.8\n.target sm_90\n.address_size 64\n.entry k() { bogus; }\n")
            .unwrap();
        let error = measure(var("PTXAS").as_ref(), None, &bad, gpu).unwrap_err();
        assert!(error.contains("bogus"), "{error}");
    }
}

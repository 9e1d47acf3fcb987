//! Builds the C++ shim against LLVM 22 and generates the Rust side of the
//! shim's C ABI. The shim is compiled with `llvm-config --cxxflags` and is not
//! linked against LLVM: the host tool (llc, clang) already carries libLLVM and
//! resolves the shim's LLVM symbols when it loads the plugin.

use std::path::{Path, PathBuf};
use std::process::Command;

const DEFAULT_LLVM_CONFIG: &str = "/usr/lib/llvm-22/bin/llvm-config";
const REQUIRED_MAJOR: &str = "22";

fn llvm_config(binary: &Path, arg: &str) -> String {
    let out = Command::new(binary)
        .arg(arg)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {} {arg}: {e}", binary.display()));
    assert!(out.status.success(), "{} {arg} failed", binary.display());
    String::from_utf8(out.stdout).expect("llvm-config prints UTF-8").trim().to_owned()
}

fn main() {
    println!("cargo:rerun-if-env-changed=LLVM_CONFIG");
    let llvm_config_path =
        PathBuf::from(std::env::var("LLVM_CONFIG").unwrap_or_else(|_| DEFAULT_LLVM_CONFIG.to_owned()));
    if !llvm_config_path.exists() {
        panic!(
            "LLVM 22 not found: {} does not exist. Run scripts/setup.sh, or set LLVM_CONFIG \
             to an LLVM 22 llvm-config.",
            llvm_config_path.display()
        );
    }
    let version = llvm_config(&llvm_config_path, "--version");
    if version.split('.').next() != Some(REQUIRED_MAJOR) {
        panic!(
            "nvregalloc needs LLVM {REQUIRED_MAJOR}.x, but {} reports version {version}. \
             Set LLVM_CONFIG to an LLVM {REQUIRED_MAJOR} llvm-config.",
            llvm_config_path.display()
        );
    }

    let shim = Path::new("cpp-shim");
    let header = shim.join("include/nvregalloc.h");
    println!("cargo:rerun-if-changed={}", shim.display());

    let mut build = cc::Build::new();
    build.cpp(true).include(shim.join("include")).warnings(true);
    // llvm-config's flags carry -std=c++17, -fno-exceptions and -fno-rtti as
    // LLVM was built; the shim must match them.
    for flag in llvm_config(&llvm_config_path, "--cxxflags").split_whitespace() {
        build.flag(flag);
    }
    build.flag_if_supported("-Wno-unused-parameter");
    let mut sources: Vec<PathBuf> = std::fs::read_dir(shim)
        .expect("cpp-shim/ exists")
        .map(|e| e.expect("readable cpp-shim/").path())
        .filter(|p| p.extension().is_some_and(|e| e == "cpp"))
        .collect();
    sources.sort();
    build.files(&sources);
    build.cargo_metadata(false);
    build.compile("nvregalloc_shim");
    // The shim goes into the plugin (the cdylib) only: the rlib and its tests
    // never load LLVM. Nothing in Rust calls into the shim, so whole-archive
    // keeps its passes and the static object that registers them.
    let out_dir = std::env::var("OUT_DIR").unwrap();
    for arg in [
        "-Wl,--whole-archive".to_owned(),
        format!("{out_dir}/libnvregalloc_shim.a"),
        "-Wl,--no-whole-archive".to_owned(),
        "-lstdc++".to_owned(),
    ] {
        println!("cargo:rustc-link-arg-cdylib={arg}");
    }

    let bindings = bindgen::Builder::default()
        .header(header.to_string_lossy())
        .allowlist_item("[Nn][Vv][Rr][Aa]_?.*")
        .default_enum_style(bindgen::EnumVariation::Consts)
        .prepend_enum_name(false)
        .derive_default(true)
        .generate()
        .expect("bindgen could not read cpp-shim/include/nvregalloc.h");
    let out = PathBuf::from(out_dir).join("abi.rs");
    bindings.write_to_file(out).expect("write abi.rs");
}

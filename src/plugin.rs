//! The symbol `-load-pass-plugin` and `-fpass-plugin` look for. The machine
//! passes enter the codegen pipeline through the shim's static
//! `RegisterTargetPassConfigCallback` (cpp-shim/Plugin.cpp), which runs when
//! the library is loaded; the middle-end passes (the unroll gate, ...) through the
//! PassBuilder callback the shim hands over at the same moment
//! (`nvra_set_pass_builder_callback`). Only Rust's own symbols leave a cdylib,
//! so the entry point is here and the callback reaches it through a pointer:
//! the rlib and its tests never link the shim.

use std::ffi::{c_char, c_void};
use std::sync::OnceLock;

/// LLVM's `PassPluginLibraryInfo` (llvm/Plugins/PassPlugin.h, API version 2).
#[repr(C)]
pub struct PassPluginLibraryInfo {
    api_version: u32,
    plugin_name: *const c_char,
    plugin_version: *const c_char,
    register_pass_builder_callbacks: Option<unsafe extern "C" fn(*mut c_void)>,
    pre_codegen_callback: Option<unsafe extern "C" fn()>,
}

const LLVM_PLUGIN_API_VERSION: u32 = 2;

/// What comes before the plugin's version in its file (`VERSION_MARK`).
pub const VERSION_MARK_PREFIX: &str = "nvregalloc-plugin-version ";
/// The plugin's version (the workspace's, Cargo.toml) behind a prefix that
/// makes it findable in the plugin's file: nvregalloc-tune reads it there
/// (`--version`) without loading the library, whose LLVM symbols only llc or
/// clang provide.
/// A static (exported, so that it stays whole in the file), NUL-terminated.
#[no_mangle]
pub static NVRA_VERSION_MARK: [u8; VERSION_MARK.len()] = version_mark();
const VERSION_MARK: &str = concat!("nvregalloc-plugin-version ", env!("CARGO_PKG_VERSION"), "\0");

const fn version_mark() -> [u8; VERSION_MARK.len()] {
    let mut mark = [0; VERSION_MARK.len()];
    let mut i = 0;
    while i < mark.len() {
        mark[i] = VERSION_MARK.as_bytes()[i];
        i += 1;
    }
    mark
}

/// The C ABI between the shim and the core (nvregalloc.h's NVRA_ABI_VERSION).
pub const ABI_VERSION: u32 = crate::abi::NVRA_ABI_VERSION;

/// The plugin's version, for the shim (`-nvregalloc-version`) and LLVM.
#[no_mangle]
pub extern "C" fn nvra_version() -> *const c_char {
    NVRA_VERSION_MARK[VERSION_MARK_PREFIX.len()..].as_ptr().cast()
}

type PassBuilderCallback = unsafe extern "C" fn(*mut c_void);

static PASS_BUILDER_CALLBACK: OnceLock<PassBuilderCallback> = OnceLock::new();

/// Called by the shim's static initializer, before LLVM asks for the entry
/// point.
#[no_mangle]
pub extern "C" fn nvra_set_pass_builder_callback(callback: Option<PassBuilderCallback>) {
    if let Some(callback) = callback {
        let _ = PASS_BUILDER_CALLBACK.set(callback);
    }
}

unsafe extern "C" fn register_pass_builder_callbacks(pass_builder: *mut c_void) {
    if let Some(callback) = PASS_BUILDER_CALLBACK.get() {
        callback(pass_builder);
    }
}

#[no_mangle]
pub extern "C" fn llvmGetPassPluginInfo() -> PassPluginLibraryInfo {
    PassPluginLibraryInfo {
        api_version: LLVM_PLUGIN_API_VERSION,
        plugin_name: c"nvregalloc".as_ptr(),
        plugin_version: nvra_version(),
        register_pass_builder_callbacks: Some(register_pass_builder_callbacks),
        pre_codegen_callback: None,
    }
}

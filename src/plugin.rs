//! The symbol `-load-pass-plugin` and `-fpass-plugin` look for. The passes
//! themselves enter the codegen pipeline through the shim's static
//! `RegisterTargetPassConfigCallback` (cpp-shim/Plugin.cpp), which runs when
//! the library is loaded; this entry point only has to exist.

use std::ffi::{c_char, c_void};

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

#[no_mangle]
pub extern "C" fn llvmGetPassPluginInfo() -> PassPluginLibraryInfo {
    PassPluginLibraryInfo {
        api_version: LLVM_PLUGIN_API_VERSION,
        plugin_name: c"nvregalloc".as_ptr(),
        plugin_version: concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast(),
        register_pass_builder_callbacks: None,
        pre_codegen_callback: None,
    }
}

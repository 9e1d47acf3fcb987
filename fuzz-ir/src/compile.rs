//! In-process compilation through LLVM 22's NVPTX TargetMachine, one forked
//! child per build.
//!
//! Why a child per build: the plugin reads its mode from LLVM's global
//! command-line options, which a process can parse once; the plugin registers
//! itself for every TargetMachine of the process once loaded, so stock builds
//! must come from a process that never loaded it; and a crash in the backend
//! or the plugin must be a finding, not the end of the run. The parent builds
//! and optimizes the module; `fork` hands each child a copy of it, and the
//! child loads the plugin, parses the mode's options and emits PTX.

use std::ffi::CString;
use std::path::Path;

use inkwell::module::Module;
use inkwell::targets::{
    CodeModel, FileType, InitializationConfig, RelocMode, Target, TargetMachine, TargetTriple,
};
use inkwell::OptimizationLevel;

use crate::Finding;

pub const TRIPLE: &str = "nvptx64-nvidia-cuda";
pub const CPU: &str = "sm_90";
/// Seconds a build may take before it counts as a hang.
const BUILD_SECONDS: u32 = 120;

pub fn target_machine() -> TargetMachine {
    Target::initialize_nvptx(&InitializationConfig::default());
    let triple = TargetTriple::create(TRIPLE);
    let target = Target::from_triple(&triple).expect("LLVM 22 has the NVPTX target");
    target
        .create_target_machine(
            &triple,
            CPU,
            "",
            OptimizationLevel::Aggressive,
            RelocMode::Default,
            CodeModel::Default,
        )
        .expect("an NVPTX target machine")
}

/// PTX for `module`, stock (`plugin` None) or with the plugin and `flags`,
/// or how the build failed (a crash or the verifier),
/// the machine verifier on if `verify`. `scratch` holds the child's output
/// and errors.
pub fn compile(
    module: &Module,
    plugin: Option<&Path>,
    flags: &[&str],
    verify: bool,
    scratch: &Path,
) -> Result<String, Finding> {
    let ptx_path = scratch.join("out.ptx");
    let err_path = scratch.join("stderr.txt");
    let _ = std::fs::remove_file(&ptx_path);
    let err_c = CString::new(err_path.to_str().expect("UTF-8 path")).expect("no NUL");
    // SAFETY: the fuzzer is single-threaded, so the child may run LLVM after
    // fork; it leaves with _exit and never returns into the parent's code.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed");
    if pid == 0 {
        unsafe {
            let fd = libc::open(err_c.as_ptr(), libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC, 0o644);
            libc::dup2(fd, 2);
            libc::alarm(BUILD_SECONDS);
        }
        let code = child_build(module, plugin, flags, verify, &ptx_path);
        unsafe { libc::_exit(code) };
    }
    let mut status = 0;
    unsafe { libc::waitpid(pid, &mut status, 0) };
    let stderr = std::fs::read_to_string(&err_path).unwrap_or_default();
    let tail = |s: &str| {
        s.lines().rev().take(12).collect::<Vec<_>>().into_iter().rev().collect::<Vec<_>>().join("\n")
    };
    let failed = libc::WIFSIGNALED(status) || libc::WEXITSTATUS(status) != 0;
    // A verifier failure ends in LLVM's fatal-error handler (exit or abort).
    if let Some(at) = stderr.find("*** Bad machine code").filter(|_| failed) {
        return Err(Finding::Verifier(stderr[at..].lines().take(8).collect::<Vec<_>>().join("\n")));
    }
    if libc::WIFSIGNALED(status) {
        let sig = libc::WTERMSIG(status);
        let what = if sig == libc::SIGALRM {
            format!("no PTX after {BUILD_SECONDS} s")
        } else {
            format!("signal {sig}")
        };
        return Err(Finding::Crash(format!("{what}\n{}", tail(&stderr))));
    }
    if failed {
        return Err(Finding::Crash(tail(&stderr)));
    }
    std::fs::read_to_string(&ptx_path).map_err(|e| Finding::Crash(format!("no PTX written: {e}")))
}

fn child_build(module: &Module, plugin: Option<&Path>, flags: &[&str], verify: bool, out: &Path) -> i32 {
    if let Some(plugin) = plugin {
        if let Err(e) = inkwell::support::load_library_permanently(plugin) {
            eprintln!("cannot load {}: {e:?}", plugin.display());
            return 3;
        }
    }
    let args: Vec<CString> = std::iter::once("fuzz-ir")
        .chain(verify.then_some("-verify-machineinstrs"))
        .chain(flags.iter().copied())
        .map(|a| CString::new(a).expect("no NUL"))
        .collect();
    let argv: Vec<*const libc::c_char> = args.iter().map(|a| a.as_ptr()).collect();
    unsafe {
        llvm_sys::support::LLVMParseCommandLineOptions(argv.len() as i32, argv.as_ptr(), std::ptr::null())
    };
    match target_machine().write_to_file(module, FileType::Assembly, out) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("{}", e.to_string());
            2
        }
    }
}

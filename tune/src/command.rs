//! What a compile command is, and the commands derived from it: the
//! device-only builds the tuning needs, the preprocessed device source the
//! cache keys on, and the command itself with the plugin and the chosen
//! options. A command the tuner does not handle runs unchanged.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A compile the tuner can tune.
#[derive(Clone, Debug, PartialEq)]
pub enum Compile {
    /// clang compiling CUDA (`-x cuda` or a `.cu` input): host and device,
    /// to an object, assembly or a linked program.
    Cuda { clang: PathBuf, args: Vec<String>, source: PathBuf, gpus: Vec<String> },
    /// llc compiling LLVM IR for NVPTX.
    Llc { llc: PathBuf, args: Vec<String>, source: PathBuf, gpu: String },
}

/// Why a command runs unchanged.
pub type Unhandled = String;

/// Flags whose next word is their value (clang's and llc's spelling).
const TAKES_VALUE: &[&str] = &[
    "-o",
    "-MF",
    "-MT",
    "-MQ",
    "-x",
    "-I",
    "-isystem",
    "-iquote",
    "-idirafter",
    "-include",
    "-D",
    "-U",
    "-Xclang",
    "-mllvm",
    "-Xcuda-ptxas",
    "-Xcuda-fatbinary",
    "-Xarch_device",
    "-Xarch_host",
    "-target",
    "--cuda-gpu-arch",
    "--offload-arch",
    "--cuda-path",
    "-arch",
    "-std",
];
/// What makes a clang command not a compile of device code.
const NOT_A_COMPILE: &[&str] =
    &["-E", "-M", "-MM", "-fsyntax-only", "--cuda-host-only", "-###", "--version", "-v"];

/// Expands `@file` response files (clang's syntax: words split as a shell
/// would, quotes included).
pub fn expand_response_files(args: &[String]) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for arg in args {
        match arg.strip_prefix('@') {
            Some(path) if !path.is_empty() => {
                let text = std::fs::read_to_string(path).map_err(|e| format!("response file {path}: {e}"))?;
                let words =
                    shlex::split(&text).ok_or_else(|| format!("response file {path}: unbalanced quotes"))?;
                out.extend(expand_response_files(&words)?);
            }
            _ => out.push(arg.clone()),
        }
    }
    Ok(out)
}

fn basename(path: &str) -> &str {
    Path::new(path).file_name().and_then(|n| n.to_str()).unwrap_or(path)
}

/// The value of `-flag=V` or `-flag V` at `args[i]`, and the words it takes.
fn value_at<'a>(args: &'a [String], i: usize, flag: &str) -> Option<(&'a str, usize)> {
    let arg = &args[i];
    if arg == flag {
        return args.get(i + 1).map(|v| (v.as_str(), 2));
    }
    arg.strip_prefix(flag).and_then(|rest| rest.strip_prefix('=')).map(|v| (v, 1))
}

/// Classifies `command` (the compiler first). `gpus_of` asks the driver
/// which GPUs a CUDA compile targets (`device_gpus`).
pub fn classify(
    command: &[String],
    gpus_of: impl Fn(&Path, &[String]) -> Result<Vec<String>, String>,
) -> Result<Compile, Unhandled> {
    let (compiler, args) = command.split_first().ok_or("no command")?;
    let args = expand_response_files(args)?;
    let name = basename(compiler);
    let inputs = inputs(&args);
    if name.starts_with("llc") {
        let [source] = inputs.as_slice() else { return Err("llc with other than one input".into()) };
        if source == "-" {
            return Err("llc reading standard input".into());
        }
        let gpu = match (0..args.len()).find_map(|i| value_at(&args, i, "-mcpu")) {
            Some((gpu, _)) => gpu.to_owned(),
            None => {
                ir_target_cpu(Path::new(source)).ok_or("llc without -mcpu, and no target-cpu in the IR")?
            }
        };
        return Ok(Compile::Llc { llc: compiler.into(), source: source.into(), gpu, args });
    }
    if !name.contains("clang") {
        return Err(format!("{name} is neither clang nor llc"));
    }
    if let Some(flag) = args.iter().find(|a| NOT_A_COMPILE.contains(&a.as_str())) {
        return Err(format!("{flag}: not a compile of device code"));
    }
    let language = (0..args.len()).filter_map(|i| value_at(&args, i, "-x")).map(|(v, _)| v).last();
    let cuda: Vec<&String> = inputs
        .iter()
        .filter(|s| language == Some("cuda") || (language.is_none() && s.ends_with(".cu")))
        .collect();
    let [source] = cuda.as_slice() else {
        return Err(match cuda.len() {
            0 => "no CUDA source (link, or another language)".into(),
            n => format!("{n} CUDA sources in one command"),
        });
    };
    let gpus = gpus_of(Path::new(compiler), &args)?;
    if gpus.is_empty() {
        return Err("no GPU to compile for".into());
    }
    Ok(Compile::Cuda { clang: compiler.into(), source: source.into(), gpus, args })
}

/// The one `"target-cpu"` the IR's functions name, if they agree on one.
fn ir_target_cpu(source: &Path) -> Option<String> {
    let text = std::fs::read_to_string(source).ok()?;
    let mut cpus = text.split("\"target-cpu\"=\"").skip(1).filter_map(|rest| rest.split('"').next());
    let first = cpus.next()?;
    cpus.all(|c| c == first).then(|| first.to_owned())
}

/// The input files: words that are not flags nor flags' values.
fn inputs(args: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        if TAKES_VALUE.contains(&a.as_str()) {
            i += 2;
            continue;
        }
        if !a.starts_with('-') || a == "-" {
            out.push(a.clone());
        }
        i += 1;
    }
    out
}

/// The GPUs a clang CUDA command compiles for, as its driver plans them
/// (`-###`: every device `-cc1` line's `-target-cpu`), so that every
/// spelling (`--cuda-gpu-arch`, `--offload-arch=a,b`, the default) counts.
pub fn device_gpus(clang: &Path, args: &[String]) -> Result<Vec<String>, String> {
    let out = Command::new(clang)
        .args(without_outputs(args))
        .arg("-###")
        .output()
        .map_err(|e| format!("cannot run {}: {e}", clang.display()))?;
    let plan = String::from_utf8_lossy(&out.stderr);
    let mut gpus = Vec::new();
    for cpu in plan.lines().filter_map(device_cpu) {
        if !gpus.contains(&cpu) {
            gpus.push(cpu);
        }
    }
    Ok(gpus)
}

/// The GPU of a line of the driver's plan, if it is a device compile: a
/// `-cc1` line whose `-triple` is NVPTX's. The host's `-cc1` line names
/// NVPTX too, as its `-aux-triple`, and its `-target-cpu` is the host's.
fn device_cpu(line: &str) -> Option<String> {
    let words: Vec<&str> = line.split_whitespace().map(|w| w.trim_matches('"')).collect();
    let value = |flag: &str| words.windows(2).find(|w| w[0] == flag).map(|w| w[1]);
    let device = words.contains(&"-cc1") && value("-triple").is_some_and(|t| t.starts_with("nvptx"));
    device.then(|| value("-target-cpu")).flatten().map(str::to_owned)
}

/// `args` without what names outputs (-o, dependency files): the derived
/// commands write elsewhere.
fn without_outputs(args: &[String]) -> Vec<String> {
    strip(args, &["-o", "-MF", "-MT", "-MQ"], &["-MD", "-MMD", "-c", "-S"])
}

/// `args` without the flags in `valued` (with their values, either
/// spelling) and those in `alone`.
fn strip(args: &[String], valued: &[&str], alone: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    'next: while i < args.len() {
        for flag in valued {
            if let Some((_, words)) = value_at(args, i, flag) {
                i += words;
                continue 'next;
            }
            if *flag == "-o" && args[i].starts_with("-o") && args[i].len() > 2 {
                i += 1;
                continue 'next;
            }
        }
        if !alone.contains(&args[i].as_str()) {
            out.push(args[i].clone());
        }
        i += 1;
    }
    out
}

/// The arguments that pick GPUs, dropped where the tuner picks one.
fn without_gpus(args: &[String]) -> Vec<String> {
    let args =
        strip(args, &["--cuda-gpu-arch", "--offload-arch", "--no-offload-arch"], &["--cuda-device-only"]);
    args.into_iter().filter(|a| a != "--no-offload-arch").collect()
}

/// Plugin flags for clang: load it and give it an options file.
fn clang_plugin(plugin: &Path, options: Option<&Path>) -> Vec<String> {
    let mut flags = vec![format!("-fpass-plugin={}", plugin.display())];
    if let Some(options) = options {
        flags.extend(["-mllvm".to_owned(), format!("-nvregalloc-function-options={}", options.display())]);
    }
    flags
}

/// One GPU's device code of a CUDA compile as bitcode straight from the
/// frontend, and the `clang -cc1` command that takes it the rest of the
/// way. Parsing CUDA (its headers above all) is most of a build's time; a
/// tuning parses once and builds each candidate from here.
pub struct DeviceBitcode {
    clang: PathBuf,
    /// The device `-cc1` command with the bitcode as its input and no
    /// output.
    backend: Vec<String>,
}

impl DeviceBitcode {
    /// The command that writes the PTX to `ptx` with the plugin and
    /// `options`, as `Compile::device_build` does from the source.
    pub fn build(&self, plugin: &Path, options: &Path, ptx: &Path) -> Command {
        let mut cmd = Command::new(&self.clang);
        cmd.args(&self.backend).arg("-o").arg(ptx).args(clang_plugin(plugin, Some(options)));
        cmd
    }
}

/// The device `-cc1` command split into the frontend's half (source to
/// bitcode, no middle end) and the rest (bitcode to PTX), from the driver's
/// plan of the command's device compile for one GPU.
fn split_cc1(cc1: &[String], bitcode: &Path) -> Result<(Vec<String>, Vec<String>), String> {
    let language = cc1.iter().position(|w| w == "-x").ok_or("no -x in the -cc1 command")?;
    if cc1.len() < language + 3 {
        return Err("no input after -x in the -cc1 command".into());
    }
    let bitcode = bitcode.display().to_string();
    let mut frontend = Vec::new();
    let mut backend = Vec::new();
    let mut i = 0;
    while i < cc1.len() {
        match cc1[i].as_str() {
            "-o" => {
                frontend.extend(["-o".to_owned(), bitcode.clone()]);
                i += 2;
            }
            "-S" => {
                frontend.push("-emit-llvm-bc".to_owned());
                backend.push("-S".to_owned());
                i += 1;
            }
            // Linked into the bitcode by the frontend already.
            "-mlink-builtin-bitcode" => {
                frontend.extend(cc1[i..i + 2].iter().cloned());
                i += 2;
            }
            _ if i == language => {
                frontend.extend(cc1[i..i + 3].iter().cloned());
                backend.extend(["-x".to_owned(), "ir".to_owned(), bitcode.clone()]);
                i += 3;
            }
            _ => {
                frontend.push(cc1[i].clone());
                backend.push(cc1[i].clone());
                i += 1;
            }
        }
    }
    frontend.push("-disable-llvm-passes".to_owned());
    // From IR, clang takes its floating-point contraction from the IR's
    // flags, not from CUDA's default (`fast`) or `-ffp-contract=fast`:
    // NVPTX would then mark every uncontracted operation `.rn`. Unless the
    // command chose another mode, tell NVPTX to contract as it does for
    // CUDA source.
    let no_fast_contraction = cc1
        .iter()
        .any(|w| w == "-ffp-contract=on" || w == "-ffp-contract=off" || w.starts_with("-nvptx-fma-level"));
    if !no_fast_contraction {
        backend.extend(["-mllvm".to_owned(), "-nvptx-fma-level=2".to_owned()]);
    }
    Ok((frontend, backend))
}

impl Compile {
    /// Runs the frontend of `gpu`'s device compile once, writing `bitcode`,
    /// and returns what builds PTX from it. CUDA compiles only (llc takes
    /// IR already).
    pub fn device_bitcode(&self, gpu: &str, bitcode: &Path) -> Result<DeviceBitcode, String> {
        let Compile::Cuda { clang, args, .. } = self else {
            return Err("not a CUDA compile".into());
        };
        let plan = Command::new(clang)
            .args(without_gpus(&without_outputs(args)))
            .args(["--cuda-device-only", &format!("--cuda-gpu-arch={gpu}"), "-S", "-o", "device.ptx", "-###"])
            .output()
            .map_err(|e| format!("cannot run {}: {e}", clang.display()))?;
        let plan = String::from_utf8_lossy(&plan.stderr);
        let cc1: Vec<&str> = plan.lines().filter(|l| l.contains("\"-cc1\"")).collect();
        let [cc1] = cc1.as_slice() else {
            return Err(format!("{} -cc1 commands in the device compile's plan", cc1.len()));
        };
        let words = shlex::split(cc1).ok_or("unbalanced quotes in the -cc1 command")?;
        let (program, cc1) = words.split_first().ok_or("an empty -cc1 command")?;
        let (frontend, backend) = split_cc1(cc1, bitcode)?;
        let out = Command::new(program)
            .args(&frontend)
            .output()
            .map_err(|e| format!("cannot run {program}: {e}"))?;
        if !out.status.success() {
            return Err(format!("the frontend failed: {}", String::from_utf8_lossy(&out.stderr)));
        }
        Ok(DeviceBitcode { clang: program.into(), backend })
    }

    pub fn source(&self) -> &Path {
        match self {
            Compile::Cuda { source, .. } | Compile::Llc { source, .. } => source,
        }
    }

    /// The command that writes `gpu`'s PTX to `ptx` with the plugin and
    /// `options`.
    pub fn device_build(&self, plugin: &Path, gpu: &str, options: &Path, ptx: &Path) -> Command {
        match self {
            Compile::Cuda { clang, args, .. } => {
                let mut cmd = Command::new(clang);
                cmd.args(without_gpus(&without_outputs(args)))
                    .args(["--cuda-device-only", &format!("--cuda-gpu-arch={gpu}"), "-S", "-o"])
                    .arg(ptx)
                    .args(clang_plugin(plugin, Some(options)));
                cmd
            }
            Compile::Llc { llc, args, .. } => {
                let mut cmd = Command::new(llc);
                cmd.args(strip(args, &["-o"], &[]))
                    .arg(format!("-load-pass-plugin={}", plugin.display()))
                    .arg(format!("-nvregalloc-function-options={}", options.display()))
                    .arg("-o")
                    .arg(ptx);
                cmd
            }
        }
    }

    /// What the cache keys a GPU's entry on besides versions: the source
    /// as the device compile sees it (preprocessed for CUDA) and the flags
    /// that change code generation (no outputs, include paths or macros:
    /// the preprocessed text has their effect; no GPU flags: one entry per
    /// GPU).
    pub fn cache_inputs(&self, gpu: &str) -> Result<(Vec<u8>, Vec<String>), String> {
        let flags_of = |args: &[String]| {
            let args = strip(
                &without_gpus(&without_outputs(args)),
                &["-I", "-isystem", "-iquote", "-idirafter", "-include", "-D", "-U"],
                &[],
            );
            args.into_iter()
                .filter(|a| !(a.starts_with("-I") || a.starts_with("-D") || a.starts_with("-U")))
                .filter(|a| Path::new(a) != self.source())
                .collect::<Vec<_>>()
        };
        match self {
            Compile::Cuda { clang, args, .. } => {
                let out = Command::new(clang)
                    .args(without_gpus(&without_outputs(args)))
                    .args(["--cuda-device-only", &format!("--cuda-gpu-arch={gpu}"), "-E", "-o", "-"])
                    .output()
                    .map_err(|e| format!("cannot run {}: {e}", clang.display()))?;
                if !out.status.success() {
                    return Err(format!("preprocessing failed: {}", String::from_utf8_lossy(&out.stderr)));
                }
                Ok((out.stdout, flags_of(args)))
            }
            Compile::Llc { args, source, .. } => {
                let text = std::fs::read(source).map_err(|e| format!("{}: {e}", source.display()))?;
                Ok((text, flags_of(args)))
            }
        }
    }

    /// The compile itself, with the plugin and `options`.
    pub fn final_build(&self, plugin: &Path, options: &Path) -> Command {
        match self {
            Compile::Cuda { clang, args, .. } => {
                let mut cmd = Command::new(clang);
                cmd.args(args).args(clang_plugin(plugin, Some(options)));
                cmd
            }
            Compile::Llc { llc, args, .. } => {
                let mut cmd = Command::new(llc);
                cmd.args(args)
                    .arg(format!("-load-pass-plugin={}", plugin.display()))
                    .arg(format!("-nvregalloc-function-options={}", options.display()));
                cmd
            }
        }
    }

    /// The GPUs it compiles for.
    pub fn gpus(&self) -> Vec<String> {
        match self {
            Compile::Cuda { gpus, .. } => gpus.clone(),
            Compile::Llc { gpu, .. } => vec![gpu.clone()],
        }
    }

    /// clang or llc.
    pub fn compiler(&self) -> &Path {
        match self {
            Compile::Cuda { clang, .. } => clang,
            Compile::Llc { llc, .. } => llc,
        }
    }

    /// clang's `--cuda-path`, where the CUDA tools are.
    pub fn cuda_path(&self) -> Option<PathBuf> {
        let Compile::Cuda { args, .. } = self else { return None };
        (0..args.len()).find_map(|i| value_at(args, i, "--cuda-path")).map(|(v, _)| PathBuf::from(v))
    }

    /// Whether the middle end runs here (clang does; llc takes optimized IR).
    pub fn has_middle_end(&self) -> bool {
        matches!(self, Compile::Cuda { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_owned).collect()
    }

    fn two_gpus(_: &Path, _: &[String]) -> Result<Vec<String>, String> {
        Ok(vec!["sm_80".into(), "sm_90".into()])
    }

    #[test]
    fn cmake_cuda_compiles_are_tuned_and_the_rest_runs_unchanged() {
        let cmake = words(
            "/usr/bin/clang++ -isystem /s -O3 -DNDEBUG --cuda-gpu-arch=sm_80 --cuda-gpu-arch=sm_90 -MD -MT a.o -MF a.o.d -x cuda -c /src/a.cu -o a.o",
        );
        let Compile::Cuda { source, gpus, .. } = classify(&cmake, two_gpus).unwrap() else { panic!() };
        assert_eq!((source, gpus), (PathBuf::from("/src/a.cu"), vec!["sm_80".into(), "sm_90".into()]));
        assert!(classify(&words("clang++ a.o b.o -o prog -lcudart"), two_gpus)
            .unwrap_err()
            .contains("no CUDA"));
        assert!(classify(&words("clang++ -E a.cu"), two_gpus).unwrap_err().contains("-E"));
        assert!(classify(&words("clang++ -M a.cu"), two_gpus).is_err());
        assert!(classify(&words("clang++ -c a.cpp -o a.o"), two_gpus).is_err());
        assert!(classify(&words("gcc -c a.cu"), two_gpus).is_err());
        let Compile::Llc { gpu, .. } =
            classify(&words("llc -march=nvptx64 -mcpu=sm_80 k.ll -o k.ptx"), two_gpus).unwrap()
        else {
            panic!()
        };
        assert_eq!(gpu, "sm_80");
    }

    #[test]
    fn response_files_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let rsp = dir.path().join("args.rsp");
        std::fs::write(&rsp, "-x cuda \"-DNAME=a b\"\n-c /src/k.cu").unwrap();
        let args =
            expand_response_files(&[format!("@{}", rsp.display()), "-o".into(), "k.o".into()]).unwrap();
        assert_eq!(
            args,
            words("-x cuda -DNAME=a_b -c /src/k.cu -o k.o")
                .into_iter()
                .map(|w| w.replace('_', " "))
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn derived_commands_write_elsewhere_for_one_gpu() {
        let compile = classify(
            &words("clang++ -O3 -I inc --offload-arch=sm_80,sm_90 -MD -MF a.d -c a.cu -o a.o"),
            two_gpus,
        )
        .unwrap();
        let device =
            compile.device_build(Path::new("/p.so"), "sm_90", Path::new("/o.nvra"), Path::new("/t.ptx"));
        let device: Vec<_> = device.get_args().map(|a| a.to_str().unwrap().to_owned()).collect();
        assert_eq!(
            device.join(" "),
            "-O3 -I inc a.cu --cuda-device-only --cuda-gpu-arch=sm_90 -S -o /t.ptx -fpass-plugin=/p.so -mllvm -nvregalloc-function-options=/o.nvra"
        );
        let final_build = compile.final_build(Path::new("/p.so"), Path::new("/o.nvra"));
        let final_build: Vec<_> = final_build.get_args().map(|a| a.to_str().unwrap().to_owned()).collect();
        assert!(final_build
            .join(" ")
            .starts_with("-O3 -I inc --offload-arch=sm_80,sm_90 -MD -MF a.d -c a.cu -o a.o -fpass-plugin"));
    }

    #[test]
    fn only_a_device_cc1_line_names_a_gpu() {
        let device = r#" "/usr/bin/clang-22" "-cc1" "-triple" "nvptx64-nvidia-cuda" "-aux-triple" "x86_64-pc-linux-gnu" "-target-cpu" "sm_90" "-x" "cuda" "k.cu""#;
        let host = r#" "/usr/bin/clang-22" "-cc1" "-triple" "x86_64-pc-linux-gnu" "-aux-triple" "nvptx64-nvidia-cuda" "-target-cpu" "x86-64" "-x" "cuda" "k.cu""#;
        assert_eq!(device_cpu(device), Some("sm_90".to_owned()));
        assert_eq!(device_cpu(host), None);
        assert_eq!(device_cpu(r#" "/usr/bin/ld" "-m" "elf_x86_64" "k.o""#), None);
    }

    #[test]
    fn the_device_cc1_command_splits_at_the_bitcode() {
        let cc1 = words(
            "-cc1 -triple nvptx64-nvidia-cuda -O3 -S -fcuda-is-device -mlink-builtin-bitcode /cuda/libdevice.bc -target-cpu sm_90 -o /tmp/d.ptx -x cuda /src/k.cu",
        );
        let (frontend, backend) = split_cc1(&cc1, Path::new("/t/k.bc")).unwrap();
        assert_eq!(
            frontend.join(" "),
            "-cc1 -triple nvptx64-nvidia-cuda -O3 -emit-llvm-bc -fcuda-is-device -mlink-builtin-bitcode /cuda/libdevice.bc -target-cpu sm_90 -o /t/k.bc -x cuda /src/k.cu -disable-llvm-passes"
        );
        assert_eq!(
            backend.join(" "),
            "-cc1 -triple nvptx64-nvidia-cuda -O3 -S -fcuda-is-device -target-cpu sm_90 -x ir /t/k.bc -mllvm -nvptx-fma-level=2"
        );
        // A contraction mode other than fast is left to the command.
        let mut off = cc1.clone();
        off.insert(1, "-ffp-contract=off".into());
        assert!(!split_cc1(&off, Path::new("/t/k.bc")).unwrap().1.join(" ").contains("fma-level"));
    }
}

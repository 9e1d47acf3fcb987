//! What ptxas makes of each function of a PTX file, read off `ptxas -v` and
//! `cuobjdump -sass`: registers, spills, stack frame, static shared memory,
//! SASS instructions (plain and loop-weighted), local loads and stores, and
//! the occupancy those allow. Also the PTX side the tuner needs: kernels,
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

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use serde::{Deserialize, Serialize};

use nvregalloc::occupancy::{Gpu, Occupancy};

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
    /// SASS instructions weighted by the loops they are in (`parse_sass`).
    pub weighted_sass: f64,
    /// Local memory loads and stores in the SASS (spills and local arrays).
    pub ldl: u32,
    pub stl: u32,
    /// The same, weighted by the loops they are in, as `weighted_sass`.
    #[serde(default)]
    pub weighted_local: f64,
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

/// Runs `ptxas -v` on `ptx_path` for `gpu` and `cuobjdump -sass` on what it
/// makes, and reads each function's figures off both (`loop_weight` as in
/// `parse_sass`), with the occupancy they allow. Where the PTX targets an
/// `a`/`f` variant of `gpu` (`.target sm_90a`), ptxas is given that variant:
/// the plain architecture would refuse the PTX.
pub fn measure(
    ptxas: &Path,
    cuobjdump: &Path,
    ptx_path: &Path,
    gpu: &Gpu,
    loop_weight: f64,
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
    let sass = Command::new(cuobjdump)
        .arg("-sass")
        .arg(&cubin)
        .output()
        .map_err(|e| format!("{}: {e}", cuobjdump.display()))?;
    if !sass.status.success() {
        return Err(format!(
            "{} -sass failed:\n{}",
            cuobjdump.display(),
            String::from_utf8_lossy(&sass.stderr)
        ));
    }

    let mut figures = parse_ptxas(&stderr);
    for (name, counts) in parse_sass(&String::from_utf8_lossy(&sass.stdout), loop_weight) {
        let f = figures.entry(name).or_default();
        (f.sass, f.weighted_sass, f.ldl, f.stl, f.weighted_local) =
            (counts.instructions, counts.weighted, counts.ldl, counts.stl, counts.weighted_local);
    }
    for (name, f) in &mut figures {
        f.block_threads = ptx.block_threads(name);
        f.occupancy = gpu.occupancy(f.registers, f.shared, f.block_threads);
    }
    Ok(figures)
}

/// The figures `ptxas -v` reports (on stderr), per function; SASS figures,
/// block size and occupancy are left at their defaults. Kernels have a
/// "Compiling entry function" line; called functions only "Function
/// properties for" lines, once per kernel that calls them (the same figures
/// each time). Only `ptxas info` lines and the indented lines under them are
/// read: a warning such as "Registers are spilled ... in function 'f', 8 bytes
/// spill stores" names its function itself and would be misread.
pub fn parse_ptxas(stderr: &str) -> BTreeMap<String, Figures> {
    let mut figures = BTreeMap::<String, Figures>::new();
    let mut current: Option<String> = None;
    for line in stderr.lines() {
        let indented = line.starts_with(char::is_whitespace);
        let info = line
            .strip_prefix("ptxas info")
            .and_then(|rest| rest.split_once(':'))
            .map(|(_, body)| body.trim());
        if let Some(body) = info {
            let named = body
                .strip_prefix("Compiling entry function '")
                .and_then(|rest| rest.split('\'').next())
                .or_else(|| {
                    body.strip_prefix("Function properties for ").map(|n| n.trim().trim_matches('\''))
                });
            if let Some(name) = named {
                figures.entry(name.to_string()).or_default();
                current = Some(name.to_string());
                continue;
            }
        }
        let Some(f) = current.as_ref().and_then(|name| figures.get_mut(name)) else { continue };
        match info {
            Some(body) if body.starts_with("Used ") => {
                for (n, what) in amounts(&body["Used ".len()..]) {
                    match what {
                        "registers" => f.registers = n,
                        "bytes smem" => f.shared = n,
                        _ => {}
                    }
                }
            }
            None if indented => {
                for (n, what) in amounts(line) {
                    match what {
                        "bytes stack frame" => f.frame = n,
                        "bytes spill stores" => f.spill_stores = n,
                        "bytes spill loads" => f.spill_loads = n,
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    figures
}

/// The "N what" items of a comma-separated ptxas line, as (N, what); an item
/// not led by a number is passed over. Older ptxas wrote static and
/// dynamic-at-launch shared memory as `3568+0 bytes smem`: the parts are
/// added.
fn amounts(line: &str) -> impl Iterator<Item = (u32, &str)> {
    line.split(',').filter_map(|item| {
        let (number, what) = item.trim().split_once(' ')?;
        let n = number.split('+').map(|part| part.parse::<u32>().ok()).sum::<Option<u32>>()?;
        Some((n, what.trim()))
    })
}

/// One function's SASS, NOPs not counted.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SassCounts {
    pub instructions: u32,
    /// Each instruction `loop_weight^depth` times (`parse_sass`).
    pub weighted: f64,
    pub ldl: u32,
    pub stl: u32,
    /// LDL and STL weighted as `weighted`.
    pub weighted_local: f64,
}

/// Per function of `cuobjdump -sass` output, its `SassCounts`.
///
/// A loop shows in SASS as a branch (`BRA`, `JMP`, predicated or not) to an
/// address below its own; the loop spans the target to the branch. Branches
/// back to the same target are one loop (a `continue` makes a second), so
/// the span runs to the last of them. An instruction inside `d` spans counts
/// `loop_weight^d` (at most `d` = 4: deeper nests are rare and the weight would
/// swamp everything else). The `BRA` to itself that pads each function after
/// its last `EXIT` is no loop; it counts as an instruction, as NOPs do not.
/// Indirect branches (`BRX`) have no target to read and make no loop.
pub fn parse_sass(text: &str, loop_weight: f64) -> BTreeMap<String, SassCounts> {
    // Per function: its name, (address, opcode) of each instruction, and
    // each loop's start address with its end.
    let mut sections = Vec::<(&str, Vec<(u64, &str)>, BTreeMap<u64, u64>)>::new();
    for line in text.lines() {
        let line = line.trim();
        if let Some(name) = line.strip_prefix("Function : ") {
            sections.push((name.trim(), Vec::new(), BTreeMap::new()));
            continue;
        }
        let Some((_, instructions, loops)) = sections.last_mut() else { continue };
        let Some((address, opcode, operands)) = sass_instruction(line) else { continue };
        if matches!(opcode, "BRA" | "JMP") {
            let target = operands.rsplit(',').next().unwrap_or("").trim();
            if let Some(target) = target.strip_prefix("0x").and_then(|hex| u64::from_str_radix(hex, 16).ok())
            {
                if target < address {
                    let end = loops.entry(target).or_insert(address);
                    *end = (*end).max(address);
                }
            }
        }
        instructions.push((address, opcode));
    }
    sections
        .into_iter()
        .map(|(name, instructions, loops)| {
            (name.to_string(), sass_figures(&instructions, &loops, loop_weight))
        })
        .collect()
}

/// One SASS line as (address, opcode without modifiers, operands), as in
/// `/*01f0*/  @!P1 BRA.U !UP0, 0xc0 ;  /* 0x... */`; None for any other line
/// (headers, and the second half of each instruction's encoding, which
/// starts `/* 0x`).
fn sass_instruction(line: &str) -> Option<(u64, &str, &str)> {
    let (address, rest) = line.strip_prefix("/*")?.split_once("*/")?;
    let address = u64::from_str_radix(address, 16).ok()?;
    let text = rest.split(';').next()?.trim();
    let text = match text.strip_prefix('@') {
        Some(predicated) => predicated.split_once(char::is_whitespace)?.1.trim_start(),
        None => text,
    };
    let (mnemonic, operands) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
    let opcode = mnemonic.split('.').next()?;
    opcode.starts_with(|c: char| c.is_ascii_uppercase()).then_some((address, opcode, operands))
}

/// The `SassCounts` of one function's instructions.
fn sass_figures(instructions: &[(u64, &str)], loops: &BTreeMap<u64, u64>, loop_weight: f64) -> SassCounts {
    let mut counts = SassCounts::default();
    for &(address, opcode) in instructions {
        if opcode == "NOP" {
            continue;
        }
        let depth = loops.iter().filter(|&(&start, &end)| start <= address && address <= end).count().min(4);
        let weight = loop_weight.powi(depth as i32);
        counts.instructions += 1;
        counts.weighted += weight;
        match opcode {
            "LDL" => counts.ldl += 1,
            "STL" => counts.stl += 1,
            _ => continue,
        }
        counts.weighted_local += weight;
    }
    counts
}

/// A PTX module's functions, as the tuner needs them: which are kernels,
/// their block sizes, each definition's text (to tell whether two builds
/// made the same PTX of a function), and what each kernel calls.
pub struct Ptx<'a> {
    text: &'a str,
    /// Each function definition (declarations without a body are not), in
    /// order: (name, is a kernel, its text).
    definitions: Vec<(&'a str, bool, &'a str)>,
}

impl<'a> Ptx<'a> {
    pub fn new(text: &'a str) -> Self {
        let mut definitions = Vec::new();
        let mut offset = 0;
        for line in text.split_inclusive('\n') {
            let start = offset;
            offset += line.len();
            let Some((entry, name, after_name)) = function_header(line) else { continue };
            // The parameters and directives up to the body hold no `;` or `{`:
            // a `;` first ends a declaration.
            let from = start + after_name;
            let Some(open) = text[from..].find([';', '{']).filter(|&i| text.as_bytes()[from + i] == b'{')
            else {
                continue;
            };
            // The body ends at a line that is `}` alone (braces inside it, of
            // call sequences, are indented); a body that reaches the next
            // function without one is not read.
            let body = from + open;
            let mut at = text[body..].find('\n').map_or(text.len(), |i| body + i + 1);
            let close = text[at..].split_inclusive('\n').find_map(|inner| {
                let line_start = at;
                at += inner.len();
                if function_header(inner).is_some() {
                    Some(None)
                } else {
                    (inner.trim_end() == "}").then_some(Some(line_start + 1))
                }
            });
            if let Some(Some(end)) = close {
                definitions.push((name, entry, &text[start..end]));
            }
        }
        Ptx { text, definitions }
    }

    /// The architecture of the `.target` directive (`sm_90a`), if any.
    pub fn target(&self) -> Option<&'a str> {
        self.text.lines().find_map(|line| {
            let code = line.split("//").next()?.trim();
            let targets = code.strip_prefix(".target")?;
            targets.split(',').map(str::trim).find(|t| t.starts_with("sm_"))
        })
    }

    /// Threads a block of `kernel`: the product of its `.reqntid` (the
    /// block size it must be launched with) or else its `.maxntid` (the most
    /// it may be launched with, as `__launch_bounds__` sets; occupancy is
    /// reckoned at that). None where the PTX sets neither.
    pub fn block_threads(&self, kernel: &str) -> Option<u32> {
        let text = self.function_text(kernel)?;
        let header = &text[..text.find('{')?];
        let directive = |name: &str| {
            header.lines().find_map(|line| {
                let code = line.split("//").next()?;
                let at = code.find(name)?;
                let numbers = code[at + name.len()..].split(',').map(|n| n.trim().parse::<u32>().ok());
                numbers.product::<Option<u32>>()
            })
        };
        directive(".reqntid").or_else(|| directive(".maxntid"))
    }

    /// The definition of function `name` (from its header line to the `}`
    /// that closes its body), or None where it is only declared or absent.
    pub fn function_text(&self, name: &str) -> Option<&'a str> {
        self.definitions.iter().find(|d| d.0 == name).map(|d| d.2)
    }

    /// Each defined function's text as a digest: two builds whose digests of
    /// a function agree made the same PTX of it.
    pub fn function_digests(&self) -> BTreeMap<String, String> {
        use sha2::{Digest, Sha256};
        self.definitions
            .iter()
            .map(|(name, _, text)| {
                let digest = Sha256::digest(text.as_bytes());
                (name.to_string(), digest.iter().take(16).map(|b| format!("{b:02x}")).collect())
            })
            .collect()
    }

    /// Per kernel, the functions it calls, directly or through others.
    /// ptxas compiles a called function into each kernel that calls it and
    /// reports no registers of its own for it, so a called function's PTX
    /// shows in its callers' figures only.
    pub fn called_functions(&self) -> BTreeMap<String, BTreeSet<String>> {
        let kernels: BTreeSet<&str> = self.definitions.iter().filter(|d| d.1).map(|d| d.0).collect();
        let calls = |name: &str| -> Vec<&'a str> {
            let text = self.function_text(name).unwrap_or("");
            called_names(text).filter(|callee| !kernels.contains(callee)).collect()
        };
        let mut reach = BTreeMap::new();
        for &kernel in &kernels {
            let mut seen = BTreeSet::new();
            let mut todo = calls(kernel);
            while let Some(f) = todo.pop() {
                if seen.insert(f.to_string()) {
                    todo.extend(calls(f));
                }
            }
            reach.insert(kernel.to_string(), seen);
        }
        reach
    }
}

/// Whether `line` opens a function (`.entry` or `.func`, after any linkage
/// such as `.visible` or `.extern`), and if so (is a kernel, its name, the
/// offset in `line` just past the name). A `.func` returning a value has its
/// return parameter before the name: `.func (.param .b32 func_retval0) f(`.
fn function_header(line: &str) -> Option<(bool, &str, usize)> {
    let code = line.split("//").next()?;
    let (entry, after) = [(true, ".entry"), (false, ".func")].into_iter().find_map(|(entry, keyword)| {
        code.match_indices(keyword)
            .find(|&(i, _)| {
                code[..i].chars().next_back().is_none_or(char::is_whitespace)
                    && code[i + keyword.len()..].starts_with(char::is_whitespace)
            })
            .map(|(i, _)| (entry, i + keyword.len()))
    })?;
    let mut rest = code[after..].trim_start();
    if rest.starts_with('(') {
        rest = rest[rest.find(')')? + 1..].trim_start();
    }
    let len = rest.find(|c: char| !is_identifier(c)).unwrap_or(rest.len());
    let start = code.len() - rest.len();
    (len > 0).then(|| (entry, &rest[..len], start + len))
}

fn is_identifier(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$'
}

/// The functions a PTX function's `call` instructions name:
/// `call.uni (retval0), f, (param0);` and `call f, (param0);`. Indirect
/// calls (through a register, `%rd1`) name none.
fn called_names(text: &str) -> impl Iterator<Item = &str> {
    text.match_indices("call").filter_map(move |(i, _)| {
        if text[..i].chars().next_back().is_some_and(is_identifier) {
            return None;
        }
        let rest = &text[i + "call".len()..];
        let rest = rest.strip_prefix(".uni").unwrap_or(rest);
        if !rest.starts_with(char::is_whitespace) {
            return None;
        }
        let mut rest = rest.trim_start();
        if rest.starts_with('(') {
            rest = rest[rest.find(')')? + 1..].trim_start().strip_prefix(',')?.trim_start();
        }
        let len = rest.find(|c: char| !is_identifier(c)).unwrap_or(rest.len());
        (len > 0).then(|| &rest[..len])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// CUDA 13 ptxas -v on sm_90: a kernel calling functions it did not
    /// inline (whose properties follow, without registers), a kernel with a
    /// local array, one with shared memory and spills, and an sm_80 line
    /// with constant memory, and a spill warning for some other function.
    const PTXAS: &str = "\
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'calls_kernel' for 'sm_90'
ptxas info    : Function properties for calls_kernel
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 27 registers, used 0 barriers
ptxas info    : Compile time = 16.956 ms
ptxas info    : Function properties for _Z10lerp_clampfffff
    8 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads
ptxas info    : Compiling entry function 'local_ring_average' for 'sm_90'
ptxas info    : Function properties for local_ring_average
    64 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 28 registers, used 0 barriers, 64 bytes cumulative stack size
ptxas info    : Compile time = 14.163 ms
ptxas warning : Registers are spilled to local memory in function 'other', 99 bytes spill stores, 99 bytes spill loads
ptxas info    : Compiling entry function 'pressure' for 'sm_90'
ptxas info    : Function properties for pressure
    320 bytes stack frame, 772 bytes spill stores, 776 bytes spill loads
ptxas info    : Used 24 registers, used 1 barriers, 4096 bytes smem, 320 bytes cumulative stack size
ptxas info    : Compiling entry function 'bitonic_sort512' for 'sm_80'
ptxas info    : Function properties for bitonic_sort512
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 48 registers, used 1 barriers, 4096 bytes smem, 372 bytes cmem[0]
";

    #[test]
    fn ptxas_figures() {
        let figures = parse_ptxas(PTXAS);
        assert_eq!(
            figures.keys().collect::<Vec<_>>(),
            ["_Z10lerp_clampfffff", "bitonic_sort512", "calls_kernel", "local_ring_average", "pressure"]
        );
        let f = &figures["calls_kernel"];
        assert_eq!((f.registers, f.frame, f.spills(), f.shared), (27, 0, 0, 0));
        let f = &figures["_Z10lerp_clampfffff"];
        assert_eq!((f.registers, f.frame, f.spill_stores, f.spill_loads), (0, 8, 8, 4));
        let f = &figures["local_ring_average"];
        assert_eq!((f.registers, f.frame, f.spills(), f.shared), (28, 64, 0, 0));
        let f = &figures["pressure"];
        assert_eq!(
            (f.registers, f.frame, f.spill_stores, f.spill_loads, f.shared),
            (24, 320, 772, 776, 4096)
        );
        let f = &figures["bitonic_sort512"];
        assert_eq!((f.registers, f.shared), (48, 4096));
    }

    #[test]
    fn ptxas_older_formats() {
        let figures = parse_ptxas(
            "ptxas info    : Compiling entry function '_Z1kPi' for 'sm_20'\n\
             ptxas info    : Used 25 registers, 3568+0 bytes smem, 80 bytes cmem[0]\n\
             \x20   0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n",
        );
        assert_eq!((figures["_Z1kPi"].registers, figures["_Z1kPi"].shared), (25, 3568));
    }

    /// cuobjdump -sass (CUDA 13, sm_90) of
    /// `for (i < n[0]) { for (j < n[1]) s += a[i * n[1] + j]; a[i] = s; }`
    /// with both loops rolled (`#pragma unroll 1`); all but one NOP left out.
    const NEST: &str = r#"
	code for sm_90
	.target	sm_90
		Function : nest
	.headerflags	@"EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;                  /* 0x00000a00ff017b82 */
                                                                           /* 0x000ff00000000800 */
        /*0010*/                   LDC.64 R2, c[0x0][0x218] ;              /* 0x00008600ff027b82 */
                                                                           /* 0x000e220000000a00 */
        /*0020*/                   ULDC.64 UR4, c[0x0][0x208] ;            /* 0x0000820000047ab9 */
                                                                           /* 0x000fcc0000000a00 */
        /*0030*/                   LDG.E R0, desc[UR4][R2.64] ;            /* 0x0000000402007981 */
                                                                           /* 0x000ea2000c1e1900 */
        /*0040*/                   IMAD.MOV.U32 R7, RZ, RZ, RZ ;           /* 0x000000ffff077224 */
                                                                           /* 0x000fe200078e00ff */
        /*0050*/                   ISETP.GE.AND P0, PT, R0, 0x1, PT ;      /* 0x000000010000780c */
                                                                           /* 0x004fda0003f06270 */
        /*0060*/              @!P0 BRA 0x200 ;                             /* 0x0000000000640947 */
                                                                           /* 0x000fea0003800000 */
        /*0070*/                   LDG.E R6, desc[UR4][R2.64+0x4] ;        /* 0x0000040402067981 */
                                                                           /* 0x000162000c1e1900 */
        /*0080*/                   HFMA2.MMA R7, -RZ, RZ, 0, 0 ;           /* 0x000000ffff077435 */
                                                                           /* 0x000fe200000001ff */
        /*0090*/                   IMAD.MOV.U32 R9, RZ, RZ, RZ ;           /* 0x000000ffff097224 */
                                                                           /* 0x000fe200078e00ff */
        /*00a0*/                   MOV R11, RZ ;                           /* 0x000000ff000b7202 */
                                                                           /* 0x000fe40000000f00 */
        /*00b0*/                   ISETP.GE.AND P0, PT, R6, 0x1, PT ;      /* 0x000000010600780c */
                                                                           /* 0x021fce0003f06270 */
        /*00c0*/                   LDC.64 R2, c[0x0][0x210] ;              /* 0x00008400ff027b82 */
                                                                           /* 0x000e240000000a00 */
        /*00d0*/                   IMAD.WIDE.U32 R2, R11, 0x4, R2 ;        /* 0x000000040b027825 */
                                                                           /* 0x001fd000078e0002 */
        /*00e0*/              @!P0 BRA 0x1b0 ;                             /* 0x0000000000300947 */
                                                                           /* 0x000fea0003800000 */
        /*00f0*/                   LDC.64 R4, c[0x0][0x210] ;              /* 0x00008400ff047b82 */
                                                                           /* 0x000e220000000a00 */
        /*0100*/                   IMAD.MOV.U32 R8, RZ, RZ, R6 ;           /* 0x000000ffff087224 */
                                                                           /* 0x000fe400078e0006 */
        /*0110*/                   IMAD.WIDE.U32 R4, R9, 0x4, R4 ;         /* 0x0000000409047825 */
                                                                           /* 0x001fca00078e0004 */
        /*0120*/                   MOV R10, R4 ;                           /* 0x00000004000a7202 */
                                                                           /* 0x000fce0000000f00 */
        /*0130*/                   IMAD.MOV.U32 R4, RZ, RZ, R10 ;          /* 0x000000ffff047224 */
                                                                           /* 0x000fcc00078e000a */
        /*0140*/                   LDG.E R4, desc[UR4][R4.64] ;            /* 0x0000000404047981 */
                                                                           /* 0x000ea2000c1e1900 */
        /*0150*/                   IADD3 R8, R8, -0x1, RZ ;                /* 0xffffffff08087810 */
                                                                           /* 0x000fe40007ffe0ff */
        /*0160*/                   IADD3 R10, P2, R10, 0x4, RZ ;           /* 0x000000040a0a7810 */
                                                                           /* 0x000fe40007f5e0ff */
        /*0170*/                   ISETP.NE.U32.AND P1, PT, R8, RZ, PT ;   /* 0x000000ff0800720c */
                                                                           /* 0x000fe20003f25070 */
        /*0180*/                   IMAD.X R5, RZ, RZ, R5, P2 ;             /* 0x000000ffff057224 */
                                                                           /* 0x000fe200010e0605 */
        /*0190*/                   FADD R7, R4, R7 ;                       /* 0x0000000704077221 */
                                                                           /* 0x004fd00000000000 */
        /*01a0*/               @P1 BRA 0x130 ;                             /* 0xfffffffc00e01947 */
                                                                           /* 0x000fea000383ffff */
        /*01b0*/                   IADD3 R11, R11, 0x1, RZ ;               /* 0x000000010b0b7810 */
                                                                           /* 0x000fe20007ffe0ff */
        /*01c0*/                   STG.E desc[UR4][R2.64], R7 ;            /* 0x0000000702007986 */
                                                                           /* 0x0001e2000c101904 */
        /*01d0*/                   IMAD.IADD R9, R6, 0x1, R9 ;             /* 0x0000000106097824 */
                                                                           /* 0x000fe200078e0209 */
        /*01e0*/                   ISETP.NE.U32.AND P1, PT, R11, R0, PT ;  /* 0x000000000b00720c */
                                                                           /* 0x000fda0003f25070 */
        /*01f0*/               @P1 BRA 0xc0 ;                              /* 0xfffffffc00b01947 */
                                                                           /* 0x001fea000383ffff */
        /*0200*/                   S2R R5, SR_TID.X ;                      /* 0x0000000000057919 */
                                                                           /* 0x000e620000002100 */
        /*0210*/                   LDC.64 R2, c[0x0][0x210] ;              /* 0x00008400ff027b82 */
                                                                           /* 0x000e640000000a00 */
        /*0220*/                   IMAD.WIDE.U32 R2, R5, 0x4, R2 ;         /* 0x0000000405027825 */
                                                                           /* 0x002fca00078e0002 */
        /*0230*/                   STG.E desc[UR4][R2.64], R7 ;            /* 0x0000000702007986 */
                                                                           /* 0x000fe2000c101904 */
        /*0240*/                   EXIT ;                                  /* 0x000000000000794d */
                                                                           /* 0x000fea0003800000 */
        /*0250*/                   BRA 0x250;                              /* 0xfffffffc00fc7947 */
                                                                           /* 0x000fc0000383ffff */
        /*0260*/                   NOP;                                    /* 0x0000000000007918 */
                                                                           /* 0x000fc00000000000 */
		..........
"#;

    #[test]
    fn sass_nested_loops() {
        // 38 instructions: the outer loop spans 0xc0..=0x1f0 (20), the inner
        // 0x130..=0x1a0 (8) inside it; 18 outside both.
        let figures = parse_sass(NEST, 10.0);
        assert_eq!(figures["nest"], counts(38, 18.0 + 12.0 * 10.0 + 8.0 * 100.0, 0, 0, 0.0));
        assert_eq!(parse_sass(NEST, 1.0)["nest"].weighted, 38.0);
    }

    #[test]
    fn sass_branch_forms_and_local_memory() {
        // Real lines (sm_90 and sm_100): a predicate operand, a uniform
        // predicate, no space before `;`, spills, an indirect branch, and
        // two back branches to one loop head (one loop, not two).
        let text = "\
		Function : a
        /*0000*/                   STL [R1+0xd8], R2 ;                                   /* 0x0000d80201007387 */
        /*0010*/                   BRA.U !UP0, 0x40 ;                               /* 0x0000000108a87547 */
        /*0020*/              @!P0 BRA P1, 0x0 ;                                   /* 0xfffffffc00d48947 */
        /*0030*/                   LDL.LU.64 R2, [R1+0x138] ;                            /* 0x0001380001027983 */
        /*0040*/              @P0 BRA 0x20 ;
        /*0050*/                   BRX R2 -0x60 ;
        /*0060*/                   LDL R2, [R1+0xd8] ;
        /*0070*/              @P1 BRA 0x20 ;
        /*0080*/                   EXIT ;
        /*0090*/                   BRA 0x90;
		Function : b
        /*0000*/                   EXIT ;
";
        let figures = parse_sass(text, 2.0);
        // Loops: 0x0..=0x20, 0x20..=0x70 (two back branches to 0x20).
        let weights = [2.0, 2.0, 4.0, 2.0, 2.0, 2.0, 2.0, 2.0, 1.0, 1.0];
        // STL at 0x0 (depth 1), LDL at 0x30 and 0x60 (depth 1).
        assert_eq!(figures["a"], counts(10, weights.iter().sum(), 2, 1, 6.0));
        assert_eq!(figures["b"], counts(1, 1.0, 0, 0, 0.0));
    }

    #[test]
    fn sass_depth_is_capped() {
        // Six loops nested around 0x100, heads 0xf0, 0xe0, .. 0xa0 and back
        // branches 0x110, 0x120, .. 0x160.
        let mut text = String::from("Function : deep\n/*0100*/ FADD R0, R0, R0 ;\n");
        for i in 1..=6u64 {
            text += &format!("/*{:04x}*/ @P0 BRA 0x{:x} ;\n", 0x100 + i * 0x10, 0x100 - i * 0x10);
        }
        // 0x100..=0x130 are in 6, 6, 5, 4 loops (capped at 4), then 3, 2, 1.
        assert_eq!(parse_sass(&text, 2.0)["deep"], counts(7, 16.0 * 4.0 + 8.0 + 4.0 + 2.0, 0, 0, 0.0));
    }

    fn counts(instructions: u32, weighted: f64, ldl: u32, stl: u32, weighted_local: f64) -> SassCounts {
        SassCounts { instructions, weighted, ldl, stl, weighted_local }
    }

    /// Trimmed clang 22 PTX: a function returning a value, a declaration of
    /// a function defined later and an extern one, calls through others, and
    /// kernels with and without launch bounds.
    const MODULE: &str = "\
.version 8.8
.target sm_90a
.address_size 64

.extern .func  (.param .b32 func_retval0) vprintf
(
\t.param .b64 vprintf_param_0,
\t.param .b64 vprintf_param_1
)
;
.visible .func  (.param .b32 func_retval0) _Z5outerf(
\t.param .b32 _Z5outerf_param_0
)
;
\t// .globl\t_Z6helperf              // -- Begin function _Z6helperf
.visible .func  (.param .b32 func_retval0) _Z6helperf(
\t.param .b32 _Z6helperf_param_0
)                                       // @_Z6helperf
{
\t.reg .b32 \t%r<3>;

\tld.param.b32 \t%r1, [_Z6helperf_param_0];
\tst.param.b32 \t[func_retval0], %r1;
\tret;
                                        // -- End function
}
.visible .func  (.param .b32 func_retval0) _Z5outerf(
\t.param .b32 _Z5outerf_param_0
)
{
\t.reg .b32 \t%r<4>;

\t{ // callseq 0, 0
\t.param .b32 param0;
\t.param .b32 retval0;
\tcall.uni (retval0), _Z6helperf, (param0);
\t} // callseq 0
\tret;
}
.visible .func _Z4noopv()
{
\tret;
}
\t// .globl\tlb_kernel               // -- Begin function lb_kernel
.visible .entry lb_kernel(
\t.param .u64 .ptr .align 1 lb_kernel_param_0
)
.maxntid 256
.minnctapersm 2                         // @lb_kernel
{
\t{ // callseq 1, 0
\tcall.uni (retval0), _Z5outerf, (param0);
\t} // callseq 1
\tcall.uni _Z4noopv, ();
\tcall (retval0), %rd4, (param0), prototype_1;
\tret;
}
.visible .entry tiles(
\t.param .u64 tiles_param_0
)
.maxntid 1024, 1, 1
.reqntid 16, 16, 1
{
\tret;
}
.entry plain()
{
\tcall.uni (retval0), vprintf, (param0, param1);
\tret;
}
";

    #[test]
    fn ptx_functions() {
        let ptx = Ptx::new(MODULE);
        assert_eq!(ptx.target(), Some("sm_90a"));
        assert_eq!(ptx.block_threads("lb_kernel"), Some(256));
        assert_eq!(ptx.block_threads("tiles"), Some(256));
        assert_eq!(ptx.block_threads("plain"), None);
        assert_eq!(ptx.block_threads("absent"), None);

        let outer = ptx.function_text("_Z5outerf").unwrap();
        assert!(outer.starts_with(".visible .func  (.param .b32 func_retval0) _Z5outerf(\n"));
        assert!(
            outer.contains("call.uni (retval0), _Z6helperf") && outer.ends_with("\tret;\n}"),
            "{outer:?}"
        );
        assert!(ptx.function_text("_Z6helperf").unwrap().ends_with("// -- End function\n}"));
        assert_eq!(ptx.function_text("_Z4noopv"), Some(".visible .func _Z4noopv()\n{\n\tret;\n}"));
        assert_eq!(ptx.function_text("vprintf"), None);
        assert_eq!(ptx.function_text("func_retval0"), None);
        assert_eq!(ptx.function_text("_Z5outer"), None);

        let calls = ptx.called_functions();
        let names = |k: &str| calls[k].iter().map(String::as_str).collect::<Vec<_>>();
        assert_eq!(names("lb_kernel"), ["_Z4noopv", "_Z5outerf", "_Z6helperf"]);
        assert!(names("tiles").is_empty());
        assert_eq!(names("plain"), ["vprintf"]);
    }

    #[test]
    fn block_threads_without_commas_in_comments() {
        let ptx = Ptx::new(".entry k()\n.maxntid 128 // three, four\n{\n\tret;\n}\n");
        assert_eq!(ptx.block_threads("k"), Some(128));
    }

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
        let figures = measure(var("PTXAS").as_ref(), var("CUOBJDUMP").as_ref(), &ptx, gpu, 8.0).unwrap();
        for (name, f) in &figures {
            eprintln!("{name}: {f:?}");
        }
        let f = &figures["local_perm_walk"];
        assert!(
            f.registers > 0 && f.frame > 0 && f.sass > 0 && f.weighted_sass > f.sass as f64 && f.local() > 0
        );
        assert_eq!(f.occupancy, gpu.occupancy(f.registers, 0, None));

        let bad = dir.path().join("bad.ptx");
        std::fs::write(&bad, ".version 8.8\n.target sm_90\n.address_size 64\n.entry k() { bogus; }\n")
            .unwrap();
        let error = measure(var("PTXAS").as_ref(), var("CUOBJDUMP").as_ref(), &bad, gpu, 8.0).unwrap_err();
        assert!(error.contains("bogus"), "{error}");
    }
}

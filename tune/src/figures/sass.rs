//! `cuobjdump -sass`: per function, its instructions, and its local loads
//! and stores, counted by the loops around them. What a loop weighs is the
//! objective's to say (`objective::loop_weighted`).

use std::collections::BTreeMap;

/// Loop depths told apart: 0 to 4 loops around an instruction. Deeper nests
/// are rare, and any weight per loop would swamp everything else there.
pub const LOOP_DEPTHS: usize = 5;

/// Counts by loop depth: `[at depth 0, 1, 2, 3, 4 or more]`.
pub type ByDepth = [u32; LOOP_DEPTHS];

/// One function's SASS, NOPs not counted.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SassCounts {
    /// Instructions, by the loops around them.
    pub instructions: ByDepth,
    pub ldl: u32,
    pub stl: u32,
    /// LDL and STL, by the loops around them.
    pub local: ByDepth,
}

impl SassCounts {
    pub fn total(&self) -> u32 {
        self.instructions.iter().sum()
    }
}

/// Per function of `cuobjdump -sass` output, its `SassCounts`.
///
/// A loop shows in SASS as a branch (`BRA`, `JMP`, predicated or not) to an
/// address below its own; the loop spans the target to the branch. Branches
/// back to the same target are one loop (a `continue` makes a second), so
/// the span runs to the last of them. An instruction inside `d` spans is at
/// depth `d` (at most `LOOP_DEPTHS - 1`). The `BRA` to itself that pads each function after
/// its last `EXIT` is no loop; it counts as an instruction, as NOPs do not.
/// Indirect branches (`BRX`) have no target to read and make no loop.
pub fn parse_sass(text: &str) -> BTreeMap<String, SassCounts> {
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
        .map(|(name, instructions, loops)| (name.to_string(), sass_counts(&instructions, &loops)))
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
fn sass_counts(instructions: &[(u64, &str)], loops: &BTreeMap<u64, u64>) -> SassCounts {
    let mut counts = SassCounts::default();
    for &(address, opcode) in instructions {
        if opcode == "NOP" {
            continue;
        }
        let depth = loops
            .iter()
            .filter(|&(&start, &end)| start <= address && address <= end)
            .count()
            .min(LOOP_DEPTHS - 1);
        counts.instructions[depth] += 1;
        match opcode {
            "LDL" => counts.ldl += 1,
            "STL" => counts.stl += 1,
            _ => continue,
        }
        counts.local[depth] += 1;
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let figures = parse_sass(NEST);
        assert_eq!(figures["nest"], counts([18, 12, 8, 0, 0], 0, 0, [0; LOOP_DEPTHS]));
        assert_eq!(figures["nest"].total(), 38);
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
        let figures = parse_sass(text);
        // Loops: 0x0..=0x20, 0x20..=0x70 (two back branches to 0x20): 0x20
        // is in both, 0x80 and 0x90 in none.
        // STL at 0x0 (depth 1), LDL at 0x30 and 0x60 (depth 1).
        assert_eq!(figures["a"], counts([2, 7, 1, 0, 0], 2, 1, [0, 3, 0, 0, 0]));
        assert_eq!(figures["b"], counts([1, 0, 0, 0, 0], 0, 0, [0; LOOP_DEPTHS]));
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
        assert_eq!(parse_sass(&text)["deep"], counts([0, 1, 1, 1, 4], 0, 0, [0; LOOP_DEPTHS]));
    }

    fn counts(instructions: ByDepth, ldl: u32, stl: u32, local: ByDepth) -> SassCounts {
        SassCounts { instructions, ldl, stl, local }
    }
}

//! Hand-written PTX for the instructions whose semantics are easy to get
//! subtly wrong: carry chains, bit-field and byte-permute ops, shuffles with
//! clamps, votes, and faults that must be reported rather than ignored.

use ptxsim::{parse, run, Arg, Error, Launch};

const HEADER: &str = ".version 7.8\n.target sm_90\n.address_size 64\n";

/// Runs `body` as a kernel with one u64 buffer parameter (in %rd1) of `words` u32s.
fn run_kernel(body: &str, regs: &str, threads: u32, words: usize) -> Result<Vec<u32>, Error> {
    let ptx = format!(
        "{HEADER}.visible .entry k(.param .u64 .ptr .align 1 k_param_0)\n{{\n{regs}\n\
         \tld.param.b64 %rd1, [k_param_0];\n{body}\n\tret;\n}}\n"
    );
    let module = parse(&ptx)?;
    let launch = Launch {
        grid: [1, 1, 1],
        block: [threads, 1, 1],
        dynamic_shared: 0,
        step_limit: 1_000_000,
        register_fill: 0,
    };
    let out = run(&module, "k", &[Arg::Buffer(vec![0; 4 * words])], &launch)?;
    Ok(out.buffers[0].chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect())
}

#[test]
fn carry_chain_bit_fields_and_permutes() {
    let regs = ".reg .b32 %r<20>;\n.reg .b64 %rd<4>;";
    let body = "
	mov.b32 %r1, -1;
	mov.b32 %r2, 1;
	add.cc.u32 %r3, %r1, %r2;      // 0, carry out
	addc.u32 %r4, 5, 7;            // 5 + 7 + 1
	sub.cc.u32 %r5, 1, 2;          // borrow out
	subc.u32 %r6, 10, 3;           // 10 - 3 - 1
	bfe.u32 %r7, 0xABCD1234, 8, 12;
	bfe.s32 %r8, 0x00000F00, 8, 4;  // 0xF sign-extended
	bfi.b32 %r9, 0xF, 0x12345678, 4, 8;
	prmt.b32 %r10, 0x33221100, 0x77665544, 0x5140;
	shf.l.wrap.b32 %r11, 0x80000001, 0x00000003, 4;
	bfind.u32 %r12, 0x00100000;
	bfind.shiftamt.u32 %r13, 0x00100000;
	st.global.v4.b32 [%rd1], {%r3, %r4, %r5, %r6};
	st.global.v4.b32 [%rd1+16], {%r7, %r8, %r9, %r10};
	st.global.v2.b32 [%rd1+32], {%r11, %r12};
	st.global.b32 [%rd1+40], %r13;";
    let got = run_kernel(body, regs, 1, 11).unwrap();
    let want = [0, 13, u32::MAX, 6, 0xD12, 0xFFFF_FFFF, 0x1234_50F8, 0x5511_4400, 0x38, 20, 11];
    assert_eq!(got, want, "got {got:x?}");
}

#[test]
fn bfloat16_conversions_round_to_nearest_even() {
    let regs = ".reg .b32 %r<8>;\n.reg .b16 %rs<4>;\n.reg .b64 %rd<4>;";
    // 1 + 2^-8 is halfway between bf16 1.0 and 1 + 2^-7: ties to even (1.0);
    // 1 + 3 * 2^-8 ties up to 1 + 2^-6; bf16 0x3fc0 (1.5) widens exactly.
    let body = "
	cvt.rn.bf16.f32 %rs1, 0f3F808000;
	cvt.rn.bf16.f32 %rs2, 0f3F818000;
	mov.b16 %rs3, 0x3fc0;
	cvt.f32.bf16 %r3, %rs3;
	cvt.u32.u16 %r1, %rs1;
	cvt.u32.u16 %r2, %rs2;
	st.global.v2.b32 [%rd1], {%r1, %r2};
	st.global.b32 [%rd1+8], %r3;";
    let got = run_kernel(body, regs, 1, 3).unwrap();
    assert_eq!(got, [0x3f80, 0x3f82, 0x3fc0_0000], "got {got:x?}");
}

#[test]
fn shuffles_and_votes_across_a_warp() {
    let regs = ".reg .b32 %r<20>;\n.reg .b64 %rd<4>;\n.reg .pred %p<4>;";
    // Each lane writes: shfl.up by 1, shfl.down by 3, bfly 5, idx within
    // segments of 8 (source lane 2 of the segment), and a ballot of odd lanes.
    let body = "
	mov.u32 %r1, %laneid;
	mul.lo.s32 %r2, %r1, 10;
	shfl.sync.up.b32 %r3|%p1, %r2, 1, 0, -1;
	shfl.sync.down.b32 %r4, %r2, 3, 31, -1;
	shfl.sync.bfly.b32 %r5, %r2, 5, 31, -1;
	shfl.sync.idx.b32 %r6, %r2, 2, 0x1807, -1;
	and.b32 %r7, %r1, 1;
	setp.ne.b32 %p2, %r7, 0;
	vote.sync.ballot.b32 %r8, %p2, -1;
	vote.sync.all.pred %p3, %p2, -1;
	selp.b32 %r9, 1, 0, %p3;
	mul.wide.u32 %rd2, %r1, 24;
	add.s64 %rd3, %rd1, %rd2;
	st.global.v2.b32 [%rd3], {%r3, %r4};
	st.global.v2.b32 [%rd3+8], {%r5, %r6};
	st.global.v2.b32 [%rd3+16], {%r8, %r9};";
    let got = run_kernel(body, regs, 32, 32 * 6).unwrap();
    for lane in 0..32u32 {
        let row = &got[lane as usize * 6..][..6];
        let up = if lane >= 1 { (lane - 1) * 10 } else { 0 };
        let down = if lane + 3 <= 31 { (lane + 3) * 10 } else { lane * 10 };
        let seg_src = (lane & !7) | 2;
        assert_eq!(row, [up, down, (lane ^ 5) * 10, seg_src * 10, 0xAAAA_AAAA, 0], "lane {lane}");
    }
}

#[test]
fn barriers_order_shared_memory() {
    // Thread t writes t to shared[t], waits, then reads its neighbour's slot.
    let regs = ".reg .b32 %r<8>;\n.reg .b64 %rd<8>;\n.shared .align 4 .b8 s[256];";
    let body = "
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd2, %r1, 4;
	mov.b64 %rd3, s;
	add.s64 %rd4, %rd3, %rd2;
	st.shared.b32 [%rd4], %r1;
	bar.sync 0;
	add.s32 %r2, %r1, 1;
	and.b32 %r2, %r2, 63;
	mul.wide.u32 %rd5, %r2, 4;
	add.s64 %rd6, %rd3, %rd5;
	ld.shared.b32 %r3, [%rd6];
	add.s64 %rd7, %rd1, %rd2;
	st.global.b32 [%rd7], %r3;";
    let got = run_kernel(body, regs, 64, 64).unwrap();
    assert_eq!(got, (0..64).map(|t| (t + 1) % 64).collect::<Vec<u32>>());
}

#[test]
fn bad_programs_are_reported() {
    let regs = ".reg .b32 %r<4>;\n.reg .b64 %rd<4>;";
    let oob = run_kernel("\tst.global.b32 [%rd1+16], 1;", regs, 1, 4);
    assert!(matches!(oob, Err(Error::Fault(ref s)) if s.contains("out of bounds")), "{oob:?}");
    let unknown = run_kernel("\tsad.u32 %r1, %r2, %r3, %r1;", regs, 1, 1);
    assert!(matches!(unknown, Err(Error::Unsupported(ref s)) if s.contains("sad.u32")), "{unknown:?}");
    let spin = run_kernel("$L1:\n\tbra $L1;", regs, 1, 1);
    assert_eq!(spin, Err(Error::Timeout(1_000_000)));
    // D over A's registers: legal by PTX's read-then-write rule, wrong on a GPU.
    let frags = ".reg .b32 %r<32>;\n.reg .b64 %rd<4>;";
    let overlap =
        "\twmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, \
                   {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, {%r8, %r9, %r10, %r11, %r12, %r13, %r14, %r15}, \
                   {%r16, %r17, %r18, %r19, %r20, %r21, %r22, %r23};";
    let got = run_kernel(overlap, frags, 32, 1);
    assert!(matches!(got, Err(Error::Fault(ref s)) if s.contains("A or B fragment")), "{got:?}");
    let apart = overlap.replacen(
        "{%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}",
        "{%r24, %r25, %r26, %r27, %r28, %r29, %r30, %r31}",
        1,
    );
    assert!(run_kernel(&apart, frags, 32, 1).is_ok());
}

/// A struct passed by value, indexed at run time: LLVM takes the kernel
/// parameter's address (`mov.b64 %rd, k_param_0`) and loads through a
/// register, in `.param` space and, after `cvta.param`, generically.
#[test]
fn a_by_value_struct_is_read_through_its_address() {
    let ptx = format!(
        "{HEADER}.visible .entry k(.param .align 4 .b8 k_param_0[16], .param .u64 .ptr .align 1 k_param_1)\n{{\n\
         .reg .b32 %r<8>;\n.reg .b64 %rd<8>;\n\
         \tmov.b64 %rd1, k_param_0;\n\
         \tld.param.b64 %rd2, [k_param_1];\n\
         \tmov.u32 %r1, %tid.x;\n\
         \tmul.wide.u32 %rd3, %r1, 4;\n\
         \tadd.s64 %rd4, %rd1, %rd3;\n\
         \tld.param.b32 %r2, [%rd4];\n\
         \tcvta.param.u64 %rd5, %rd4;\n\
         \tld.b32 %r3, [%rd5+4];\n\
         \tadd.s32 %r4, %r2, %r3;\n\
         \tadd.s64 %rd6, %rd2, %rd3;\n\
         \tst.global.b32 [%rd6], %r4;\n\tret;\n}}\n"
    );
    let module = parse(&ptx).unwrap();
    let launch =
        Launch { grid: [1, 1, 1], block: [3, 1, 1], dynamic_shared: 0, step_limit: 10_000, register_fill: 0 };
    let words: Vec<u8> = [10u32, 20, 30, 40].iter().flat_map(|w| w.to_le_bytes()).collect();
    let out = run(&module, "k", &[Arg::Scalar(words), Arg::Buffer(vec![0; 12])], &launch).unwrap();
    let got: Vec<u32> = out.buffers[0].chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
    assert_eq!(got, [30, 50, 70]);
}

/// `redux.sync` over all lanes and over the even ones (a lane reduces with
/// the lanes its own mask names, so the odd ones ask for theirs), signed min
/// included; `bar.warp.sync` is a meeting that computes nothing.
#[test]
fn warp_reductions_combine_the_lanes_in_their_mask() {
    let regs = ".reg .b32 %r<20>;\n.reg .b64 %rd<4>;\n.reg .pred %p<4>;";
    let body = "
	mov.u32 %r1, %laneid;
	sub.s32 %r2, 5, %r1;
	bar.warp.sync -1;
	redux.sync.add.s32 %r3, %r1, -1;
	redux.sync.min.s32 %r4, %r2, -1;
	redux.sync.max.u32 %r5, %r1, -1;
	redux.sync.or.b32 %r6, %r1, -1;
	and.b32 %r7, %r1, 1;
	setp.eq.b32 %p1, %r7, 0;
	@%p1 redux.sync.add.u32 %r8, %r1, 0x55555555;
	@!%p1 redux.sync.add.u32 %r8, %r1, 0xAAAAAAAA;
	mul.wide.u32 %rd2, %r1, 32;
	add.s64 %rd3, %rd1, %rd2;
	st.global.v4.b32 [%rd3], {%r3, %r4, %r5, %r6};
	st.global.b32 [%rd3+16], %r8;";
    let got = run_kernel(body, regs, 32, 32 * 8).unwrap();
    for lane in 0..32u32 {
        let row = &got[lane as usize * 8..][..5];
        let parity = if lane % 2 == 0 { 240 } else { 256 };
        assert_eq!(row, [496, (5 - 31i32) as u32, 31, 31, parity], "lane {lane}");
    }
}

/// bfloat16 arithmetic rounds each result to bf16 (8 bits of precision),
/// lane by lane for bf16x2; conversions to integers truncate; a pair packs
/// its first source into the upper half. (And `WARP_SZ` is 32; `set` gives a
/// comparison as 1.0 in a float type, all ones in an integer one.)
#[test]
fn bfloat16_arithmetic_rounds_to_bfloat16() {
    let regs = ".reg .b32 %r<16>;\n.reg .b16 %rs<8>;\n.reg .b64 %rd<4>;";
    // 1 + 2^-8 is not a bf16: 1.0 + 0x3b80 (2^-8) ties to even, 1.0.
    // 1.5 + 0.5 = 2.0 (0x4000) in the low lane, -1.5 + 0.75 = -0.75 (0xbf40)
    // in the high one; |-2.75| = 2.75 (0x4030); cvt.rzi.s32 of -2.75 is -2.
    let body = "
	add.rn.bf16 %rs1, 0x3f80, 0x3b80;
	mov.b32 %r1, 0xbfc03fc0;
	mov.b32 %r2, 0x3f403f00;
	add.rn.bf16x2 %r3, %r1, %r2;
	abs.bf16 %rs2, 0xc030;
	cvt.rzi.s32.bf16 %r4, 0xc030;
	fma.rn.bf16 %rs3, 0x4000, 0x4040, 0x3f80;
	cvt.u32.u16 %r5, %rs1;
	cvt.u32.u16 %r6, %rs2;
	cvt.u32.u16 %r7, %rs3;
	cvt.rn.bf16x2.f32 %r8, 0f40000000, 0f3F808000;
	mov.u32 %r9, WARP_SZ;
	set.eq.f16.f16 %rs4, 0x3c00, 0x3c00;
	cvt.u32.u16 %r10, %rs4;
	set.lt.u32.f32 %r11, 0f3F800000, 0f3F000000;
	set.gt.u32.f32 %r12, 0f3F800000, 0f3F000000;
	st.global.v4.b32 [%rd1], {%r5, %r3, %r6, %r4};
	st.global.v4.b32 [%rd1+16], {%r7, %r8, %r9, %r10};
	st.global.v2.b32 [%rd1+32], {%r11, %r12};";
    let got = run_kernel(body, regs, 1, 10).unwrap();
    assert_eq!(
        got,
        [0x3f80, 0xbf40_4000, 0x4030, (-2i32) as u32, 0x40e0, 0x4000_3f80, 32, 0x3c00, 0, u32::MAX],
        "got {got:x?}"
    );
}

/// An integer converted to a float with a directed rounding: 2^24 + 1 is
/// not an f32; rn gives 2^24 (ties to even), rp 2^24 + 2, rm and rz 2^24,
/// and the mirror images for its negation.
#[test]
fn integers_round_to_floats_in_the_direction_asked() {
    let regs = ".reg .b32 %r<12>;\n.reg .b64 %rd<8>;";
    let body = "
	mov.b64 %rd4, 16777217;
	neg.s64 %rd5, %rd4;
	cvt.rn.f32.s64 %r1, %rd4;
	cvt.rp.f32.s64 %r2, %rd4;
	cvt.rm.f32.s64 %r3, %rd4;
	cvt.rz.f32.s64 %r4, %rd4;
	cvt.rp.f32.s64 %r5, %rd5;
	cvt.rm.f32.s64 %r6, %rd5;
	cvt.rz.f32.s64 %r7, %rd5;
	st.global.v4.b32 [%rd1], {%r1, %r2, %r3, %r4};
	st.global.v4.b32 [%rd1+16], {%r5, %r6, %r7, %r7};";
    let got = run_kernel(body, regs, 1, 8).unwrap();
    let (p, n) = (0x4b80_0000u32, 0xcb80_0000u32);
    assert_eq!(got, [p, p + 1, p, p, n, n + 1, n, n], "got {got:x?}");
}

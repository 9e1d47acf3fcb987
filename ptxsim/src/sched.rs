//! Runs a grid: blocks one after another, and within a block each thread on
//! its own until it reaches `bar.sync` or a warp collective. A barrier opens
//! when every live thread of the block waits at it; a collective runs when
//! every live lane its member mask names waits at the same instruction. The
//! order is fixed (lowest thread first), so a run is deterministic.

use crate::exec::{atomic, mask, wmma_element, Machine, State, Thread};
use crate::ir::*;
use crate::Error;

pub const WARP: usize = 32;

/// Runs one block to completion; `entry_params` are the kernel's param slots.
pub fn run_block(
    m: &mut Machine,
    func: u32,
    entry_params: &[Vec<u8>],
    shared: &mut [u8],
) -> Result<Vec<Thread>, Error> {
    let [bx, by, bz] = m.block;
    let mut threads = Vec::with_capacity((bx * by * bz) as usize);
    for z in 0..bz {
        for y in 0..by {
            for x in 0..bx {
                threads.push(Thread::new(m, func, [x, y, z], entry_params.to_vec())?);
            }
        }
    }
    loop {
        for t in threads.iter_mut().filter(|t| t.state == State::Running) {
            t.run(m, shared)?;
        }
        if threads.iter().all(|t| t.state == State::Exited) {
            return Ok(threads);
        }
        let mut progressed = false;
        for warp in threads.chunks_mut(WARP) {
            progressed |= run_collectives(m, warp)?;
        }
        if !progressed {
            let live = threads.iter().filter(|t| t.state != State::Exited);
            if live.clone().all(|t| t.state == State::AtBarrier) {
                for t in threads.iter_mut().filter(|t| t.state == State::AtBarrier) {
                    t.state = State::Running;
                }
            } else {
                return Err(Error::Fault(
                    "deadlock: threads wait at barriers and warp collectives that cannot complete".into(),
                ));
            }
        }
    }
}

/// Runs every collective of this warp whose participants are all present.
fn run_collectives(m: &mut Machine, warp: &mut [Thread]) -> Result<bool, Error> {
    let mut progressed = false;
    let mut i = 0;
    while i < warp.len() {
        if warp[i].state != State::AtCollective {
            i += 1;
            continue;
        }
        let key = (warp[i].frames.len(), warp[i].frame().func, warp[i].frame().pc);
        let at = |t: &Thread| {
            t.state == State::AtCollective && (t.frames.len(), t.frame().func, t.frame().pc) == key
        };
        let group: Vec<usize> = (0..warp.len()).filter(|&j| at(&warp[j])).collect();
        let inst = warp[i].inst(m.module).clone();
        let mut members = 0u32;
        match &inst.op {
            Op::Shfl { mask, .. }
            | Op::Vote { mask, .. }
            | Op::MatchAny { mask, .. }
            | Op::Redux { mask, .. }
            | Op::WarpSync { mask } => {
                for &j in &group {
                    members |= warp[j].read(m, mask)? as u32;
                }
            }
            // wmma has no member mask: the whole warp takes part.
            _ => members = u32::MAX,
        }
        let waiting_for_others = (0..warp.len()).any(|j| {
            members >> warp[j].lane() & 1 == 1 && warp[j].state != State::Exited && !group.contains(&j)
        });
        if waiting_for_others {
            i += 1;
            continue;
        }
        collective(m, warp, &group, &inst.op)?;
        for &j in &group {
            warp[j].state = State::Running;
            warp[j].frames.last_mut().expect("frame").pc += 1;
        }
        progressed = true;
        i += 1;
    }
    Ok(progressed)
}

fn collective(m: &Machine, warp: &mut [Thread], group: &[usize], op: &Op) -> Result<(), Error> {
    // `warp` is one warp's slice of the block, so a thread's index is its lane.
    let lane_of = |j: usize| j;
    match op {
        Op::Shfl { mode, d, p, a, b, c, .. } => {
            let mut vals = [None; WARP];
            let mut args = vec![];
            for &j in group {
                let t = &warp[j];
                vals[lane_of(j)] = Some(t.read(m, a)? & 0xffff_ffff);
                args.push((j, t.read(m, b)? as u32 & 31, t.read(m, c)? as u32));
            }
            for (j, b, c) in args {
                let lane = lane_of(j) as i32;
                let seg = ((c >> 8) & 31) as i32;
                let max_lane = (lane & seg) | ((c & 31) as i32 & !seg);
                let min_lane = lane & seg;
                let (src, ok) = match mode {
                    ShflMode::Up => (lane - b as i32, lane - b as i32 >= max_lane),
                    ShflMode::Down => (lane + b as i32, lane + b as i32 <= max_lane),
                    ShflMode::Bfly => (lane ^ b as i32, (lane ^ b as i32) <= max_lane),
                    ShflMode::Idx => {
                        let s = min_lane | (b as i32 & !seg);
                        (s, s <= max_lane)
                    }
                };
                let src = if ok { src } else { lane };
                // A source lane outside the group is undefined in PTX; take our own value.
                let v = vals[src as usize].or(vals[lane as usize]).expect("own value");
                warp[j].write(m, *d, v);
                if let Some(p) = p {
                    warp[j].write(m, *p, ok as u64);
                }
            }
        }
        Op::Vote { mode, d, a, mask: mop } => {
            let mut ballot = 0u32;
            let mut members = 0u32;
            for &j in group {
                members |= warp[j].read(m, mop)? as u32;
                if warp[j].read(m, a)? != 0 {
                    ballot |= 1 << lane_of(j);
                }
            }
            let present: u32 = group.iter().map(|&j| 1u32 << lane_of(j)).fold(0, |x, y| x | y);
            let active = members & present;
            let ballot = ballot & active;
            let v = match mode {
                VoteMode::Ballot => ballot as u64,
                VoteMode::Any => (ballot != 0) as u64,
                VoteMode::All => (ballot == active) as u64,
                VoteMode::Uni => (ballot == 0 || ballot == active) as u64,
            };
            for &j in group {
                warp[j].write(m, *d, v);
            }
        }
        Op::MatchAny { ty, d, a, mask: mop } => {
            let mut vals = vec![];
            let mut members = 0u32;
            for &j in group {
                members |= warp[j].read(m, mop)? as u32;
                vals.push((lane_of(j), warp[j].read(m, a)? & mask(ty.bits())));
            }
            for &j in group {
                let mine = vals.iter().find(|(l, _)| *l == lane_of(j)).expect("own value").1;
                let same = vals
                    .iter()
                    .filter(|(l, v)| *v == mine && members >> l & 1 == 1)
                    .fold(0u64, |acc, (l, _)| acc | 1 << l);
                warp[j].write(m, *d, same);
            }
        }
        Op::Redux { op, ty, d, a, .. } => {
            let mut total = None;
            for &j in group {
                let v = warp[j].read(m, a)? & mask(ty.bits());
                total = Some(match total {
                    None => v,
                    Some(t) => atomic(*op, *ty, t, v, 0)? & mask(ty.bits()),
                });
            }
            let total = total.expect("a collective has a member");
            for &j in group {
                warp[j].write(m, *d, total);
            }
        }
        // Lanes meeting is all there is to it.
        Op::WarpSync { .. } => {}
        Op::WmmaMma { d, a, b, c } => {
            if group.len() != WARP {
                return Err(Error::Fault("wmma.mma without all 32 lanes of the warp".into()));
            }
            // PTX reads before it writes, but ptxas expands m16n16k16 into two
            // HMMAs that both read A and B, and writes half of D before the
            // second: a D register that is also A's or B's gave wrong products
            // on an H200. Such PTX is a fault here, never a pass.
            if d.iter().any(|r| a.contains(r) || b.contains(r)) {
                return Err(Error::Fault("wmma.mma writes D into a register of its A or B fragment".into()));
            }
            // Gather the tiles, multiply in f32 (f16 products are exact), scatter D.
            let tile = |regs: &[Reg], is_half: bool| -> Vec<f32> {
                let mut t = vec![0f32; 256];
                for &j in group {
                    let vals: Vec<u64> = regs.iter().map(|&r| warp[j].frame().regs[r as usize]).collect();
                    for slot in 0..8 {
                        let (row, col) = wmma_element(lane_of(j) as u32, slot);
                        t[(row * 16 + col) as usize] = if is_half {
                            half::f16::from_bits((vals[slot / 2] >> (16 * (slot % 2))) as u16).to_f32()
                        } else {
                            f32::from_bits(vals[slot] as u32)
                        };
                    }
                }
                t
            };
            let (ta, tb, tc) = (tile(a, true), tile(b, true), tile(c, false));
            for &j in group {
                for (slot, &r) in d.iter().enumerate() {
                    let (row, col) = wmma_element(lane_of(j) as u32, slot);
                    let (row, col) = (row as usize, col as usize);
                    let acc = (0..16)
                        .fold(tc[row * 16 + col], |acc, k| ta[row * 16 + k].mul_add(tb[k * 16 + col], acc));
                    warp[j].write(m, r, acc.to_bits() as u64);
                }
            }
        }
        _ => unreachable!("not a collective"),
    }
    Ok(())
}

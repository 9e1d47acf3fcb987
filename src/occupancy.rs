//! NVIDIA's occupancy calculation, per GPU architecture: how many warps an
//! SM keeps resident for a kernel, given the registers and static shared
//! memory ptxas reports and, where the PTX fixes it, the block size.
//!
//! The arithmetic follows `cuda_occupancy.h`, the header-only calculator
//! NVIDIA ships with the CUDA toolkit (CUDA 13's copy was read for this).
//! Two of its details matter here and are easy to get wrong:
//!
//! - Registers are allocated per SM sub-partition (4 on every architecture
//!   below), so the register-limited warps are a multiple of 4: at 40
//!   registers a thread, 65536 / 1280 would be 51 warps, but each
//!   sub-partition's 16384 registers hold 12 warps of 1280, so 48.
//! - Shared memory per block includes 1 KiB the driver reserves on sm_80
//!   and later, and is rounded up to the allocation unit.
//!
//! The one occupancy model of the project: the pressure pass's occupancy
//! steps, the report's estimate, `nvregalloc-tune`'s objective and the
//! Python scripts' warps (`nvregalloc-tune --occupancy GPU`) all come from
//! here.
//!
//! What it leaves out: dynamic shared memory (unknown at compile time), the
//! per-block barrier limit of sm_90+ (binds only for kernels that use more
//! named barriers than any here), and carve-out preferences below the
//! maximum (a kernel is assumed to get all the shared memory it can use).

/// One GPU architecture's limits.
#[derive(Debug, PartialEq, Eq)]
pub struct Gpu {
    /// As ptxas's `-arch` takes it, without an `a`/`f` suffix.
    pub name: &'static str,
    pub registers_per_sm: u32,
    /// Registers per warp are allocated in units of this many.
    pub register_unit: u32,
    /// The most ptxas gives one thread (`.maxnreg` above it means nothing).
    pub max_registers_per_thread: u32,
    pub max_warps_per_sm: u32,
    pub max_blocks_per_sm: u32,
    /// Bytes of shared memory the blocks on one SM can use together, at the
    /// largest carve-out.
    pub shared_per_sm: u32,
    /// Each block's shared memory is allocated in units of this many bytes.
    pub shared_unit: u32,
    /// Bytes the driver keeps for itself in each block's shared memory
    /// (sm_80 and later).
    pub shared_reserved_per_block: u32,
}

/// What caps a kernel's occupancy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Limiter {
    #[default]
    Registers,
    SharedMemory,
    /// The SM's limit on resident blocks.
    Blocks,
    /// The SM's limit on resident warps: occupancy is as high as the block
    /// size allows.
    Warps,
}

/// Resident warps per SM, and what keeps them from being more. The default
/// (no warps) stands for an occupancy not computed yet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Occupancy {
    pub warps: u32,
    pub limiter: Limiter,
    /// False when no block size was known, so that only the registers were
    /// considered (as if blocks were one warp each).
    pub block_known: bool,
}

const WARP_SIZE: u32 = 32;
/// Register file sub-partitions per SM, on every architecture in `GPUS`.
const SUB_PARTITIONS: u32 = 4;
/// Registers one block may hold, and threads one block may have, on every
/// architecture in `GPUS`.
const REGISTERS_PER_BLOCK: u32 = 65536;
const MAX_THREADS_PER_BLOCK: u32 = 1024;

/// Figures from `cuda_occupancy.h` (CUDA 13) where it has them (blocks per
/// SM, allocation units, sub-partitions), and from the CUDA programming
/// guide's table of compute capabilities for the device properties it takes
/// as input (shared memory per SM, threads per SM, reserved shared memory).
/// Not checked against hardware: sm_120's blocks per SM (the header says 24;
/// some tables say 32, and the header is taken). CUDA 13's ptxas no longer
/// compiles for sm_70; its row is kept for older toolkits.
static GPUS: [Gpu; 9] = [
    volta_turing("sm_70", 64, 32, 96 * 1024),
    volta_turing("sm_75", 32, 16, 64 * 1024),
    ampere_on("sm_80", 64, 32, 164 * 1024),
    ampere_on("sm_86", 48, 16, 100 * 1024),
    ampere_on("sm_87", 48, 16, 164 * 1024),
    ampere_on("sm_89", 48, 24, 100 * 1024),
    ampere_on("sm_90", 64, 32, 228 * 1024),
    ampere_on("sm_100", 64, 32, 228 * 1024),
    ampere_on("sm_120", 48, 24, 100 * 1024),
];

/// sm_7x: shared memory in 256-byte units, nothing reserved per block.
const fn volta_turing(name: &'static str, warps: u32, blocks: u32, shared: u32) -> Gpu {
    Gpu { shared_unit: 256, shared_reserved_per_block: 0, ..ampere_on(name, warps, blocks, shared) }
}

/// sm_80 and later: shared memory in 128-byte units, 1 KiB per block for
/// the driver.
const fn ampere_on(name: &'static str, warps: u32, blocks: u32, shared: u32) -> Gpu {
    Gpu {
        name,
        registers_per_sm: 65536,
        register_unit: 256,
        max_registers_per_thread: 255,
        max_warps_per_sm: warps,
        max_blocks_per_sm: blocks,
        shared_per_sm: shared,
        shared_unit: 128,
        shared_reserved_per_block: 1024,
    }
}

/// The architecture `arch` names (`sm_90`, `sm_90a`, `sm_100f`, ...): the
/// `a` and `f` variants add instructions, not resources.
pub fn gpu(arch: &str) -> Option<&'static Gpu> {
    let base = arch.strip_suffix(['a', 'f']).unwrap_or(arch);
    GPUS.iter().find(|g| g.name == base)
}

/// `gpu(arch)`, or sm_90's limits for an architecture the table lacks (a
/// newer one, or none named).
pub fn gpu_or_sm90(arch: &str) -> &'static Gpu {
    gpu(arch).unwrap_or_else(|| gpu("sm_90").expect("sm_90 is in the table"))
}

impl Gpu {
    /// Registers one warp is given at this many registers a thread.
    fn registers_per_warp(&self, registers_per_thread: u32) -> u32 {
        (registers_per_thread * WARP_SIZE).div_ceil(self.register_unit) * self.register_unit
    }

    /// Warps per SM the register file holds at this many registers a thread
    /// (each sub-partition holds whole warps), at most the SM's warps; with
    /// no registers, the SM's warps.
    pub fn register_limited_warps(&self, registers_per_thread: u32) -> u32 {
        let per_warp = self.registers_per_warp(registers_per_thread);
        if per_warp == 0 {
            return self.max_warps_per_sm;
        }
        let per_sub_partition = self.registers_per_sm / SUB_PARTITIONS / per_warp;
        (per_sub_partition * SUB_PARTITIONS).min(self.max_warps_per_sm)
    }

    /// Occupancy as NVIDIA's calculator computes it: blocks per SM are
    /// limited by the registers (the warps the register file holds, in
    /// whole blocks), by shared memory (static bytes plus the driver's
    /// reserve, rounded up to the unit), by the SM's blocks and by its
    /// warps; warps are blocks times warps a block. Without a block size,
    /// the register-limited warps only (`block_known` false).
    ///
    /// Of several limits that give the same blocks, the limiter is the first
    /// of warps, blocks, shared memory, registers: it is `Registers` only
    /// where fewer registers alone would raise occupancy.
    pub fn occupancy(
        &self,
        registers_per_thread: u32,
        shared_bytes: u32,
        block_threads: Option<u32>,
    ) -> Occupancy {
        let Some(threads) = block_threads.filter(|&t| t > 0) else {
            let warps = self.register_limited_warps(registers_per_thread);
            let limiter = if warps < self.max_warps_per_sm { Limiter::Registers } else { Limiter::Warps };
            return Occupancy { warps, limiter, block_known: false };
        };
        let warps_per_block = threads.div_ceil(WARP_SIZE);
        let per_warp = self.registers_per_warp(registers_per_thread);

        // The launch fails outright (no block fits) where a block has more
        // threads or registers than one block may; the hardware counts a
        // block's warps rounded up to whole sub-partitions for the latter.
        let by_warps =
            if threads > MAX_THREADS_PER_BLOCK { 0 } else { self.max_warps_per_sm / warps_per_block };
        let by_registers = if per_warp * warps_per_block.next_multiple_of(SUB_PARTITIONS)
            > REGISTERS_PER_BLOCK
            || registers_per_thread > self.max_registers_per_thread
        {
            0
        } else {
            // No registers: no limit.
            (self.registers_per_sm / SUB_PARTITIONS)
                .checked_div(per_warp)
                .map_or(u32::MAX, |per_sub_partition| per_sub_partition * SUB_PARTITIONS / warps_per_block)
        };
        let shared_per_block =
            (shared_bytes + self.shared_reserved_per_block).next_multiple_of(self.shared_unit);
        let by_shared = self.shared_per_sm.checked_div(shared_per_block).unwrap_or(u32::MAX);

        let limits = [
            (by_warps, Limiter::Warps),
            (self.max_blocks_per_sm, Limiter::Blocks),
            (by_shared, Limiter::SharedMemory),
            (by_registers, Limiter::Registers),
        ];
        let blocks = limits.iter().map(|&(b, _)| b).min().unwrap_or(0);
        let limiter = limits.iter().find(|&&(b, _)| b == blocks).map_or(Limiter::Warps, |&(_, l)| l);
        Occupancy { warps: blocks * warps_per_block, limiter, block_known: true }
    }

    /// Whether `shared_bytes` of shared memory a block costs no warps against
    /// `than_bytes`, at `registers` a thread, whatever the block size (1 to
    /// 32 warps): for a kernel whose PTX declares none, which any launch
    /// may choose.
    pub fn shared_costs_no_warps(&self, registers: u32, shared_bytes: u32, than_bytes: u32) -> bool {
        (1..=MAX_THREADS_PER_BLOCK / WARP_SIZE).all(|warps| {
            let at = |bytes| self.occupancy(registers, bytes, Some(warps * WARP_SIZE)).warps;
            at(shared_bytes) >= at(than_bytes)
        })
    }

    /// The most registers a thread may have for more warps than `registers`
    /// gives, with `shared_bytes` of shared memory a block and blocks of
    /// `block_threads` (`None`: register-limited warps only), or None where no
    /// cap gives more (another limit holds): the cap (`.maxnreg`) worth
    /// trying next, as any cap between it and `registers` gains no warps.
    /// With a known block the step is a whole block's: 512 threads at 82
    /// registers run one block, and only 64 make room for a second.
    pub fn cap_below(&self, registers: u32, shared_bytes: u32, block_threads: Option<u32>) -> Option<u32> {
        let warps = |r| self.occupancy(r, shared_bytes, block_threads).warps;
        let now = warps(registers);
        (1..registers).rev().find(|&r| warps(r) > now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sm(arch: &str) -> &'static Gpu {
        gpu(arch).unwrap()
    }

    #[test]
    fn names_and_suffixes() {
        assert_eq!(sm("sm_90a").name, "sm_90");
        assert_eq!(sm("sm_100a").name, "sm_100");
        assert_eq!(sm("sm_100f").name, "sm_100");
        assert_eq!(sm("sm_120").max_warps_per_sm, 48);
        assert!(gpu("sm_60").is_none());
        assert!(gpu("sm_9").is_none());
        assert!(gpu("compute_90").is_none());
        assert!(gpu("").is_none());
    }

    #[test]
    fn register_limited_warps_sm90() {
        let g = sm("sm_90");
        // Registers go to warps 8 a thread at a time (256 a warp), and each
        // sub-partition holds floor(16384 / that) warps.
        let cases = [(0, 64), (1, 64), (32, 64), (33, 48), (40, 48), (41, 40), (48, 40), (56, 36), (64, 32)];
        for (regs, warps) in cases {
            assert_eq!(g.register_limited_warps(regs), warps, "{regs} registers");
        }
        for (regs, warps) in [(72, 28), (80, 24), (96, 20), (128, 16), (168, 12), (169, 8), (255, 8)] {
            assert_eq!(g.register_limited_warps(regs), warps, "{regs} registers");
        }
    }

    #[test]
    fn register_limited_warps_capped_by_the_sm() {
        // sm_86 holds 48 warps: 32 registers would allow 64.
        assert_eq!(sm("sm_86").register_limited_warps(32), 48);
        assert_eq!(sm("sm_86").register_limited_warps(40), 48);
        assert_eq!(sm("sm_86").register_limited_warps(48), 40);
        assert_eq!(sm("sm_75").register_limited_warps(64), 32);
        assert_eq!(sm("sm_75").register_limited_warps(72), 28);
    }

    #[test]
    fn occupancy_without_block_size() {
        let g = sm("sm_90");
        assert_eq!(
            g.occupancy(64, 0, None),
            Occupancy { warps: 32, limiter: Limiter::Registers, block_known: false }
        );
        assert_eq!(
            g.occupancy(32, 49152, None),
            Occupancy { warps: 64, limiter: Limiter::Warps, block_known: false }
        );
        assert!(!g.occupancy(40, 0, Some(0)).block_known);
    }

    #[test]
    fn occupancy_limited_by_shared_memory() {
        // 48 KiB + 1 KiB reserved: 233472 / 50176 = 4 blocks of 8 warps.
        let o = sm("sm_90").occupancy(32, 48 * 1024, Some(256));
        assert_eq!(o, Occupancy { warps: 32, limiter: Limiter::SharedMemory, block_known: true });
        // On sm_86's 100 KiB: 2 blocks.
        assert_eq!(sm("sm_86").occupancy(32, 48 * 1024, Some(256)).warps, 16);
        // The reserve and the unit count: 4095 + 1024 rounds up to 5120,
        // 233472 / 5120 = 45 blocks, over the 32-block limit; at 16 KiB,
        // 17408 a block, 13 blocks of 4 warps.
        assert_eq!(sm("sm_90").occupancy(16, 4095, Some(32)).limiter, Limiter::Blocks);
        let o = sm("sm_90").occupancy(16, 16 * 1024, Some(128));
        assert_eq!((o.warps, o.limiter), (52, Limiter::SharedMemory));
        // sm_75: 256-byte units, no reserve: 65536 / 16384 = 4 blocks.
        let o = sm("sm_75").occupancy(16, 16 * 1024, Some(128));
        assert_eq!((o.warps, o.limiter), (16, Limiter::SharedMemory));
    }

    #[test]
    fn occupancy_limited_by_registers_in_whole_blocks() {
        // 64 registers: 32 warps' worth, one block of 32 warps.
        let o = sm("sm_90").occupancy(64, 0, Some(1024));
        assert_eq!(o, Occupancy { warps: 32, limiter: Limiter::Registers, block_known: true });
        // 40 registers: 48 warps' worth, 1 block of 32 warps, not 1.5.
        assert_eq!(sm("sm_90").occupancy(40, 0, Some(1024)).warps, 32);
        // 40 registers in blocks of 6 warps (192 threads): 8 blocks.
        assert_eq!(sm("sm_90").occupancy(40, 0, Some(192)).warps, 48);
        // A partial warp counts as a whole one: 100 threads are 4 warps.
        assert_eq!(sm("sm_90").occupancy(64, 0, Some(100)).warps, 32);
    }

    #[test]
    fn occupancy_limited_by_warps_and_blocks() {
        let g = sm("sm_90");
        assert_eq!(
            g.occupancy(32, 1024, Some(256)),
            Occupancy { warps: 64, limiter: Limiter::Warps, block_known: true }
        );
        // 768 threads are 24 warps: 2 blocks fit in 64 warps.
        assert_eq!(
            g.occupancy(32, 0, Some(768)),
            Occupancy { warps: 48, limiter: Limiter::Warps, block_known: true }
        );
        // 32-thread blocks: 32 of them, half the SM's warps.
        assert_eq!(
            g.occupancy(16, 0, Some(32)),
            Occupancy { warps: 32, limiter: Limiter::Blocks, block_known: true }
        );
        // sm_86: 16 blocks of 2 warps.
        assert_eq!(sm("sm_86").occupancy(16, 0, Some(64)).warps, 32);
        assert_eq!(sm("sm_86").occupancy(16, 0, Some(64)).limiter, Limiter::Blocks);
        // sm_89: 24 blocks.
        assert_eq!(sm("sm_89").occupancy(16, 0, Some(64)).warps, 48);
        assert_eq!(sm("sm_89").occupancy(16, 0, Some(64)).limiter, Limiter::Warps);
    }

    #[test]
    fn blocks_that_cannot_launch() {
        // 1024 threads at 72 registers: 2304 a warp x 32 warps > 65536.
        let o = sm("sm_90").occupancy(72, 0, Some(1024));
        assert_eq!((o.warps, o.limiter), (0, Limiter::Registers));
        // 1025 threads is more than a block may have.
        assert_eq!(sm("sm_90").occupancy(16, 0, Some(1025)).warps, 0);
        // sm_86's 48 warps: 1024 threads is one block.
        assert_eq!(sm("sm_86").occupancy(32, 0, Some(1024)).warps, 32);
    }

    #[test]
    fn cap_below_steps() {
        let g = sm("sm_90");
        let register_limited = |r| g.cap_below(r, 0, None);
        assert_eq!(register_limited(32), None);
        assert_eq!(register_limited(0), None);
        assert_eq!(register_limited(33), Some(32));
        assert_eq!(register_limited(40), Some(32));
        assert_eq!(register_limited(64), Some(56));
        assert_eq!(register_limited(128), Some(96));
        assert_eq!(register_limited(255), Some(168));
        // Each cap does reach a step up.
        for regs in 33..=255 {
            let cap = register_limited(regs).unwrap();
            assert!(g.register_limited_warps(cap) > g.register_limited_warps(regs));
            assert!(g.register_limited_warps(cap + 1) <= g.register_limited_warps(regs));
        }
        // sm_86 has every warp at 40 registers.
        assert_eq!(sm("sm_86").cap_below(40, 0, None), None);
        assert_eq!(sm("sm_86").cap_below(48, 0, None), Some(40));
        // A block of 512 threads (16 warps): 82 registers run one, and the
        // register-limited steps between (80, 72) run one still.
        assert_eq!(g.cap_below(82, 0, Some(512)), Some(64));
        assert_eq!(g.occupancy(64, 0, Some(512)).warps, 32);
        // Where shared memory allows one block, no cap gives more.
        assert_eq!(g.cap_below(82, 200 * 1024, Some(512)), None);
    }

    #[test]
    fn shared_memory_costs_warps_where_the_smallest_blocks_run_out_of_it() {
        let g = sm("sm_90");
        // rushlarsen's spills in shared memory: at 255 registers eight
        // one-warp blocks fit the register file, and their 19,456 bytes
        // each fit the SM.
        assert!(g.shared_costs_no_warps(255, 19_456, 0));
        // At 32 registers 32 one-warp blocks would fit; 8,192 bytes each
        // let 25.
        assert!(!g.shared_costs_no_warps(32, 8_192, 0));
        assert!(g.shared_costs_no_warps(32, 4_096, 0));
    }
}

//! Where bytes live. Every pointer is one 64-bit generic address; each state
//! space has its own window, and a space-specific address (what `cvta.to.*`
//! would produce) is the same number as the generic one. That keeps `cvta`
//! an identity, lets a generic load find its space from the address alone,
//! and makes a pointer into the wrong space a reported fault.
//!
//! Global allocations are separated by unmapped gaps, so an access past the
//! end of a buffer is caught as out of bounds instead of reading a neighbour.

use crate::Error;

pub const GLOBAL_BASE: u64 = 0x0000_0001_0000_0000;
pub const SHARED_BASE: u64 = 0x0000_0100_0000_0000;
pub const LOCAL_BASE: u64 = 0x0000_0200_0000_0000;
/// A frame's `.param` slots that have no copy in local memory (a kernel's
/// parameters, a call sequence's): slot `k` starts at `PARAM_BASE + k *
/// PARAM_SLOT`, so an address names its slot and the offset in it.
pub const PARAM_BASE: u64 = 0x0000_0300_0000_0000;
const PARAM_SLOT: u64 = 0x0000_0001_0000_0000;
const WINDOW: u64 = 0x0000_0100_0000_0000;
const GAP: u64 = 4096;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Window {
    Global,
    Shared,
    Local,
    Param,
}

pub fn window(addr: u64) -> Option<Window> {
    match addr {
        a if (GLOBAL_BASE..SHARED_BASE).contains(&a) => Some(Window::Global),
        a if (SHARED_BASE..SHARED_BASE + WINDOW).contains(&a) => Some(Window::Shared),
        a if (LOCAL_BASE..LOCAL_BASE + WINDOW).contains(&a) => Some(Window::Local),
        a if (PARAM_BASE..PARAM_BASE + WINDOW).contains(&a) => Some(Window::Param),
        _ => None,
    }
}

pub fn param_slot_addr(slot: usize) -> u64 {
    PARAM_BASE + slot as u64 * PARAM_SLOT
}

/// The `.param` slot and offset a param-window address names.
pub fn param_slot_of(addr: u64) -> (usize, usize) {
    let at = addr - PARAM_BASE;
    ((at / PARAM_SLOT) as usize, (at % PARAM_SLOT) as usize)
}

pub struct Region {
    pub base: u64,
    pub name: String,
    pub data: Vec<u8>,
}

/// Global memory: module variables and the launch's buffers, in address order.
#[derive(Default)]
pub struct GlobalMem {
    pub regions: Vec<Region>,
}

impl GlobalMem {
    pub fn alloc(&mut self, name: &str, data: Vec<u8>, align: usize) -> u64 {
        let end = self.regions.last().map_or(GLOBAL_BASE, |r| r.base + r.data.len() as u64 + GAP);
        let base = end.next_multiple_of(align.max(256) as u64);
        self.regions.push(Region { base, name: name.to_string(), data });
        base
    }

    /// The region holding `[addr, addr+len)` and the offset in it.
    fn locate(&self, addr: u64, len: usize) -> Result<(usize, usize), Error> {
        let i = self.regions.partition_point(|r| r.base <= addr);
        if i > 0 {
            let r = &self.regions[i - 1];
            let off = addr - r.base;
            if off + len as u64 <= r.data.len() as u64 {
                return Ok((i - 1, off as usize));
            }
            if off < r.data.len() as u64 + GAP {
                return Err(Error::Fault(format!(
                    "out of bounds: {len} bytes at offset {off} of {} ({} bytes)",
                    r.name,
                    r.data.len()
                )));
            }
        }
        Err(Error::Fault(format!("global address {addr:#x} is not mapped")))
    }

    pub fn bytes(&mut self, addr: u64, len: usize) -> Result<&mut [u8], Error> {
        let (i, off) = self.locate(addr, len)?;
        Ok(&mut self.regions[i].data[off..off + len])
    }
}

/// `len` bytes at `offset` of a flat window (shared or local memory).
pub fn flat<'a>(mem: &'a mut [u8], offset: u64, len: usize, what: &str) -> Result<&'a mut [u8], Error> {
    let end = offset.checked_add(len as u64).filter(|&e| e <= mem.len() as u64);
    match end {
        Some(end) => Ok(&mut mem[offset as usize..end as usize]),
        None => Err(Error::Fault(format!(
            "out of bounds: {len} bytes at {what} offset {offset} (size {})",
            mem.len()
        ))),
    }
}

pub fn read_le(bytes: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    b[..bytes.len()].copy_from_slice(bytes);
    u64::from_le_bytes(b)
}

pub fn write_le(dst: &mut [u8], v: u64) {
    let n = dst.len();
    dst.copy_from_slice(&v.to_le_bytes()[..n]);
}

//! Sets of merged vregs (ena's union-find, the one rustc uses).

use ena::unify::{InPlaceUnificationTable, UnifyKey};

use crate::function::VReg;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Key(u32);

impl UnifyKey for Key {
    type Value = ();
    fn index(&self) -> u32 {
        self.0
    }
    fn from_index(u: u32) -> Self {
        Self(u)
    }
    fn tag() -> &'static str {
        "VReg"
    }
}

pub struct VRegSets {
    table: InPlaceUnificationTable<Key>,
    /// Smallest member of each set, kept at its root.
    smallest: Vec<VReg>,
}

impl VRegSets {
    pub fn new(num_vregs: usize) -> Self {
        let mut table = InPlaceUnificationTable::new();
        table.reserve(num_vregs);
        for _ in 0..num_vregs {
            table.new_key(());
        }
        Self { table, smallest: (0..num_vregs).map(VReg::new).collect() }
    }

    pub fn find(&mut self, v: VReg) -> VReg {
        VReg(self.table.find(Key(v.0)).0)
    }

    /// Joins the sets of two roots; returns `(new root, the other one)`.
    pub fn union(&mut self, a: VReg, b: VReg) -> (VReg, VReg) {
        self.table.union(Key(a.0), Key(b.0));
        let root = self.find(a);
        let other = if root == a { b } else { a };
        self.smallest[root.index()] = self.smallest[a.index()].min(self.smallest[b.index()]);
        (root, other)
    }

    /// The name a merged set takes: its lowest-numbered vreg.
    pub fn smallest_member(&mut self, v: VReg) -> VReg {
        let root = self.find(v);
        self.smallest[root.index()]
    }
}

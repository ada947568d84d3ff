//! Which nodes a frame lights: every node whose light a change since the last recorded frame can
//! reach, found from the changes when the frame records (`voxgpu_core::light` has the rules
//! these bounds follow). Light moves at most [`RELAX_STEPS`] = 14 steps from a change (a value
//! loses at least 1 a step), except sky light of 15 falling straight down through clear cells
//! (light opacity 0), which then moves at most 14 steps from any cell of its fall.
//!
//! - A chunk that arrived or left: its own column and the eight around it, from one chunk above
//!   it down (sky light falling through a new shaft spreads sideways all the way down).
//! - A cell set in a resident chunk: the chunks within 14 blocks of it, sideways and up, and
//!   down to 14 blocks below the clear run under it (the shaft it opens or closes; a missing
//!   chunk ends it, as the fall takes open sky below one). The run is read after the frame's
//!   edits: a cell where it differs from the run before them was itself edited, so its own
//!   reach covers the difference. A block dug at the surface lights the chunks within 14 blocks
//!   of it, not whole columns.
//! - A coarser node: it spreads nothing, so only the nodes below it in its column, whose fall it
//!   shades.
//! - Every node lit or changed: its resident ancestors, which take their light from their
//!   children.
//!
//! The changed nodes a recorded frame consumed are kept until its submission is confirmed; a
//! dropped frame gives them back.

use std::collections::HashSet;

use glam::{IVec2, IVec3};

use super::ChunkPool;
use crate::layouts::NO_SLOT;
use crate::light::LightJob;
use voxgpu_core::light::{LightRules, RELAX_STEPS};
use voxgpu_core::voxel::{CHUNK_SIZE, ChunkPos, MAX_NODE_LEVEL, NodeColumn, NodeKey};

/// What changed light since the last recorded frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum LightChange {
    /// A node's cells as a whole, or whether it is resident.
    Node(NodeKey),
    /// One full-detail cell (world blocks) of a chunk that stays resident.
    Cell(IVec3),
}

impl LightChange {
    /// The node the change is in.
    fn node(self) -> NodeKey {
        match self {
            Self::Node(key) => key,
            Self::Cell(block) => NodeKey::chunk(ChunkPos::from_block(block).0),
        }
    }
}

impl ChunkPool {
    /// Notes that the node's cells, or whether it is resident, changed.
    pub(super) fn light_changed(&mut self, key: NodeKey) {
        self.light_changes.insert(LightChange::Node(key));
    }

    /// Notes that the full-detail cell `block` of a resident chunk changed.
    pub(super) fn light_edited(&mut self, block: IVec3) {
        self.light_changes.insert(LightChange::Cell(block));
    }

    /// The lowest y of `block` and the run of clear cells (light opacity 0) straight below it
    /// within resident chunks: where sky light falling through `block` stops at 15. A missing
    /// chunk ends the run, since the fall takes open sky below it whatever lies above.
    fn fall_bottom(&self, block: IVec3, rules: &LightRules) -> i32 {
        let size = CHUNK_SIZE as i32;
        let column = NodeColumn::new(0, IVec2::new(block.x.div_euclid(size), block.z.div_euclid(size)));
        let (x, z) = (block.x.rem_euclid(size) as usize, block.z.rem_euclid(size) as usize);
        let mut y = block.y - 1;
        while let Some(resident) = self.resident.get(&column.node(y.div_euclid(size))) {
            if rules.opacity(resident.chunk.get(x, y.rem_euclid(size) as usize, z)) != 0 {
                break;
            }
            y -= 1;
        }
        y + 1
    }

    /// Drops the changes noted so far, for a renderer whose light is off (and so never lit).
    pub fn forget_light_changes(&mut self) {
        self.light_changes.clear();
    }

    /// Every resident node `changes` reach, as light jobs sorted by level.
    fn light_reach(&self, changes: &HashSet<LightChange>, rules: &LightRules) -> Vec<NodeKey> {
        let mut lit: HashSet<NodeKey> = HashSet::new();
        let column_span =
            |column: NodeColumn, heights: std::ops::RangeInclusive<i32>, lit: &mut HashSet<NodeKey>| {
                if let Some(resident) = self.by_column.get(&column) {
                    lit.extend(resident.range(heights).map(|&y| column.node(y)));
                }
            };
        let size = CHUNK_SIZE as i32;
        for &change in changes {
            match change {
                LightChange::Node(key) if key.level == 0 => {
                    let column = key.column();
                    for dz in -1..=1 {
                        for dx in -1..=1 {
                            let xz = IVec2::new(column.xz.x + dx, column.xz.y + dz);
                            column_span(NodeColumn::new(0, xz), i32::MIN..=key.pos.y + 1, &mut lit);
                        }
                    }
                }
                LightChange::Node(key) => column_span(key.column(), i32::MIN..=key.pos.y, &mut lit),
                LightChange::Cell(block) => {
                    let reach = RELAX_STEPS as i32;
                    let bottom = self.fall_bottom(block, rules) - reach;
                    let low =
                        IVec3::new(block.x - reach, bottom, block.z - reach).div_euclid(IVec3::splat(size));
                    let high = (block + IVec3::splat(reach)).div_euclid(IVec3::splat(size));
                    for z in low.z..=high.z {
                        for x in low.x..=high.x {
                            column_span(NodeColumn::new(0, IVec2::new(x, z)), low.y..=high.y, &mut lit);
                        }
                    }
                }
            }
        }
        // The changed nodes' own ancestors too: a node that left is in no column below, and its
        // parent must stop pulling the light it had.
        let mut ancestors = HashSet::new();
        let changed: Vec<NodeKey> = changes.iter().map(|c| c.node()).collect();
        for key in lit.iter().chain(&changed) {
            let mut parent = key.parent();
            while parent.level <= MAX_NODE_LEVEL && self.resident.contains_key(&parent) {
                if !ancestors.insert(parent) {
                    break;
                }
                parent = parent.parent();
            }
        }
        lit.extend(ancestors);
        let mut keys: Vec<NodeKey> = lit.into_iter().collect();
        keys.sort_by_key(|k| (k.level, k.pos.to_array()));
        keys
    }

    /// The frame's light jobs: the nodes the changes since the last recorded frame reach, sorted
    /// by level, each with its resident children. Kept until [`Self::confirm`], given back by
    /// [`Self::replay`].
    pub fn light_jobs(&mut self, rules: &LightRules) -> Vec<LightJob> {
        let changes = std::mem::take(&mut self.light_changes);
        let jobs = self
            .light_reach(&changes, rules)
            .into_iter()
            .map(|key| {
                let slot = |k: &NodeKey| self.resident.get(k).map_or(NO_SLOT, |r| r.slot);
                let children = if key.level == 0 { [NO_SLOT; 8] } else { key.children().map(|c| slot(&c)) };
                LightJob { slot: slot(&key), level: key.level, children }
            })
            .collect();
        self.light_unconfirmed.extend(changes);
        jobs
    }
}

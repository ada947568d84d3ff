//! Which nodes a frame lights: every node whose light a change since the last recorded frame can
//! reach, found from the changed nodes when the frame records (`voxgpu_core::light` has the
//! rules these bounds follow).
//!
//! - A chunk that arrived, left or was edited: light moves at most 14 blocks from a change
//!   except straight down, so its own column and the eight around it, from one chunk above it
//!   down (sky light falling through a new shaft spreads sideways all the way down).
//! - A coarser node: it spreads nothing, so only the nodes below it in its column, whose fall it
//!   shades.
//! - Every node lit or changed: its resident ancestors, which take their light from their
//!   children.
//!
//! The changed nodes a recorded frame consumed are kept until its submission is confirmed; a
//! dropped frame gives them back.

use std::collections::HashSet;

use glam::IVec2;

use super::ChunkPool;
use crate::layouts::NO_SLOT;
use crate::light::LightJob;
use voxgpu_core::voxel::{MAX_NODE_LEVEL, NodeColumn, NodeKey};

impl ChunkPool {
    /// Notes that the node's cells, or whether it is resident, changed.
    pub(super) fn light_changed(&mut self, key: NodeKey) {
        self.light_changes.insert(key);
    }

    /// Drops the changes noted so far, for a renderer whose light is off (and so never lit).
    pub fn forget_light_changes(&mut self) {
        self.light_changes.clear();
    }

    /// Every resident node `changes` reach, as light jobs sorted by level.
    fn light_reach(&self, changes: &HashSet<NodeKey>) -> Vec<NodeKey> {
        let mut lit: HashSet<NodeKey> = HashSet::new();
        let column_below = |column: NodeColumn, top: i32, lit: &mut HashSet<NodeKey>| {
            if let Some(heights) = self.by_column.get(&column) {
                lit.extend(heights.range(..=top).map(|&y| column.node(y)));
            }
        };
        for key in changes {
            let column = key.column();
            if key.level == 0 {
                for dz in -1..=1 {
                    for dx in -1..=1 {
                        let xz = IVec2::new(column.xz.x + dx, column.xz.y + dz);
                        column_below(NodeColumn::new(0, xz), key.pos.y + 1, &mut lit);
                    }
                }
            } else {
                column_below(column, key.pos.y, &mut lit);
            }
        }
        // The changed nodes' own ancestors too: a node that left is in no column below, and its
        // parent must stop pulling the light it had.
        let mut ancestors = HashSet::new();
        for key in lit.iter().chain(changes) {
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
    pub fn light_jobs(&mut self) -> Vec<LightJob> {
        let changes = std::mem::take(&mut self.light_changes);
        let jobs = self
            .light_reach(&changes)
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

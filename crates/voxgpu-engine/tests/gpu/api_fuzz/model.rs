//! The model of the API: what the renderer holds as the documentation says each call changes it,
//! the refusals a frame call answers with, and the rule for which cameras `prepare` takes.

use std::collections::{BTreeMap, HashSet};

use glam::IVec3;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use voxgpu_core::camera::Camera;
use voxgpu_core::lod::Readiness;
use voxgpu_core::voxel::{
    BlockId, CHUNK_SIZE, Chunk, ChunkPos, MAX_NODE_LEVEL, NodeColumn, NodeKey, cell_block, octant,
};

use super::ops::CameraSpec;

/// The refusals a frame call may answer with.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Refusal {
    InvalidCamera,
    NotPrepared,
    FrameNotSubmitted,
}

/// What the renderer holds, as the API's documentation says each call changes it: the nodes
/// (with the ancestor updates of `set_block`), the complete columns, the frame's size, and
/// whether a prepared frame waits to be recorded.
pub(super) struct Model {
    pub(super) nodes: BTreeMap<NodeKey, Chunk>,
    pub(super) ready: HashSet<NodeColumn>,
    pub(super) size: (u32, u32),
    pub(super) max_side: u32,
    /// A `prepare` succeeded whose frame was not recorded yet.
    pub(super) prepared: bool,
    /// The frame recorded last was not confirmed with `frame_submitted`.
    pub(super) unconfirmed: bool,
    /// Frames recorded, submitted and confirmed.
    pub(super) confirmed: u64,
}

impl Model {
    pub(super) fn insert(&mut self, key: NodeKey, chunk: Chunk) {
        if chunk.is_empty() {
            self.nodes.remove(&key);
        } else {
            self.nodes.insert(key, chunk);
        }
    }

    fn cell(&self, key: NodeKey, at: IVec3) -> BlockId {
        self.nodes.get(&key).map_or(BlockId::AIR, |c| c.get(at.x as usize, at.y as usize, at.z as usize))
    }

    pub(super) fn block(&self, world: IVec3) -> BlockId {
        let (pos, local) = ChunkPos::from_block(world);
        self.cell(NodeKey::chunk(pos), local)
    }

    pub(super) fn set_block(&mut self, world: IVec3, block: BlockId) {
        let (pos, local) = ChunkPos::from_block(world);
        let key = NodeKey::chunk(pos);
        if !self.nodes.contains_key(&key) && block.is_air() {
            return;
        }
        let mut chunk = self.nodes.get(&key).cloned().unwrap_or_else(Chunk::empty);
        chunk.set(local.x as usize, local.y as usize, local.z as usize, block);
        self.insert(key, chunk);
        // Each level up, the one cell holding the block is the mip rule over the eight below,
        // while the node is resident or its column generated, and until a cell stays the same.
        let size = IVec3::splat(CHUNK_SIZE as i32);
        for level in 1..=MAX_NODE_LEVEL {
            let cell = world.div_euclid(IVec3::splat(1 << level));
            let key = NodeKey::new(level, cell.div_euclid(size));
            if !self.nodes.contains_key(&key) && !self.ready.contains(&key.column()) {
                return;
            }
            let below: [BlockId; 8] = std::array::from_fn(|i| {
                let fine = cell * 2 + octant(i);
                self.cell(NodeKey::new(level - 1, fine.div_euclid(size)), fine.rem_euclid(size))
            });
            let new = cell_block(&below);
            let local = cell.rem_euclid(size);
            if self.cell(key, local) == new {
                return;
            }
            let mut node = self.nodes.get(&key).cloned().unwrap_or_else(Chunk::empty);
            node.set(local.x as usize, local.y as usize, local.z as usize, new);
            self.insert(key, node);
        }
    }

    pub(super) fn column_ready(&mut self, column: NodeColumn, ready: bool) {
        let changed = if ready { self.ready.insert(column) } else { self.ready.remove(&column) };
        if changed && !ready {
            self.nodes.retain(|key, _| key.column() != column);
        }
    }

    pub(super) fn readiness(&self, key: NodeKey) -> Readiness {
        let generated = |c: NodeColumn| c.children().iter().all(|c| self.ready.contains(c));
        Readiness {
            children: key.level > 0 && generated(key.column()),
            siblings: generated(key.column().parent()),
        }
    }

    /// `prepare`: the camera is checked first, then the last frame's confirmation.
    pub(super) fn prepare(&mut self, camera: &Camera) -> Result<(), Refusal> {
        if !self.camera_accepted(camera) {
            return Err(Refusal::InvalidCamera);
        }
        if std::mem::take(&mut self.unconfirmed) {
            return Err(Refusal::FrameNotSubmitted);
        }
        self.prepared = true;
        Ok(())
    }

    pub(super) fn record(&mut self) -> Result<(), Refusal> {
        if std::mem::take(&mut self.prepared) { Ok(()) } else { Err(Refusal::NotPrepared) }
    }

    /// `render`, or `settle`'s first frame: `prepare`, and when it succeeds a frame recorded,
    /// submitted and confirmed.
    pub(super) fn frame(&mut self, camera: &Camera) -> Result<(), Refusal> {
        self.prepare(camera)?;
        self.record()?;
        self.confirmed += 1;
        Ok(())
    }

    pub(super) fn size_allowed(&self, width: u32, height: u32) -> bool {
        (1..=self.max_side).contains(&width) && (1..=self.max_side).contains(&height)
    }

    /// Whether `prepare` takes the camera: everything finite, the eye within
    /// `MAX_EYE_COORDINATE` of the origin, the view-projection and its inverse finite too.
    pub(super) fn camera_accepted(&self, camera: &Camera) -> bool {
        let view_proj = camera.view_proj(self.size.0 as f32 / self.size.1 as f32);
        camera.eye.is_finite()
            && camera.eye.abs().max_element() <= voxgpu_core::camera::MAX_EYE_COORDINATE
            && camera.target.is_finite()
            && camera.fov_y_degrees.is_finite()
            && camera.near.is_finite()
            && view_proj.is_finite()
            && view_proj.inverse().is_finite()
    }
}

/// Cameras the rule must take and refuse, whatever the matrices say: plain finite views near or
/// 10⁷ blocks from the world are taken; any NaN or infinity, or a zero field of view or near
/// plane, is refused.
pub(super) fn check_camera_rule(model: &Model, spec: &CameraSpec) -> Result<(), TestCaseError> {
    let c = spec.camera();
    let accepted = model.camera_accepted(&c);
    let plain = c.eye.is_finite()
        && c.target.is_finite()
        && c.eye.abs().max_element() <= 2.0e7
        && c.target.abs().max_element() <= 2.0e7
        && (1.0..=179.0).contains(&c.fov_y_degrees)
        && (0.001..=10.0).contains(&c.near);
    let broken = !c.eye.is_finite()
        || !c.target.is_finite()
        || !c.fov_y_degrees.is_finite()
        || !c.near.is_finite()
        || c.fov_y_degrees == 0.0
        || c.near == 0.0;
    prop_assert!(!plain || accepted, "a plain camera is refused: {spec:?}");
    prop_assert!(!broken || !accepted, "a broken camera is taken: {spec:?}");
    Ok(())
}

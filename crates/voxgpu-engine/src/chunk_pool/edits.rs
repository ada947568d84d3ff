//! Edits: one block set in place, staged as the one word that holds it, and the one cell of each
//! ancestor node the edit can change, recomputed by the mip rule from the eight cells below it.

use std::sync::Arc;

use glam::IVec3;

use super::{ChunkPool, ChunkState, Remesh, reading};
use crate::GpuError;
use voxgpu_core::mesh::meshes_reading_block;
use voxgpu_core::voxel::{BlockId, CHUNK_SIZE, Chunk, ChunkPos, MAX_NODE_LEVEL, NodeKey, cell_block};

impl ChunkPool {
    /// Sets one block: uploads the one changed word, asks for the chunk's mips to be rebuilt, and
    /// marks every chunk whose full-detail mesh reads the voxel dirty ([`meshes_reading_block`]).
    /// (Neighbours meshed at a coarser level read the rebuilt mips: the mip pass marks those
    /// dirty itself.) Every ancestor node gets the one cell the edit can change, recomputed by the
    /// mip rule from the eight cells below it, so far nodes show the edit too.
    pub fn set_block(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        world: IVec3,
        block: BlockId,
    ) -> Result<(), GpuError> {
        let (pos, local) = ChunkPos::from_block(world);
        let key = NodeKey::chunk(pos);
        let Some(resident) = self.resident.get_mut(&key) else {
            if block.is_air() {
                return Ok(());
            }
            let mut chunk = Chunk::empty();
            chunk.set(local.x as usize, local.y as usize, local.z as usize, block);
            self.insert(device, queue, key, Arc::new(chunk), Remesh::Neighbours)?;
            return self.update_ancestors(device, queue, world);
        };
        let chunk = Arc::make_mut(&mut resident.chunk);
        chunk.set(local.x as usize, local.y as usize, local.z as usize, block);
        if chunk.is_empty() {
            self.remove(key, Remesh::Neighbours);
            return self.update_ancestors(device, queue, world);
        }
        let slot = resident.slot;
        self.stage_cell(key, local);
        self.light_edited(world);
        self.request(slot, ChunkState::DIRTY | ChunkState::VOXELS);
        meshes_reading_block(world).for_each(|p| self.mark_dirty(NodeKey::chunk(p)));
        self.update_ancestors(device, queue, world)
    }

    /// After the block at `world` changed at level 0: for each level up, the cell holding it is
    /// recomputed from the eight cells below (the level below's node, or air where it is not
    /// resident), until the cell does not change or the level's column was never generated. A
    /// missing (all-air) node of a generated column is created when its cell turns solid.
    fn update_ancestors(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        world: IVec3,
    ) -> Result<(), GpuError> {
        let size = CHUNK_SIZE as i32;
        for level in 1..=MAX_NODE_LEVEL {
            let cell = world.div_euclid(IVec3::splat(1 << level));
            let key = NodeKey::new(level, cell.div_euclid(IVec3::splat(size)));
            let current = match self.resident.get(&key) {
                Some(r) => Arc::clone(&r.chunk),
                None if self.ready_columns.contains(&key.column()) => Arc::new(Chunk::empty()),
                None => return Ok(()),
            };
            let local = cell.rem_euclid(IVec3::splat(size));
            let below: [BlockId; 8] = std::array::from_fn(|i| {
                let fine = cell * 2 + voxgpu_core::voxel::octant(i);
                let child = NodeKey::new(level - 1, fine.div_euclid(IVec3::splat(size)));
                let at = fine.rem_euclid(IVec3::splat(size));
                self.node(child).map_or(BlockId::AIR, |c| c.get(at.x as usize, at.y as usize, at.z as usize))
            });
            let block = cell_block(&below);
            let [x, y, z] = local.to_array().map(|c| c as usize);
            if current.get(x, y, z) == block {
                return Ok(());
            }
            let mut updated = (*current).clone();
            updated.set(x, y, z, block);
            match self.resident.get(&key).map(|r| r.slot) {
                None => self.insert(device, queue, key, Arc::new(updated), Remesh::Neighbours)?,
                Some(_) if updated.is_empty() => self.remove(key, Remesh::Neighbours),
                Some(slot) => {
                    self.resident.get_mut(&key).expect("resident").chunk = Arc::new(updated);
                    self.stage_cell(key, local);
                    self.light_changed(key);
                    self.request(slot, ChunkState::DIRTY | ChunkState::VOXELS);
                    // Face and edge neighbours whose border layer reads this cell.
                    let touches = |d: IVec3| {
                        (0..3).all(|a| match d[a] {
                            0 => true,
                            ..0 => local[a] == 0,
                            _ => local[a] == size - 1,
                        })
                    };
                    for n in reading(key).filter(|n| touches(n.pos - key.pos)) {
                        self.mark_dirty(n);
                    }
                }
            }
        }
        Ok(())
    }
}

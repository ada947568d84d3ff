//! Reading the GPU mesher's output back: every resident chunk's quads and pages. For `stats`,
//! tests and debugging; it waits for the GPU.

use super::layouts::FaceMesh;
use super::quad_pool::PAGE_QUADS_LOG2;
use super::readback::read_buffer;
use super::{GpuError, Renderer};
use crate::mesh::{ChunkMesh, Face, PackedQuad};
use crate::voxel::ChunkPos;

/// One chunk's GPU mesh and where its quads live.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GpuChunkMesh {
    pub pos: ChunkPos,
    pub slot: u32,
    /// Quads grouped by face like the CPU mesher's output; within a face, in the GPU's order.
    pub mesh: ChunkMesh,
    /// Pages of each face's stream, in stream order.
    pub pages: [Vec<u32>; 6],
}

impl Renderer {
    /// Every resident chunk's mesh as the GPU holds it, sorted by position.
    pub fn read_meshes(&self) -> Result<Vec<GpuChunkMesh>, GpuError> {
        let (device, queue, pool, quad_pool) = self.inspect_parts();
        let face_bytes = size_of::<FaceMesh>() as u64;
        let faces_raw =
            read_buffer(device, queue, &pool.faces.buffer, 0, pool.slot_count() as u64 * 6 * face_bytes)?;
        let faces: &[FaceMesh] = bytemuck::cast_slice(&faces_raw);
        let quads_raw = read_buffer(device, queue, &quad_pool.quads.buffer, 0, quad_pool.bytes())?;
        let quads: &[PackedQuad] = bytemuck::cast_slice(&quads_raw);

        let mut out: Vec<GpuChunkMesh> = pool
            .slots()
            .map(|(pos, slot)| {
                let mut mesh = ChunkMesh::default();
                let mut pages: [Vec<u32>; 6] = Default::default();
                for face in Face::ALL {
                    let record = &faces[slot as usize * 6 + face as usize];
                    let stream = |i: u32| {
                        let page = record.pages[(i >> PAGE_QUADS_LOG2) as usize];
                        quads[((page << PAGE_QUADS_LOG2) + (i & ((1 << PAGE_QUADS_LOG2) - 1))) as usize]
                    };
                    let split = record.opaque;
                    mesh.opaque.quads.extend((0..split).map(stream));
                    mesh.transparent.quads.extend((split..split + record.transparent).map(stream));
                    mesh.opaque.counts[face as usize] = record.opaque;
                    mesh.transparent.counts[face as usize] = record.transparent;
                    pages[face as usize] = record.pages[..record.page_count as usize].to_vec();
                }
                GpuChunkMesh { pos, slot, mesh, pages }
            })
            .collect();
        out.sort_by_key(|m| m.pos);
        Ok(out)
    }
}

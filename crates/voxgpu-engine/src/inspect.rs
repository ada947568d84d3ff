//! The inspector: what the GPU holds, read back (every resident node's quads, pages and levels,
//! which nodes are drawn, a chunk's mip pyramid, the transparent order), and how the renderer
//! runs on its device. For `stats`, tests and debugging; each read waits for the GPU.

use std::collections::HashMap;

use super::layouts::{ChunkLinks, ChunkMeta, DrawState, FaceMesh, NodeFlags, SLOT_WORDS, level_base};
use super::profiling::FrameTimings;
use super::quad_pool::PAGE_QUADS_LOG2;
use super::readback::read_buffer;
use super::{Capabilities, DrawSubmission, GpuError, Renderer};
use voxgpu_core::lod::MAX_LEVEL;
use voxgpu_core::mesh::{ChunkMesh, Face, PackedQuad};
use voxgpu_core::voxel::{BlockId, CHUNK_SIZE, ChunkPos, NodeKey};

/// One node's GPU mesh and where its quads live.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GpuChunkMesh {
    /// The node: its level and position.
    pub key: NodeKey,
    /// `key`'s position (a chunk's, for level 0).
    pub pos: ChunkPos,
    /// The node's slot in the chunk pool.
    pub slot: u32,
    /// Quads grouped by face like the CPU mesher's output; within a face, in the GPU's order.
    pub mesh: ChunkMesh,
    /// Pages of each face's stream, in stream order.
    pub pages: [Vec<u32>; 6],
    /// The cells each face's quads cover, as the GPU recorded them (`FaceMesh::bounds`).
    pub bounds: [Option<[glam::UVec3; 2]>; 6],
    /// The level the quads are in (they scale by `2^level`).
    pub level: u32,
}

/// One face stream's box and its verdict bits from the last cull pass
/// ([`Inspector::occlusion_candidates`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamVerdict {
    /// The node's slot.
    pub slot: u32,
    /// The face direction (`Face` order).
    pub face: u32,
    /// The transparent stream (else the opaque one).
    pub transparent: bool,
    /// The box of the stream's quads, in world blocks: its minimum corner.
    pub low: glam::IVec3,
    /// Its maximum corner.
    pub high: glam::IVec3,
    /// `voxgpu_engine::low_level::vis` bits.
    pub bits: u32,
}

/// The shadow caster pass's inputs and lists as the last frame left them
/// ([`Inspector::shadow_casters`]): what its CPU twin ([`crate::shadow::ShadowCull::casters`])
/// needs, and what the GPU listed.
#[derive(Clone, Debug)]
pub struct ShadowCasters {
    /// The pass's uniform.
    pub cull: crate::shadow::ShadowCull,
    /// Each slot's record.
    pub records: Vec<ChunkMeta>,
    /// Each slot's six face meshes (`slot × 6 + face`).
    pub faces: Vec<FaceMesh>,
    /// Each cascade's list, as the GPU wrote it: the commands within the list's capacity, and
    /// the quads its counter summed.
    pub lists: [crate::shadow::CasterList; crate::shadow::CASCADES],
    /// Commands each cascade's counter listed (more than `lists` holds when beyond capacity).
    pub listed: [u32; crate::shadow::CASCADES],
    /// The depth pyramid the pass tested against, where its uniform names one.
    pub pyramid: Option<voxgpu_core::occlusion::DepthPyramid>,
}

/// One quad of the last cull phase's commands in a list per-quad culling reads
/// ([`Inspector::quad_cull`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ListedQuad {
    /// Its draw list.
    pub list: u32,
    /// Its index in the mega quad buffer.
    pub index: u32,
    /// The quad itself.
    pub quad: voxgpu_core::mesh::Quad,
    /// Its node's minimum corner, in blocks.
    pub origin: glam::IVec3,
    /// The level its quads are in (cells of `2^lod` blocks).
    pub lod: u32,
}

/// Per-quad culling as the last frame left it ([`Inspector::quad_cull`]): the quads of its last
/// cull phase's commands, and what per-quad culling kept of them.
#[derive(Clone, Debug)]
pub struct QuadCull {
    /// The frame culled quads one by one.
    pub used: bool,
    /// Every quad of the commands of each list it reads (all but the transparent one).
    pub listed: Vec<ListedQuad>,
    /// The quad buffer indices each list kept, by list (the transparent list's empty).
    pub kept: Vec<Vec<u32>>,
}

/// What the LOD pass decided for one node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GpuNodeState {
    /// The node: its level and position.
    pub key: NodeKey,
    /// The node is shown (`DrawState::SHOWN` of `ChunkMeta::shown`): neither replaced by its
    /// children nor covered by its parent.
    pub shown: bool,
    /// Frames left of its cross-fade between levels (0: none); a node fading out is still
    /// drawn.
    pub fade: u32,
    /// The node is nearer than where its level begins, so its children are wanted
    /// (`NodeFlags::SPLIT`).
    pub split: bool,
    /// The mip level chosen within the node ([`voxgpu_core::lod::LEVEL_UNSET`] before any frame).
    pub mip: u32,
}

/// A renderer's read-back view ([`Renderer::inspect`]).
pub struct Inspector<'a> {
    renderer: &'a Renderer,
}

impl<'a> Inspector<'a> {
    pub(crate) fn new(renderer: &'a Renderer) -> Self {
        Self { renderer }
    }

    fn parts(
        &self,
    ) -> (&'a wgpu::Device, &'a wgpu::Queue, &'a crate::chunk_pool::ChunkPool, &'a crate::quad_pool::QuadPool)
    {
        let (gpu, resident, _) = self.renderer.parts();
        (&gpu.device, &gpu.queue, &resident.pool, &resident.quads)
    }

    fn draws(&self) -> &'a crate::draw::DrawLists {
        &self.renderer.parts().2.draws
    }

    /// The device the renderer records for.
    pub fn device(&self) -> &'a wgpu::Device {
        &self.renderer.parts().0.device
    }

    /// The queue the renderer uploads through.
    pub fn queue(&self) -> &'a wgpu::Queue {
        &self.renderer.parts().0.queue
    }

    /// The optional features the renderer uses on its device.
    pub fn caps(&self) -> Capabilities {
        self.renderer.parts().0.caps
    }

    /// How draws are submitted on this device (with a GPU-side count, or a capped list).
    pub fn submission(&self) -> DrawSubmission {
        self.renderer.parts().0.submission
    }

    /// Render-pass commands (pipelines, bind groups, index buffer, multi-draws) the last frame
    /// recorded: the same for ten chunks or ten thousand.
    pub fn render_pass_commands(&self) -> u32 {
        self.renderer.render_pass_commands()
    }

    /// Bytes of every buffer that grows with the world: the voxel pool and its per-slot records,
    /// the mega quad buffer with its page table and free stack, and the draw lists.
    pub fn gpu_bytes(&self) -> u64 {
        self.renderer.gpu_bytes()
    }

    /// The newest frame whose GPU timings have arrived (a few frames old), if profiling is on.
    pub fn latest_timings(&self) -> Option<&'a FrameTimings> {
        self.renderer.latest_timings()
    }

    /// Every resident node's mesh as the GPU holds it, sorted by level, then position.
    pub fn meshes(&self) -> Result<Vec<GpuChunkMesh>, GpuError> {
        let (device, queue, pool, quad_pool) = self.parts();
        let face_bytes = size_of::<FaceMesh>() as u64;
        let faces_raw =
            read_buffer(device, queue, &pool.faces.buffer, 0, pool.slot_count() as u64 * 6 * face_bytes)?;
        let faces: &[FaceMesh] = bytemuck::cast_slice(&faces_raw);
        let quads_raw = read_buffer(device, queue, &quad_pool.quads.buffer, 0, quad_pool.bytes())?;
        let quads: &[PackedQuad] = bytemuck::cast_slice(&quads_raw);
        let meta_raw = read_buffer(
            device,
            queue,
            &pool.meta.buffer,
            0,
            pool.slot_count() as u64 * size_of::<ChunkMeta>() as u64,
        )?;
        let meta: &[ChunkMeta] = bytemuck::cast_slice(&meta_raw);

        let mut out: Vec<GpuChunkMesh> = pool
            .node_slots()
            .map(|(key, slot)| {
                let pos = ChunkPos(key.pos);
                let mut mesh = ChunkMesh::default();
                let mut pages: [Vec<u32>; 6] = Default::default();
                let mut bounds = [None; 6];
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
                    bounds[face as usize] = record.bounds();
                }
                GpuChunkMesh { key, pos, slot, mesh, pages, bounds, level: meta[slot as usize].lod }
            })
            .collect();
        out.sort_by_key(|m| m.key);
        Ok(out)
    }

    /// Every resident node's drawn, split and mip decisions, sorted by key.
    pub fn nodes(&self) -> Result<Vec<GpuNodeState>, GpuError> {
        let (device, queue, pool, _) = self.parts();
        let count = pool.slot_count() as u64;
        let meta_raw =
            read_buffer(device, queue, &pool.meta.buffer, 0, count * size_of::<ChunkMeta>() as u64)?;
        let meta: &[ChunkMeta] = bytemuck::cast_slice(&meta_raw);
        let links_raw =
            read_buffer(device, queue, &pool.links_buffer.buffer, 0, count * size_of::<ChunkLinks>() as u64)?;
        let links: &[ChunkLinks] = bytemuck::cast_slice(&links_raw);
        let mut out: Vec<GpuNodeState> = pool
            .node_slots()
            .map(|(key, slot)| {
                let m = meta[slot as usize];
                GpuNodeState {
                    key,
                    shown: m.shown & DrawState::SHOWN != 0,
                    fade: (m.shown >> DrawState::FADE_LEFT_SHIFT) & 0xff,
                    split: m.flags & NodeFlags::SPLIT != 0,
                    mip: links[slot as usize].lod,
                }
            })
            .collect();
        out.sort_by_key(|n| n.key);
        Ok(out)
    }

    /// The level the LOD pass chose for every resident chunk, sorted by position.
    pub fn levels(&self) -> Result<Vec<(ChunkPos, u32)>, GpuError> {
        let (device, queue, pool, _) = self.parts();
        let bytes = pool.slot_count() as u64 * size_of::<ChunkLinks>() as u64;
        let raw = read_buffer(device, queue, &pool.links_buffer.buffer, 0, bytes)?;
        let links: &[ChunkLinks] = bytemuck::cast_slice(&raw);
        let mut out: Vec<(ChunkPos, u32)> =
            pool.slots().map(|(pos, slot)| (pos, links[slot as usize].lod)).collect();
        out.sort_by_key(|l| l.0);
        Ok(out)
    }

    /// Levels 1..=5 of the chunk at `pos` as the GPU built them (`None` when not resident), each
    /// `(32 >> level)³` ids, x fastest.
    pub fn mips(&self, pos: ChunkPos) -> Result<Option<Vec<Vec<BlockId>>>, GpuError> {
        let (device, queue, pool, _) = self.parts();
        let Some(slot) = pool.slots().find(|s| s.0 == pos).map(|s| s.1) else { return Ok(None) };
        let start = level_base(1) / 2;
        let end = level_base(MAX_LEVEL + 1).div_ceil(2);
        let offset = (slot as u64 * SLOT_WORDS as u64 + start as u64) * 4;
        let raw = read_buffer(device, queue, &pool.voxels.buffer, offset, (end - start) as u64 * 4)?;
        let ids: &[BlockId] = bytemuck::cast_slice(&raw);
        let levels = (1..=MAX_LEVEL)
            .map(|level| {
                let first = (level_base(level) - level_base(1)) as usize;
                let size = CHUNK_SIZE >> level;
                ids[first..first + size * size * size].to_vec()
            })
            .collect();
        Ok(Some(levels))
    }

    /// Every resident node's light as the GPU holds it, every level
    /// ([`voxgpu_core::light::NodeLight`], to compare with `voxgpu_core::light::light_nodes`).
    pub fn light(&self) -> Result<HashMap<NodeKey, voxgpu_core::light::NodeLight>, GpuError> {
        let (device, queue, pool, _) = self.parts();
        let words = crate::layouts::LIGHT_WORDS as u64;
        let raw = read_buffer(device, queue, &pool.light.buffer, 0, pool.slot_count() as u64 * words * 4)?;
        let per_slot = words as usize * 4;
        Ok(pool
            .node_slots()
            .map(|(key, slot)| {
                let start = slot as usize * per_slot;
                (key, voxgpu_core::light::NodeLight::from_bytes(&raw[start..start + per_slot]))
            })
            .collect())
    }

    /// The last frame's transparent draw list in the order it is drawn: each entry's key
    /// ([`voxgpu_core::cull::transparent_sort_key`]: ascending is back to front) and node (equal
    /// keys in [`voxgpu_core::cull::transparent_tie_order`]).
    pub fn transparent_order(&self) -> Result<Vec<(u32, NodeKey)>, GpuError> {
        use crate::draw::{SORT_SORTED_REGION, SORT_SORTED_SLOTS_REGION};
        let (device, queue, pool, _) = self.parts();
        let raw = read_buffer(device, queue, &self.draws().counts, 4, 4)?;
        let capacity = self.draws().capacity as u64;
        let count = (bytemuck::cast_slice::<u8, u32>(&raw)[0] as u64).min(capacity);
        if count == 0 {
            return Ok(Vec::new());
        }
        let keys = read_buffer(
            device,
            queue,
            &self.draws().sort_keys,
            SORT_SORTED_REGION * capacity * 4,
            count * 4,
        )?;
        let slots = read_buffer(
            device,
            queue,
            &self.draws().sort_keys,
            SORT_SORTED_SLOTS_REGION * capacity * 4,
            count * 4,
        )?;
        let node_of: HashMap<u32, NodeKey> = pool.node_slots().map(|(key, slot)| (slot, key)).collect();
        let keys: &[u32] = bytemuck::cast_slice(&keys);
        let slots: &[u32] = bytemuck::cast_slice(&slots);
        keys.iter()
            .zip(slots)
            .map(|(&key, slot)| {
                let node = node_of.get(slot).copied().ok_or_else(|| {
                    GpuError::Readback(format!(
                        "sorted transparent entry of slot {slot}, which holds no node"
                    ))
                })?;
                Ok((key, node))
            })
            .collect()
    }

    /// The chunks the last frame's cull pass found visible (with quads, in the frustum), sorted.
    pub fn visible(&self) -> Result<Vec<ChunkPos>, GpuError> {
        let words = self.visibility_words()?;
        let per_slot = crate::draw::VISIBLE_WORDS_PER_SLOT as usize;
        let (_, _, pool, _) = self.parts();
        let mut out: Vec<ChunkPos> = pool
            .slots()
            .filter(|&(_, slot)| words[slot as usize * per_slot] & crate::draw::vis::IN_VIEW != 0)
            .map(|s| s.0)
            .collect();
        out.sort();
        Ok(out)
    }

    fn visibility_words(&self) -> Result<Vec<u32>, GpuError> {
        let (device, queue, pool, _) = self.parts();
        let words = (pool.slot_count() * crate::draw::VISIBLE_WORDS_PER_SLOT) as u64;
        let raw = read_buffer(device, queue, &self.draws().visible, 0, words * 4)?;
        Ok(bytemuck::cast_slice(&raw).to_vec())
    }

    /// Every slot's record and its six face meshes (`slot × 6 + face`), as the pool holds them.
    fn records_and_faces(&self) -> Result<(Vec<ChunkMeta>, Vec<FaceMesh>), GpuError> {
        let (device, queue, pool, _) = self.parts();
        let count = pool.slot_count() as u64;
        let records =
            read_buffer(device, queue, &pool.meta.buffer, 0, count * size_of::<ChunkMeta>() as u64)?;
        let faces =
            read_buffer(device, queue, &pool.faces.buffer, 0, count * 6 * size_of::<FaceMesh>() as u64)?;
        Ok((bytemuck::pod_collect_to_vec(&records), bytemuck::pod_collect_to_vec(&faces)))
    }

    /// The last cull pass's face streams that were candidates (drawn, in view, facing the eye,
    /// with quads): each one's box in blocks and its verdict bits, in slot order.
    pub fn occlusion_candidates(&self) -> Result<Vec<StreamVerdict>, GpuError> {
        let words = self.visibility_words()?;
        let (metas, faces) = self.records_and_faces()?;
        let mut out = Vec::new();
        for (i, &bits) in words.iter().enumerate() {
            if bits & crate::draw::vis::CANDIDATE == 0 {
                continue;
            }
            let (slot, face, kind) = (i / 12, (i % 12) / 2, (i % 2) as u32);
            let meta = &metas[slot];
            let Some([low, high]) = faces[slot * 6 + face].bounds() else {
                return Err(GpuError::Readback(format!("candidate stream of slot {slot} has no quads")));
            };
            let origin = glam::IVec3::from_array(meta.origin);
            let cell = 1i32 << meta.lod;
            out.push(StreamVerdict {
                slot: slot as u32,
                face: face as u32,
                transparent: kind == 1,
                low: origin + low.as_ivec3() * cell,
                high: origin + (high.as_ivec3() + 1) * cell,
                bits,
            });
        }
        Ok(out)
    }

    /// The shadow caster pass's uniform and lists as the last frame that drew shadows left them,
    /// with the pool's records and face meshes as they are now (the same, right after a frame).
    pub fn shadow_casters(&self) -> Result<ShadowCasters, GpuError> {
        use crate::shadow::{CASCADES, COUNT_WORDS_PER_CASCADE, CasterCommand, CasterList, ShadowCull};
        let (device, queue, _, _) = self.parts();
        let shadow = &self.renderer.parts().2.shadow;
        let (records, faces) = self.records_and_faces()?;
        let cull: ShadowCull = bytemuck::pod_read_unaligned(&read_buffer(
            device,
            queue,
            &shadow.uniform,
            0,
            size_of::<ShadowCull>() as u64,
        )?);
        let counts_raw = read_buffer(device, queue, &shadow.counts, 0, shadow.counts.size())?;
        let counts: &[u32] = bytemuck::cast_slice(&counts_raw);
        let args_raw = read_buffer(device, queue, &shadow.args, 0, shadow.args.size())?;
        let args: &[wgpu::util::DrawIndexedIndirectArgs] = bytemuck::cast_slice(&args_raw);
        let mut lists: [CasterList; CASCADES] = Default::default();
        let mut listed = [0; CASCADES];
        for (cascade, list) in lists.iter_mut().enumerate() {
            let words = &counts[cascade * COUNT_WORDS_PER_CASCADE as usize..];
            listed[cascade] = words[1];
            list.quads = words[5];
            let region = &args[cascade * shadow.capacity as usize..][..shadow.capacity as usize];
            list.commands = region[..(words[1] as usize).min(region.len())]
                .iter()
                .map(|a| CasterCommand { index_count: a.index_count, base_vertex: a.base_vertex })
                .collect();
        }
        let pyramid = if cull.pyramid.levels > 0 { Some(self.pyramid()?) } else { None };
        Ok(ShadowCasters { cull, records, faces, lists, listed, pyramid })
    }

    /// The depth pyramid's texels as the GPU built them last (levels end to end,
    /// `voxgpu_core::occlusion` describes the layout), with the frame size it was built for.
    pub fn pyramid(&self) -> Result<voxgpu_core::occlusion::DepthPyramid, GpuError> {
        let (device, queue, _, _) = self.parts();
        let pyramid = &self.renderer.parts().2.pyramid;
        let raw = read_buffer(device, queue, &pyramid.buffer, 0, pyramid.buffer.size())?;
        let (width, height) = pyramid.frame;
        Ok(voxgpu_core::occlusion::DepthPyramid {
            width,
            height,
            texels: bytemuck::cast_slice(&raw).to_vec(),
        })
    }

    /// The last frame's per-quad culling: the quads of its last cull phase's commands (the
    /// second with two phases) and the quads each list kept of them.
    pub fn quad_cull(&self) -> Result<QuadCull, GpuError> {
        let (device, queue, _, quad_pool) = self.parts();
        let draws = self.draws();
        let words = |buffer, bytes: u64| -> Result<Vec<u32>, GpuError> {
            Ok(bytemuck::pod_collect_to_vec(&read_buffer(device, queue, buffer, 0, bytes)?))
        };
        let counts = words(&draws.counts, 4 * crate::draw::COUNT_WORDS)?;
        let args = words(&draws.args, draws.args.size())?;
        let quads = words(&quad_pool.quads.buffer, quad_pool.quads.buffer.size())?;
        let owners = words(&quad_pool.page_owner.buffer, quad_pool.page_owner.buffer.size())?;
        let (records, _) = self.records_and_faces()?;
        let capacity = draws.capacity as usize;
        let mut listed = Vec::new();
        for list in (0..crate::draw::LISTS as u32).filter(|&l| l != 1) {
            let region = (list + u32::from(list >= 2)) as usize;
            for command in 0..(counts[list as usize] as usize).min(capacity) {
                let at = 5 * (region * capacity + command);
                let (count, first) = (args[at] / 6, args[at + 3] / 4);
                for index in first..first + count {
                    let slot = owners[(index >> PAGE_QUADS_LOG2) as usize] as usize;
                    let record = records.get(slot).ok_or_else(|| {
                        GpuError::Readback(format!("quad {index} of list {list} names slot {slot}"))
                    })?;
                    let i = 2 * index as usize;
                    let quad = PackedQuad([quads[i], quads[i + 1]]).unpack();
                    listed.push(ListedQuad {
                        list,
                        index,
                        quad,
                        origin: glam::IVec3::from_array(record.origin),
                        lod: record.lod,
                    });
                }
            }
        }
        let kept = draws.quad_lists.read_kept(device, queue, &counts)?;
        Ok(QuadCull { used: draws.per_quad, listed, kept })
    }

    /// The last frame's first-phase depth, captured with `Tools::set_depth_capture`: rows of x,
    /// `width × height` reverse-Z values.
    pub fn first_phase_depth(&self) -> Result<(u32, u32, Vec<f32>), GpuError> {
        let (device, queue, _, _) = self.parts();
        let pyramid = &self.renderer.parts().2.pyramid;
        let capture = pyramid.captured().ok_or_else(|| {
            GpuError::Readback("no depth capture: turn it on with Tools::set_depth_capture".into())
        })?;
        let raw = read_buffer(device, queue, capture, 0, capture.size())?;
        let (width, height) = pyramid.frame;
        Ok((width, height, bytemuck::cast_slice(&raw).to_vec()))
    }
}

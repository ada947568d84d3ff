//! GPU-side counters read back a frame or two late, never stalling the frame: the mesher's job
//! count, the page allocator's state, the draw lists' sizes, the LOD histogram and the shadow
//! casters' quads.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use super::GpuError;

/// What the GPU counted during one frame.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GpuCounters {
    /// Face jobs the collect pass asked for (6 per dirty or evicted chunk), before the budget.
    pub jobs_asked: u32,
    /// Pages on the free stack after meshing.
    pub free_pages: u32,
    /// Pages the mesher asked for and was refused, summed since creation.
    pub failed_pages: u32,
    /// Draw commands the second (or only) phase wrote to each list (opaque, transparent, the
    /// opaque faces of cross-fading nodes, occluded streams for the debug view, the farther
    /// opaque bands).
    pub draw_commands: [u32; super::draw::LISTS],
    /// Quads the frame's commands draw (the same lists, both phases).
    pub quads: [u32; super::draw::LISTS],
    /// Of those quads, how many are LOD skirts.
    pub skirt_quads: u32,
    /// Slots with quads, each tested by the cull pass.
    pub chunks_tested: u32,
    /// Of those, the slots the cull pass found in view: drawn by the LOD pass and, with frustum
    /// culling on, inside the frustum.
    pub chunks_visible: u32,
    /// Face streams left by the frustum and face-direction tests.
    pub candidates: u32,
    /// Of those, drawn by the first phase.
    pub drawn_first: u32,
    /// Drawn by the second (or only) phase.
    pub drawn_second: u32,
    /// Culled by occlusion.
    pub occluded: u32,
    /// Commands the first phase wrote.
    pub first_phase_commands: u32,
    /// Drawn nodes per absolute level of detail, as the LOD pass chose them.
    pub lod_levels: [u32; voxgpu_core::lod::LEVELS],
    /// Nodes cross-fading between levels after the LOD pass (fading in or out).
    pub fading_nodes: u32,
    /// Quads each shadow cascade's caster list draws; zero in a frame without shadows.
    pub shadow_quads: [u32; crate::shadow::CASCADES],
    /// Quads per-quad culling kept in each list, both phases (zero in the transparent list, and
    /// in every list in a frame without per-quad culling).
    pub quads_kept: [u32; super::draw::LISTS],
    /// 1 when the frame culled quads one by one.
    pub quads_culled_one_by_one: u32,
}

/// The buffers the counters are copied from: the work list's asked-for count (word 3), the
/// allocator header's first two words, the cull pass's count words, the LOD pass's per-level
/// and fading counts, in a frame that draws shadows each cascade's quad count, and the quads
/// per-quad culling kept, in [`GpuCounters`] order.
pub struct CounterSources<'a> {
    pub work: &'a wgpu::Buffer,
    pub allocator: &'a wgpu::Buffer,
    pub draw_counts: &'a wgpu::Buffer,
    pub lod_counts: &'a wgpu::Buffer,
    /// The shadow pass's counts ([`crate::shadow::COUNT_WORDS_PER_CASCADE`] words per cascade,
    /// the last its quads); `None` in a frame without shadows.
    pub shadow_counts: Option<&'a wgpu::Buffer>,
    /// Per-quad culling's kept counts: the buffer, their offset and length in bytes.
    pub quads_kept: (&'a wgpu::Buffer, u64, u64),
}

const BYTES: u64 = size_of::<GpuCounters>() as u64;
const SHADOW_OFFSET: u64 = 12 + 4 * super::draw::COUNT_WORDS + super::lod::LOD_COUNT_BYTES;
const KEPT_OFFSET: u64 = SHADOW_OFFSET + 4 * crate::shadow::CASCADES as u64;
const _: () = assert!(
    BYTES == KEPT_OFFSET + 4 * (super::draw::LISTS as u64 + 1),
    "GpuCounters is the copies laid end to end"
);
const IDLE: u8 = 0;
const PENDING: u8 = 1;
const MAPPED: u8 = 2;

struct Staging {
    buffer: wgpu::Buffer,
    state: Arc<AtomicU8>,
    /// The frame whose counters it holds.
    frame: u64,
}

/// A small ring of staging buffers: each frame copies the counters into an idle one and maps it;
/// `poll` returns the newest one that has arrived.
pub struct CounterReadback {
    ring: Vec<Staging>,
    next: usize,
    pub latest: GpuCounters,
    /// The frame `latest` came from.
    pub latest_frame: u64,
}

fn staging(device: &wgpu::Device) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("voxgpu.counters.readback"),
        size: BYTES,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

fn copy_all(encoder: &mut wgpu::CommandEncoder, s: &CounterSources, target: &wgpu::Buffer) {
    encoder.copy_buffer_to_buffer(s.work, 12, target, 0, 4);
    encoder.copy_buffer_to_buffer(s.allocator, 0, target, 4, 8);
    encoder.copy_buffer_to_buffer(s.draw_counts, 0, target, 12, 4 * super::draw::COUNT_WORDS);
    let lod_offset = 12 + 4 * super::draw::COUNT_WORDS;
    encoder.copy_buffer_to_buffer(s.lod_counts, 0, target, lod_offset, super::lod::LOD_COUNT_BYTES);
    // The staging buffers are reused, so a frame without shadows writes its zeros.
    match s.shadow_counts {
        Some(counts) => {
            let words = u64::from(crate::shadow::COUNT_WORDS_PER_CASCADE);
            for cascade in 0..crate::shadow::CASCADES as u64 {
                let quads = 4 * (words * cascade + words - 1);
                encoder.copy_buffer_to_buffer(counts, quads, target, SHADOW_OFFSET + 4 * cascade, 4);
            }
        }
        None => encoder.clear_buffer(target, SHADOW_OFFSET, Some(4 * crate::shadow::CASCADES as u64)),
    }
    let (kept, offset, bytes) = s.quads_kept;
    encoder.copy_buffer_to_buffer(kept, offset, target, KEPT_OFFSET, bytes);
}

impl CounterReadback {
    pub fn new(device: &wgpu::Device) -> Self {
        let ring = (0..3)
            .map(|_| Staging { buffer: staging(device), state: Arc::new(AtomicU8::new(IDLE)), frame: 0 })
            .collect();
        Self { ring, next: 0, latest: GpuCounters::default(), latest_frame: 0 }
    }

    /// Copies the counters of frame `frame` into an idle staging buffer, if one is free. Returns
    /// the index to pass to [`CounterReadback::request`] after submitting.
    pub fn copy(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        sources: &CounterSources,
        frame: u64,
    ) -> Option<usize> {
        let index = self.next;
        if self.ring[index].state.load(Ordering::Acquire) != IDLE {
            return None;
        }
        copy_all(encoder, sources, &self.ring[index].buffer);
        self.ring[index].frame = frame;
        self.next = (self.next + 1) % self.ring.len();
        Some(index)
    }

    /// Asks for the staging buffer to be mapped once the GPU is done with it.
    pub fn request(&self, index: usize) {
        let state = Arc::clone(&self.ring[index].state);
        state.store(PENDING, Ordering::Release);
        self.ring[index].buffer.map_async(wgpu::MapMode::Read, .., move |result| {
            state.store(if result.is_ok() { MAPPED } else { IDLE }, Ordering::Release);
        });
    }

    /// Takes every counter set that has arrived, without waiting; returns whether one did.
    pub fn poll(&mut self, device: &wgpu::Device) -> bool {
        let _ = device.poll(wgpu::PollType::Poll);
        let mut arrived = false;
        // Oldest first, so `latest` ends as the newest.
        for k in 0..self.ring.len() {
            let staging = &self.ring[(self.next + k) % self.ring.len()];
            if staging.state.load(Ordering::Acquire) != MAPPED {
                continue;
            }
            if let Ok(view) = staging.buffer.get_mapped_range(..) {
                self.latest = *bytemuck::from_bytes(&view);
                self.latest_frame = staging.frame;
                arrived = true;
            }
            staging.buffer.unmap();
            staging.state.store(IDLE, Ordering::Release);
        }
        arrived
    }
}

/// Reads the counters now, waiting for the GPU. For settling and tests, not the frame loop.
pub fn read_now(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    sources: &CounterSources,
) -> Result<GpuCounters, GpuError> {
    let buffer = staging(device);
    let mut encoder =
        device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("voxgpu.counters") });
    copy_all(&mut encoder, sources, &buffer);
    queue.submit([encoder.finish()]);
    let bytes = super::readback::map_blocking(device, &buffer)?;
    Ok(*bytemuck::from_bytes(&bytes))
}

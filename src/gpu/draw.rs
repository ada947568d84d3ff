//! Indirect draw lists: the commands that draw runs of the mega quad buffer, and how they are
//! submitted.
//!
//! A command covers quads of one chunk, one face direction and one run of consecutive pages, so
//! culling can later drop a chunk's faces that point away from the camera by dropping commands.

use std::ops::Range;

use wgpu::util::DrawIndexedIndirectArgs;

use super::quad_pool::{PAGE_QUADS, PAGE_QUADS_LOG2};

/// The most quads one command draws; the static index buffer holds `6 × MAX_DRAW_QUADS` indices.
pub const MAX_DRAW_QUADS: u32 = 16384;

/// How the draw lists are submitted, chosen once from the adapter's features.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DrawSubmission {
    /// `multi_draw_indexed_indirect_count`: the count lives in a GPU buffer.
    IndirectCount,
    /// `multi_draw_indexed_indirect` with the count passed by the CPU (GL has no indirect count).
    CappedIndirect,
}

impl DrawSubmission {
    pub fn for_caps(caps: super::Capabilities) -> Self {
        if caps.multi_draw_indirect_count { Self::IndirectCount } else { Self::CappedIndirect }
    }
}

/// Appends the commands drawing quads `range` of a chunk's quad stream, which is laid out over
/// `pages` in order.
pub fn push_commands(out: &mut Vec<DrawIndexedIndirectArgs>, pages: &[u32], range: Range<u32>) {
    let global =
        |i: u32| (pages[(i >> PAGE_QUADS_LOG2) as usize] << PAGE_QUADS_LOG2) + (i & (PAGE_QUADS - 1));
    let mut i = range.start;
    while i < range.end {
        let first = global(i);
        let mut count = 1;
        while i + count < range.end && count < MAX_DRAW_QUADS && global(i + count) == first + count {
            count += 1;
        }
        out.push(DrawIndexedIndirectArgs {
            index_count: count * 6,
            instance_count: 1,
            first_index: 0,
            base_vertex: (first * 4) as i32,
            first_instance: 0,
        });
        i += count;
    }
}

/// The static index buffer: quad `q` of a command is two triangles over vertices `4q..4q + 4`.
pub fn quad_indices() -> Vec<u32> {
    (0..MAX_DRAW_QUADS).flat_map(|q| [0, 1, 2, 0, 2, 3].map(|c| 4 * q + c)).collect()
}

/// A GPU command list plus its count, grown as needed.
pub struct DrawList {
    label: &'static str,
    pub args: wgpu::Buffer,
    pub count: wgpu::Buffer,
    capacity: u32,
    pub len: u32,
}

const ARGS_BYTES: u64 = std::mem::size_of::<DrawIndexedIndirectArgs>() as u64;

impl DrawList {
    pub fn new(device: &wgpu::Device, label: &'static str) -> Self {
        let count = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(&format!("{label}.count")),
            size: 4,
            usage: wgpu::BufferUsages::INDIRECT | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        Self { label, args: Self::args_buffer(device, label, 64), count, capacity: 64, len: 0 }
    }

    fn args_buffer(device: &wgpu::Device, label: &str, capacity: u32) -> wgpu::Buffer {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: capacity as u64 * ARGS_BYTES,
            usage: wgpu::BufferUsages::INDIRECT | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        })
    }

    /// Replaces the commands. Only called when the set of meshes changed, never per frame.
    pub fn upload(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        commands: &[DrawIndexedIndirectArgs],
    ) {
        let len = commands.len() as u32;
        if len > self.capacity {
            self.capacity = len.next_power_of_two();
            self.args = Self::args_buffer(device, self.label, self.capacity);
        }
        if !commands.is_empty() {
            let bytes: Vec<u8> = commands.iter().flat_map(|c| c.as_bytes().to_vec()).collect();
            queue.write_buffer(&self.args, 0, &bytes);
        }
        queue.write_buffer(&self.count, 0, bytemuck::bytes_of(&len));
        self.len = len;
    }

    /// Records the draws. Exactly one command whatever the number of chunks.
    pub fn draw(&self, pass: &mut wgpu::RenderPass<'_>, submission: DrawSubmission) {
        if self.len == 0 {
            return;
        }
        match submission {
            DrawSubmission::IndirectCount => {
                pass.multi_draw_indexed_indirect_count(&self.args, 0, &self.count, 0, self.len)
            }
            DrawSubmission::CappedIndirect => pass.multi_draw_indexed_indirect(&self.args, 0, self.len),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_split_at_page_discontinuities_and_cover_the_range_once() {
        let pages = [4, 5, 9, 2];
        let mut out = Vec::new();
        push_commands(&mut out, &pages, 100..(3 * PAGE_QUADS + 10));
        let firsts: Vec<(i32, u32)> = out.iter().map(|c| (c.base_vertex / 4, c.index_count / 6)).collect();
        let p = PAGE_QUADS as i32;
        assert_eq!(firsts, vec![(4 * p + 100, 2 * PAGE_QUADS - 100), (9 * p, PAGE_QUADS), (2 * p, 10)]);
    }

    #[test]
    fn a_command_never_exceeds_the_index_buffer() {
        let pages: Vec<u32> = (0..(3 * MAX_DRAW_QUADS / PAGE_QUADS)).collect();
        let mut out = Vec::new();
        push_commands(&mut out, &pages, 0..3 * MAX_DRAW_QUADS);
        assert_eq!(out.len(), 3);
        assert!(out.iter().all(|c| c.index_count == 6 * MAX_DRAW_QUADS));
    }
}

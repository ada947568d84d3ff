//! Structs that both Rust and WGSL read. Each has one definition here and one in
//! `shaders/common.wgsl`; `tests/shaders.rs` reflects the WGSL with naga and checks every
//! member offset and the total size against these.

use glam::{Mat4, Vec3};

/// Per-chunk record in the chunk metadata buffer, indexed by chunk slot. Read by the vertex
/// shader (through the page table) to place a chunk's quads.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct ChunkMeta {
    /// World block coordinates of the chunk's minimum corner (`ChunkPos::origin`).
    pub origin: [i32; 3],
    /// Level of detail; quad coordinates scale by `2^lod`.
    pub lod: u32,
}

/// The camera uniform (group 0, binding 0 of the draw shader). Laid out by `encase`, so no
/// hand-written padding.
#[derive(Clone, Copy, Debug, PartialEq, encase::ShaderType)]
pub struct CameraUniform {
    pub view_proj: Mat4,
    pub eye: Vec3,
    /// Distance in blocks where fog starts and where it reaches the sky colour.
    pub fog_start: f32,
    /// Linear RGB of the sky, which the fog fades to.
    pub sky_color: Vec3,
    pub fog_end: f32,
}

impl CameraUniform {
    /// Bytes in the uniform buffer's layout.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut buffer = encase::UniformBuffer::new(Vec::new());
        buffer.write(self).expect("writing into a Vec cannot fail");
        buffer.into_inner()
    }
}

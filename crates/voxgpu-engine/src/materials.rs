//! What the draw shader shades with: per block id its colour and face tiles, the texture atlas,
//! and each tile's average colour.

use wgpu::util::DeviceExt;

use voxgpu_core::voxel::{Atlas, BlockRegistry};

pub struct Materials {
    /// Per block id (all 65536, so no id reads out of bounds): RGBA8 colour, then the packed
    /// [`voxgpu_core::voxel::FaceTiles`] (bits 0..24) and the block's emission (24..28).
    pub blocks: wgpu::Buffer,
    pub atlas: wgpu::TextureView,
    /// Per tile: its mean colour as RGBA8 ([`Atlas::averages`]).
    pub tile_averages: wgpu::Buffer,
}

impl Materials {
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue, registry: &BlockRegistry) -> Self {
        let mut blocks = vec![[0u32; 2]; 1 << 16];
        for (id, info) in registry.iter() {
            let emission = (info.emission.min(voxgpu_core::light::MAX_LIGHT) as u32) << 24;
            blocks[id.0 as usize] = [u32::from_le_bytes(info.color), info.tiles.packed() | emission];
        }
        let atlas = Atlas::builtin();
        let averages: Vec<u32> = atlas.averages().into_iter().map(u32::from_le_bytes).collect();
        let texture = device.create_texture_with_data(
            queue,
            &wgpu::TextureDescriptor {
                label: Some("voxgpu.atlas"),
                size: wgpu::Extent3d {
                    width: Atlas::width(),
                    height: Atlas::height(),
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: wgpu::TextureFormat::Rgba8UnormSrgb,
                usage: wgpu::TextureUsages::TEXTURE_BINDING,
                view_formats: &[],
            },
            wgpu::util::TextureDataOrder::LayerMajor,
            &atlas.rgba,
        );
        let storage = |label, contents: &[u8]| {
            crate::buffers::buffer_with(device, queue, label, contents, wgpu::BufferUsages::STORAGE)
        };
        Self {
            blocks: storage("voxgpu.blocks", bytemuck::cast_slice(&blocks)),
            atlas: texture.create_view(&Default::default()),
            tile_averages: storage("voxgpu.tile_averages", bytemuck::cast_slice(&averages)),
        }
    }
}

//! The chunk draw pipelines and their bind group layout, declared explicitly like a C header.

use std::num::NonZeroU64;

use super::layouts::{CameraUniform, ChunkMeta};
use super::shaders::{CHUNK_DRAW, shader_source};

pub const COLOR_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;
pub const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

fn storage(binding: u32, min_size: u64) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only: true },
            has_dynamic_offset: false,
            min_binding_size: NonZeroU64::new(min_size),
        },
        count: None,
    }
}

/// Group 0 of `chunk_draw.wgsl`: camera, quads, page owners, chunk records, block colours.
pub fn draw_bind_group_layout(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    use encase::ShaderType;
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("voxgpu.draw.bind_group_layout"),
        entries: &[
            wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: Some(CameraUniform::min_size()),
                },
                count: None,
            },
            storage(1, crate::mesh::QUAD_BYTES as u64),
            storage(2, 4),
            storage(3, std::mem::size_of::<ChunkMeta>() as u64),
            storage(4, 4),
        ],
    })
}

/// Opaque and transparent variants of the chunk draw pipeline.
pub struct DrawPipelines {
    pub opaque: wgpu::RenderPipeline,
    pub transparent: wgpu::RenderPipeline,
}

impl DrawPipelines {
    pub fn new(device: &wgpu::Device, layout: &wgpu::BindGroupLayout) -> Self {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("voxgpu.chunk_draw"),
            source: wgpu::ShaderSource::Wgsl(shader_source(CHUNK_DRAW).into()),
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("voxgpu.draw.pipeline_layout"),
            bind_group_layouts: &[Some(layout)],
            immediate_size: 0,
        });
        let make = |label: &str, fragment: &str, blend: Option<wgpu::BlendState>, depth_write: bool| {
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(label),
                layout: Some(&pipeline_layout),
                vertex: wgpu::VertexState {
                    module: &module,
                    entry_point: Some("vs_main"),
                    compilation_options: Default::default(),
                    buffers: &[],
                },
                primitive: wgpu::PrimitiveState { cull_mode: Some(wgpu::Face::Back), ..Default::default() },
                depth_stencil: Some(wgpu::DepthStencilState {
                    format: DEPTH_FORMAT,
                    depth_write_enabled: Some(depth_write),
                    // Reverse-Z: nearer is greater.
                    depth_compare: Some(wgpu::CompareFunction::Greater),
                    stencil: Default::default(),
                    bias: Default::default(),
                }),
                multisample: Default::default(),
                fragment: Some(wgpu::FragmentState {
                    module: &module,
                    entry_point: Some(fragment),
                    compilation_options: Default::default(),
                    targets: &[Some(wgpu::ColorTargetState {
                        format: COLOR_FORMAT,
                        blend,
                        write_mask: wgpu::ColorWrites::ALL,
                    })],
                }),
                multiview_mask: None,
                cache: None,
            })
        };
        Self {
            opaque: make("voxgpu.draw.opaque", "fs_opaque", None, true),
            transparent: make(
                "voxgpu.draw.transparent",
                "fs_transparent",
                Some(wgpu::BlendState::ALPHA_BLENDING),
                false,
            ),
        }
    }
}

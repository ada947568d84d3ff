//! A game's own geometry: one shaded cube, drawn after voxgpu into the same colour and depth
//! targets and depth-tested against the voxels. voxgpu's depth is reverse-Z with an infinite far
//! plane (`Depth32Float`, 1 near, 0 at infinity), so the cube uses the same view-projection
//! matrix ([`Camera::view_proj_from`] at the camera's anchor) and passes where its depth is
//! `GreaterEqual` to what is there.

use glam::{Mat4, Vec3};
use voxgpu_core::camera::Camera;
use wgpu::util::DeviceExt;

const SHADER: &str = r#"
struct Cube { view_proj: mat4x4<f32>, centre_half: vec4<f32>, color: vec4<f32> }
@group(0) @binding(0) var<uniform> cube: Cube;

struct Out { @builtin(position) position: vec4<f32>, @location(0) shade: f32 }

// 36 vertices: six faces of two triangles, each face's corners from its axis and sign.
@vertex
fn vs(@builtin(vertex_index) i: u32) -> Out {
    let face = i / 6u;
    let corner = array<vec2<f32>, 6>(vec2(-1.0, -1.0), vec2(1.0, -1.0), vec2(1.0, 1.0),
                                     vec2(-1.0, -1.0), vec2(1.0, 1.0), vec2(-1.0, 1.0))[i % 6u];
    let axis = face / 2u;
    let sign = select(-1.0, 1.0, face % 2u == 0u);
    var p = vec3<f32>(0.0);
    p[axis] = sign;
    p[(axis + 1u) % 3u] = corner.x * sign;
    p[(axis + 2u) % 3u] = corner.y;
    var out: Out;
    out.position = cube.view_proj * vec4<f32>(cube.centre_half.xyz + p * cube.centre_half.w, 1.0);
    out.shade = array<f32, 3>(0.8, 1.0, 0.65)[axis];
    return out;
}

@fragment
fn fs(in: Out) -> @location(0) vec4<f32> {
    return vec4<f32>(cube.color.rgb * in.shade, 1.0);
}
"#;

/// The cube's pipeline and uniform.
pub struct PlayerCube {
    pipeline: wgpu::RenderPipeline,
    uniform: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
}

impl PlayerCube {
    /// A cube pipeline for colour targets of `color_format` and voxgpu's depth format.
    pub fn new(device: &wgpu::Device, color_format: wgpu::TextureFormat) -> Self {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("player_cube"),
            source: wgpu::ShaderSource::Wgsl(SHADER.into()),
        });
        let uniform = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("player_cube.uniform"),
            contents: &[0u8; 96],
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        });
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("player_cube"),
            layout: None,
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("vs"),
                compilation_options: Default::default(),
                buffers: &[],
            },
            primitive: wgpu::PrimitiveState::default(),
            depth_stencil: Some(wgpu::DepthStencilState {
                format: voxgpu_engine::DEPTH_FORMAT,
                depth_write_enabled: Some(true),
                depth_compare: Some(wgpu::CompareFunction::GreaterEqual),
                stencil: Default::default(),
                bias: Default::default(),
            }),
            multisample: Default::default(),
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some("fs"),
                compilation_options: Default::default(),
                targets: &[Some(color_format.into())],
            }),
            multiview_mask: None,
            cache: None,
        });
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("player_cube"),
            layout: &pipeline.get_bind_group_layout(0),
            entries: &[wgpu::BindGroupEntry { binding: 0, resource: uniform.as_entire_binding() }],
        });
        Self { pipeline, uniform, bind_group }
    }

    /// Places the cube (centre and half-size in blocks, linear RGB colour) as seen by `camera` in
    /// a frame of `aspect` width over height.
    pub fn prepare(
        &self,
        queue: &wgpu::Queue,
        camera: &Camera,
        aspect: f32,
        centre: Vec3,
        half: f32,
        color: Vec3,
    ) {
        // The renderer's own matrix, over positions measured from the eye's block, so the cube's
        // depth matches voxgpu's wherever the camera is.
        let anchor = camera.anchor();
        let view_proj: Mat4 = camera.view_proj_from(aspect, anchor);
        let centre = (centre.as_dvec3() - anchor.as_dvec3()).as_vec3();
        let mut bytes = Vec::with_capacity(96);
        bytes.extend_from_slice(bytemuck::bytes_of(&view_proj.to_cols_array()));
        bytes.extend_from_slice(bytemuck::bytes_of(&[centre.x, centre.y, centre.z, half]));
        bytes.extend_from_slice(bytemuck::bytes_of(&[color.x, color.y, color.z, 1.0f32]));
        queue.write_buffer(&self.uniform, 0, &bytes);
    }

    /// Draws the cube over what the targets hold (after voxgpu's `record`).
    pub fn draw(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        color: &wgpu::TextureView,
        depth: &wgpu::TextureView,
    ) {
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("player_cube"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: color,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations { load: wgpu::LoadOp::Load, store: wgpu::StoreOp::Store },
            })],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: depth,
                depth_ops: Some(wgpu::Operations { load: wgpu::LoadOp::Load, store: wgpu::StoreOp::Store }),
                stencil_ops: None,
            }),
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.bind_group, &[]);
        pass.draw(0..36, 0..1);
    }
}

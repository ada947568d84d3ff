//! Each pass's bindings, declared once.
//!
//! A [`BindingTable`] lists a pass's bind group 0 as named [`Slot`]s in binding order: slot `i`
//! is `@binding(i)`, and its name is the name of the WGSL global bound there. The table builds
//! both the bind group layout ([`BindingTable::layout`]) and the bind group
//! ([`BindingTable::bind_group`]), which takes every buffer by its name from a
//! [`Resources`] map, so no list of buffers depends on its order. The engine's
//! `tests/shaders.rs` parses every shader with naga and checks each table against the shader's
//! globals: name, group, binding, access and minimum size.
//!
//! One name means one buffer in every shader: `chunks` is the per-slot record array wherever it
//! is declared, `args` the draw lists, and so on. A frame's [`Resources`] name each buffer once
//! and every pass takes what its table names.

use std::num::NonZeroU64;

use crate::shaders::ShaderFile;

/// What a slot binds, and how the shader may use it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlotKind {
    /// `var<uniform>`.
    Uniform,
    /// `var<storage, read>`.
    ReadOnly,
    /// `var<storage, read_write>`.
    ReadWrite,
    /// A 2D float texture read with `textureLoad` (not filterable, no sampler).
    Texture,
    /// A 2D unsigned-integer texture read with `textureLoad` (`texture_2d<u32>`).
    UintTexture,
    /// A 2D `rgba16float` storage texture, written only (`texture_storage_2d<rgba16float, write>`).
    WriteTexture,
    /// A write-only 2D `rgba8unorm` storage texture (`texture_storage_2d<rgba8unorm, write>`): a
    /// colour target written in compute.
    WriteColor,
    /// A 2D depth texture read through a comparison sampler (`texture_depth_2d`).
    Depth,
    /// A comparison sampler (`sampler_comparison`).
    Comparison,
}

/// One binding of a pass: the WGSL global's name, what it binds, the smallest buffer it takes
/// (bytes; 0 for a texture) and the shader stages that see it.
#[derive(Clone, Copy, Debug)]
pub struct Slot {
    /// The WGSL global bound here.
    pub name: &'static str,
    /// Uniform, storage (read or read-write) or texture.
    pub kind: SlotKind,
    /// The smallest buffer bound here, in bytes: at least what the shader's type needs (a
    /// runtime-sized array counted with one element).
    pub min_size: u64,
    /// The stages that see the binding.
    pub stages: wgpu::ShaderStages,
}

impl Slot {
    /// A compute-stage uniform buffer of at least `min_size` bytes.
    pub const fn uniform(name: &'static str, min_size: u64) -> Self {
        Self { name, kind: SlotKind::Uniform, min_size, stages: wgpu::ShaderStages::COMPUTE }
    }

    /// A compute-stage read-only storage buffer of at least `min_size` bytes.
    pub const fn read(name: &'static str, min_size: u64) -> Self {
        Self { name, kind: SlotKind::ReadOnly, min_size, stages: wgpu::ShaderStages::COMPUTE }
    }

    /// A compute-stage read-write storage buffer of at least `min_size` bytes.
    pub const fn read_write(name: &'static str, min_size: u64) -> Self {
        Self { name, kind: SlotKind::ReadWrite, min_size, stages: wgpu::ShaderStages::COMPUTE }
    }

    /// A fragment-stage 2D float texture.
    pub const fn texture(name: &'static str) -> Self {
        Self { name, kind: SlotKind::Texture, min_size: 0, stages: wgpu::ShaderStages::FRAGMENT }
    }

    /// A fragment-stage 2D unsigned-integer texture.
    pub const fn uint_texture(name: &'static str) -> Self {
        Self { name, kind: SlotKind::UintTexture, min_size: 0, stages: wgpu::ShaderStages::FRAGMENT }
    }

    /// A compute-stage 2D `rgba16float` storage texture, written only.
    pub const fn write_texture(name: &'static str) -> Self {
        Self { name, kind: SlotKind::WriteTexture, min_size: 0, stages: wgpu::ShaderStages::COMPUTE }
    }

    /// A compute-stage 2D `rgba8unorm` storage texture, written only.
    pub const fn write_color(name: &'static str) -> Self {
        Self { name, kind: SlotKind::WriteColor, min_size: 0, stages: wgpu::ShaderStages::COMPUTE }
    }

    /// A fragment-stage 2D depth texture.
    pub const fn depth(name: &'static str) -> Self {
        Self { name, kind: SlotKind::Depth, min_size: 0, stages: wgpu::ShaderStages::FRAGMENT }
    }

    /// A fragment-stage comparison sampler.
    pub const fn comparison(name: &'static str) -> Self {
        Self { name, kind: SlotKind::Comparison, min_size: 0, stages: wgpu::ShaderStages::FRAGMENT }
    }

    /// The same slot, seen by `stages` instead.
    pub const fn seen_by(self, stages: wgpu::ShaderStages) -> Self {
        Self { stages, ..self }
    }

    fn layout_entry(&self, binding: u32) -> wgpu::BindGroupLayoutEntry {
        let buffer = |ty| wgpu::BindingType::Buffer {
            ty,
            has_dynamic_offset: false,
            min_binding_size: NonZeroU64::new(self.min_size),
        };
        let ty = match self.kind {
            SlotKind::Uniform => buffer(wgpu::BufferBindingType::Uniform),
            SlotKind::ReadOnly => buffer(wgpu::BufferBindingType::Storage { read_only: true }),
            SlotKind::ReadWrite => buffer(wgpu::BufferBindingType::Storage { read_only: false }),
            SlotKind::Texture => wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Float { filterable: false },
                view_dimension: wgpu::TextureViewDimension::D2,
                multisampled: false,
            },
            SlotKind::UintTexture => wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Uint,
                view_dimension: wgpu::TextureViewDimension::D2,
                multisampled: false,
            },
            SlotKind::WriteTexture => wgpu::BindingType::StorageTexture {
                access: wgpu::StorageTextureAccess::WriteOnly,
                format: wgpu::TextureFormat::Rgba16Float,
                view_dimension: wgpu::TextureViewDimension::D2,
            },
            SlotKind::WriteColor => wgpu::BindingType::StorageTexture {
                access: wgpu::StorageTextureAccess::WriteOnly,
                format: wgpu::TextureFormat::Rgba8Unorm,
                view_dimension: wgpu::TextureViewDimension::D2,
            },
            SlotKind::Depth => wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Depth,
                view_dimension: wgpu::TextureViewDimension::D2,
                multisampled: false,
            },
            SlotKind::Comparison => wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Comparison),
        };
        wgpu::BindGroupLayoutEntry { binding, visibility: self.stages, ty, count: None }
    }
}

/// A pass's bind group 0: its label, the shaders compiled against it, and its slots in binding
/// order.
#[derive(Clone, Copy, Debug)]
pub struct BindingTable {
    /// The layout's and bind group's label.
    pub label: &'static str,
    /// Shaders that declare exactly these slots.
    pub shaders: &'static [ShaderFile],
    /// Shaders that declare some of these slots (at the same bindings) and no others: a
    /// pipeline sharing the layout that reads only part of it.
    pub partial_shaders: &'static [ShaderFile],
    /// Slot `i` is `@group(0) @binding(i)`.
    pub slots: &'static [Slot],
}

impl BindingTable {
    /// The bind group layout of the table's slots.
    pub fn layout(&self, device: &wgpu::Device) -> wgpu::BindGroupLayout {
        let entries: Vec<_> = self.slots.iter().zip(0..).map(|(slot, i)| slot.layout_entry(i)).collect();
        device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some(self.label),
            entries: &entries,
        })
    }

    /// The bind group of `layout` (made by [`Self::layout`]) with each slot's resource taken from
    /// `resources` by the slot's name.
    ///
    /// # Panics
    /// When `resources` names nothing for a slot: a table and the resources its pass is given
    /// disagree, which every frame would hit, so every GPU test finds it.
    pub fn bind_group(
        &self,
        device: &wgpu::Device,
        layout: &wgpu::BindGroupLayout,
        resources: &Resources,
    ) -> wgpu::BindGroup {
        let entries: Vec<_> = self
            .slots
            .iter()
            .zip(0..)
            .map(|(slot, binding)| wgpu::BindGroupEntry {
                binding,
                resource: resources.get(slot.name).unwrap_or_else(|| {
                    panic!("{}: no resource named `{}` for binding {binding}", self.label, slot.name)
                }),
            })
            .collect();
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(self.label),
            layout,
            entries: &entries,
        })
    }
}

/// Resources by the name their shaders give them, for [`BindingTable::bind_group`]. A name
/// given again replaces the earlier resource (a release run's own work list over the frame's).
#[derive(Clone, Default)]
pub struct Resources<'a> {
    entries: Vec<(&'static str, wgpu::BindingResource<'a>)>,
}

impl<'a> Resources<'a> {
    /// No resources.
    pub fn new() -> Self {
        Self::default()
    }

    /// Binds all of `buffer` as `name`.
    pub fn buffer(self, name: &'static str, buffer: &'a wgpu::Buffer) -> Self {
        self.resource(name, buffer.as_entire_binding())
    }

    /// Binds `view` as `name`.
    pub fn texture(self, name: &'static str, view: &'a wgpu::TextureView) -> Self {
        self.resource(name, wgpu::BindingResource::TextureView(view))
    }

    /// Binds `sampler` as `name`.
    pub fn sampler(self, name: &'static str, sampler: &'a wgpu::Sampler) -> Self {
        self.resource(name, wgpu::BindingResource::Sampler(sampler))
    }

    fn resource(mut self, name: &'static str, resource: wgpu::BindingResource<'a>) -> Self {
        self.entries.retain(|(n, _)| *n != name);
        self.entries.push((name, resource));
        self
    }

    fn get(&self, name: &str) -> Option<wgpu::BindingResource<'a>> {
        self.entries.iter().find(|(n, _)| *n == name).map(|(_, r)| r.clone())
    }
}

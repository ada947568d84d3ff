//! Every shader parses and validates with naga, and every layout shared between Rust and WGSL
//! has the same shape on both sides.

use encase::ShaderType;
use glam::{Mat4, Vec3};
use naga::{Expression, Literal, Module, TypeInner};
use voxgpu_core::mesh::{Face, QUAD_FIELDS};
use voxgpu_core::voxel::CHUNK_SIZE;
use voxgpu_engine::MESH_WORKGROUP_BYTES;
use voxgpu_engine::low_level::{
    BINDING_TABLES, BindingTable, CameraUniform, ChunkMeta, PAGE_QUADS_LOG2, SHADERS, ShaderFile, Slot,
    SlotKind, shader_source,
};

fn validate(name: &str, source: &str) -> Module {
    let module = naga::front::wgsl::parse_str(source)
        .unwrap_or_else(|e| panic!("{name}: parse error\n{}", e.emit_to_string_with_path(source, name)));
    naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::all())
        .validate(&module)
        .unwrap_or_else(|e| panic!("{name}: validation error\n{}", e.emit_to_string_with_path(source, name)));
    module
}

fn common() -> Module {
    validate("shaders/common.wgsl", include_str!("../shaders/common.wgsl"))
}

#[test]
fn every_shader_parses_and_validates() {
    common();
    let mut on_disk: Vec<String> = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/shaders"))
        .expect("shaders/ exists")
        .map(|e| e.expect("readable").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".wgsl") && n != "common.wgsl")
        .collect();
    on_disk.sort();
    // Pipeline shaders and the shared files they include (which are validated through them).
    let mut embedded: Vec<String> =
        SHADERS.iter().flat_map(|s| s.includes.iter().chain([s])).map(|s| s.name.to_string()).collect();
    embedded.sort();
    embedded.dedup();
    assert_eq!(on_disk, embedded, "every file in shaders/ must be listed in gpu::SHADERS or included by one");
    for file in SHADERS {
        validate(&format!("shaders/{}", file.name), &shader_source(file));
    }
}

#[test]
fn a_broken_shader_names_its_file() {
    let broken = ShaderFile { name: "broken.wgsl", source: "fn f() -> u32 { return 1.0; }", includes: &[] };
    let err = std::panic::catch_unwind(|| validate("shaders/broken.wgsl", &shader_source(broken)))
        .expect_err("must not validate");
    let message = err.downcast_ref::<String>().expect("panic message");
    assert!(message.contains("shaders/broken.wgsl"), "{message}");
}

fn u32_constant(module: &Module, name: &str) -> u32 {
    let (_, c) = module
        .constants
        .iter()
        .find(|(_, c)| c.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("common.wgsl declares no {name}"));
    match module.global_expressions[c.init] {
        Expression::Literal(Literal::U32(v)) => v,
        ref other => panic!("{name} is not a u32 literal: {other:?}"),
    }
}

#[test]
fn quad_bit_layout_matches_between_rust_and_wgsl() {
    let module = common();
    for field in QUAD_FIELDS {
        for (suffix, rust) in [("WORD", field.word), ("SHIFT", field.shift), ("BITS", field.bits)] {
            let name = format!("QUAD_{}_{suffix}", field.name);
            assert_eq!(u32_constant(&module, &name), rust, "{name}");
        }
    }
    assert_eq!(u32_constant(&module, "QUAD_PAGE_LOG2"), PAGE_QUADS_LOG2);
    assert_eq!(u32_constant(&module, "CHUNK_SIZE"), CHUNK_SIZE as u32);
    for face in Face::ALL {
        let name = format!("FACE_{:?}", face).replace("Pos", "POS_").replace("Neg", "NEG_").to_uppercase();
        assert_eq!(u32_constant(&module, &name), face as u32, "{name}");
    }
}

/// (member name, offset) pairs and the span of a WGSL struct.
fn wgsl_struct(module: &Module, name: &str) -> (Vec<(String, u32)>, u32) {
    let ty = module
        .types
        .iter()
        .find(|(_, t)| t.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("common.wgsl declares no struct {name}"))
        .1;
    let TypeInner::Struct { members, span } = &ty.inner else { panic!("{name} is not a struct") };
    (members.iter().map(|m| (m.name.clone().unwrap_or_default(), m.offset)).collect(), *span)
}

#[test]
fn chunk_meta_layout_matches_between_rust_and_wgsl() {
    let (members, span) = wgsl_struct(&common(), "ChunkMeta");
    assert_eq!(
        members,
        vec![
            ("origin".to_string(), std::mem::offset_of!(ChunkMeta, origin) as u32),
            ("lod".to_string(), std::mem::offset_of!(ChunkMeta, lod) as u32),
            ("node_level".to_string(), std::mem::offset_of!(ChunkMeta, node_level) as u32),
            ("parent".to_string(), std::mem::offset_of!(ChunkMeta, parent) as u32),
            ("flags".to_string(), std::mem::offset_of!(ChunkMeta, flags) as u32),
            ("shown".to_string(), std::mem::offset_of!(ChunkMeta, shown) as u32),
        ]
    );
    assert_eq!(span as usize, std::mem::size_of::<ChunkMeta>());
}

#[test]
fn camera_uniform_layout_matches_between_rust_and_wgsl() {
    // Write distinct values with encase, then read each back at the offset naga computes for the
    // WGSL member of the same name.
    let uniform = CameraUniform {
        view_proj: Mat4::from_cols_array(&std::array::from_fn(|i| i as f32 + 1.0)),
        eye: Vec3::new(101.0, 102.0, 103.0),
        fog_exponent: 104.0,
        sky_color: Vec3::new(105.0, 106.0, 107.0),
        fog_end: 108.0,
        inv_rotation_proj: Mat4::from_cols_array(&std::array::from_fn(|i| i as f32 + 201.0)),
        selection: glam::Vec4::new(301.0, 302.0, 303.0, 1.0),
        anchor: glam::IVec3::new(501, 502, 503),
        page_list_capacity: 401,
        medium: glam::Vec4::new(601.0, 602.0, 603.0, 604.0),
        sky_flags: 701,
        haze_clear2: 801.0,
        sun: glam::Vec4::new(901.0, 902.0, 903.0, 904.0),
        shadow_view_proj: [1001.0, 1101.0]
            .map(|base| Mat4::from_cols_array(&std::array::from_fn(|i| i as f32 + base))),
        shadow_radii: glam::Vec4::new(1201.0, 1202.0, 1203.0, 1204.0),
    };
    let bytes = uniform.to_bytes();
    let (members, span) = wgsl_struct(&common(), "Camera");
    assert_eq!(span as u64, CameraUniform::min_size().get());
    let read = |offset: u32, n: usize| -> Vec<f32> {
        (0..n)
            .map(|i| f32::from_le_bytes(bytes[offset as usize + 4 * i..][..4].try_into().unwrap()))
            .collect()
    };
    let expected: Vec<(&str, Vec<f32>)> = vec![
        ("view_proj", uniform.view_proj.to_cols_array().to_vec()),
        ("eye", uniform.eye.to_array().to_vec()),
        ("fog_exponent", vec![uniform.fog_exponent]),
        ("sky_color", uniform.sky_color.to_array().to_vec()),
        ("fog_end", vec![uniform.fog_end]),
        ("inv_rotation_proj", uniform.inv_rotation_proj.to_cols_array().to_vec()),
        ("selection", uniform.selection.to_array().to_vec()),
        // Compared as the f32s with the same bits.
        ("anchor", uniform.anchor.to_array().map(|v| f32::from_bits(v as u32)).to_vec()),
        // Compared as the f32 with the same bits.
        ("page_list_capacity", vec![f32::from_bits(uniform.page_list_capacity)]),
        ("medium", uniform.medium.to_array().to_vec()),
        // Compared as the f32 with the same bits.
        ("sky_flags", vec![f32::from_bits(uniform.sky_flags)]),
        ("haze_clear2", vec![uniform.haze_clear2]),
        ("sun", uniform.sun.to_array().to_vec()),
        ("shadow_view_proj", uniform.shadow_view_proj.iter().flat_map(|m| m.to_cols_array()).collect()),
        ("shadow_radii", uniform.shadow_radii.to_array().to_vec()),
    ];
    assert_eq!(
        members.iter().map(|m| m.0.as_str()).collect::<Vec<_>>(),
        expected.iter().map(|e| e.0).collect::<Vec<_>>()
    );
    for ((name, offset), (_, values)) in members.iter().zip(&expected) {
        assert_eq!(&read(*offset, values.len()), values, "member {name}");
    }
}

/// Checks a WGSL struct's member names and offsets against the Rust twin's, given as
/// (name, offset) pairs, and its size against `size` (ignored for runtime-sized structs, where it
/// is the header size up to the runtime array).
fn assert_struct(name: &str, rust: &[(&str, usize)], size: usize) {
    assert_struct_in(&common(), name, rust, size);
}

/// [`assert_struct`] for a struct `module` declares.
fn assert_struct_in(module: &Module, name: &str, rust: &[(&str, usize)], size: usize) {
    let (members, span) = wgsl_struct(module, name);
    let wgsl: Vec<(&str, usize)> = members.iter().map(|(n, o)| (n.as_str(), *o as usize)).collect();
    let (header, _) = wgsl.split_at(rust.len().min(wgsl.len()));
    assert_eq!(header, rust, "{name} members");
    if wgsl.len() == rust.len() {
        assert_eq!(span as usize, size, "{name} size");
    } else {
        assert_eq!(wgsl[rust.len()].1, size, "{name}: the runtime array starts right after the header");
    }
}

#[test]
fn mesher_records_match_between_rust_and_wgsl() {
    use std::mem::{offset_of, size_of};
    use voxgpu_engine::low_level::{AllocatorHeader, ChunkLinks, FaceMesh, PassParams};
    assert_struct(
        "ChunkLinks",
        &[
            ("neighbours", offset_of!(ChunkLinks, neighbours)),
            ("state", offset_of!(ChunkLinks, state)),
            ("lod", offset_of!(ChunkLinks, lod)),
        ],
        size_of::<ChunkLinks>(),
    );
    assert_struct(
        "FaceMesh",
        &[
            ("opaque", offset_of!(FaceMesh, opaque)),
            ("transparent", offset_of!(FaceMesh, transparent)),
            ("page_count", offset_of!(FaceMesh, page_count)),
            ("skirts", offset_of!(FaceMesh, skirts)),
            ("bounds", offset_of!(FaceMesh, bounds)),
            ("pages", offset_of!(FaceMesh, pages)),
        ],
        size_of::<FaceMesh>(),
    );
    assert_struct(
        "PassParams",
        &[
            ("slot_count", offset_of!(PassParams, slot_count)),
            ("max_jobs", offset_of!(PassParams, max_jobs)),
            ("draw_capacity", offset_of!(PassParams, draw_capacity)),
            ("chunk_size", offset_of!(PassParams, chunk_size)),
            ("ambient_occlusion", offset_of!(PassParams, ambient_occlusion)),
            ("split_pairs", offset_of!(PassParams, split_pairs)),
        ],
        size_of::<PassParams>(),
    );
    assert_struct(
        "LodParams",
        &[
            ("eye", offset_of!(voxgpu_engine::low_level::LodParams, eye)),
            ("hysteresis", offset_of!(voxgpu_engine::low_level::LodParams, hysteresis)),
            ("thresholds", offset_of!(voxgpu_engine::low_level::LodParams, thresholds)),
            ("max_level", offset_of!(voxgpu_engine::low_level::LodParams, max_level)),
            ("top_level", offset_of!(voxgpu_engine::low_level::LodParams, top_level)),
            ("fade_frames", offset_of!(voxgpu_engine::low_level::LodParams, fade_frames)),
            ("anchor", offset_of!(voxgpu_engine::low_level::LodParams, anchor)),
        ],
        size_of::<voxgpu_engine::low_level::LodParams>(),
    );
    assert_struct(
        "CullParams",
        &[
            ("planes", offset_of!(voxgpu_engine::low_level::CullParams, planes)),
            ("eye", offset_of!(voxgpu_engine::low_level::CullParams, eye)),
            ("flags", offset_of!(voxgpu_engine::low_level::CullParams, flags)),
            ("view_eye", offset_of!(voxgpu_engine::low_level::CullParams, view_eye)),
            ("sort_scale", offset_of!(voxgpu_engine::low_level::CullParams, sort_scale)),
            ("anchor", offset_of!(voxgpu_engine::low_level::CullParams, anchor)),
            ("pyramid", offset_of!(voxgpu_engine::low_level::CullParams, pyramid)),
        ],
        size_of::<voxgpu_engine::low_level::CullParams>(),
    );
    assert_struct(
        "Allocator",
        &[
            ("free_count", offset_of!(AllocatorHeader, free_count)),
            ("failed_pages", offset_of!(AllocatorHeader, failed_pages)),
            ("popped", offset_of!(AllocatorHeader, popped)),
            ("granted", offset_of!(AllocatorHeader, granted)),
        ],
        size_of::<AllocatorHeader>(),
    );
    for (name, rust) in [
        ("MAX_FACE_PAGES", voxgpu_engine::low_level::MAX_FACE_PAGES),
        ("SLOT_WORDS", voxgpu_engine::low_level::SLOT_WORDS),
        ("LIGHT_WORDS", voxgpu_engine::low_level::LIGHT_WORDS),
        ("LIGHT_MASK_OFFSET", voxgpu_engine::low_level::LIGHT_MASK_OFFSET),
        ("LIGHT_MASK_WORDS", voxgpu_engine::low_level::LIGHT_MASK_WORDS),
        ("LIGHT_STAMP_OFFSET", voxgpu_engine::low_level::LIGHT_STAMP_OFFSET),
        ("LINK_WORDS", (size_of::<voxgpu_engine::low_level::ChunkLinks>() / 4) as u32),
        ("NO_SLOT", voxgpu_engine::low_level::NO_SLOT),
        ("WORK_JOBS_OFFSET", voxgpu_engine::low_level::WORK_JOBS_OFFSET),
        ("JOB_RELEASE_ONLY", voxgpu_engine::low_level::JOB_RELEASE_ONLY),
        ("CHUNK_DIRTY", voxgpu_engine::low_level::ChunkState::DIRTY),
        ("CHUNK_EVICTED", voxgpu_engine::low_level::ChunkState::EVICTED),
        ("CHUNK_VOXELS", voxgpu_engine::low_level::ChunkState::VOXELS),
        ("CHUNK_RESIDENT", voxgpu_engine::low_level::ChunkState::RESIDENT),
        ("CHUNK_CHILDREN_READY", voxgpu_engine::low_level::ChunkState::CHILDREN_READY),
        ("CHUNK_SIBLINGS_READY", voxgpu_engine::low_level::ChunkState::SIBLINGS_READY),
        ("NODE_SPLIT", voxgpu_engine::low_level::NodeFlags::SPLIT),
        ("NODE_SELECTED", voxgpu_engine::low_level::NodeFlags::SELECTED),
        ("NODE_WAS_SHOWN", voxgpu_engine::low_level::NodeFlags::WAS_SHOWN),
        ("NODE_NEW", voxgpu_engine::low_level::NodeFlags::NEW),
        ("DRAW_SHOWN", voxgpu_engine::low_level::DrawState::SHOWN),
        ("DRAW_FADE_LEFT_SHIFT", voxgpu_engine::low_level::DrawState::FADE_LEFT_SHIFT),
        ("DRAW_FADE_TOTAL_SHIFT", voxgpu_engine::low_level::DrawState::FADE_TOTAL_SHIFT),
        ("MAX_FADE_FRAMES", voxgpu_core::lod::MAX_FADE_FRAMES),
        ("LEVEL_THRESHOLDS", voxgpu_core::lod::LEVELS as u32),
        ("MAX_LEVEL", voxgpu_core::lod::MAX_LEVEL),
        ("CULL_FRUSTUM", voxgpu_engine::low_level::CullParams::FRUSTUM),
        ("CULL_FACES", voxgpu_engine::low_level::CullParams::FACES),
        ("CULL_PAGES", voxgpu_engine::low_level::CullParams::PAGES),
        ("CULL_OCCLUSION", voxgpu_engine::low_level::CullParams::OCCLUSION),
        ("CULL_TWO_PHASE", voxgpu_engine::low_level::CullParams::TWO_PHASE),
        ("CULL_LIST_OCCLUDED", voxgpu_engine::low_level::CullParams::LIST_OCCLUDED),
        ("CULL_FRONT_TO_BACK", voxgpu_engine::low_level::CullParams::FRONT_TO_BACK),
        ("LEVEL_UNSET", voxgpu_core::lod::LEVEL_UNSET),
        ("SORT_BUCKETS", voxgpu_core::cull::SORT_BUCKETS),
        ("SORT_FACE_SLOTS", voxgpu_core::cull::SORT_FACE_SLOTS),
        ("SORT_DISTANCES", voxgpu_core::cull::SORT_DISTANCES),
        ("SORT_KEY_REGIONS", voxgpu_engine::low_level::SORT_KEY_REGIONS),
        ("SORT_SORTED_REGION", voxgpu_engine::low_level::SORT_SORTED_REGION as u32),
        ("SORT_SORTED_SLOTS_REGION", voxgpu_engine::low_level::SORT_SORTED_SLOTS_REGION as u32),
        ("TILE_SIZE", voxgpu_core::voxel::TILE_SIZE as u32),
        ("ATLAS_COLUMNS", voxgpu_core::voxel::ATLAS_COLUMNS as u32),
        ("TILE_PLAIN", voxgpu_core::voxel::Tile::Plain as u32),
        ("SURFACE_NONE", voxgpu_engine::low_level::SURFACE_NONE),
        ("SURFACE_POISON", voxgpu_engine::low_level::SURFACE_POISON),
        ("SURFACE_FIRST_QUAD", voxgpu_engine::low_level::SURFACE_FIRST_QUAD),
    ] {
        assert_eq!(u32_constant(&common(), name), rust, "{name}");
    }
}

#[test]
fn the_mesher_declares_the_workgroup_memory_the_adapter_check_asks_for() {
    let variants: Vec<u32> = SHADERS
        .iter()
        .filter(|f| f.name == "mesh.wgsl")
        .map(|file| {
            let module = validate("shaders/mesh.wgsl", &shader_source(*file));
            let mut layouter = naga::proc::Layouter::default();
            layouter.update(module.to_ctx()).expect("layouts");
            module
                .global_variables
                .iter()
                .filter(|(_, g)| g.space == naga::AddressSpace::WorkGroup)
                // Counted as WebGPU implementations do (Dawn, wgpu): each variable rounded up to 16 bytes.
                .map(|(_, g)| layouter[g.ty].size.next_multiple_of(16))
                .sum()
        })
        .collect();
    assert_eq!(variants.len(), 2, "the plain and the subgroup mesher");
    assert_eq!(variants.iter().max(), Some(&MESH_WORKGROUP_BYTES), "{variants:?}");
    assert!(MESH_WORKGROUP_BYTES <= 16384, "WebGPU's default limit");
}

/// What `table` and `shader` disagree on: each global of the shader with a binding must be the
/// table's slot at that binding (same name, group 0, same kind and access, a minimum size at
/// least the type's, a runtime-sized array counted with one element), and, unless `partial`,
/// each slot must be declared by the shader.
fn binding_mismatches(table: &BindingTable, shader: ShaderFile, partial: bool) -> Vec<String> {
    let module = validate(&format!("shaders/{}", shader.name), &shader_source(shader));
    let mut layouter = naga::proc::Layouter::default();
    layouter.update(module.to_ctx()).expect("layouts");
    let mut errors = Vec::new();
    let mut declared = Vec::new();
    for (_, global) in module.global_variables.iter() {
        let Some(binding) = &global.binding else { continue };
        let name = global.name.clone().unwrap_or_default();
        let at = format!("{} `{name}` @group({}) @binding({})", shader.name, binding.group, binding.binding);
        if binding.group != 0 {
            errors.push(format!("{at}: tables describe group 0 only"));
            continue;
        }
        declared.push(binding.binding);
        let Some(slot) = table.slots.get(binding.binding as usize) else {
            errors.push(format!("{at}: {} has no slot there", table.label));
            continue;
        };
        if slot.name != name {
            errors.push(format!("{at}: {} names it `{}`", table.label, slot.name));
        }
        let kind = match global.space {
            naga::AddressSpace::Uniform => SlotKind::Uniform,
            naga::AddressSpace::Storage { access } if access.contains(naga::StorageAccess::STORE) => {
                SlotKind::ReadWrite
            }
            naga::AddressSpace::Storage { .. } => SlotKind::ReadOnly,
            naga::AddressSpace::Handle => match module.types[global.ty].inner {
                naga::TypeInner::Image { class: naga::ImageClass::Depth { .. }, arrayed: false, .. } => {
                    SlotKind::Depth
                }
                naga::TypeInner::Sampler { comparison: true } => SlotKind::Comparison,
                naga::TypeInner::Image {
                    class: naga::ImageClass::Sampled { kind: naga::ScalarKind::Uint, .. },
                    ..
                } => SlotKind::UintTexture,
                naga::TypeInner::Image {
                    class:
                        naga::ImageClass::Storage {
                            format: naga::StorageFormat::Rgba16Float,
                            access: naga::StorageAccess::STORE,
                        },
                    ..
                } => SlotKind::WriteTexture,
                naga::TypeInner::Image {
                    class:
                        naga::ImageClass::Storage {
                            format: naga::StorageFormat::Rgba8Unorm,
                            access: naga::StorageAccess::STORE,
                        },
                    ..
                } => SlotKind::WriteColor,
                _ => SlotKind::Texture,
            },
            other => {
                errors.push(format!("{at}: address space {other:?} has no slot kind"));
                continue;
            }
        };
        if slot.kind != kind {
            errors.push(format!("{at}: {} declares {:?}, the shader {kind:?}", table.label, slot.kind));
        }
        let handle = !matches!(kind, SlotKind::Uniform | SlotKind::ReadOnly | SlotKind::ReadWrite);
        let needed = if handle { 0 } else { layouter[global.ty].size as u64 };
        if slot.min_size < needed {
            errors.push(format!(
                "{at}: {} asks for at least {} bytes, the shader's type takes {needed}",
                table.label, slot.min_size
            ));
        }
    }
    if !partial {
        for (i, slot) in table.slots.iter().enumerate() {
            if !declared.contains(&(i as u32)) {
                errors.push(format!(
                    "{}: slot {i} `{}` is not declared by {}",
                    table.label, slot.name, shader.name
                ));
            }
        }
    }
    errors
}

#[test]
fn every_binding_table_matches_its_shaders() {
    let mut errors = Vec::new();
    for table in BINDING_TABLES {
        assert!(!table.shaders.is_empty(), "{} names no shader", table.label);
        for &shader in table.shaders {
            errors.extend(binding_mismatches(table, shader, false));
        }
        for &shader in table.partial_shaders {
            errors.extend(binding_mismatches(table, shader, true));
        }
    }
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

#[test]
fn every_pipeline_shader_has_a_binding_table() {
    // A pipeline shader is its file with its includes: one file built with different includes
    // (the shade pass's two outputs) may bind differently.
    let same = |a: &ShaderFile, b: &ShaderFile| {
        let includes = |f: &ShaderFile| f.includes.iter().map(|i| i.name).collect::<Vec<_>>();
        a.name == b.name && includes(a) == includes(b)
    };
    for file in SHADERS {
        let tables = BINDING_TABLES
            .iter()
            .filter(|t| t.shaders.iter().chain(t.partial_shaders).any(|s| same(s, &file)))
            .count();
        assert_eq!(tables, 1, "{} must be described by exactly one binding table", file.name);
    }
}

#[test]
fn the_table_check_finds_two_swapped_buffers_of_one_type() {
    // `chunks` and `links` of the mesh pass are both read-write storage: wgpu would bind them
    // either way round. The check must not.
    let mesh = BINDING_TABLES.iter().find(|t| t.label == "voxgpu.mesh").expect("the mesh pass has a table");
    let mut slots = mesh.slots.to_vec();
    let (a, b) = (
        slots.iter().position(|s| s.name == "links").unwrap(),
        slots.iter().position(|s| s.name == "faces").unwrap(),
    );
    slots.swap(a, b);
    let slots: &'static [Slot] = Box::leak(slots.into_boxed_slice());
    let swapped = BindingTable { slots, ..*mesh };
    let errors = binding_mismatches(&swapped, mesh.shaders[0], false);
    assert!(errors.iter().any(|e| e.contains("`links`")), "{errors:?}");
    assert!(errors.iter().any(|e| e.contains("`faces`")), "{errors:?}");
    // A slot the shader does not declare, and a size below the type's, are found too.
    let mut short = mesh.slots.to_vec();
    short[9].min_size = 4;
    short.push(Slot::read("extra", 4));
    let short: &'static [Slot] = Box::leak(short.into_boxed_slice());
    let errors = binding_mismatches(&BindingTable { slots: short, ..*mesh }, mesh.shaders[0], false);
    assert!(errors.iter().any(|e| e.contains("`chunks`") && e.contains("bytes")), "{errors:?}");
    assert!(errors.iter().any(|e| e.contains("`extra`")), "{errors:?}");
}

#[test]
fn shadow_cull_and_pyramid_test_layouts_match_between_rust_and_wgsl() {
    use std::mem::offset_of;
    use voxgpu_engine::shadow::{PyramidTest, SWEEP_PIECES, ShadowCull};
    let file = SHADERS.iter().find(|f| f.name == "shadow_cull.wgsl").expect("the caster pass's shader");
    let module = validate("shaders/shadow_cull.wgsl", &shader_source(*file));
    assert_struct_in(
        &module,
        "ShadowCull",
        &[
            ("planes", offset_of!(ShadowCull, planes)),
            ("view", offset_of!(ShadowCull, view)),
            ("receivers", offset_of!(ShadowCull, receivers)),
            ("sun", offset_of!(ShadowCull, sun)),
            ("anchor", offset_of!(ShadowCull, anchor)),
            ("cascades", offset_of!(ShadowCull, cascades)),
            ("pyramid", offset_of!(ShadowCull, pyramid)),
            ("margin", offset_of!(ShadowCull, margin)),
            ("inv_sun_y", offset_of!(ShadowCull, inv_sun_y)),
        ],
        size_of::<ShadowCull>(),
    );
    assert_struct(
        "PyramidTest",
        &[
            ("view_proj", offset_of!(PyramidTest, view_proj)),
            ("frame", offset_of!(PyramidTest, frame)),
            ("levels", offset_of!(PyramidTest, levels)),
            ("depth_margin", offset_of!(PyramidTest, depth_margin)),
        ],
        size_of::<PyramidTest>(),
    );
    assert_eq!(u32_constant(&module, "SWEEP_PIECES"), SWEEP_PIECES);
}

#[test]
fn per_quad_culling_constants_match_between_rust_and_wgsl() {
    use voxgpu_engine::low_level::QUAD_LIST_VERTEX;
    for name in ["quad_cull.wgsl", "chunk_draw.wgsl"] {
        let file = SHADERS.iter().find(|f| f.name == name).expect("the shader");
        let module = validate(name, &shader_source(*file));
        assert_eq!(u32_constant(&module, "QUAD_LIST_VERTEX"), QUAD_LIST_VERTEX, "{name}");
    }
    let file = SHADERS.iter().find(|f| f.name == "quad_cull.wgsl").expect("the pass's shader");
    let module = validate("quad_cull.wgsl", &shader_source(*file));
    assert_eq!(u32_constant(&module, "MAX_DRAW_QUADS"), voxgpu_engine::low_level::MAX_DRAW_QUADS);
    let (_, margin) =
        module.constants.iter().find(|(_, c)| c.name.as_deref() == Some("QUAD_MARGIN")).expect("QUAD_MARGIN");
    match module.global_expressions[margin.init] {
        Expression::Literal(Literal::F32(v)) => assert_eq!(v, voxgpu_core::cull::QUAD_MARGIN),
        ref other => panic!("QUAD_MARGIN is not an f32 literal: {other:?}"),
    }
}

//! Every shader parses and validates with naga, and every layout shared between Rust and WGSL
//! has the same shape on both sides.

use encase::ShaderType;
use glam::{Mat4, Vec3};
use naga::{Expression, Literal, Module, TypeInner};
use voxgpu::gpu::{CameraUniform, ChunkMeta, PAGE_QUADS_LOG2, SHADERS, ShaderFile, shader_source};
use voxgpu::mesh::{Face, QUAD_FIELDS};
use voxgpu::voxel::CHUNK_SIZE;

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
    let mut embedded: Vec<String> = SHADERS.iter().map(|s| s.name.to_string()).collect();
    embedded.sort();
    assert_eq!(on_disk, embedded, "every file in shaders/ must be listed in gpu::SHADERS");
    for file in SHADERS {
        validate(&format!("shaders/{}", file.name), &shader_source(file));
    }
}

#[test]
fn a_broken_shader_names_its_file() {
    let broken = ShaderFile { name: "broken.wgsl", source: "fn f() -> u32 { return 1.0; }" };
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
        fog_start: 104.0,
        sky_color: Vec3::new(105.0, 106.0, 107.0),
        fog_end: 108.0,
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
        ("fog_start", vec![uniform.fog_start]),
        ("sky_color", uniform.sky_color.to_array().to_vec()),
        ("fog_end", vec![uniform.fog_end]),
    ];
    assert_eq!(
        members.iter().map(|m| m.0.as_str()).collect::<Vec<_>>(),
        expected.iter().map(|e| e.0).collect::<Vec<_>>()
    );
    for ((name, offset), (_, values)) in members.iter().zip(&expected) {
        assert_eq!(&read(*offset, values.len()), values, "member {name}");
    }
}

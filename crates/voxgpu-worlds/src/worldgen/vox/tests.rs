//! Tests of the `.vox` import: axis mapping, scene graph placement, errors, and the sample asset.

use std::path::{Path, PathBuf};

use dot_vox::{DotVoxData, Frame, Model, SceneNode, ShapeModel, Size, Voxel};
use glam::IVec3;

use super::sample::write_sample;
use super::{load, sample_model, write_spread_models};
use crate::worldgen::{MAX_MODEL_EXTENT, WorldError};
use voxgpu_core::voxel::{BlockId, Opacity, World};

/// A file path unique to this test process and `name`, so parallel tests never share a file.
fn temp_path(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("voxgpu-worldgen-{}-{name}", std::process::id()))
}

fn model(size: [u32; 3], voxels: &[([u8; 3], u8)]) -> Model {
    Model {
        size: Size { x: size[0], y: size[1], z: size[2] },
        voxels: voxels.iter().map(|&([x, y, z], i)| Voxel { x, y, z, i }).collect(),
    }
}

/// A file of `models`, each placed by a transform frame (`_t`, optional `_r`) under one group.
/// No placements means no scene graph at all, like files from MagicaVoxel before 0.99.
fn vox_data(models: Vec<Model>, placements: &[(&str, Option<&str>)]) -> DotVoxData {
    let mut scenes = Vec::new();
    if !placements.is_empty() {
        let children = (0..placements.len() as u32).map(|k| 2 + 2 * k).collect();
        scenes.push(transform(1, &[]));
        scenes.push(SceneNode::Group { attributes: Default::default(), children });
        for (k, (t, r)) in placements.iter().enumerate() {
            let mut frame = vec![("_t", *t)];
            frame.extend(r.map(|r| ("_r", r)));
            scenes.push(transform(3 + 2 * k as u32, &frame));
            let shape = ShapeModel { model_id: k as u32, attributes: Default::default() };
            scenes.push(SceneNode::Shape { attributes: Default::default(), models: vec![shape] });
        }
    }
    DotVoxData {
        version: 150,
        index_map: dot_vox::DEFAULT_INDEX_MAP.to_vec(),
        models,
        palette: dot_vox::DEFAULT_PALETTE.to_vec(),
        materials: Vec::new(),
        scenes,
        layers: vec![dot_vox::Layer { attributes: Default::default() }],
    }
}

fn transform(child: u32, frame: &[(&str, &str)]) -> SceneNode {
    let frame = frame.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    SceneNode::Transform {
        attributes: Default::default(),
        frames: vec![Frame::new(frame)],
        child,
        layer_id: 0,
    }
}

/// Writes `data` to a temp file named `name` and loads it back as a world.
fn round_trip(name: &str, data: &DotVoxData) -> Result<World, WorldError> {
    let path = temp_path(name);
    let mut bytes = Vec::new();
    data.write_vox(&mut bytes).expect("writing to a Vec cannot fail");
    std::fs::write(&path, bytes).expect("temp dir is writable");
    let world = load(&path);
    let _ = std::fs::remove_file(&path);
    world
}

/// Palette slot `i` as the block id the import gives it.
fn id(i: u8) -> BlockId {
    BlockId(u16::from(i) + 1)
}

#[test]
fn vox_z_up_maps_to_y_up_without_mirroring() {
    // Four distinct colours on the origin and the +x, +y and +z (two up) neighbours.
    let voxels = [([0, 0, 0], 10), ([1, 0, 0], 20), ([0, 1, 0], 30), ([0, 0, 2], 40)];
    let world =
        round_trip("axes.vox", &vox_data(vec![model([2, 2, 3], &voxels)], &[])).expect("valid model loads");
    // vox (x, y, z) -> world (x, z, -y), then shifted so the min corner is (0, 0, 0): vox +y
    // ends up at z = 0, so everything else sits at z = 1.
    assert_eq!(world.block(IVec3::new(0, 0, 1)), id(10));
    assert_eq!(world.block(IVec3::new(1, 0, 1)), id(20), "vox +x stays world +x");
    assert_eq!(world.block(IVec3::new(0, 0, 0)), id(30), "vox +y becomes world -z");
    assert_eq!(world.block(IVec3::new(0, 2, 1)), id(40), "vox +z becomes world +y (up)");
    // x cross (image of vox y) must equal the image of vox z, or the model is mirrored.
    let (x, y, z) = (IVec3::X, IVec3::NEG_Z, IVec3::Y);
    assert_eq!(x.cross(y), z);
    let solid: usize = world.chunks().map(|(_, c)| c.voxels().iter().filter(|b| !b.is_air()).count()).sum();
    assert_eq!(solid, 4);
}

#[test]
fn scene_translation_places_models_relative_to_each_other() {
    let models = vec![model([1, 1, 1], &[([0, 0, 0], 1)]), model([1, 1, 1], &[([0, 0, 0], 2)])];
    let data = vox_data(models, &[("0 0 0", None), ("10 -3 4", None)]);
    let world = round_trip("translate.vox", &data).expect("valid scene loads");
    // Second model: +10 x, -3 vox y (= +3 world z), +4 vox z (= +4 world y).
    assert_eq!(world.block(IVec3::new(0, 0, 0)), id(1));
    assert_eq!(world.block(IVec3::new(10, 4, 3)), id(2));
}

#[test]
fn scene_rotation_turns_models_about_their_centre() {
    // A 3-long bar along vox x, turned a quarter about z: rows (-y, x, z), byte 0b1_0001 = 17.
    let bar = model([3, 1, 1], &[([0, 0, 0], 1), ([2, 0, 0], 2)]);
    let world = round_trip("rotate.vox", &vox_data(vec![bar], &[("0 0 0", Some("17"))]))
        .expect("valid rotation loads");
    // Centred on x = 1, the ends go to vox y = -1 and y = +1, i.e. world z = +1 and -1.
    assert_eq!(world.block(IVec3::new(0, 0, 2)), id(1));
    assert_eq!(world.block(IVec3::new(0, 0, 0)), id(2));
}

#[test]
fn bad_rotation_byte_is_malformed_not_a_panic() {
    let data = vox_data(vec![model([1, 1, 1], &[([0, 0, 0], 1)])], &[("0 0 0", Some("15"))]);
    let err = round_trip("bad-rotation.vox", &data).expect_err("rows 0 and 1 both use column 3");
    assert!(matches!(err, WorldError::VoxMalformed { .. }), "{err}");
}

#[test]
fn models_translated_over_the_limit_are_too_large() {
    let path = temp_path("too-large.vox");
    write_spread_models(&path, 2000).expect("temp dir is writable");
    let err = load(&path).expect_err("2001 blocks wide");
    let _ = std::fs::remove_file(&path);
    assert!(err.to_string().contains("too large"), "{err}");
    match err {
        WorldError::ModelTooLarge { path: p, size, limit } => {
            assert_eq!(p, path);
            assert_eq!(size, IVec3::new(2001, 1, 1));
            assert_eq!(limit, MAX_MODEL_EXTENT);
        }
        other => panic!("expected ModelTooLarge, got {other}"),
    }
    // Exactly at the limit still loads: 1023 apart is 1024 blocks wide.
    write_spread_models(&path, MAX_MODEL_EXTENT - 1).expect("temp dir is writable");
    let world = load(&path);
    let _ = std::fs::remove_file(&path);
    assert!(world.is_ok(), "{:?}", world.err());
}

#[test]
fn missing_vox_file_is_not_found() {
    let path = temp_path("does-not-exist.vox");
    let err = load(&path).expect_err("no such file");
    assert!(matches!(&err, WorldError::VoxNotFound { path: p } if *p == path), "{err}");
    assert!(err.to_string().contains(&path.display().to_string()));
}

#[test]
fn garbage_vox_file_is_malformed() {
    let path = temp_path("garbage.vox");
    std::fs::write(&path, b"this is not a MagicaVoxel file\x00\xff\x10").expect("temp writable");
    let err = load(&path).expect_err("garbage");
    let _ = std::fs::remove_file(&path);
    assert!(matches!(&err, WorldError::VoxMalformed { path: p, .. } if *p == path), "{err}");
    assert_eq!(err.to_string().lines().count(), 1);
}

#[test]
fn directory_path_is_unreadable_not_a_panic() {
    // Regression: `dot_vox::load` opens a directory fine, then panics in `read_to_end`.
    let err = load(&std::env::temp_dir()).expect_err("a directory is not a model");
    assert!(matches!(err, WorldError::VoxUnreadable { .. }), "{err}");
}

#[test]
fn empty_model_is_malformed_with_no_voxels() {
    let err =
        round_trip("empty.vox", &vox_data(vec![model([4, 4, 4], &[])], &[])).expect_err("nothing to show");
    match err {
        WorldError::VoxMalformed { reason, .. } => assert_eq!(reason, "no voxels"),
        other => panic!("expected VoxMalformed, got {other}"),
    }
}

#[test]
fn sample_asset_matches_generator() {
    // The asset lives at the workspace root, with the application that opens it by default.
    let asset = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/sample.vox");
    let size = std::fs::metadata(&asset).expect("assets/sample.vox is checked in").len();
    assert!(size < 20 * 1024, "sample.vox is {size} bytes");
    let fresh = temp_path("sample.vox");
    write_sample(&fresh).expect("temp dir is writable");
    let (checked_in, regenerated) = (load(&asset), load(&fresh));
    let _ = std::fs::remove_file(&fresh);
    let (a, b) = (checked_in.expect("asset loads"), regenerated.expect("fresh copy loads"));
    assert_eq!(a.sorted_positions(), b.sorted_positions());
    for pos in a.sorted_positions() {
        assert!(a.chunk(pos) == b.chunk(pos), "chunk {pos:?} differs");
    }
    assert!(a.registry.iter().map(|(_, i)| i).eq(b.registry.iter().map(|(_, i)| i)));
    // Recognisable: at least five colours, and the window glass is see-through.
    let mut used: Vec<BlockId> =
        a.chunks().flat_map(|(_, c)| c.voxels().iter().copied()).filter(|b| !b.is_air()).collect();
    used.sort();
    used.dedup();
    assert!(used.len() >= 5, "{used:?}");
    assert!(used.iter().any(|&b| { a.registry.get(b).is_some_and(|i| i.opacity == Opacity::Transparent) }));
    assert_eq!(sample_model().models.len(), 2);
}

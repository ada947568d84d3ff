//! Models the project writes itself: the sample scene behind `assets/sample.vox` (built in code,
//! so the asset has a plain provenance and a test can prove the checked-in file is current) and
//! the oversized fixture the size-limit tests load.

use std::collections::HashMap;
use std::path::Path;

use dot_vox::{Color, DotVoxData, Material, Model, SceneNode};

/// Palette slots (`Voxel::i`) of the sample scene.
mod slot {
    pub const GRASS: u8 = 0;
    pub const PATH: u8 = 1;
    pub const WALL: u8 = 2;
    pub const DOOR: u8 = 3;
    pub const GLASS: u8 = 4;
    pub const ROOF: u8 = 5;
    pub const CHIMNEY: u8 = 6;
    pub const TRUNK: u8 = 7;
    pub const LEAVES: u8 = 8;
}

/// The project's own sample scene, the source of `assets/sample.vox`: a cottage with cream
/// walls, a red gable roof, a chimney, a door and glass windows on a 24x24 lawn, and a tree
/// as a second model placed by the scene graph.
///
/// Built in code so the asset's provenance is plain (no third-party model), and so a test can
/// regenerate it and prove the checked-in file is current.
pub fn sample_model() -> DotVoxData {
    let mut palette = dot_vox::DEFAULT_PALETTE.to_vec();
    let colors = [
        (slot::GRASS, [96, 164, 62]),
        (slot::PATH, [152, 150, 142]),
        (slot::WALL, [236, 222, 184]),
        (slot::DOOR, [112, 72, 40]),
        (slot::GLASS, [170, 212, 236]),
        (slot::ROOF, [192, 42, 36]),
        (slot::CHIMNEY, [124, 62, 52]),
        (slot::TRUNK, [102, 72, 42]),
        (slot::LEAVES, [52, 132, 50]),
    ];
    for (slot, [r, g, b]) in colors {
        palette[usize::from(slot)] = Color { r, g, b, a: 255 };
    }
    let glass = Material {
        id: u32::from(slot::GLASS) + 1,
        properties: [("_type", "_glass"), ("_trans", "0.6")]
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .into(),
    };
    DotVoxData {
        version: 150,
        index_map: dot_vox::DEFAULT_INDEX_MAP.to_vec(),
        models: vec![cottage(), tree()],
        palette,
        materials: vec![glass],
        // Root -> group -> (cottage centred at z = 7, tree standing on the lawn's corner).
        scenes: vec![
            transform(1, None),
            SceneNode::Group { attributes: Default::default(), children: vec![2, 4] },
            transform(3, Some("0 0 7")),
            shape(0),
            transform(5, Some("8 -8 5")),
            shape(1),
        ],
        layers: vec![dot_vox::Layer { attributes: Default::default() }],
    }
}

pub(super) fn transform(child: u32, translation: Option<&str>) -> SceneNode {
    let attributes = translation.map(|t| ("_t".to_string(), t.to_string())).into_iter().collect();
    SceneNode::Transform {
        attributes: Default::default(),
        frames: vec![dot_vox::Frame::new(attributes)],
        child,
        layer_id: 0,
    }
}

pub(super) fn shape(model_id: u32) -> SceneNode {
    let model = dot_vox::ShapeModel { model_id, attributes: Default::default() };
    SceneNode::Shape { attributes: Default::default(), models: vec![model] }
}

/// Collects voxels by position, later writes winning, into a model of `size`.
fn model_from(size: [u32; 3], voxels: HashMap<[u8; 3], u8>) -> Model {
    let mut voxels: Vec<dot_vox::Voxel> =
        voxels.into_iter().map(|([x, y, z], i)| dot_vox::Voxel { x, y, z, i }).collect();
    voxels.sort_by_key(|v| (v.z, v.y, v.x));
    Model { size: dot_vox::Size { x: size[0], y: size[1], z: size[2] }, voxels }
}

/// The lawn, path and cottage (24 x 24 x 14, Z up; the door faces -y).
fn cottage() -> Model {
    let mut v = HashMap::new();
    for y in 0..24 {
        for x in 0..24 {
            let path = (11..13).contains(&x) && y < 8;
            v.insert([x, y, 0], if path { slot::PATH } else { slot::GRASS });
        }
    }
    let (x0, x1, y0, y1) = (6u8, 17u8, 8u8, 15u8); // inclusive wall corners
    for z in 1..=6u8 {
        for x in x0..=x1 {
            for y in y0..=y1 {
                if x != x0 && x != x1 && y != y0 && y != y1 {
                    continue;
                }
                let door = y == y0 && (11..=12).contains(&x) && z <= 3;
                let front_window = (y == y0 || y == y1) && [8, 9, 14, 15].contains(&x);
                let side_window = (x == x0 || x == x1) && (11..=12).contains(&y);
                let window = (front_window || side_window) && (3..=4).contains(&z) && !door;
                let block = match () {
                    _ if door => slot::DOOR,
                    _ if window => slot::GLASS,
                    _ => slot::WALL,
                };
                v.insert([x, y, z], block);
            }
        }
    }
    // Gable roof along x: each layer steps in by one from both eaves.
    for k in 0..=4u8 {
        let z = 7 + k;
        for x in x0 - 1..=x1 + 1 {
            v.insert([x, y0 - 1 + k, z], slot::ROOF);
            v.insert([x, y1 + 1 - k, z], slot::ROOF);
        }
        for y in y0 + k..=y1 - k {
            for x in [x0, x1] {
                v.entry([x, y, z]).or_insert(slot::WALL);
            }
        }
    }
    for z in 9..=12 {
        v.insert([15, 13, z], slot::CHIMNEY);
    }
    model_from([24, 24, 14], v)
}

/// A small tree: a six-block trunk in a rounded leaf blob (5 x 5 x 9, Z up).
fn tree() -> Model {
    let mut v = HashMap::new();
    for z in 4..=8i32 {
        for y in 0..5i32 {
            for x in 0..5i32 {
                if (x - 2).pow(2) + (y - 2).pow(2) + (z - 6).pow(2) <= 5 {
                    v.insert([x as u8, y as u8, z as u8], slot::LEAVES);
                }
            }
        }
    }
    for z in 0..=5 {
        v.insert([2, 2, z], slot::TRUNK);
    }
    model_from([5, 5, 9], v)
}

/// Writes [`sample_model`] to `path` in `.vox` format.
#[cfg(test)]
pub(super) fn write_sample(path: &Path) -> std::io::Result<()> {
    write(path, &sample_model())
}

/// Writes a `.vox` file of two one-voxel models that the scene graph places `distance` blocks
/// apart along x: a file that is tiny on disk yet spans `distance + 1` blocks once placed.
///
/// A fixture for the size-limit tests (unit and CLI): with `distance >= MAX_MODEL_EXTENT`
/// loading it must fail with [`WorldError::ModelTooLarge`] rather than allocate the span.
///
/// [`WorldError::ModelTooLarge`]: crate::worldgen::WorldError::ModelTooLarge
pub fn write_spread_models(path: &Path, distance: i32) -> std::io::Result<()> {
    let dot = |i| model_from([1, 1, 1], HashMap::from([([0, 0, 0], i)]));
    let far = format!("{distance} 0 0");
    let data = DotVoxData {
        version: 150,
        index_map: dot_vox::DEFAULT_INDEX_MAP.to_vec(),
        models: vec![dot(slot::WALL), dot(slot::ROOF)],
        palette: dot_vox::DEFAULT_PALETTE.to_vec(),
        materials: Vec::new(),
        scenes: vec![
            transform(1, None),
            SceneNode::Group { attributes: Default::default(), children: vec![2, 4] },
            transform(3, Some("0 0 0")),
            shape(0),
            transform(5, Some(&far)),
            shape(1),
        ],
        layers: vec![dot_vox::Layer { attributes: Default::default() }],
    };
    write(path, &data)
}

pub(super) fn write(path: &Path, data: &DotVoxData) -> std::io::Result<()> {
    let mut file = std::io::BufWriter::new(std::fs::File::create(path)?);
    data.write_vox(&mut file)?;
    std::io::Write::flush(&mut file)
}

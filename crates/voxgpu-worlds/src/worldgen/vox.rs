//! MagicaVoxel import: reads a `.vox` file, walks its scene graph, turns Z-up into Y-up and
//! places the result on y = 0 with the file's palette as the block registry. Also builds the
//! project's own sample model, `assets/sample.vox`.

use std::collections::HashMap;
use std::path::Path;

use dot_vox::{Color, DotVoxData, Material, Model, SceneNode};
use glam::I64Vec3;

use super::{MAX_MODEL_EXTENT, WorldError};
use voxgpu_core::voxel::{
    BlockId, BlockInfo, BlockRegistry, Chunk, ChunkPos, FaceTiles, Opacity, Tile, World,
};

mod export;
mod sample;
#[cfg(test)]
mod tests;

pub use export::{Exported, export_vox, solid_bounds, vox_bytes};
pub use sample::{sample_model, write_spread_models};

/// Palette slots a `.vox` voxel can name: file indices 1..=255, `Voxel::i` 0..=254.
const PALETTE_SLOTS: usize = 255;
/// Alpha for a transparent material that states none.
const DEFAULT_ALPHA: u8 = 128;
/// Scene-graph nodes visited before the file is called malformed. A valid graph is a tree, so
/// this only stops cycles and exponential sharing in hostile files.
const MAX_NODE_VISITS: usize = 1 << 16;
/// Voxels placed, summed over every model instance, before the file is called malformed: a
/// quarter of the largest model's volume ([`MAX_MODEL_EXTENT`]³). Instances may share one model,
/// so a small hostile file could otherwise place billions of voxels.
const MAX_PLACED_VOXELS: usize = 1 << 28;

/// Loads `path` as a world: models placed by the scene graph, Y up, min corner at the origin.
///
/// Reads the bytes itself and calls `dot_vox::load_bytes`, because `dot_vox::load` panics when
/// a read fails after the open succeeds (a directory, for one).
pub(super) fn load(path: &Path) -> Result<World, WorldError> {
    let bytes = std::fs::read(path).map_err(|source| match source.kind() {
        std::io::ErrorKind::NotFound => WorldError::VoxNotFound { path: path.to_path_buf() },
        _ => WorldError::VoxUnreadable { path: path.to_path_buf(), source },
    })?;
    from_bytes(&bytes, path)
}

/// Reads `bytes`, the contents of a `.vox` file named `name` (for messages), as a world, as
/// [`super::generate`] does for a path. For callers without a file system (the browser's file
/// picker).
pub fn from_bytes(bytes: &[u8], name: &Path) -> Result<World, WorldError> {
    let data = dot_vox::load_bytes(bytes).map_err(|reason| malformed(name, reason))?;
    build_world(&data, name)
}

fn malformed(path: &Path, reason: impl Into<String>) -> WorldError {
    WorldError::VoxMalformed { path: path.to_path_buf(), reason: reason.into() }
}

/// One model instance: world_vox = rotation * (voxel - size / 2) + translation, in MagicaVoxel
/// axes (Z up). i64 so hostile translations cannot overflow before the extent check.
struct Placement<'a> {
    model: &'a Model,
    /// The model's index in the file.
    index: usize,
    rotation: Rotation,
    translation: I64Vec3,
}

impl Placement<'_> {
    /// Where voxel `v` of the model lands, in world axes (Y up), before the final shift to the
    /// origin. MagicaVoxel centres a model on `floor(size / 2)` before rotating it.
    fn place(&self, v: I64Vec3) -> I64Vec3 {
        let s = self.model.size;
        let half = I64Vec3::new(i64::from(s.x), i64::from(s.y), i64::from(s.z)) / 2;
        let p = self.rotation.apply(v - half) + self.translation;
        // Z-up to Y-up: (x, y, z) -> (x, z, -y). A quarter turn about x, not a mirror, so a
        // model keeps its handedness.
        I64Vec3::new(p.x, p.z, -p.y)
    }
}

/// A MagicaVoxel rotation: a signed permutation matrix, rows of `(column, sign)`.
#[derive(Clone, Copy)]
struct Rotation([(usize, i64); 3]);

impl Rotation {
    const IDENTITY: Self = Self([(0, 1), (1, 1), (2, 1)]);

    /// Decodes the `_r` byte: bits 0-1 and 2-3 are the non-zero columns of rows 0 and 1, bits
    /// 4-6 the row signs. Decoded here because `dot_vox::Rotation::from_byte` panics on a bad
    /// byte, and a bad byte is a malformed file, not a bug.
    fn from_byte(byte: u8) -> Option<Self> {
        let (c0, c1) = (usize::from(byte & 3), usize::from((byte >> 2) & 3));
        if c0 == 3 || c1 == 3 || c0 == c1 {
            return None;
        }
        let sign = |bit: u8| if byte & (1 << bit) == 0 { 1 } else { -1 };
        Some(Self([(c0, sign(4)), (c1, sign(5)), (3 - c0 - c1, sign(6))]))
    }

    fn apply(&self, v: I64Vec3) -> I64Vec3 {
        let v = v.to_array();
        I64Vec3::from_array(self.0.map(|(col, sign)| sign * v[col]))
    }

    /// `self * other`: apply `other` first.
    fn then_inner(&self, other: &Self) -> Self {
        Self(self.0.map(|(col, sign)| (other.0[col].0, sign * other.0[col].1)))
    }
}

/// Builds the world for parsed file `data`; `path` only names the file in errors.
fn build_world(data: &DotVoxData, path: &Path) -> Result<World, WorldError> {
    let placements = placements(data, path)?;
    let placed = placements.iter().map(|p| p.model.voxels.len()).fold(0usize, usize::saturating_add);
    if placed > MAX_PLACED_VOXELS {
        return Err(malformed(
            path,
            format!("its model instances place {placed} voxels, more than {MAX_PLACED_VOXELS}"),
        ));
    }
    // Bounds per model, not per instance: instances share models.
    let bounds_of: Vec<Option<(I64Vec3, I64Vec3)>> = data.models.iter().map(model_bounds).collect();
    let mut bounds: Option<(I64Vec3, I64Vec3)> = None;
    for placement in &placements {
        let Some((lo, hi)) = bounds_of[placement.index] else {
            continue;
        };
        // A signed permutation maps a box to a box, so two opposite corners bound the image.
        let (a, b) = (placement.place(lo), placement.place(hi));
        let (lo, hi) = (a.min(b), a.max(b));
        bounds = Some(bounds.map_or((lo, hi), |(l, h)| (l.min(lo), h.max(hi))));
    }
    let Some((min, max)) = bounds else {
        return Err(malformed(path, "no voxels"));
    };
    let extent = max - min + I64Vec3::ONE;
    if extent.max_element() > i64::from(MAX_MODEL_EXTENT) {
        let size = extent.min(I64Vec3::splat(i64::from(i32::MAX))).as_ivec3();
        return Err(WorldError::ModelTooLarge { path: path.to_path_buf(), size, limit: MAX_MODEL_EXTENT });
    }
    let mut chunks: HashMap<ChunkPos, Chunk> = HashMap::new();
    for placement in &placements {
        for v in &placement.model.voxels {
            let local = I64Vec3::new(i64::from(v.x), i64::from(v.y), i64::from(v.z));
            // In range: inside the checked extent, so it fits in i32.
            let world = (placement.place(local) - min).as_ivec3();
            let (pos, l) = ChunkPos::from_block(world);
            let block = BlockId(u16::from(v.i) + 1);
            chunks.entry(pos).or_default().set(l.x as usize, l.y as usize, l.z as usize, block);
        }
    }
    let mut world = World::new(registry(data));
    chunks.into_iter().for_each(|(pos, chunk)| world.insert(pos, chunk));
    Ok(world)
}

/// Min and max voxel coordinates of a model, or `None` when it has no voxels.
fn model_bounds(model: &Model) -> Option<(I64Vec3, I64Vec3)> {
    model.voxels.iter().fold(None, |acc, v| {
        let p = I64Vec3::new(i64::from(v.x), i64::from(v.y), i64::from(v.z));
        Some(acc.map_or((p, p), |(lo, hi): (I64Vec3, I64Vec3)| (lo.min(p), hi.max(p))))
    })
}

/// Every visible model instance, found by walking the scene graph from node 0 and composing
/// transforms on the way down. A file without a scene graph (older MagicaVoxel versions) holds
/// one model at the origin.
fn placements<'a>(data: &'a DotVoxData, path: &Path) -> Result<Vec<Placement<'a>>, WorldError> {
    if data.scenes.is_empty() {
        let model = data.models.first().ok_or_else(|| malformed(path, "no voxels"))?;
        return Ok(vec![Placement {
            model,
            index: 0,
            rotation: Rotation::IDENTITY,
            translation: I64Vec3::ZERO,
        }]);
    }
    let mut found = Vec::new();
    let mut stack = vec![(0u32, Rotation::IDENTITY, I64Vec3::ZERO)];
    let mut visits = 0;
    while let Some((index, rotation, translation)) = stack.pop() {
        visits += 1;
        if visits > MAX_NODE_VISITS {
            return Err(malformed(path, "scene graph has a cycle or is too large"));
        }
        let node = data
            .scenes
            .get(index as usize)
            .ok_or_else(|| malformed(path, format!("scene graph refers to missing node {index}")))?;
        match node {
            SceneNode::Transform { attributes, frames, child, layer_id } => {
                let layer_hidden = data.layers.get(*layer_id as usize).is_some_and(|l| l.hidden());
                if is_hidden(attributes) || layer_hidden {
                    continue;
                }
                let frame = frames.first().map(|f| &f.attributes);
                let (r, t) = frame_transform(frame, path)?;
                let inner = (rotation.then_inner(&r), rotation.apply(t) + translation);
                stack.push((*child, inner.0, inner.1));
            }
            SceneNode::Group { attributes, children } => {
                if !is_hidden(attributes) {
                    // Every node stacked is visited: a walk that would pass the limit is refused
                    // before the group's children are stacked, so the stack stays within it too.
                    if visits + stack.len() + children.len() > MAX_NODE_VISITS {
                        return Err(malformed(path, "scene graph has a cycle or is too large"));
                    }
                    stack.extend(children.iter().rev().map(|&c| (c, rotation, translation)));
                }
            }
            // A shape with several models is an animation; frame 0 is its first model.
            SceneNode::Shape { models, .. } => {
                if let Some(shape_model) = models.first() {
                    let id = shape_model.model_id as usize;
                    let model = data.models.get(id).ok_or_else(|| {
                        malformed(path, format!("scene graph refers to missing model {id}"))
                    })?;
                    found.push(Placement { model, index: id, rotation, translation });
                }
            }
        }
    }
    Ok(found)
}

fn is_hidden(attributes: &dot_vox::Dict) -> bool {
    attributes.get("_hidden").is_some_and(|v| v == "1")
}

/// The rotation (`_r`) and translation (`_t`, "x y z") of a transform's first frame. Absent
/// keys mean identity; unparsable ones make the file malformed.
fn frame_transform(frame: Option<&dot_vox::Dict>, path: &Path) -> Result<(Rotation, I64Vec3), WorldError> {
    let rotation = match frame.and_then(|f| f.get("_r")) {
        None => Rotation::IDENTITY,
        Some(r) => r
            .trim()
            .parse::<u8>()
            .ok()
            .and_then(Rotation::from_byte)
            .ok_or_else(|| malformed(path, format!("bad rotation '{r}'")))?,
    };
    let translation = match frame.and_then(|f| f.get("_t")) {
        None => I64Vec3::ZERO,
        Some(t) => {
            let parts: Vec<Option<i64>> =
                t.split_whitespace().map(|s| s.parse::<i32>().ok().map(i64::from)).collect();
            match parts.as_slice() {
                [Some(x), Some(y), Some(z)] => I64Vec3::new(*x, *y, *z),
                _ => return Err(malformed(path, format!("bad translation '{t}'"))),
            }
        }
    };
    Ok((rotation, translation))
}

/// A registry where `Voxel::i` = `k` is `BlockId(k + 1)`, for all 255 slots, so ids map without
/// a lookup table. Glass and blend materials become transparent blocks.
fn registry(data: &DotVoxData) -> BlockRegistry {
    // Material ids are the file's palette indices, which are `Voxel::i + 1`.
    let materials: HashMap<u32, &Material> = data.materials.iter().map(|m| (m.id, m)).collect();
    let mut registry = BlockRegistry::new();
    for slot in 0..PALETTE_SLOTS {
        let Color { r, g, b, .. } = data.palette.get(slot).copied().unwrap_or(GREY);
        let material = materials.get(&(slot as u32 + 1));
        let see_through =
            material.and_then(|m| m.material_type()).is_some_and(|t| t == "_glass" || t == "_blend");
        let (opacity, alpha) = if see_through {
            (Opacity::Transparent, material.map_or(DEFAULT_ALPHA, |m| alpha(m)))
        } else {
            (Opacity::Opaque, 255)
        };
        // No texture for imported blocks: the palette colour tints the plain tile.
        let info =
            BlockInfo::new(format!("palette-{slot}"), opacity, [r, g, b, alpha], FaceTiles::all(Tile::Plain));
        let emission = material.map_or(0, |m| emission(m));
        registry.register(BlockInfo { emission, ..info });
    }
    registry
}

/// Colour for palette slots a short `RGBA` chunk leaves out.
const GREY: Color = Color { r: 128, g: 128, b: 128, a: 255 };

/// Block light of an emissive material (`_type` `_emit`): its `_emit` strength (0..1, scaled by
/// `_flux`'s power of ten as MagicaVoxel does, 1 when absent) mapped onto 1..=15; 0 for other
/// materials and for an `_emit` of 0.
fn emission(material: &Material) -> u8 {
    if material.material_type() != Some("_emit") {
        return 0;
    }
    let value = |key: &str| material.properties.get(key).and_then(|v| v.parse::<f32>().ok());
    let strength = value("_emit").unwrap_or(1.0) * 10f32.powf(value("_flux").unwrap_or(0.0));
    if !strength.is_finite() || strength <= 0.0 {
        return 0;
    }
    (strength.min(1.0) * 15.0).round().clamp(1.0, 15.0) as u8
}

/// Alpha of a transparent material: `1 - _trans` (glass), else `_alpha` (blend), else 128.
fn alpha(material: &Material) -> u8 {
    let opacity = match (material.transparency(), material.opacity()) {
        (Some(trans), _) => 1.0 - trans,
        (None, Some(alpha)) => alpha,
        (None, None) => return DEFAULT_ALPHA,
    };
    (opacity.clamp(0.0, 1.0) * 255.0).round() as u8
}

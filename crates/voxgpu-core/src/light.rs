//! Sky light and block light: the CPU twin of `shaders/light.wgsl`, equal to it cell for cell.
//!
//! Every cell holds two levels, 0..=15, packed in one byte ([`Light`]): sky light in the low
//! four bits, block light in the high four. The rules, for a cell `c` with light opacity
//! `o = light_opacity(c)` ([`crate::voxel::BlockInfo::light_opacity`]):
//! - a cell with `o = 15` stops light: its sky light is 0 and its block light its own emission
//!   (so an opaque lamp lights its neighbours, and no light passes through it);
//! - sky light is 15 in the open sky. Coming down from a cell of 15 it keeps 15 through cells of
//!   `o = 0` (air, glass) and becomes `15 − o` in others; every other step (sideways, upwards, or
//!   down from less than 15) costs `max(1, o)`;
//! - block light is the cell's emission, or what a neighbour has less `max(1, o)`.
//!
//! Both rules are "the largest value any path from a source gives", a least fixed point that
//! does not depend on the order cells are visited in. Since every step but sky light's straight
//! fall costs at least 1, every value under 15 lies at most [`RELAX_STEPS`] = 14 steps from a
//! source: a fall of sky light from the open sky, or an emitter.
//!
//! How this twin computes it per node (the GPU reaches the same bytes in another order; see
//! `voxgpu_engine::light`):
//! 1. **Fall**: each column of cells takes sky light straight down from the open sky, through
//!    the nodes above it at the same level (a missing node above counts as open sky: all-air
//!    nodes are never stored), each cell of `2^level` blocks by [`cell_down`]; block light is
//!    each cell's emission.
//! 2. **Spread**, full-detail chunks (level 0) only, to the fixed point: every non-opaque cell
//!    takes the largest value its six neighbours (across chunk borders) offer, until none
//!    changes. The GPU gets there in at most [`RELAX_STEPS`] rounds, each at least a Jacobi
//!    step (on a CPU adapter its rounds also sweep whole lines of cells); this twin by a work list. Light is never
//!    spread at a coarse level, where one step would cross `2^level` blocks.
//! 3. **Coarse from fine**: a level-N node (N ≥ 1) takes, in each octant whose child node is
//!    resident, that child's level-1 mip; elsewhere it keeps its fall.
//! 4. **Mips**: each coarser level of a node's light is, per channel, the largest of the eight
//!    cells below it. Opaque cells hold only their emission, so that is the largest light of the
//!    cell's open children.
//!
//! Light does not cross all-air chunks, which are not stored: above the ground they are open
//! sky, which the fall already counts.

use std::collections::HashMap;

use glam::IVec3;

use crate::voxel::{BlockId, BlockRegistry, CHUNK_SIZE, Chunk, NodeKey, octant};

/// The brightest level of either channel.
pub const MAX_LIGHT: u8 = 15;

/// Rounds of the spread: the longest path from a source to a lit cell (a value of 1 is 14
/// steps of at least 1 from a 15).
pub const RELAX_STEPS: u32 = 14;

/// Nodes above a column the fall walks through at most; above the last it takes open sky.
pub const MAX_ABOVE: usize = 32;

/// Levels of a node's light: 32³, 16³, 8³, 4³, 2³ and 1³ cells.
pub const LIGHT_LEVELS: usize = 6;

/// Bytes of one node's light, every level.
pub const NODE_LIGHT_BYTES: usize = light_level_base(LIGHT_LEVELS);

/// Where level `level` of a node's light starts, in bytes (one byte a cell, x fastest). Each
/// level starts on a 4-byte word, as the GPU packs four cells to a word.
pub const fn light_level_base(level: usize) -> usize {
    let mut base = 0;
    let mut k = 0;
    while k < level {
        let size = CHUNK_SIZE >> k;
        base += (size * size * size).next_multiple_of(4);
        k += 1;
    }
    base
}

/// One cell's light: sky in bits 0..4, block in bits 4..8.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Light(pub u8);

impl Light {
    /// Both channels, each clamped to 15.
    pub fn new(sky: u8, block: u8) -> Self {
        Self(sky.min(MAX_LIGHT) | (block.min(MAX_LIGHT) << 4))
    }

    /// Sky light, 0..=15.
    pub fn sky(self) -> u8 {
        self.0 & 15
    }

    /// Block light, 0..=15.
    pub fn block(self) -> u8 {
        self.0 >> 4
    }

    /// The larger of each channel.
    pub fn max(self, other: Self) -> Self {
        Self::new(self.sky().max(other.sky()), self.block().max(other.block()))
    }
}

/// Light opacity and emission per block id, from a registry.
#[derive(Clone, Debug)]
pub struct LightRules {
    opacity: Vec<u8>,
    emission: Vec<u8>,
}

impl LightRules {
    /// The rules of `registry`'s blocks. Ids it lacks pass light and give none (an unknown id is
    /// not opaque either).
    pub fn new(registry: &BlockRegistry) -> Self {
        let (opacity, emission) = registry.iter().map(|(_, b)| (b.light_opacity, b.emission)).unzip();
        Self { opacity, emission }
    }

    /// Light opacity of `id`, 0..=15.
    pub fn opacity(&self, id: BlockId) -> u8 {
        self.opacity.get(id.0 as usize).copied().unwrap_or(0)
    }

    /// Emission of `id`, 0..=15.
    pub fn emission(&self, id: BlockId) -> u8 {
        self.emission.get(id.0 as usize).copied().unwrap_or(0)
    }

    /// The GPU's table: per id, opacity in bits 0..4 and emission in bits 4..8.
    pub fn gpu_table(&self) -> Vec<u32> {
        self.opacity.iter().zip(&self.emission).map(|(&o, &e)| o as u32 | (e as u32) << 4).collect()
    }
}

/// Sky light `v` of the cell above entering a cell of opacity `o`, one block: the value of the
/// cell's top block.
pub fn enter(v: u8, o: u8) -> u8 {
    if o >= MAX_LIGHT {
        0
    } else if v == MAX_LIGHT {
        MAX_LIGHT - o
    } else {
        v.saturating_sub(o.max(1))
    }
}

/// Sky light `v` falling into a cell of opacity `o` that is `blocks` blocks tall: the cell's
/// value (its top block's) and what leaves its bottom.
pub fn cell_down(v: u8, o: u8, blocks: u32) -> (u8, u8) {
    let top = enter(v, o);
    let rest = (blocks - 1).min(u8::MAX as u32) as u8;
    let bottom =
        if top == MAX_LIGHT || top == 0 { top } else { top.saturating_sub(rest.saturating_mul(o.max(1))) };
    (top, bottom)
}

/// What a cell of opacity `o` takes from a neighbour's light `n`: from the cell above when
/// `from_above`.
pub fn offered(n: Light, o: u8, from_above: bool) -> Light {
    if o >= MAX_LIGHT {
        return Light(0);
    }
    let cost = o.max(1);
    let sky = if from_above { enter(n.sky(), o) } else { n.sky().saturating_sub(cost) };
    Light::new(sky, n.block().saturating_sub(cost))
}

/// One node's light: every level, [`light_level_base`] apart.
#[derive(Clone, PartialEq, Eq)]
pub struct NodeLight {
    bytes: Vec<u8>,
}

impl std::fmt::Debug for NodeLight {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NodeLight").field("bytes", &self.bytes.len()).finish()
    }
}

impl NodeLight {
    /// A node's light from its bytes as the GPU holds them (at least [`NODE_LIGHT_BYTES`]).
    pub fn from_bytes(bytes: &[u8]) -> Self {
        Self { bytes: bytes[..NODE_LIGHT_BYTES].to_vec() }
    }

    fn dark() -> Self {
        Self { bytes: vec![0; NODE_LIGHT_BYTES] }
    }

    /// Every level's bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Level `level`'s cells, `(32 >> level)³` of them, x fastest.
    pub fn level(&self, level: usize) -> &[u8] {
        let size = CHUNK_SIZE >> level;
        let base = light_level_base(level);
        &self.bytes[base..base + size * size * size]
    }

    /// The light of cell `(x, y, z)` of level `level`.
    pub fn get(&self, level: usize, x: usize, y: usize, z: usize) -> Light {
        let size = CHUNK_SIZE >> level;
        Light(self.bytes[light_level_base(level) + x + size * (y + size * z)])
    }

    fn set0(&mut self, x: usize, y: usize, z: usize, light: Light) {
        self.bytes[x + CHUNK_SIZE * (y + CHUNK_SIZE * z)] = light.0;
    }

    /// Levels 1.. from level 0, each cell the largest of its eight below, per channel.
    fn build_mips(&mut self) {
        for level in 1..LIGHT_LEVELS {
            let size = CHUNK_SIZE >> level;
            for z in 0..size {
                for y in 0..size {
                    for x in 0..size {
                        let mut light = Light(0);
                        for i in 0..8 {
                            let o = octant(i).as_uvec3();
                            let (cx, cy, cz) =
                                (2 * x + o.x as usize, 2 * y + o.y as usize, 2 * z + o.z as usize);
                            light = light.max(self.get(level - 1, cx, cy, cz));
                        }
                        self.bytes[light_level_base(level) + x + size * (y + size * z)] = light.0;
                    }
                }
            }
        }
    }
}

/// The light of every node given, computed from scratch as the GPU does (steps 1–4 above):
/// nodes absent from `nodes` are absent for the rules too.
pub fn light_nodes<'a>(
    nodes: impl IntoIterator<Item = (NodeKey, &'a Chunk)>,
    rules: &LightRules,
) -> HashMap<NodeKey, NodeLight> {
    let nodes: HashMap<NodeKey, &Chunk> = nodes.into_iter().collect();
    let mut lights: HashMap<NodeKey, NodeLight> =
        nodes.keys().map(|&key| (key, fall(key, &nodes, rules))).collect();
    spread(&nodes, &mut lights, rules);
    let mut keys: Vec<NodeKey> = nodes.keys().copied().collect();
    keys.sort_by_key(|k| (k.level, k.pos.to_array()));
    for key in keys {
        if key.level > 0 {
            let light = lights.get(&key).expect("every node has its fall").clone();
            let pulled = from_children(key, light, &lights);
            lights.insert(key, pulled);
        }
        lights.get_mut(&key).expect("lit").build_mips();
    }
    lights
}

/// Step 1: each column's fall through the nodes above, and each cell's emission.
fn fall(key: NodeKey, nodes: &HashMap<NodeKey, &Chunk>, rules: &LightRules) -> NodeLight {
    let blocks = 1u32 << key.level;
    let mut above: Vec<&Chunk> = Vec::new();
    while above.len() < MAX_ABOVE {
        match nodes.get(&key.neighbour(IVec3::new(0, above.len() as i32 + 1, 0))) {
            Some(chunk) => above.push(chunk),
            None => break,
        }
    }
    let own = nodes[&key];
    let mut light = NodeLight::dark();
    for z in 0..CHUNK_SIZE {
        for x in 0..CHUNK_SIZE {
            let mut v = MAX_LIGHT;
            for chunk in above.iter().rev() {
                for y in (0..CHUNK_SIZE).rev() {
                    v = cell_down(v, rules.opacity(chunk.get(x, y, z)), blocks).1;
                }
            }
            for y in (0..CHUNK_SIZE).rev() {
                let id = own.get(x, y, z);
                let (top, bottom) = cell_down(v, rules.opacity(id), blocks);
                light.set0(x, y, z, Light::new(top, rules.emission(id)));
                v = bottom;
            }
        }
    }
    light
}

/// Step 2: the spread over every full-detail chunk to its fixed point, by a work list (the GPU
/// gets there by rounds; the result is the same).
fn spread(nodes: &HashMap<NodeKey, &Chunk>, lights: &mut HashMap<NodeKey, NodeLight>, rules: &LightRules) {
    let size = CHUNK_SIZE as i32;
    let split = |p: IVec3| {
        let chunk = p.div_euclid(IVec3::splat(size));
        let local = p.rem_euclid(IVec3::splat(size));
        (NodeKey::new(0, chunk), local.x as usize, local.y as usize, local.z as usize)
    };
    let mut queue: Vec<IVec3> = Vec::new();
    for (&key, light) in lights.iter() {
        if key.level != 0 {
            continue;
        }
        let origin = key.origin();
        for (i, &byte) in light.level(0).iter().enumerate() {
            if byte != 0 {
                let local = IVec3::new((i % 32) as i32, (i / 32 % 32) as i32, (i / 1024) as i32);
                queue.push(origin + local);
            }
        }
    }
    const STEPS: [IVec3; 6] = [IVec3::X, IVec3::NEG_X, IVec3::Y, IVec3::NEG_Y, IVec3::Z, IVec3::NEG_Z];
    while let Some(p) = queue.pop() {
        let (key, x, y, z) = split(p);
        let from = lights[&key].get(0, x, y, z);
        for step in STEPS {
            let q = p + step;
            let (nkey, nx, ny, nz) = split(q);
            let Some(chunk) = nodes.get(&nkey) else { continue };
            let o = rules.opacity(chunk.get(nx, ny, nz));
            // `q` is below `p` when the step goes down: it takes the fall's rule.
            let offer = offered(from, o, step == IVec3::NEG_Y);
            let light = lights.get_mut(&nkey).expect("every chunk is lit");
            let current = light.get(0, nx, ny, nz);
            let next = current.max(offer);
            if next != current {
                light.set0(nx, ny, nz, next);
                queue.push(q);
            }
        }
    }
}

/// Step 3: the octants whose child is resident take the child's level-1 mip.
fn from_children(key: NodeKey, mut light: NodeLight, lights: &HashMap<NodeKey, NodeLight>) -> NodeLight {
    let half = CHUNK_SIZE / 2;
    for (i, child) in key.children().iter().enumerate() {
        let Some(child) = lights.get(child) else { continue };
        let at = octant(i).as_uvec3() * half as u32;
        for z in 0..half {
            for y in 0..half {
                for x in 0..half {
                    let l = child.get(1, x, y, z);
                    light.set0(at.x as usize + x, at.y as usize + y, at.z as usize + z, l);
                }
            }
        }
    }
    light
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::voxel::blocks;

    fn lit(chunks: &[(IVec3, Chunk)]) -> HashMap<NodeKey, NodeLight> {
        let rules = LightRules::new(&BlockRegistry::builtin());
        light_nodes(chunks.iter().map(|(p, c)| (NodeKey::new(0, *p), c)), &rules)
    }

    #[test]
    fn open_sky_falls_and_spreads_under_a_roof() {
        // A stone roof over x < 16 at y = 20; under it light comes in sideways.
        let mut chunk = Chunk::empty();
        for z in 0..32 {
            for x in 0..16 {
                chunk.set(x, 20, z, blocks::STONE);
            }
        }
        let lights = lit(&[(IVec3::ZERO, chunk)]);
        let light = &lights[&NodeKey::new(0, IVec3::ZERO)];
        assert_eq!(light.get(0, 20, 10, 5).sky(), 15);
        assert_eq!(light.get(0, 10, 20, 5), Light(0), "the roof itself");
        assert_eq!(light.get(0, 15, 10, 5).sky(), 14, "one step in from the open side");
        assert_eq!(light.get(0, 10, 10, 5).sky(), 9);
        assert_eq!(light.get(0, 0, 0, 0).sky(), 0, "16 steps from the open sky: dark");
        assert_eq!(light.get(1, 7, 5, 2).sky(), 14, "a mip takes the brightest of its cells");
    }

    #[test]
    fn a_lamp_lights_across_a_chunk_border_and_water_dims_the_sky() {
        let mut a = Chunk::filled(blocks::STONE);
        for z in 0..32 {
            for y in 0..31 {
                for x in 0..32 {
                    a.set(x, y, z, BlockId::AIR);
                }
            }
        }
        a.set(30, 4, 4, blocks::LAMP);
        let mut b = Chunk::empty();
        for z in 0..32 {
            for x in 0..32 {
                b.set(x, 31, z, blocks::WATER);
                b.set(x, 30, z, blocks::WATER);
            }
        }
        let lights = lit(&[(IVec3::ZERO, a), (IVec3::new(1, 0, 0), b)]);
        let la = &lights[&NodeKey::new(0, IVec3::ZERO)];
        let lb = &lights[&NodeKey::new(0, IVec3::X)];
        assert_eq!(la.get(0, 30, 4, 4), Light::new(0, 15), "an opaque lamp keeps its emission");
        assert_eq!(la.get(0, 31, 4, 4).block(), 14);
        assert_eq!(lb.get(0, 0, 4, 4).block(), 13, "across the border");
        assert_eq!(lb.get(0, 5, 31, 9).sky(), 14, "the water's top block");
        assert_eq!(lb.get(0, 5, 30, 9).sky(), 13);
        assert_eq!(lb.get(0, 5, 29, 9).sky(), 12, "below water, down from under 15 costs 1");
    }

    #[test]
    fn a_coarse_cell_falls_as_its_blocks_would() {
        // Four blocks of water from the open sky, as one level-2 cell: its top block's value, and
        // out of its bottom what four blocks of water leave.
        assert_eq!(cell_down(15, 1, 4), (14, 11));
        assert_eq!(cell_down(15, 0, 8), (15, 15));
        assert_eq!(cell_down(9, 0, 4), (8, 5));
        assert_eq!(cell_down(15, 15, 2), (0, 0));
        assert_eq!(light_level_base(LIGHT_LEVELS), 32768 + 4096 + 512 + 64 + 8 + 4);
    }
}

//! CPU reference binary greedy mesher: the oracle for the compute mesher and the baseline for
//! `voxgpu bench`. It is written to read like the shader: fixed-size `u32` arrays, bit loops, no
//! allocation in the inner loops.
//!
//! 1. **Columns.** For each normal axis, occupancy is kept as 32×32 `u32` columns whose bit `a` is
//!    the voxel at depth `a` along that axis: one set of solid bits, one of opaque bits.
//! 2. **Face culling.** A face of a solid voxel towards `+axis` is visible where the next voxel is
//!    not opaque: `solid & !(opaque >> 1 | border << 31)`, and `-axis` uses `<< 1` and bit 0. The
//!    border bit comes from the neighbouring chunk's facing layer; an absent neighbour gives 0, so
//!    the border face is drawn (a transient over-draw beats a transient hole).
//! 3. **Transparent rule.** A transparent voxel next to the *same* transparent block shows no face
//!    (water against water). Those few bits are checked one by one.
//! 4. **Greedy merge.** For each signed face direction, the visible columns are transposed into one
//!    32×32 bit plane per slice, and each plane is split by block id, so opposite faces and
//!    different blocks never merge. Each block's plane is merged with bit scans: take the lowest
//!    run of set bits in a row, grow it down while the next row holds the whole run, clear it,
//!    emit one quad.
//! 5. **Levels of detail.** The same code meshes a chunk's mip at level `L` (a `(32 >> L)³` grid,
//!    [`Grid`]); quads are in that grid's units and the draw scales them by `2^L`. Border faces are
//!    culled against the neighbour's mip at the *same* level.
//! 6. **Skirts.** Where the neighbour is drawn at another level, its surface at the shared plane
//!    differs from the one this chunk was culled against, and a gap could open. So on such a border
//!    a face the neighbour hid at this level is emitted anyway, flagged as a skirt, wherever the
//!    neighbour *as drawn* (its own level) would leave any part of it exposed by the face rule.
//!    Every face of the union's surface is then drawn by one side or the other, so no seam can
//!    open; where the neighbour's surface is in front anyway the skirt loses the depth test (the
//!    draw also pushes skirts back a little). Transparent blocks follow the same rule, so a lake
//!    across a level boundary stays closed without a sheet of water skirts inside it.

use std::ops::Range;

use glam::UVec3;

use super::{Face, PackedQuad, Quad};
use crate::voxel::{BlockId, CHUNK_SIZE, Chunk, ChunkPos, MipPyramid, World};

const N: usize = CHUNK_SIZE;

/// The six face-adjacent chunks, indexed by [`Face`]. `None` means not resident, which counts as
/// exposed.
#[derive(Clone, Copy, Default)]
pub struct Neighbours<'a>(pub [Option<&'a Chunk>; 6]);

impl<'a> Neighbours<'a> {
    /// The neighbours of `pos` as stored in `world`.
    pub fn of(world: &'a World, pos: ChunkPos) -> Self {
        Self(Face::ALL.map(|f| world.chunk(pos.neighbour(f.normal())).map(|c| &**c)))
    }
}

/// A cube of block ids, `size` (32 >> level) on a side, x fastest: a chunk or one of its mips.
#[derive(Clone, Copy)]
pub struct Grid<'a> {
    pub size: usize,
    pub ids: &'a [BlockId],
}

impl<'a> Grid<'a> {
    pub fn new(size: usize, ids: &'a [BlockId]) -> Self {
        assert!(size.is_power_of_two() && size <= N && ids.len() == size * size * size);
        Self { size, ids }
    }

    /// A chunk's level 0.
    pub fn chunk(chunk: &'a Chunk) -> Self {
        Self::new(N, chunk.voxels())
    }

    /// Level `level` of a chunk whose pyramid is `mips`.
    pub fn level(chunk: &'a Chunk, mips: &'a MipPyramid, level: u32) -> Self {
        match level {
            0 => Self::chunk(chunk),
            l => Self::new(N >> l, mips.level(l as usize)),
        }
    }

    #[inline]
    fn get_at(&self, [x, y, z]: [usize; 3]) -> BlockId {
        self.ids[x + self.size * (y + self.size * z)]
    }
}

/// What lies across one face of the chunk being meshed: the neighbour's grid at the same level,
/// and, when the neighbour is drawn at another level, the grid it is drawn with (the border then
/// needs skirts).
#[derive(Clone, Copy)]
pub struct Border<'a> {
    pub grid: Grid<'a>,
    pub drawn: Option<Grid<'a>>,
}

impl Border<'_> {
    /// Whether the neighbour as drawn leaves any part of the face of `block` at tangent cell
    /// `(u, v)` (of a grid `size` on a side) exposed. Twin of the shader's `drawn_exposes`.
    fn drawn_exposes(
        &self,
        opaque: &[bool],
        face: Face,
        size: usize,
        u: usize,
        v: usize,
        block: BlockId,
    ) -> bool {
        let Some(drawn) = self.drawn else { return false };
        // The neighbour cells the face covers: several when the neighbour is finer, one when coarser.
        let span = |c: usize| {
            let low = c * drawn.size / size;
            low..((c + 1) * drawn.size / size).max(low + 1)
        };
        let depth = if face.is_positive() { 0 } else { drawn.size - 1 };
        span(v).any(|dv| {
            span(u).any(|du| {
                let next = drawn.get_at(voxel_at(face.axis(), depth, du, dv));
                !is_opaque(opaque, next) && next != block
            })
        })
    }
}

/// One chunk's quads of one kind, grouped by face direction in [`Face`] order so culling can skip
/// whole directions: `quads[range(PosX)]` are the +X faces, and so on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FaceGroups {
    pub quads: Vec<PackedQuad>,
    pub counts: [u32; 6],
}

/// Where the quads of `face` sit in a stream laid out in [`Face`] order with per-face `counts`.
pub fn face_range(counts: &[u32; 6], face: Face) -> Range<u32> {
    let start: u32 = counts[..face as usize].iter().sum();
    start..start + counts[face as usize]
}

impl FaceGroups {
    pub fn range(&self, face: Face) -> Range<usize> {
        let r = face_range(&self.counts, face);
        r.start as usize..r.end as usize
    }

    pub fn len(&self) -> usize {
        self.quads.len()
    }

    pub fn is_empty(&self) -> bool {
        self.quads.is_empty()
    }
}

/// A chunk's mesh: opaque and transparent quads kept apart, because they are drawn by different
/// passes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChunkMesh {
    pub opaque: FaceGroups,
    pub transparent: FaceGroups,
}

impl ChunkMesh {
    pub fn quad_count(&self) -> usize {
        self.opaque.len() + self.transparent.len()
    }

    pub fn all_quads(&self) -> impl Iterator<Item = PackedQuad> + '_ {
        self.opaque.quads.iter().chain(&self.transparent.quads).copied()
    }
}

/// Meshes the chunk at `pos` of `world` against its resident neighbours.
pub fn mesh_world_chunk(world: &World, pos: ChunkPos) -> ChunkMesh {
    match world.chunk(pos) {
        Some(chunk) => mesh_chunk(chunk, &Neighbours::of(world, pos), &world.registry.opaque_table()),
        None => ChunkMesh::default(),
    }
}

/// Meshes the chunk at `pos` at level `levels(pos)`, against its neighbours' mips at that level,
/// with skirts towards neighbours at another level. `mips(pos)` gives a resident chunk's pyramid.
pub fn mesh_world_chunk_lod<'a>(
    world: &'a World,
    pos: ChunkPos,
    mips: &impl Fn(ChunkPos) -> &'a MipPyramid,
    levels: &impl Fn(ChunkPos) -> u32,
) -> ChunkMesh {
    let Some(chunk) = world.chunk(pos) else { return ChunkMesh::default() };
    let level = levels(pos);
    let borders = Face::ALL.map(|f| {
        let other = pos.neighbour(f.normal());
        world.chunk(other).map(|c| {
            let drawn = levels(other);
            Border {
                grid: Grid::level(c, mips(other), level),
                drawn: (drawn != level).then(|| Grid::level(c, mips(other), drawn)),
            }
        })
    });
    mesh_grid(Grid::level(chunk, mips(pos), level), &borders, &world.registry.opaque_table())
}

/// Position of the voxel at depth `a` along normal axis `n`, at tangent coordinates `(u, v)`.
#[inline]
fn voxel_at(n: usize, a: usize, u: usize, v: usize) -> [usize; 3] {
    let mut p = [0; 3];
    p[n] = a;
    p[(n + 1) % 3] = u;
    p[(n + 2) % 3] = v;
    p
}

/// Solid and opaque column bitmasks of one chunk along one axis: bit `a` of `solid[v * 32 + u]`
/// is the voxel at depth `a` and tangent coordinates `(u, v)`. The shader's `build_columns`
/// fills the same arrays for one axis.
struct AxisColumns {
    solid: [u32; N * N],
    opaque: [u32; N * N],
}

impl AxisColumns {
    /// Columns along all three axes, from one pass over the voxels in memory order. Rows keep a
    /// stride of 32 whatever the grid's size, as in the shader.
    fn build_all(grid: Grid, opaque: &[bool]) -> Box<[AxisColumns; 3]> {
        let empty = || AxisColumns { solid: [0; N * N], opaque: [0; N * N] };
        let mut cols = Box::new([empty(), empty(), empty()]);
        let n = grid.size;
        for (i, &b) in grid.ids.iter().enumerate() {
            if b.is_air() {
                continue;
            }
            let (x, y, z) = (i % n, i / n % n, i / (n * n));
            let is_opaque = is_opaque(opaque, b) as u32;
            // Axis X: a = x, u = y, v = z. Axis Y: a = y, u = z, v = x. Axis Z: a = z, u = x, v = y.
            for (axis, a, col) in [(0, x, z * N + y), (1, y, x * N + z), (2, z, y * N + x)] {
                cols[axis].solid[col] |= 1 << a;
                cols[axis].opaque[col] |= is_opaque << a;
            }
        }
        cols
    }
}

#[inline]
fn is_opaque(table: &[bool], b: BlockId) -> bool {
    table.get(b.0 as usize).copied().unwrap_or(false)
}

/// The block in the neighbouring chunk that touches face `face` of this chunk at tangent
/// coordinates `(u, v)`. An absent neighbour gives air, so the face counts as exposed.
fn border_block(borders: &[Option<Border>; 6], face: Face, u: usize, v: usize) -> BlockId {
    let Some(nb) = borders[face as usize] else { return BlockId::AIR };
    let a = if face.is_positive() { 0 } else { nb.grid.size - 1 };
    nb.grid.get_at(voxel_at(face.axis(), a, u, v))
}

/// 32 rows of 32 bits: bit `u` of `rows[v]`.
type Plane = [u32; N];

/// Visible faces of one column towards `face`: solid voxels whose next voxel (in this chunk or
/// across the border) is not opaque and, for transparent voxels, not the same block. Returns the
/// visible bits and, of those, the skirt bit: the border voxel's face that the neighbour hides at
/// this level but exposes at the level it is drawn at. Twin of the shader's
/// `visible_column`.
fn visible_column(
    cols: &AxisColumns,
    grid: Grid,
    borders: &[Option<Border>; 6],
    opaque: &[bool],
    face: Face,
    u: usize,
    v: usize,
) -> (u32, u32) {
    let (n, size) = (face.axis(), grid.size);
    let solid = cols.solid[v * N + u];
    if solid == 0 {
        return (0, 0);
    }
    let opaque_col = cols.opaque[v * N + u];
    let trans_col = solid & !opaque_col;
    let border = border_block(borders, face, u, v);
    let border_opaque = is_opaque(opaque, border) as u32;
    let border_trans = (!border.is_air() && border_opaque == 0) as u32;
    let last = size - 1;
    let (next_opaque, next_trans, border_bit) = if face.is_positive() {
        (opaque_col >> 1 | border_opaque << last, trans_col >> 1 | border_trans << last, 1 << last)
    } else {
        (opaque_col << 1 | border_opaque, trans_col << 1 | border_trans, 1)
    };
    let mut visible = solid & !next_opaque;

    // Transparent next to transparent: hidden only when it is the same block.
    let mut same_kind = visible & trans_col & next_trans;
    while same_kind != 0 {
        let a = same_kind.trailing_zeros() as usize;
        same_kind &= same_kind - 1;
        let next = match (face.is_positive(), a) {
            (true, a) if a == last => border,
            (false, 0) => border,
            (true, a) => grid.get_at(voxel_at(n, a + 1, u, v)),
            (false, a) => grid.get_at(voxel_at(n, a - 1, u, v)),
        };
        if next == grid.get_at(voxel_at(n, a, u, v)) {
            visible &= !(1 << a);
        }
    }

    // A hidden border face whose neighbour, as drawn, would expose it becomes a skirt.
    let mut skirt = 0;
    if let Some(b) = borders[face as usize]
        && solid & border_bit & !visible != 0
    {
        let a = if face.is_positive() { last } else { 0 };
        if b.drawn_exposes(opaque, face, size, u, v, grid.get_at(voxel_at(n, a, u, v))) {
            skirt = border_bit;
        }
    }
    (visible | skirt, skirt)
}

/// Meshes one chunk at full detail. `opaque[id]` says whether block `id` hides its neighbours'
/// faces (see [`crate::voxel::BlockRegistry::opaque_table`]); ids past the table's end are
/// transparent.
///
/// Quads come out grouped by face in [`Face`] order, opaque and transparent apart.
pub fn mesh_chunk(chunk: &Chunk, neighbours: &Neighbours, opaque: &[bool]) -> ChunkMesh {
    let borders = neighbours.0.map(|c| c.map(|c| Border { grid: Grid::chunk(c), drawn: None }));
    mesh_grid(Grid::chunk(chunk), &borders, opaque)
}

/// Meshes one grid (a chunk or one of its mips) against the borders across its six faces, each at
/// the grid's size.
pub fn mesh_grid(grid: Grid, borders: &[Option<Border>; 6], opaque: &[bool]) -> ChunkMesh {
    let size = grid.size;
    debug_assert!(borders.iter().flatten().all(|b| b.grid.size == size));
    let mut mesh = ChunkMesh::default();
    let all_columns = AxisColumns::build_all(grid, opaque);
    for (axis, cols) in all_columns.iter().enumerate() {
        for face in [Face::ALL[2 * axis], Face::ALL[2 * axis + 1]] {
            // Transpose the visible columns into one plane per slice; skirts only ever lie in
            // the border slice.
            let mut planes = [[0u32; N]; N];
            let mut skirts: Plane = [0; N];
            for v in 0..size {
                for u in 0..size {
                    let (mut visible, skirt) = visible_column(cols, grid, borders, opaque, face, u, v);
                    skirts[v] |= (skirt != 0) as u32 * (1 << u);
                    while visible != 0 {
                        let a = visible.trailing_zeros() as usize;
                        visible &= visible - 1;
                        planes[a][v] |= 1 << u;
                    }
                }
            }
            let border_slice = if face.is_positive() { size - 1 } else { 0 };
            for (slice, plane) in planes.iter_mut().enumerate().take(size) {
                let skirt_rows = if slice == border_slice { skirts } else { [0; N] };
                emit_slice(plane, &skirt_rows, grid, opaque, face, slice, &mut mesh);
            }
        }
    }
    mesh
}

/// Splits a slice's visible plane by (block, skirt) and greedily merges each part, so different
/// blocks, and skirts with ordinary faces, never merge. `skirts` marks the plane's skirt bits.
/// Twin of the shader's `mesh_slice`.
fn emit_slice(
    plane: &mut Plane,
    skirts: &Plane,
    grid: Grid,
    opaque: &[bool],
    face: Face,
    slice: usize,
    mesh: &mut ChunkMesh,
) {
    let n = face.axis();
    let size = grid.size;
    while let Some(v0) = plane.iter().position(|&row| row != 0) {
        let u0 = plane[v0].trailing_zeros() as usize;
        let block = grid.get_at(voxel_at(n, slice, u0, v0));
        let skirt = skirts[v0] >> u0 & 1 == 1;
        let mut same: Plane = [0; N];
        for v in v0..size {
            // Bits of the other kind (skirt or not) are taken out before matching blocks.
            let mut bits = plane[v] & if skirt { skirts[v] } else { !skirts[v] };
            while bits != 0 {
                let u = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                if grid.get_at(voxel_at(n, slice, u, v)) == block {
                    same[v] |= 1 << u;
                }
            }
            plane[v] &= !same[v];
        }
        let groups = if is_opaque(opaque, block) { &mut mesh.opaque } else { &mut mesh.transparent };
        merge_plane(&mut same, size, |u, v, w, h| {
            let [x, y, z] = voxel_at(n, slice, u, v);
            let min = UVec3::new(x as u32, y as u32, z as u32);
            let quad = Quad { min, size: [w, h], face, block, skirt, ao: 0 };
            groups.quads.push(PackedQuad::pack(&quad));
            groups.counts[face as usize] += 1;
        });
    }
}

/// Greedy merge of one 32×32 bit plane (bit `u` of `rows[v]`), clearing it. Calls
/// `emit(u, v, width, height)` for each rectangle: the lowest run of set bits in the first
/// non-empty row, grown down while the next row holds the whole run.
fn merge_plane(rows: &mut Plane, size: usize, mut emit: impl FnMut(usize, usize, u32, u32)) {
    for v in 0..size {
        while rows[v] != 0 {
            let u = rows[v].trailing_zeros();
            let width = (rows[v] >> u).trailing_ones();
            let run = if width == 32 { u32::MAX } else { ((1u32 << width) - 1) << u };
            rows[v] &= !run;
            let mut height = 1;
            while v + height < size && rows[v + height] & run == run {
                rows[v + height] &= !run;
                height += 1;
            }
            emit(u as usize, v, width, height as u32);
        }
    }
}

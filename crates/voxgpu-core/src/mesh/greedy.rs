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
//!    different blocks never merge. Each block's plane is merged by stacking runs: every maximal
//!    run of set bits in a row is a quad's width, and the quad grows down over the rows whose
//!    maximal run covers exactly the same columns. Each row's runs depend on that row alone, so
//!    the compute mesher splits a slice's rows across invocations and still finds these quads.
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
//! 7. **Ambient occlusion.** Each face corner gets a value 0..=3 from the three opaque-or-not
//!    cells that touch it in the layer in front of the face (two sides and the diagonal; both
//!    sides closed gives 0, else 3 minus the closed count). The four values are the quad's `ao`
//!    byte and part of the merge key, so merged faces share them. Two faces merged along a row
//!    share the vertex between them, and a shared vertex has one value seen from either face (the
//!    front cells of both are open), so a merged quad's corners interpolate exactly as its unit
//!    faces would. Samples outside the chunk come from the neighbours at the same level: the face
//!    neighbours, and edge neighbours reached through a face neighbour (see [`Neighbours`]);
//!    samples in a corner chunk (outside on all three axes) count as open.

use std::ops::Range;

use glam::UVec3;

use super::neighbourhood::{
    Grid, Neighbours, Surroundings, around_index, around_offsets, is_opaque, voxel_at,
};
use super::{Face, PackedQuad, Quad};
use crate::voxel::{BlockId, CHUNK_SIZE, Chunk, ChunkPos, MipPyramid, World};

const N: usize = CHUNK_SIZE;

/// Whether the neighbour as drawn leaves any part of the face of `block` at tangent cell `(u, v)`
/// (of a grid `size` on a side) exposed. Twin of the shader's `drawn_exposes`.
fn drawn_exposes(
    drawn: Option<Grid>,
    opaque: &[bool],
    face: Face,
    size: usize,
    u: usize,
    v: usize,
    block: BlockId,
) -> bool {
    let Some(drawn) = drawn else { return false };
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

/// One chunk's quads of one kind, grouped by face direction in [`Face`] order so culling can skip
/// whole directions: `quads[range(PosX)]` are the +X faces, and so on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FaceGroups {
    /// The packed quads: every `PosX` quad first, then every `NegX` one, and so on in [`Face`]
    /// order.
    pub quads: Vec<PackedQuad>,
    /// Quads per direction, indexed by [`Face`]; they sum to `quads.len()`.
    pub counts: [u32; 6],
}

/// Where the quads of `face` sit in a stream laid out in [`Face`] order with per-face `counts`.
pub fn face_range(counts: &[u32; 6], face: Face) -> Range<u32> {
    let start: u32 = counts[..face as usize].iter().sum();
    start..start + counts[face as usize]
}

impl FaceGroups {
    /// The indices into `quads` of the quads facing `face`.
    pub fn range(&self, face: Face) -> Range<usize> {
        let r = face_range(&self.counts, face);
        r.start as usize..r.end as usize
    }

    /// Number of quads, all directions together.
    pub fn len(&self) -> usize {
        self.quads.len()
    }

    /// Whether there are no quads at all.
    pub fn is_empty(&self) -> bool {
        self.quads.is_empty()
    }
}

/// A chunk's mesh: opaque and transparent quads kept apart, because they are drawn by different
/// passes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChunkMesh {
    /// Quads of opaque blocks, for the opaque pass.
    pub opaque: FaceGroups,
    /// Quads of transparent blocks (water, glass), for the blended pass that draws them sorted back
    /// to front.
    pub transparent: FaceGroups,
}

impl ChunkMesh {
    /// Number of quads, opaque and transparent together.
    pub fn quad_count(&self) -> usize {
        self.opaque.len() + self.transparent.len()
    }

    /// The cells the quads facing `face` cover (opaque and transparent), as min and max
    /// (inclusive) cell; `None` when there are none. Twin of the GPU mesher's `FaceMesh::bounds`.
    pub fn face_bounds(&self, face: Face) -> Option<[UVec3; 2]> {
        let quads = self.opaque.quads[self.opaque.range(face)]
            .iter()
            .chain(&self.transparent.quads[self.transparent.range(face)]);
        quads.map(|q| q.unpack().cell_box()).reduce(|[lo, hi], [l, h]| [lo.min(l), hi.max(h)])
    }

    /// Every quad: the opaque ones, then the transparent ones, each in [`Face`] order.
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
    ambient_occlusion: bool,
) -> ChunkMesh {
    let Some(chunk) = world.chunk(pos) else { return ChunkMesh::default() };
    let level = levels(pos);
    let neighbours = Neighbours::of(world, pos);
    let mut around = Surroundings { grids: [None; 27], drawn: [None; 6], ambient_occlusion };
    for (i, d) in around_offsets().enumerate() {
        around.grids[i] = neighbours.0[i].map(|c| Grid::level(c, mips(pos.neighbour(d)), level));
    }
    for face in Face::ALL {
        let other = pos.neighbour(face.normal());
        if let Some(c) = neighbours.0[around_index(face.normal())] {
            let drawn = levels(other);
            around.drawn[face as usize] = (drawn != level).then(|| Grid::level(c, mips(other), drawn));
        }
    }
    mesh_grid(Grid::level(chunk, mips(pos), level), &around, &world.registry.opaque_table())
}

/// Solid and opaque column bitmasks of one chunk along one axis: bit `a` of `solid[v * 32 + u]`
/// is the voxel at depth `a` and tangent coordinates `(u, v)`. The shader keeps the same bits
/// transposed, as rows of each slice (`build_planes`).
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

/// The block in the neighbouring chunk that touches face `face` of this chunk at tangent
/// coordinates `(u, v)`. An absent neighbour gives air, so the face counts as exposed.
fn border_block(around: &Surroundings, face: Face, u: usize, v: usize) -> BlockId {
    let Some(grid) = around.border(face) else { return BlockId::AIR };
    let a = if face.is_positive() { 0 } else { grid.size - 1 };
    grid.get_at(voxel_at(face.axis(), a, u, v))
}

/// 32 rows of 32 bits: bit `u` of `rows[v]`.
type Plane = [u32; N];

/// Visible faces of one column towards `face`: solid voxels whose next voxel (in this chunk or
/// across the border) is not opaque and, for transparent voxels, not the same block. Returns the
/// visible bits and, of those, the skirt bit: the border voxel's face that the neighbour hides at
/// this level but exposes at the level it is drawn at. Twin of the shader's
/// `visible_row`, which works out a row of 32 columns' bits at a slice at once.
fn visible_column(
    cols: &AxisColumns,
    grid: Grid,
    around: &Surroundings,
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
    let border = border_block(around, face, u, v);
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
    if solid & border_bit & !visible != 0 {
        let a = if face.is_positive() { last } else { 0 };
        let block = grid.get_at(voxel_at(n, a, u, v));
        if drawn_exposes(around.drawn[face as usize], opaque, face, size, u, v, block) {
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
    mesh_grid(Grid::chunk(chunk), &Surroundings::chunks(neighbours), opaque)
}

/// Meshes one grid (a chunk or one of its mips) against its surroundings, whose grids are at the
/// grid's size.
pub fn mesh_grid(grid: Grid, around: &Surroundings, opaque: &[bool]) -> ChunkMesh {
    let size = grid.size;
    debug_assert!(around.grids.iter().flatten().all(|g| g.size == size));
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
                    let (mut visible, skirt) = visible_column(cols, grid, around, opaque, face, u, v);
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
                emit_slice(plane, &skirt_rows, grid, around, opaque, face, slice, &mut mesh);
            }
        }
    }
    mesh
}

/// Splits a slice's visible plane by (block, skirt, ambient occlusion) and merges each part by
/// stacking runs (`merge_plane`), so different blocks, skirts with ordinary faces, and faces
/// shaded differently never merge. `skirts` marks the plane's skirt bits. Twin of the shader's
/// row pass (`row_runs`, `stack_rows` and `emit_rows` in mesh.wgsl), which finds the same runs a
/// row at a time.
#[allow(clippy::too_many_arguments)]
fn emit_slice(
    plane: &mut Plane,
    skirts: &Plane,
    grid: Grid,
    around: &Surroundings,
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
        let ao = around.face_ao(grid, opaque, face, slice, u0, v0);
        let mut same: Plane = [0; N];
        for v in v0..size {
            // Bits of the other kind (skirt or not) are taken out before matching blocks.
            let mut bits = plane[v] & if skirt { skirts[v] } else { !skirts[v] };
            while bits != 0 {
                let u = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                if grid.get_at(voxel_at(n, slice, u, v)) == block
                    && around.face_ao(grid, opaque, face, slice, u, v) == ao
                {
                    same[v] |= 1 << u;
                }
            }
            plane[v] &= !same[v];
        }
        let groups = if is_opaque(opaque, block) { &mut mesh.opaque } else { &mut mesh.transparent };
        merge_plane(&same, size, |u, v, w, h| {
            let [x, y, z] = voxel_at(n, slice, u, v);
            let min = UVec3::new(x as u32, y as u32, z as u32);
            let quad = Quad { min, size: [w, h], face, block, skirt, ao };
            groups.quads.push(PackedQuad::pack(&quad));
            groups.counts[face as usize] += 1;
        });
    }
}

/// Merge of one 32×32 bit plane (bit `u` of `rows[v]`, one merge key) by stacking runs: each
/// maximal run of set bits in a row is one quad's width, and the quad takes every following row
/// whose maximal run is exactly the same columns. A run whose row above holds the same run
/// belongs to the quad above. Rows are decided independently of each other (a run only ever looks
/// at its own row and the next), which is what lets the compute mesher split a slice's rows
/// across invocations. Calls `emit(u, v, width, height)` for each rectangle.
fn merge_plane(rows: &Plane, size: usize, mut emit: impl FnMut(usize, usize, u32, u32)) {
    for v in 0..size {
        let mut bits = rows[v];
        while bits != 0 {
            let u = bits.trailing_zeros();
            let width = (bits >> u).trailing_ones();
            let run = if width == 32 { u32::MAX } else { ((1u32 << width) - 1) << u };
            bits &= !run;
            if v > 0 && holds_run(rows[v - 1], run) {
                continue;
            }
            let mut height = 1;
            while v + height < size && holds_run(rows[v + height], run) {
                height += 1;
            }
            emit(u as usize, v, width, height as u32);
        }
    }
}

/// Whether `row`'s bits over `run`'s columns are one maximal run: all set, and neither column
/// beside it.
fn holds_run(row: u32, run: u32) -> bool {
    let beside = ((run << 1) | (run >> 1)) & !run;
    row & run == run && row & beside == 0
}

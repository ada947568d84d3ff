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

use std::ops::Range;

use glam::UVec3;

use super::{Face, PackedQuad, Quad};
use crate::voxel::{BlockId, CHUNK_SIZE, Chunk, ChunkPos, World};

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
    /// Columns along all three axes, from one pass over the voxels in memory order.
    fn build_all(chunk: &Chunk, opaque: &[bool]) -> Box<[AxisColumns; 3]> {
        let empty = || AxisColumns { solid: [0; N * N], opaque: [0; N * N] };
        let mut cols = Box::new([empty(), empty(), empty()]);
        for (i, &b) in chunk.voxels().iter().enumerate() {
            if b.is_air() {
                continue;
            }
            let (x, y, z) = (i % N, i / N % N, i / (N * N));
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
fn border_block(neighbours: &Neighbours, face: Face, u: usize, v: usize) -> BlockId {
    let Some(nb) = neighbours.0[face as usize] else { return BlockId::AIR };
    let a = if face.is_positive() { 0 } else { N - 1 };
    nb.get_at(voxel_at(face.axis(), a, u, v))
}

/// 32 rows of 32 bits: bit `u` of `rows[v]`.
type Plane = [u32; N];

/// Visible faces of one column towards `face`: solid voxels whose next voxel (in this chunk or
/// across the border) is not opaque and, for transparent voxels, not the same block. Twin of the
/// shader's `visible_column`.
fn visible_column(
    cols: &AxisColumns,
    chunk: &Chunk,
    neighbours: &Neighbours,
    opaque: &[bool],
    face: Face,
    u: usize,
    v: usize,
) -> u32 {
    let n = face.axis();
    let solid = cols.solid[v * N + u];
    if solid == 0 {
        return 0;
    }
    let opaque_col = cols.opaque[v * N + u];
    let trans_col = solid & !opaque_col;
    let border = border_block(neighbours, face, u, v);
    let border_opaque = is_opaque(opaque, border) as u32;
    let border_trans = (!border.is_air() && border_opaque == 0) as u32;
    let (next_opaque, next_trans) = if face.is_positive() {
        (opaque_col >> 1 | border_opaque << 31, trans_col >> 1 | border_trans << 31)
    } else {
        (opaque_col << 1 | border_opaque, trans_col << 1 | border_trans)
    };
    let mut visible = solid & !next_opaque;

    // Transparent next to transparent: hidden only when it is the same block.
    let mut same_kind = visible & trans_col & next_trans;
    while same_kind != 0 {
        let a = same_kind.trailing_zeros() as usize;
        same_kind &= same_kind - 1;
        let next = match (face.is_positive(), a) {
            (true, a) if a == N - 1 => border,
            (false, 0) => border,
            (true, a) => chunk.get_at(voxel_at(n, a + 1, u, v)),
            (false, a) => chunk.get_at(voxel_at(n, a - 1, u, v)),
        };
        if next == chunk.get_at(voxel_at(n, a, u, v)) {
            visible &= !(1 << a);
        }
    }
    visible
}

/// Meshes one chunk. `opaque[id]` says whether block `id` hides its neighbours' faces (see
/// [`crate::voxel::BlockRegistry::opaque_table`]); ids past the table's end are transparent.
///
/// Quads come out grouped by face in [`Face`] order, opaque and transparent apart.
#[expect(clippy::needless_range_loop, reason = "v indexes rows of every slice's plane, as in the shader")]
pub fn mesh_chunk(chunk: &Chunk, neighbours: &Neighbours, opaque: &[bool]) -> ChunkMesh {
    let mut mesh = ChunkMesh::default();
    let all_columns = AxisColumns::build_all(chunk, opaque);
    for (axis, cols) in all_columns.iter().enumerate() {
        for face in [Face::ALL[2 * axis], Face::ALL[2 * axis + 1]] {
            // Transpose the visible columns into one plane per slice.
            let mut planes = [[0u32; N]; N];
            for v in 0..N {
                for u in 0..N {
                    let mut visible = visible_column(cols, chunk, neighbours, opaque, face, u, v);
                    while visible != 0 {
                        let a = visible.trailing_zeros() as usize;
                        visible &= visible - 1;
                        planes[a][v] |= 1 << u;
                    }
                }
            }
            for (slice, plane) in planes.iter_mut().enumerate() {
                emit_slice(plane, chunk, opaque, face, slice, &mut mesh);
            }
        }
    }
    mesh
}

/// Splits a slice's visible plane by block and greedily merges each block's faces, so different
/// blocks never merge. Twin of the shader's `emit_slice`.
fn emit_slice(
    plane: &mut Plane,
    chunk: &Chunk,
    opaque: &[bool],
    face: Face,
    slice: usize,
    mesh: &mut ChunkMesh,
) {
    let n = face.axis();
    while let Some(v0) = plane.iter().position(|&row| row != 0) {
        let block = chunk.get_at(voxel_at(n, slice, plane[v0].trailing_zeros() as usize, v0));
        let mut same: Plane = [0; N];
        for v in v0..N {
            let mut bits = plane[v];
            while bits != 0 {
                let u = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                if chunk.get_at(voxel_at(n, slice, u, v)) == block {
                    same[v] |= 1 << u;
                }
            }
            plane[v] &= !same[v];
        }
        let groups = if is_opaque(opaque, block) { &mut mesh.opaque } else { &mut mesh.transparent };
        merge_plane(&mut same, |u, v, w, h| {
            let [x, y, z] = voxel_at(n, slice, u, v);
            let min = UVec3::new(x as u32, y as u32, z as u32);
            let quad = Quad { min, size: [w, h], face, block, skirt: false, ao: 0 };
            groups.quads.push(PackedQuad::pack(&quad));
            groups.counts[face as usize] += 1;
        });
    }
}

/// Greedy merge of one 32×32 bit plane (bit `u` of `rows[v]`), clearing it. Calls
/// `emit(u, v, width, height)` for each rectangle: the lowest run of set bits in the first
/// non-empty row, grown down while the next row holds the whole run.
fn merge_plane(rows: &mut Plane, mut emit: impl FnMut(usize, usize, u32, u32)) {
    for v in 0..N {
        while rows[v] != 0 {
            let u = rows[v].trailing_zeros();
            let width = (rows[v] >> u).trailing_ones();
            let run = if width == 32 { u32::MAX } else { ((1u32 << width) - 1) << u };
            rows[v] &= !run;
            let mut height = 1;
            while v + height < N && rows[v + height] & run == run {
                rows[v + height] &= !run;
                height += 1;
            }
            emit(u as usize, v, width, height as u32);
        }
    }
}

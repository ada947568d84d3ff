//! The neighbourhood the mesher reads around one chunk: the 3×3×3 chunks by offset and which of
//! them it reaches (face neighbours, and edge neighbours through a face neighbour, as the GPU
//! follows neighbour links), which meshes read a chunk or a block, the grids of block ids it
//! meshes, and the surroundings it meshes a grid against (border cells, ambient occlusion).

use glam::IVec3;

use super::Face;
use crate::voxel::{BlockId, CHUNK_SIZE, Chunk, ChunkPos, MipPyramid, World};

const N: usize = CHUNK_SIZE;

/// Index of the chunk at `offset` (each component −1, 0 or 1) in a 3×3×3 neighbourhood, x
/// fastest; 13 is the centre.
pub fn around_index(offset: IVec3) -> usize {
    (offset.x + 1 + 3 * (offset.y + 1) + 9 * (offset.z + 1)) as usize
}

/// `value` along `axis`, 0 on the other two.
fn along(axis: usize, value: i32) -> IVec3 {
    let mut v = IVec3::ZERO;
    v[axis] = value;
    v
}

/// The offsets of a 3×3×3 neighbourhood, in [`around_index`] order.
pub(super) fn around_offsets() -> impl Iterator<Item = IVec3> {
    (0..27).map(|i| IVec3::new(i % 3 - 1, i / 3 % 3 - 1, i / 9 - 1))
}

/// The neighbourhood as the mesher reaches it, from `get(offset)` (a chunk that is resident): the
/// six face neighbours, and each edge neighbour through either of the two face neighbours it
/// shares with the centre, as the GPU follows neighbour links (so an edge neighbour with both of
/// those absent is out of reach). The centre and the eight corner chunks are `None`.
fn reachable<T: Copy>(get: impl Fn(IVec3) -> Option<T>) -> [Option<T>; 27] {
    let mut out = [None; 27];
    for (slot, d) in out.iter_mut().zip(around_offsets()) {
        let axes: Vec<usize> = (0..3).filter(|&a| d[a] != 0).collect();
        *slot = match axes[..] {
            [_] => get(d),
            [a, b] => {
                let through = |axis: usize| get(along(axis, d[axis])).is_some();
                (through(a) || through(b)).then(|| get(d)).flatten()
            }
            _ => None,
        };
    }
    out
}

/// The chunks whose meshes read the voxels of the chunk at `pos`: its face neighbours (border
/// culling, skirts) and edge neighbours (ambient occlusion). They are re-meshed when it arrives,
/// leaves or changes.
pub fn meshes_reading(pos: ChunkPos) -> impl Iterator<Item = ChunkPos> {
    around_offsets().filter(|d| matches!(d.abs().element_sum(), 1 | 2)).map(move |d| pos.neighbour(d))
}

/// The chunks whose full-detail meshes read world block `block`: its own chunk, and each chunk of
/// [`meshes_reading`] that the block touches (it lies in their border layer's row, column or
/// corner line).
pub fn meshes_reading_block(block: IVec3) -> impl Iterator<Item = ChunkPos> {
    let (pos, local) = ChunkPos::from_block(block);
    let last = CHUNK_SIZE as i32 - 1;
    let touches = move |d: IVec3| {
        (0..3).all(|a| match d[a] {
            1 => local[a] == last,
            -1 => local[a] == 0,
            _ => true,
        })
    };
    std::iter::once(pos).chain(meshes_reading(pos).filter(move |p| touches(p.0 - pos.0)))
}

/// The chunks around one chunk, by offset ([`around_index`]), as the mesher reaches them (see
/// `reachable`): face and edge neighbours. `None` means not resident, which counts as exposed
/// and unoccluded.
#[derive(Clone, Copy)]
pub struct Neighbours<'a>(pub [Option<&'a Chunk>; 27]);

impl<'a> Neighbours<'a> {
    /// The neighbours of `pos` as stored in `world`.
    pub fn of(world: &'a World, pos: ChunkPos) -> Self {
        Self(reachable(|d| world.chunk(pos.neighbour(d)).map(|c| &**c)))
    }

    /// Only face neighbours, indexed by [`Face`].
    pub fn faces(faces: [Option<&'a Chunk>; 6]) -> Self {
        let mut all = [None; 27];
        for face in Face::ALL {
            all[around_index(face.normal())] = faces[face as usize];
        }
        Self(all)
    }

    /// No neighbour at all.
    pub fn none() -> Self {
        Self([None; 27])
    }
}

/// A cube of block ids, `size` (32 >> level) on a side, x fastest: a chunk or one of its mips.
#[derive(Clone, Copy)]
pub struct Grid<'a> {
    /// Cells per edge, `32 >> level`: a power of two from 1 to 32.
    pub size: usize,
    /// `size³` block ids, x fastest, then y, then z.
    pub ids: &'a [BlockId],
}

impl<'a> Grid<'a> {
    /// The grid of edge `size` over `ids`.
    ///
    /// # Panics
    /// When `size` is not a power of two, is above 32, or `ids` does not hold `size³` ids.
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
    pub(super) fn get_at(&self, [x, y, z]: [usize; 3]) -> BlockId {
        self.ids[x + self.size * (y + self.size * z)]
    }
}

/// What surrounds the grid being meshed.
#[derive(Clone, Copy)]
pub struct Surroundings<'a> {
    /// The neighbours' grids at the level being meshed, by offset ([`around_index`]), as the
    /// mesher reaches them (face and edge neighbours; see [`Neighbours`]).
    pub grids: [Option<Grid<'a>>; 27],
    /// For each face ([`Face`] order) whose neighbour is drawn at another level, the grid it is
    /// drawn with: that border needs skirts.
    pub drawn: [Option<Grid<'a>>; 6],
    /// Bake ambient occlusion; without it every corner is open (`ao` = 0xff).
    pub ambient_occlusion: bool,
}

impl<'a> Surroundings<'a> {
    /// Nothing around: every border exposed, no skirts, ambient occlusion on.
    pub fn none() -> Self {
        Self { grids: [None; 27], drawn: [None; 6], ambient_occlusion: true }
    }

    /// Full-detail neighbours, none drawn at another level.
    pub fn chunks(neighbours: &Neighbours<'a>) -> Self {
        Self { grids: neighbours.0.map(|c| c.map(Grid::chunk)), ..Self::none() }
    }

    /// The face neighbour's grid across `face`.
    pub(super) fn border(&self, face: Face) -> Option<Grid<'a>> {
        self.grids[around_index(face.normal())]
    }

    /// Whether the cell at `p` (grid coordinates, each in `-1..=size`) is an opaque block: in
    /// the grid itself or in the neighbour it falls into. Absent neighbours and corner chunks
    /// are open. Twin of the shader's `build_halo`, which gathers these cells into bit rows.
    fn occludes(&self, grid: Grid, opaque: &[bool], p: IVec3) -> bool {
        let size = grid.size as i32;
        let offset = IVec3::select(p.cmplt(IVec3::ZERO), IVec3::NEG_ONE, IVec3::ZERO)
            + IVec3::select(p.cmpge(IVec3::splat(size)), IVec3::ONE, IVec3::ZERO);
        let local = (p - offset * size).as_uvec3();
        let owner = if offset == IVec3::ZERO { Some(grid) } else { self.grids[around_index(offset)] };
        owner.is_some_and(|g| is_opaque(opaque, g.get_at(local.to_array().map(|c| c as usize))))
    }

    /// Ambient occlusion of the face towards `face` of the cell at depth `a`, tangent `(u, v)`:
    /// 2 bits per corner, corner `k` at the `+u` side when `k & 1` and the `+v` side when `k & 2`;
    /// 3 is open, 0 closed. Twin of the shader's `ao_planes`, which works out 32 faces at once.
    pub(super) fn face_ao(
        &self,
        grid: Grid,
        opaque: &[bool],
        face: Face,
        a: usize,
        u: usize,
        v: usize,
    ) -> u8 {
        if !self.ambient_occlusion {
            return 0xff;
        }
        let n = face.axis();
        let [eu, ev] = [(n + 1) % 3, (n + 2) % 3].map(|axis| along(axis, 1));
        let front = IVec3::from_array(voxel_at(n, a, u, v).map(|c| c as i32)) + face.normal();
        let mut ao = 0u8;
        for k in 0..4 {
            let du = if k & 1 != 0 { eu } else { -eu };
            let dv = if k & 2 != 0 { ev } else { -ev };
            let side_u = self.occludes(grid, opaque, front + du);
            let side_v = self.occludes(grid, opaque, front + dv);
            let corner = self.occludes(grid, opaque, front + du + dv);
            let value = if side_u && side_v { 0 } else { 3 - side_u as u8 - side_v as u8 - corner as u8 };
            ao |= value << (2 * k);
        }
        ao
    }
}

/// Position of the voxel at depth `a` along normal axis `n`, at tangent coordinates `(u, v)`.
#[inline]
pub(super) fn voxel_at(n: usize, a: usize, u: usize, v: usize) -> [usize; 3] {
    let mut p = [0; 3];
    p[n] = a;
    p[(n + 1) % 3] = u;
    p[(n + 2) % 3] = v;
    p
}

#[inline]
pub(super) fn is_opaque(table: &[bool], b: BlockId) -> bool {
    table.get(b.0 as usize).copied().unwrap_or(false)
}

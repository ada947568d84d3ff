//! The packed quad: 8 bytes, pulled from the mega quad buffer by the vertex shader.
//!
//! The chunk's origin and level of detail are not in the quad; the vertex shader finds them
//! through the quad's page (see `docs/ARCHITECTURE.md`). Bit layout, low bit first:
//!
//! | word | bits   | field  | meaning |
//! |------|--------|--------|---------|
//! | 0    | 0..5   | x      | min block x in the chunk, 0..31 |
//! | 0    | 5..10  | y      | min block y |
//! | 0    | 10..15 | z      | min block z |
//! | 0    | 15..20 | w      | extent − 1 along the face's first tangent axis |
//! | 0    | 20..25 | h      | extent − 1 along the face's second tangent axis |
//! | 0    | 25..28 | face   | [`Face`] discriminant |
//! | 0    | 28     | skirt  | LOD skirt quad, pushed back by a depth bias |
//! | 1    | 0..16  | block  | [`BlockId`] |
//! | 1    | 16..24 | ao     | ambient occlusion, 2 bits per corner |
//!
//! The tangent axes of a face on normal axis `n` are `(n + 1) % 3` and `(n + 2) % 3`, so an X face
//! spans (Y, Z), a Y face (Z, X) and a Z face (X, Y). `shaders/common.wgsl` declares the same
//! shifts and widths as constants, and `tests/shaders.rs` checks the two against each other (both
//! in `crates/voxgpu-engine`).

use glam::UVec3;

use super::Face;
use crate::voxel::BlockId;

/// Size of one packed quad in the mega quad buffer.
pub const QUAD_BYTES: usize = std::mem::size_of::<PackedQuad>();

/// One field of the packed quad: which `u32` word, where, how wide.
#[derive(Clone, Copy, Debug)]
pub struct QuadField {
    /// Upper-case name; WGSL declares `QUAD_<NAME>_WORD`, `_SHIFT` and `_BITS`.
    pub name: &'static str,
    /// Which of the quad's two `u32` words holds the field: 0 or 1.
    pub word: u32,
    /// Position of the field's lowest bit in its word.
    pub shift: u32,
    /// Width of the field in bits.
    pub bits: u32,
}

impl QuadField {
    const fn new(name: &'static str, word: u32, shift: u32, bits: u32) -> Self {
        Self { name, word, shift, bits }
    }

    fn mask(self) -> u32 {
        (1u32 << self.bits) - 1
    }

    fn put(self, words: &mut [u32; 2], value: u32) {
        debug_assert!(value <= self.mask(), "{} = {value} does not fit", self.name);
        words[self.word as usize] |= (value & self.mask()) << self.shift;
    }

    fn get(self, words: &[u32; 2]) -> u32 {
        (words[self.word as usize] >> self.shift) & self.mask()
    }
}

const X: QuadField = QuadField::new("X", 0, 0, 5);
const Y: QuadField = QuadField::new("Y", 0, 5, 5);
const Z: QuadField = QuadField::new("Z", 0, 10, 5);
const W: QuadField = QuadField::new("W", 0, 15, 5);
const H: QuadField = QuadField::new("H", 0, 20, 5);
const FACE: QuadField = QuadField::new("FACE", 0, 25, 3);
const SKIRT: QuadField = QuadField::new("SKIRT", 0, 28, 1);
const BLOCK: QuadField = QuadField::new("BLOCK", 1, 0, 16);
const AO: QuadField = QuadField::new("AO", 1, 16, 8);

/// Every field of the layout, for the Rust/WGSL cross-check.
pub const QUAD_FIELDS: [QuadField; 9] = [X, Y, Z, W, H, FACE, SKIRT, BLOCK, AO];

/// A quad as fields. `size` is the extent in blocks along the face's two tangent axes (1..=32).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Quad {
    /// The cell whose face the quad's first unit face is, in the grid being meshed (blocks at full
    /// detail, cells of a mip otherwise), each coordinate 0..=31. On the normal axis this is the
    /// cell, not the plane: a +axis face lies on the plane `min + 1`.
    pub min: UVec3,
    /// Extent in cells along the face's first and second tangent axes, each 1..=32.
    pub size: [u32; 2],
    /// The direction the quad faces.
    pub face: Face,
    /// The block whose face this is; never air.
    pub block: BlockId,
    /// A LOD skirt: a face emitted only to close a gap towards a neighbour drawn at another level,
    /// pushed back by a depth bias when drawn.
    pub skirt: bool,
    /// Ambient occlusion, 2 bits per corner: corner `k` in bits `2k..2k + 2`, at the `+u` side when
    /// `k & 1` and the `+v` side when `k & 2`; 3 is open, 0 closed. `0xff` (all open) when ambient
    /// occlusion is off.
    pub ao: u8,
}

/// The 8-byte form of a [`Quad`] as stored on the GPU.
#[repr(C)]
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, bytemuck::Pod, bytemuck::Zeroable,
)]
pub struct PackedQuad(pub [u32; 2]);

impl PackedQuad {
    /// `q` in the GPU layout. Every field must fit its bits (`min` ≤ 31, `size` in 1..=32, `ao` and
    /// `block` any value); only debug builds check.
    pub fn pack(q: &Quad) -> Self {
        let mut w = [0u32; 2];
        X.put(&mut w, q.min.x);
        Y.put(&mut w, q.min.y);
        Z.put(&mut w, q.min.z);
        W.put(&mut w, q.size[0] - 1);
        H.put(&mut w, q.size[1] - 1);
        FACE.put(&mut w, q.face as u32);
        SKIRT.put(&mut w, q.skirt as u32);
        BLOCK.put(&mut w, q.block.0 as u32);
        AO.put(&mut w, q.ao as u32);
        Self(w)
    }

    /// The fields back from the packed words. Face bits 6 and 7, which [`PackedQuad::pack`] never
    /// writes, read as [`Face::PosX`].
    pub fn unpack(self) -> Quad {
        let w = &self.0;
        Quad {
            min: UVec3::new(X.get(w), Y.get(w), Z.get(w)),
            size: [W.get(w) + 1, H.get(w) + 1],
            face: Face::from_index(FACE.get(w)).unwrap_or(Face::PosX),
            block: BlockId(BLOCK.get(w) as u16),
            skirt: SKIRT.get(w) != 0,
            ao: AO.get(w) as u8,
        }
    }
}

impl Quad {
    /// Number of unit faces the quad covers.
    pub fn area(&self) -> u32 {
        self.size[0] * self.size[1]
    }

    /// The cells the quad's unit faces belong to, as min and max (inclusive) cell.
    pub fn cell_box(&self) -> [UVec3; 2] {
        let n = self.face.axis();
        let mut max = self.min;
        max[(n + 1) % 3] += self.size[0] - 1;
        max[(n + 2) % 3] += self.size[1] - 1;
        [self.min, max]
    }

    /// The rectangle the quad covers, as its box's min and max corners in cells of the grid it
    /// was meshed in (a `+axis` face lies on the far side of its cell, so its plane is `min + 1`
    /// on that axis). Twin of `quad_plane_box` in the engine's `shaders/common.wgsl`.
    pub fn plane_box(&self) -> [UVec3; 2] {
        let n = self.face.axis();
        let mut low = self.min;
        low[n] += u32::from(self.face.is_positive());
        let mut high = low;
        high[(n + 1) % 3] += self.size[0];
        high[(n + 2) % 3] += self.size[1];
        [low, high]
    }

    /// The min-corner block of every unit face the quad covers, in chunk coordinates.
    pub fn unit_faces(&self) -> impl Iterator<Item = UVec3> + '_ {
        let n = self.face.axis();
        let (ua, va) = ((n + 1) % 3, (n + 2) % 3);
        (0..self.size[1]).flat_map(move |dv| {
            (0..self.size[0]).map(move |du| {
                let mut p = self.min;
                p[ua] += du;
                p[va] += dv;
                p
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quad_is_eight_bytes() {
        assert_eq!(QUAD_BYTES, 8);
    }

    #[test]
    fn fields_do_not_overlap_and_fit_their_word() {
        for word in 0..2 {
            let mut used = 0u64;
            for f in QUAD_FIELDS.iter().filter(|f| f.word == word) {
                let m = ((1u64 << f.bits) - 1) << f.shift;
                assert_eq!(used & m, 0, "{} overlaps another field", f.name);
                assert!(f.shift + f.bits <= 32, "{} overflows its word", f.name);
                used |= m;
            }
        }
    }

    #[test]
    fn pack_unpack_round_trips_extremes() {
        for face in Face::ALL {
            for (min, size, block, skirt, ao) in [
                (UVec3::ZERO, [1, 1], BlockId(1), false, 0),
                (UVec3::splat(31), [32, 32], BlockId(u16::MAX), true, 255),
                (UVec3::new(3, 17, 29), [5, 9], BlockId(300), false, 0b10_01_11_00),
            ] {
                let q = Quad { min, size, face, block, skirt, ao };
                assert_eq!(PackedQuad::pack(&q).unpack(), q);
            }
        }
    }
}

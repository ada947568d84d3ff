//! The six face directions, in the one order used by Rust, WGSL and the quad bits.

use glam::IVec3;

/// A signed face direction. The discriminant is the value stored in the quad's `face` bits and
/// the index of per-direction arrays everywhere (`PosX, NegX, PosY, NegY, PosZ, NegZ`).
#[repr(u8)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Face {
    /// Towards +X.
    PosX = 0,
    /// Towards −X.
    NegX = 1,
    /// Towards +Y (up).
    PosY = 2,
    /// Towards −Y (down).
    NegY = 3,
    /// Towards +Z.
    PosZ = 4,
    /// Towards −Z.
    NegZ = 5,
}

impl Face {
    /// Every direction in discriminant order, so `Face::ALL[f as usize] == f`.
    pub const ALL: [Face; 6] = [Face::PosX, Face::NegX, Face::PosY, Face::NegY, Face::PosZ, Face::NegZ];

    /// The face whose discriminant is `i`; `None` for `i` of 6 or more.
    pub fn from_index(i: u32) -> Option<Face> {
        Self::ALL.get(i as usize).copied()
    }

    /// 0 for X, 1 for Y, 2 for Z.
    pub fn axis(self) -> usize {
        self as usize / 2
    }

    /// Whether the face points along +axis: `PosX`, `PosY` and `PosZ`, the even discriminants.
    pub fn is_positive(self) -> bool {
        (self as usize).is_multiple_of(2)
    }

    /// The face on the same axis pointing the other way (bit 0 of the discriminant flipped).
    pub fn opposite(self) -> Face {
        Self::ALL[self as usize ^ 1]
    }

    /// Unit normal in world axes.
    pub fn normal(self) -> IVec3 {
        let mut n = IVec3::ZERO;
        n[self.axis()] = if self.is_positive() { 1 } else { -1 };
        n
    }

    /// Short name used in `stats` JSON: `+x`, `-x`, `+y`, …
    pub fn label(self) -> &'static str {
        ["+x", "-x", "+y", "-y", "+z", "-z"][self as usize]
    }
}

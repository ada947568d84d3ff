//! The pool's quarantine and what a frame's confirmation or loss does to it: evicted slots held
//! back until a release has freed their pages on the GPU (a frame's own, or a release run staged
//! between the uploads when a node needs a slot first), the evictions a recorded frame covers,
//! and the replay of a dropped frame's uploads.

use super::{ChunkPool, ChunkState, Staged};

/// A release of every evicted slot, recorded between staged writes: the writes before it reach
/// the GPU first (the evictions among them), then a release-only mesher run frees every evicted
/// slot's pages and empties its face records, then the writes after it (nodes in the released
/// slots) land.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Release {
    /// Evicted slots on the GPU at this point: the run's work list holds six jobs for each.
    pub evicted: u32,
    /// The slot range the run's collect pass walks.
    pub slot_count: u32,
}

impl ChunkPool {
    /// Slots evicted and not yet released by a frame.
    pub fn evictions_pending(&self) -> u32 {
        self.unreleased
    }

    /// Makes the quarantined slots reusable now, by staging a release of every evicted slot
    /// after the writes staged so far: the writes after it may go to those slots. Nothing
    /// happens with nothing quarantined, in the browser (whose writes all land before the
    /// frame's commands, so none could follow the release), or with more evicted slots than one
    /// run's work list holds (the pool grows then).
    ///
    /// Between a frame's recording and its confirmation, `unreleased` still counts the evictions
    /// that frame releases: the run's work list may then have room to spare, which it leaves
    /// unused (it collects evicted slots only).
    pub(super) fn release_quarantine(&mut self) {
        if self.quarantine.is_empty()
            || cfg!(target_arch = "wasm32")
            || self.unreleased > crate::mesher::MAX_CHUNKS_PER_FRAME
        {
            return;
        }
        let release = Release { evicted: self.unreleased, slot_count: self.slot_count() };
        self.staged.push(Staged::Release(release));
        self.unreleased = 0;
        self.free_slots.append(&mut self.quarantine);
        // The release covers what the recorded frame would have freed.
        self.recorded_evictions = (0, 0);
    }

    /// The largest release staged for the next frame, if any: what its release runs' work list
    /// must hold.
    pub fn staged_release(&self) -> Option<Release> {
        self.staged
            .iter()
            .filter_map(|s| match s {
                Staged::Release(r) => Some(*r),
                Staged::Write(..) => None,
            })
            .max_by_key(|r| (r.evicted, r.slot_count))
    }

    /// Called once the frame that recorded the uploads last is known to be submitted, its work
    /// list having had room for `evicted_room` evicted chunks. Evicted slots are collected
    /// before dirty ones, so that frame released `min(evictions, evicted_room)` of the
    /// evictions its stream held (`recorded_evictions`), in an order the CPU does not know; once
    /// it released all of them, the quarantined slots they cover can be reused. Evictions staged
    /// after its recording have not reached the GPU: their slots stay quarantined. The frame's
    /// uploads are on the GPU: they are not kept any longer.
    pub fn confirm(&mut self, evicted_room: u32) {
        self.unconfirmed.clear();
        self.light_unconfirmed.clear();
        self.unconfirmed_requests.clear();
        let (evictions, covered) = std::mem::take(&mut self.recorded_evictions);
        let released = evictions.min(evicted_room);
        self.unreleased -= released;
        if released == evictions {
            self.free_slots.extend(self.quarantine.drain(..covered));
        }
    }

    /// The frame that recorded the uploads last was never submitted: its uploads (and releases)
    /// are staged again ahead of everything staged since, and the request bits its writes carried
    /// are asked for again. A write staged since carries only the bits asked for since, and
    /// lands after the replayed ones, so each replayed resident slot gets a last write carrying
    /// both. Nothing of its eviction bookkeeping had been applied ([`Self::confirm`] does that);
    /// the next recording counts its evictions again.
    pub fn replay(&mut self) {
        let mut staged = std::mem::take(&mut self.unconfirmed);
        staged.append(&mut self.staged);
        self.staged = staged;
        self.recorded_evictions = (0, 0);
        let lit = std::mem::take(&mut self.light_unconfirmed);
        self.light_changes.extend(lit);
        let mut replayed = Vec::new();
        for (slot, bits) in std::mem::take(&mut self.unconfirmed_requests) {
            let links = &mut self.links[slot as usize];
            // A resident slot's requests: an EVICTED it carried was its departed node's.
            let bits = bits & (ChunkState::DIRTY | ChunkState::VOXELS);
            if links.state & ChunkState::RESIDENT != 0 && bits != 0 {
                links.state |= bits;
                replayed.push(slot);
            }
        }
        replayed.sort_unstable();
        replayed.dedup();
        for slot in replayed {
            self.write_links(slot);
        }
    }
}

//! Which nodes the LOD pass draws and how each cross-fades, frame by frame: the CPU twin of
//! `decide_split` and `decide_shown` in `shaders/lod.wgsl` (the rules are in the parent
//! module's documentation).

use glam::Vec3;

use std::collections::HashMap;

use super::{LEVEL_UNSET, LodSettings};
use crate::voxel::{ChunkPos, NodeKey};

/// One node's decisions, as the LOD pass keeps them between frames.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodeState {
    /// The last split decision (`None` before the first).
    pub split: Option<bool>,
    /// The mip level it is meshed at ([`LEVEL_UNSET`] before the first frame).
    pub mip: u32,
    /// Whether the node is drawn: neither replaced by its children nor covered by its parent.
    pub shown: bool,
    /// Frames left of its cross-fade (0: none): fading in when `shown`, else fading out, when it
    /// is still drawn and keeps its quads.
    pub fade: u32,
}

impl NodeState {
    /// Whether the node has quads and is drawn this frame: shown, or fading out.
    pub fn drawn(&self) -> bool {
        self.shown || self.fade > 0
    }
}

impl Default for NodeState {
    fn default() -> Self {
        Self { split: None, mip: LEVEL_UNSET, shown: false, fade: 0 }
    }
}

/// The frames left of a node's cross-fade after this frame's decision. `left` is what was left
/// before it and `total` the fade's length. A change starts a fade; a change back during one
/// mirrors it (`total + 1 - left`), so the share of pixels each level holds goes on from where it
/// was. `fades` says whether a change may fade at all (a node new to the pool fades in only
/// where its parent was drawn). A fade longer than `total` (the setting changed during it) goes
/// on with `total` frames left. Twin of `next_fade` in `shaders/lod.wgsl`.
pub fn next_fade(total: u32, changed: bool, fades: bool, left: u32) -> u32 {
    let left = left.min(total);
    if !changed {
        left.saturating_sub(1)
    } else if !fades || total == 0 {
        0
    } else if left > 0 {
        total + 1 - left
    } else {
        total
    }
}

/// What the CPU tells the LOD pass about a resident node: whether all its child columns, and all
/// its parent's, have been generated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Readiness {
    /// Every one of the node's child columns has been generated, so its children can stand in for
    /// it once it is split.
    pub children: bool,
    /// Every child column of the node's parent has been generated (this node's and its siblings'),
    /// so they can stand in for the parent once it is split.
    pub siblings: bool,
}

/// One frame of the LOD pass over every resident node: the twin of `decide_split` then
/// `decide_shown` in `shaders/lod.wgsl`. `states` carries the decisions from frame to frame
/// (missing entries are new nodes; entries of nodes no longer resident are dropped).
pub fn select_nodes(
    settings: &LodSettings,
    eye: Vec3,
    nodes: &HashMap<NodeKey, Readiness>,
    states: &mut HashMap<NodeKey, NodeState>,
) {
    states.retain(|key, _| nodes.contains_key(key));
    // Whether each node was shown before this frame, as the GPU snapshots it in its first step.
    let was_shown: HashMap<NodeKey, bool> = states.iter().map(|(k, s)| (*k, s.shown)).collect();
    let mut new = std::collections::HashSet::new();
    for key in nodes.keys() {
        if !states.contains_key(key) {
            new.insert(*key);
        }
        let state = states.entry(*key).or_default();
        state.split = Some(settings.split(key.level, node_distance(*key, eye), state.split));
    }
    let split = |key: &NodeKey, states: &HashMap<NodeKey, NodeState>| states[key].split == Some(true);
    let top = nodes.keys().map(|k| k.level).max().unwrap_or(0);
    let thresholds = settings.thresholds();
    let decided: Vec<(NodeKey, bool, u32)> = nodes
        .iter()
        .map(|(key, ready)| {
            let replaced = split(key, states) && ready.children;
            let parent = key.parent();
            let covered = if nodes.contains_key(&parent) {
                !(split(&parent, states) && ready.siblings)
            } else if key.level < top {
                // An all-air parent: split by its distance alone.
                let parent_split = node_distance(parent, eye) < thresholds[key.level as usize];
                !(parent_split && ready.siblings)
            } else {
                false
            };
            let mip = settings.node_mip(key.level, node_distance(*key, eye), states[key].mip);
            (*key, !replaced && !covered, mip)
        })
        .collect();
    for (key, shown, mip) in decided {
        let state = states.get_mut(&key).expect("inserted above");
        let fades = !new.contains(&key) || was_shown.get(&key.parent()).copied().unwrap_or(false);
        state.fade = next_fade(settings.fade_frames(), shown != state.shown, fades, state.fade);
        state.shown = shown;
        state.mip = mip;
    }
}

/// Distance from `eye` to the nearest point of the node's box (0 inside it). Twin of
/// `node_distance` in `shaders/lod.wgsl`.
pub fn node_distance(key: NodeKey, eye: Vec3) -> f32 {
    let (min, max) = key.aabb();
    let gap = (min - eye).max(eye - max).max(Vec3::ZERO);
    (gap.x * gap.x + gap.y * gap.y + gap.z * gap.z).sqrt()
}

/// Distance from `eye` to the nearest point of the chunk's box (0 inside it).
pub fn chunk_distance(pos: ChunkPos, eye: Vec3) -> f32 {
    node_distance(NodeKey::chunk(pos), eye)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lod::LodError;

    /// A level-1 node and its eight children, every column generated.
    fn family() -> (NodeKey, HashMap<NodeKey, Readiness>) {
        let parent = NodeKey::new(1, glam::IVec3::ZERO);
        let mut nodes: HashMap<NodeKey, Readiness> = parent
            .children()
            .into_iter()
            .map(|c| (c, Readiness { children: false, siblings: true }))
            .collect();
        nodes.insert(parent, Readiness { children: true, siblings: false });
        (parent, nodes)
    }

    #[test]
    fn parent_or_children_are_drawn_never_both() {
        let s = LodSettings::default();
        let (parent, mut nodes) = family();
        let mut states = HashMap::new();
        // Near: the children are drawn.
        select_nodes(&s, Vec3::new(10.0, 10.0, 10.0), &nodes, &mut states);
        assert!(!states[&parent].shown && parent.children().iter().all(|c| states[c].shown));
        // Far: the parent is.
        select_nodes(&s, Vec3::new(1000.0, 10.0, 10.0), &nodes, &mut states);
        assert!(states[&parent].shown && parent.children().iter().all(|c| !states[c].shown));
        // Near, with a child column missing: the parent stays.
        nodes.values_mut().for_each(|r| r.siblings = false);
        nodes.get_mut(&parent).expect("inserted").children = false;
        select_nodes(&s, Vec3::new(10.0, 10.0, 10.0), &nodes, &mut states);
        assert!(states[&parent].shown && parent.children().iter().all(|c| !states[c].shown));
    }

    #[test]
    fn a_level_change_fades_and_a_change_back_mirrors_the_fade() {
        // A change starts a fade of `total` frames; each frame after takes one off.
        assert_eq!(next_fade(16, true, true, 0), 16);
        assert_eq!(next_fade(16, false, true, 16), 15);
        assert_eq!(next_fade(16, false, true, 1), 0);
        assert_eq!(next_fade(16, false, true, 0), 0);
        // Changing back with `left` frames to go: the new level holds the share the old one had.
        for left in 1..=16 {
            let mirrored = next_fade(16, true, true, left);
            assert_eq!((16 + 1 - mirrored) as f32 / 17.0, left as f32 / 17.0, "{left}");
        }
        // No fade where none may run; a shorter setting cuts a fade under way to its length.
        assert_eq!(next_fade(0, true, true, 0), 0);
        assert_eq!(next_fade(0, false, true, 9), 0);
        assert_eq!(next_fade(4, false, true, 9), 3);
        assert_eq!(next_fade(4, true, true, 9), 1);
        assert_eq!(next_fade(16, true, false, 0), 0);
    }

    #[test]
    fn parent_and_children_cross_fade_over_the_same_frames() {
        let s = LodSettings::default().with_fade_frames(4).expect("a short fade");
        let (parent, nodes) = family();
        let mut states = HashMap::new();
        let (near, far) = (Vec3::new(10.0, 10.0, 10.0), Vec3::new(1000.0, 10.0, 10.0));
        // The first frame has nothing to fade from: the parent appears at once.
        select_nodes(&s, far, &nodes, &mut states);
        assert!(states[&parent].shown && states[&parent].fade == 0);
        // Coming near: the children fade in while the parent fades out, over the same frames.
        for left in (0..=4).rev() {
            select_nodes(&s, near, &nodes, &mut states);
            let p = states[&parent];
            assert!(!p.shown && p.fade == left && p.drawn() == (left > 0), "{left}: {p:?}");
            assert!(parent.children().iter().all(|c| states[c].shown && states[c].fade == left));
        }
        // Back out: the parent fades in again, the children out.
        select_nodes(&s, far, &nodes, &mut states);
        assert!(states[&parent].shown && states[&parent].fade == 4);
        assert!(parent.children().iter().all(|c| !states[c].shown && states[c].drawn()));
        // Turning round the next frame mirrors the fade: the parent showed on 1 of 5 shares and
        // keeps that share, fading out with 4 + 1 - 4 = 1 frame left.
        select_nodes(&s, near, &nodes, &mut states);
        assert_eq!(states[&parent].fade, 1);
        assert!(parent.children().iter().all(|c| states[c].shown && states[c].fade == 1));
        // A node new to the pool where its parent was not drawn appears at once.
        let lone: HashMap<NodeKey, Readiness> =
            [(parent.children()[0], Readiness { children: false, siblings: true })].into();
        let mut fresh = HashMap::new();
        select_nodes(&s, near, &lone, &mut fresh);
        assert!(fresh[&parent.children()[0]].shown);
        assert_eq!(fresh[&parent.children()[0]].fade, 0);
        assert_eq!(LodSettings::default().with_fade_frames(256), Err(LodError::FadeFrames(256)));
    }

    #[test]
    fn distance_is_to_the_box() {
        let pos = ChunkPos::new(1, 0, 0);
        assert_eq!(chunk_distance(pos, Vec3::new(40.0, 5.0, 5.0)), 0.0);
        assert_eq!(chunk_distance(pos, Vec3::new(0.0, 5.0, 5.0)), 32.0);
        assert_eq!(chunk_distance(pos, Vec3::new(64.0 + 3.0, 32.0 + 4.0, 5.0)), 5.0);
    }
}

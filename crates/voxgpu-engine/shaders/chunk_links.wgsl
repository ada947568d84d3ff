// Walking the neighbour links: prepended, after common.wgsl, to the shaders that declare
// `links: array<ChunkLinks>` and `chunks: array<ChunkMeta>` (mesh.wgsl, mips_build.wgsl).

// The same-level node across `face` from `slot` when it is drawn, else NO_SLOT. A neighbour that
// is not drawn (its region is drawn by its children or an ancestor) counts as absent, so every
// border face towards it shows: each drawn node closes its own volume, whatever the level next
// to it (see docs/LOD.md). A node fading out is still drawn, so the nodes fading out together
// mesh against each other as they did while shown, and their shared borders stay closed (no
// wall between them shows through water); the LOD pass re-meshes the neighbours when its fade
// ends.
fn link(slot: u32, face: u32) -> u32 {
    let neighbour = links[slot].neighbours[face];
    if neighbour == NO_SLOT || chunks[neighbour].shown == 0u {
        return NO_SLOT;
    }
    return neighbour;
}

// The slot of the drawn node at `offset` (each component -1, 0 or 1) from `slot`: a face
// neighbour through its link, an edge neighbour through either face neighbour it shares with
// `slot` (the first one drawn), the slot itself for no offset; NO_SLOT for a corner chunk or one out of
// reach. Twin of neighbourhood.rs `reachable`. (Written without loops or early returns: llvmpipe
// miscompiled a looped version inlined into the mesher's walks.)
fn slot_at(slot: u32, offset: vec3<i32>) -> u32 {
    let moved = offset != vec3<i32>(0);
    let faces = vec3<u32>(0u, 2u, 4u) + vec3<u32>(offset < vec3<i32>(0));
    let axes = u32(moved.x) + u32(moved.y) + u32(moved.z);
    // The face towards the first and the last axis moved along.
    let first = select(select(faces.z, faces.y, moved.y), faces.x, moved.x);
    let second = select(select(faces.x, faces.y, moved.y), faces.z, moved.z);
    var found = NO_SLOT;
    if axes == 0u {
        found = slot;
    } else if axes == 1u {
        found = link(slot, first);
    } else if axes == 2u {
        let through_first = link(slot, first);
        let through_second = link(slot, second);
        if through_first != NO_SLOT {
            found = link(through_first, second);
        } else if through_second != NO_SLOT {
            found = link(through_second, first);
        }
    }
    return found;
}

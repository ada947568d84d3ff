// Walking the neighbour links: prepended, after common.wgsl, to the shaders that declare
// `links: array<ChunkLinks>` (mesh.wgsl, mips_build.wgsl).

// The slot of the chunk at `offset` (each component -1, 0 or 1) from `slot`: a face neighbour
// through its link, an edge neighbour through either face neighbour it shares with `slot` (the
// first one resident), the slot itself for no offset; NO_SLOT for a corner chunk or one out of
// reach. Twin of greedy.rs `reachable`. (Written without loops or early returns: llvmpipe
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
        found = links[slot].neighbours[first];
    } else if axes == 2u {
        let through_first = links[slot].neighbours[first];
        let through_second = links[slot].neighbours[second];
        if through_first != NO_SLOT {
            found = links[through_first].neighbours[second];
        } else if through_second != NO_SLOT {
            found = links[through_second].neighbours[first];
        }
    }
    return found;
}

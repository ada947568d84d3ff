// The mesher's row pass (part of mesh.wgsl, which includes this file): each row of a slice split
// into maximal runs of one merge key, the runs that continue the quad of the row above marked,
// and the quads the other runs start written. mesh.wgsl declares the workgroup memory and the
// per-workgroup values (`dim`, `axis`, `slot`, `level`) these read, and `visible_row`.

// A row of one face's slice split into runs: its visible faces and skirts, its ambient occlusion,
// the first column of each maximal run of one merge key (`starts`), and `stops`, the columns at
// which a run cannot go on (a start, or no visible face), so that `run_from(u, stops)` is the run
// starting at u.
struct RowRuns {
    visible: u32,
    skirt: u32,
    starts: u32,
    stops: u32,
    ao: AoPlanes,
}

fn no_runs() -> RowRuns {
    return RowRuns(0u, 0u, 0u, 0xffffffffu, AoPlanes(vec4<u32>(0u), vec4<u32>(0u)));
}

// Row v of slice a, with rows v - 1, v and v + 1 of the layer in front (`below`, `here`,
// `above`, as `front_row` gives them) for its ambient occlusion.
fn row_runs(f: SliceFace, a: u32, v: u32, below: vec3<u32>, here: vec3<u32>, above: vec3<u32>) -> RowRuns {
    let row = visible_row(f, a, v);
    if row.x == 0u {
        return no_runs();
    }
    let ao = ao_planes(below, here, above);
    // Bit u: faces u and u + 1 have one key (same block, ambient occlusion, skirt or not).
    let equal_right = planes[PLANES_SAME_U + plane(a, v)] & ao_equal_right(ao) & ~(row.y ^ (row.y >> 1u));
    let linked = row.x & (row.x >> 1u) & equal_right;
    let starts = row.x & ~(linked << 1u);
    return RowRuns(row.x, row.y, starts, starts | ~row.x, ao);
}

// What one invocation keeps of its rows between counting and writing: per row, the runs that
// start a quad, the stops (their widths) and the skirts.
struct OwnRows {
    tops: array<u32, MAX_ROWS>,
    stops: array<u32, MAX_ROWS>,
    skirts: array<u32, MAX_ROWS>,
    continues: array<u32, MAX_ROWS>,
    // The visible faces' cells in (a, u, v), `low.x` 32 when there are none.
    low: vec3<u32>,
    high: vec3<u32>,
}

// Rows `first`..`end` of slice a towards `f.face`, split into runs. The twin (`merge_plane`)
// stacks each key's maximal runs: a run continues the quad above when the row above holds a
// maximal run over exactly its columns with its key. Both rows' runs have one key along their
// length, so the key is compared at the first column only: ambient occlusion and skirt as bits,
// the block id by two reads. Returns the quads the rows start (x opaque, y transparent, z skirts).
fn stack_rows(f: SliceFace, a: u32, first: u32, end: u32, rows: ptr<function, OwnRows>) -> vec3<u32> {
    let front = i32(a) + select(-1, 1, face_is_positive(f.face));
    var below = vec3<u32>(0u);
    var here = front_row(front, i32(first) - 1);
    var above = front_row(front, i32(first));
    var prev = no_runs();
    if first > 0u {
        below = front_row(front, i32(first) - 2);
        prev = row_runs(f, a, first - 1u, below, here, above);
    }
    var counts = vec3<u32>(0u);
    (*rows).low = vec3<u32>(32u);
    (*rows).high = vec3<u32>(0u);
    for (var v = first; v < end; v++) {
        below = here;
        here = above;
        above = front_row(front, i32(v) + 1);
        let cur = row_runs(f, a, v, below, here, above);
        if cur.visible != 0u {
            (*rows).low = min((*rows).low, vec3<u32>(a, firstTrailingBit(cur.visible), v));
            (*rows).high = max((*rows).high, vec3<u32>(a, firstLeadingBit(cur.visible), v));
        }
        var candidates = cur.starts & prev.starts & ao_equal_rows(cur.ao, prev.ao) & ~(cur.skirt ^ prev.skirt);
        var continues = 0u;
        while candidates != 0u {
            let u = firstTrailingBit(candidates);
            candidates &= candidates - 1u;
            if run_from(u, cur.stops).x == run_from(u, prev.stops).x && id_at(a, u, v) == id_at(a, u, v - 1u) {
                continues |= 1u << u;
            }
        }
        let tops = cur.starts & ~continues;
        let i = v - first;
        (*rows).tops[i] = tops;
        (*rows).stops[i] = cur.stops;
        (*rows).skirts[i] = cur.skirt;
        (*rows).continues[i] = continues;
        let opaque = opaque_row(a, v);
        counts += vec3<u32>(countOneBits(tops & opaque), countOneBits(tops & ~opaque), countOneBits(tops & cur.skirt));
        prev = cur;
    }
    return counts;
}

// Writes the quads that rows `first`..`end` of slice a start, from stream indices `starts` (x
// opaque, y transparent) on. A quad is as wide as its run and as high as the rows that continue
// it (`CONTINUES` of face `half` of the pair, every invocation's rows).
fn emit_rows(face: u32, half: u32, a: u32, first: u32, end: u32, rows: ptr<function, OwnRows>, starts: vec2<u32>) {
    let front = i32(a) + select(-1, 1, face_is_positive(face));
    let continues_at = CONTINUES + 1024u * half + 32u * a;
    var written = vec2<u32>(0u);
    var cached_index = vec2<u32>(NO_SLOT);
    var cached_page = vec2<u32>(0u);
    for (var v = first; v < end; v++) {
        let i = v - first;
        var tops = (*rows).tops[i];
        if tops == 0u {
            continue;
        }
        let stops = (*rows).stops[i];
        let skirts = (*rows).skirts[i];
        let ao = ao_planes(front_row(front, i32(v) - 1), front_row(front, i32(v)), front_row(front, i32(v) + 1));
        let opaque = opaque_row(a, v);
        while tops != 0u {
            let u = firstTrailingBit(tops);
            tops &= tops - 1u;
            let width = run_from(u, stops).x;
            var height = 1u;
            while v + height < dim && ((planes[continues_at + v + height] >> u) & 1u) != 0u {
                height++;
            }
            let opaque_quad = ((opaque >> u) & 1u) != 0u;
            let index = select(starts.y + written.y, starts.x + written.x, opaque_quad);
            // The page of the stream index, looked up once per page and kind.
            let page_index = index >> QUAD_PAGE_LOG2;
            if page_index != select(cached_index.y, cached_index.x, opaque_quad) {
                let looked_up = faces[slot * 6u + face].pages[page_index];
                cached_page = select(vec2<u32>(cached_page.x, looked_up), vec2<u32>(looked_up, cached_page.y), opaque_quad);
                cached_index = select(vec2<u32>(cached_index.x, page_index), vec2<u32>(page_index, cached_index.y), opaque_quad);
            }
            let page = select(cached_page.y, cached_page.x, opaque_quad);
            let in_page = index & ((1u << QUAD_PAGE_LOG2) - 1u);
            quads[(page << QUAD_PAGE_LOG2) + in_page] = pack_quad(voxel_pos(axis, a, u, v), vec2<u32>(width, height), face,
                id_at(a, u, v), ((skirts >> u) & 1u) != 0u, ao_at(ao, u));
            written += vec2<u32>(u32(opaque_quad), u32(!opaque_quad));
        }
    }
}

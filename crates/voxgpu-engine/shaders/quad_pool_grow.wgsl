// Grow: pushes the pages the CPU just added to the mega quad buffer onto the free stack. The
// free count lives on the GPU, so only the GPU can append to the stack.
//
// Reads:  range (first new page, how many).
// Writes: allocator (free stack).
// Dispatch: one workgroup of 64.

struct PageRange {
    first: u32,
    count: u32,
}

@group(0) @binding(0) var<uniform> range: PageRange;
@group(0) @binding(1) var<storage, read_write> allocator: Allocator;

var<workgroup> base: u32;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    if lid == 0u {
        base = atomicAdd(&allocator.free_count, range.count);
    }
    let first = workgroupUniformLoad(&base);
    for (var i = lid; i < range.count; i += 64u) {
        allocator.free[first + i] = range.first + i;
    }
}

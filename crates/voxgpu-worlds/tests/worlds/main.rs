//! The world sources and the streaming manager, one test binary (one link): the chunk manager
//! and the worker pool against recording fakes (`stream`), failing, panicking and slow sources
//! (`faults`), and `.vox` export round trips (`export`). No GPU: the renderer under streaming is
//! tested with the engine (`crates/voxgpu-engine/tests/gpu/streaming.rs`). The `.vox` fuzz test
//! is a binary of its own (`fuzz_vox.rs`: it counts allocations through its global allocator).

mod export;
mod faults;
mod levels;
mod stream;

//! The store's decoder and its open under mutated real data: stored chunks of real terrain,
//! and a real store's database file, with random byte flips, overwrites, truncations,
//! insertions, deletions and size fields (a chunk's declared size, the database header's page
//! size and page count) set to hostile values. Every case must end, quickly, in a chunk (a
//! store) or a one-line error, with a refused store's file left as it was: no panic, no hang (a
//! case running over [`CASE_LIMIT`] aborts the run, naming it) and no allocation over
//! [`LARGEST_ALLOCATION`] bytes (a declared size of 2³¹ must not be allocated).
//!
//! `cargo test` runs [`DEFAULT_CASES`] cases per target; `VOXGPU_FUZZ_CASES=N` runs N.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use glam::{IVec2, IVec3};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use voxgpu_core::voxel::{BlockId, BlockRegistry, CHUNK_VOLUME, Chunk, ChunkPos};
use voxgpu_store::{DATABASE_FILE, Store, StoreMeta, decode_chunk, encode_chunk};
use voxgpu_worlds::worldgen::TerrainColumns;

/// Cases per target in a plain `cargo test`.
const DEFAULT_CASES: u32 = 256;
/// Longest a case may run before it counts as a hang.
const CASE_LIMIT: Duration = Duration::from_secs(20);
/// Largest single allocation a case may make: far above a chunk's 64 KiB, far below a hostile
/// declared size.
const LARGEST_ALLOCATION: usize = 64 << 20;

/// The system allocator, recording the largest request made on each thread.
struct Tracking;

thread_local! {
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

fn note(size: usize) {
    let _ = LARGEST.try_with(|l| l.set(l.get().max(size)));
}

// SAFETY: every call is passed to `System` unchanged; only the sizes are recorded.
unsafe impl GlobalAlloc for Tracking {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Tracking = Tracking;

fn cases() -> u32 {
    std::env::var("VOXGPU_FUZZ_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(DEFAULT_CASES)
}

/// One change to a file's bytes. Positions are taken modulo the length at the time.
#[derive(Clone, Debug)]
enum Mutation {
    Flip {
        at: usize,
        bit: u8,
    },
    Set {
        at: usize,
        byte: u8,
    },
    Truncate {
        keep: usize,
    },
    Insert {
        at: usize,
        bytes: Vec<u8>,
    },
    Delete {
        at: usize,
        len: usize,
    },
    /// A size field of the format (the `n`th of the original's) set to `value`.
    Field {
        nth: usize,
        value: u32,
    },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let hostile = prop_oneof![
        Just(0u32),
        Just(1),
        Just(1 << 31),
        Just(u32::MAX),
        Just((CHUNK_VOLUME * 2) as u32),
        Just((CHUNK_VOLUME * 2 + 1) as u32),
        0u32..65_536,
        any::<u32>(),
    ];
    prop_oneof![
        (any::<usize>(), 0u8..8).prop_map(|(at, bit)| Mutation::Flip { at, bit }),
        (any::<usize>(), any::<u8>()).prop_map(|(at, byte)| Mutation::Set { at, byte }),
        any::<usize>().prop_map(|keep| Mutation::Truncate { keep }),
        (any::<usize>(), proptest::collection::vec(any::<u8>(), 1..64))
            .prop_map(|(at, bytes)| Mutation::Insert { at, bytes }),
        (any::<usize>(), 1usize..256).prop_map(|(at, len)| Mutation::Delete { at, len }),
        (any::<usize>(), hostile).prop_map(|(nth, value)| Mutation::Field { nth, value }),
    ]
}

/// A size field: its offset, its width in bytes, and whether it is big-endian (SQLite's
/// header) or little-endian (a chunk's declared size).
#[derive(Clone, Copy, Debug)]
struct Field {
    at: usize,
    width: usize,
    big_endian: bool,
}

/// `bytes` with `mutations` applied.
fn mutate(bytes: &[u8], fields: &[Field], mutations: &[Mutation]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    for m in mutations {
        let len = out.len();
        match m {
            Mutation::Flip { at, bit } if len > 0 => out[at % len] ^= 1 << bit,
            Mutation::Set { at, byte } if len > 0 => out[at % len] = *byte,
            Mutation::Truncate { keep } => out.truncate(keep % (len + 1)),
            Mutation::Insert { at, bytes } => {
                let at = at % (len + 1);
                out.splice(at..at, bytes.iter().copied());
            }
            Mutation::Delete { at, len: n } if len > 0 => {
                let at = at % len;
                out.drain(at..(at + n).min(len));
            }
            Mutation::Field { nth, value } if !fields.is_empty() => {
                let f = fields[nth % fields.len()];
                if f.at + f.width <= len {
                    let wide = if f.big_endian { value.to_be_bytes() } else { value.to_le_bytes() };
                    let bytes = if f.big_endian { &wide[4 - f.width..] } else { &wide[..f.width] };
                    out[f.at..f.at + f.width].copy_from_slice(bytes);
                }
            }
            _ => {}
        }
    }
    out
}

/// Real terrain chunks with a block dug out of each, and a chunk LZ4 cannot shrink much.
fn real_chunks() -> &'static [Chunk] {
    static CHUNKS: OnceLock<Vec<Chunk>> = OnceLock::new();
    CHUNKS.get_or_init(|| {
        let terrain = TerrainColumns::new(11);
        let mut chunks: Vec<Chunk> = (0..3)
            .flat_map(|x| terrain.column(IVec2::new(x, 0)))
            .map(|(_, mut c)| {
                c.set(5, 5, 5, BlockId::AIR);
                c
            })
            .take(12)
            .collect();
        let mut noisy = Chunk::empty();
        let mut state = 0x9e37_79b9u32;
        for v in noisy.voxels_mut().iter_mut() {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            *v = BlockId((state % 11) as u16 + 1);
        }
        chunks.push(noisy);
        chunks
    })
}

/// A real store's database file (terrain chunks committed in three batches, closed) and the
/// size fields in it: the header's page size and page count, and every chunk's declared size.
fn real_database() -> &'static (Vec<u8>, Vec<Field>) {
    static DATABASE: OnceLock<(Vec<u8>, Vec<Field>)> = OnceLock::new();
    DATABASE.get_or_init(|| {
        let path = temp("original");
        {
            let meta = StoreMeta { source: "terrain".into(), seed: 11 };
            let (mut store, _) = Store::open_or_create(&path, &meta).expect("a store");
            let chunks = real_chunks();
            for batch in chunks.chunks(5).enumerate() {
                let (i, batch) = batch;
                let at = |k: usize| ChunkPos(IVec3::new((i * 5 + k) as i32, 0, -3));
                store.commit(batch.iter().enumerate().map(|(k, c)| (at(k), c))).expect("committed");
            }
        }
        let bytes = std::fs::read(path.join(DATABASE_FILE)).expect("the database");
        let _ = std::fs::remove_dir_all(&path);
        let mut fields =
            vec![Field { at: 16, width: 2, big_endian: true }, Field { at: 28, width: 4, big_endian: true }];
        // A chunk's row holds its first bytes on its b-tree page (the rest may overflow to
        // other pages): the size field is where those first bytes are.
        for chunk in real_chunks() {
            let head = &encode_chunk(chunk)[..12];
            for (at, _) in bytes.windows(head.len()).enumerate().filter(|(_, w)| *w == head) {
                if !fields.iter().any(|f| f.at == at) {
                    fields.push(Field { at, width: 4, big_endian: false });
                }
            }
        }
        assert!(fields.len() > 2, "the chunks are found in the file");
        (bytes, fields)
    })
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("voxgpu-store-fuzz-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Runs `case` on this thread within [`CASE_LIMIT`] (aborting the run, with `what`, past it) and
/// returns the largest allocation it made.
fn bounded<T>(what: &dyn Fn() -> String, case: impl FnOnce() -> T) -> (T, usize) {
    let (done, waiting) = std::sync::mpsc::channel::<()>();
    let description = what();
    let watchdog = std::thread::spawn(move || {
        if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = waiting.recv_timeout(CASE_LIMIT) {
            eprintln!("a fuzz case ran over {CASE_LIMIT:?} (a hang): {description}");
            std::process::abort();
        }
    });
    LARGEST.with(|l| l.set(0));
    let out = case();
    let largest = LARGEST.with(|l| l.get());
    let _ = done.send(());
    let _ = watchdog.join();
    (out, largest)
}

fn one_line(line: &str, what: &dyn Fn() -> String) -> Result<(), TestCaseError> {
    if line.is_empty() || line.contains('\n') {
        return Err(TestCaseError::fail(format!("not one line: {line:?}: {}", what())));
    }
    Ok(())
}

/// Decodes `bytes`: Ok(whether they decoded), or what is wrong with the outcome.
fn decode_checked(bytes: &[u8], what: &dyn Fn() -> String) -> Result<bool, TestCaseError> {
    let (result, largest) = bounded(what, || decode_chunk(bytes));
    if largest > LARGEST_ALLOCATION {
        return Err(TestCaseError::fail(format!("allocated {largest} bytes at once: {}", what())));
    }
    match result {
        Ok(_) => Ok(true),
        Err(e) => one_line(&e, what).map(|_| false),
    }
}

/// Opens a store whose database is `bytes` in `dir` and reads its chunks: Ok(whether it opened
/// and read), or what is wrong with the outcome.
fn open_checked(dir: &Path, bytes: &[u8], what: &dyn Fn() -> String) -> Result<bool, TestCaseError> {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).expect("store dir");
    let database = dir.join(DATABASE_FILE);
    std::fs::write(&database, bytes).expect("write");
    let registry = BlockRegistry::builtin();
    let (result, largest) = bounded(what, || {
        let store = Store::open(dir)?;
        let overlay = store.overlay(&registry)?;
        store.len().map(|n| (n, overlay.len()))
    });
    if largest > LARGEST_ALLOCATION {
        return Err(TestCaseError::fail(format!("allocated {largest} bytes at once: {}", what())));
    }
    match result {
        Ok(_) => Ok(true),
        Err(e) => {
            one_line(&e.to_string(), what)?;
            if std::fs::read(&database).ok().as_deref() != Some(bytes) {
                return Err(TestCaseError::fail(format!("refused ({e}) but changed: {}", what())));
            }
            Ok(false)
        }
    }
}

#[test]
fn mutated_chunks_decode_or_fail_with_one_line() {
    let began = Instant::now();
    let size_field = [Field { at: 0, width: 4, big_endian: false }];
    let mut runner =
        TestRunner::new(Config { cases: cases(), failure_persistence: None, ..Config::default() });
    let decoded = Cell::new(0u32);
    let strategy = (0..real_chunks().len(), proptest::collection::vec(mutation(), 1..6));
    runner
        .run(&strategy, |(nth, mutations)| {
            let bytes = mutate(&encode_chunk(&real_chunks()[nth]), &size_field, &mutations);
            let what = || format!("chunk {nth} with {mutations:?}");
            decoded.set(decoded.get() + u32::from(decode_checked(&bytes, &what)?));
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{e}"));
    eprintln!(
        "{} mutated chunks in {:.1} s: {} decoded, the rest refused with one line",
        cases(),
        began.elapsed().as_secs_f64(),
        decoded.get()
    );
}

#[test]
fn mutated_stores_open_or_are_refused_with_one_line_and_left_alone() {
    let began = Instant::now();
    let (original, fields) = real_database();
    let dir = temp("case");
    assert!(open_checked(&dir, original, &|| "the original".into()).expect("the original"), "opens");
    let mut runner =
        TestRunner::new(Config { cases: cases(), failure_persistence: None, ..Config::default() });
    let opened = Cell::new(0u32);
    runner
        .run(&proptest::collection::vec(mutation(), 1..6), |mutations| {
            let bytes = mutate(original, fields, &mutations);
            let what = || format!("the database with {mutations:?}");
            opened.set(opened.get() + u32::from(open_checked(&dir, &bytes, &what)?));
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{e}"));
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!(
        "{} mutated stores in {:.1} s: {} opened and read, the rest refused with one line",
        cases(),
        began.elapsed().as_secs_f64(),
        opened.get()
    );
}

/// Minimised from the chunk fuzzing: a stored chunk whose size field declares 2³¹ bytes.
#[test]
fn a_chunk_declaring_two_gibibytes_is_refused_without_allocating_them() {
    let mut bytes = encode_chunk(&real_chunks()[0]);
    for declared in [1u32 << 31, u32::MAX, 0, (CHUNK_VOLUME * 2 - 1) as u32] {
        bytes[..4].copy_from_slice(&declared.to_le_bytes());
        let what = || format!("a chunk declaring {declared} bytes");
        let (result, largest) = bounded(&what, || decode_chunk(&bytes));
        let err = result.expect_err("refused");
        assert!(largest <= 2 * CHUNK_VOLUME * 2, "{declared}: allocated {largest} bytes at once");
        assert!(err.contains(&declared.to_string()) && !err.contains('\n'), "{err}");
    }
    assert!(decode_chunk(&[1, 2]).is_err(), "shorter than its size field");
}

/// Minimised from the store fuzzing: one byte inserted into a real store's database file shifts
/// every page after it, and SQLite's integrity check lists a problem per page, one per line.
#[test]
fn a_store_with_a_byte_inserted_is_refused_with_one_line() {
    let (original, fields) = real_database();
    let mutations = [Mutation::Insert { at: 1380437244343504311, bytes: vec![0] }];
    let bytes = mutate(original, fields, &mutations);
    let dir = temp("inserted-byte");
    let opened = open_checked(&dir, &bytes, &|| format!("{mutations:?}")).unwrap_or_else(|e| panic!("{e}"));
    assert!(!opened, "refused");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Minimised from the store fuzzing: bytes inserted into the schema's page make SQLite quote a
/// schema entry holding a line break in its error.
#[test]
fn a_store_whose_schema_quotes_a_line_break_is_refused_with_one_line() {
    let (original, fields) = real_database();
    let mutations = [
        Mutation::Insert { at: 4055, bytes: vec![0, 0, 0, 0, 0, 10] },
        Mutation::Insert { at: 4061, bytes: vec![0] },
    ];
    let bytes = mutate(original, fields, &mutations);
    let dir = temp("schema-line-break");
    let opened = open_checked(&dir, &bytes, &|| format!("{mutations:?}")).unwrap_or_else(|e| panic!("{e}"));
    assert!(!opened, "refused");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Minimised from the store fuzzing: a damaged page, and the header's page count cleared. Any
/// write transaction, even an empty one, rewrites such a header's page count, so the integrity
/// check must refuse the store before one: every check that can refuse a store reads only.
#[test]
fn a_damaged_store_with_a_cleared_page_count_is_refused_unchanged() {
    let (original, fields) = real_database();
    let mutations = [Mutation::Set { at: 36864, byte: 1 }, Mutation::Field { nth: 1, value: 0 }];
    assert_eq!(fields[1].at, 28, "the header's page count");
    let bytes = mutate(original, fields, &mutations);
    let dir = temp("cleared-page-count");
    let opened = open_checked(&dir, &bytes, &|| format!("{mutations:?}")).unwrap_or_else(|e| panic!("{e}"));
    assert!(!opened, "refused");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Minimised from the store fuzzing: the header's page count cleared and one chunk's data
/// damaged. SQLite finds the database sound and only reading the chunks refuses the store, so
/// opening writes nothing: any write transaction, even an empty one, rewrites the page count.
#[test]
fn a_store_refused_for_its_chunks_is_left_unchanged_with_a_cleared_page_count() {
    let (original, fields) = real_database();
    let mutations = [
        Mutation::Field { nth: 10249983110368069195, value: 0 },
        Mutation::Flip { at: 769657220142213828, bit: 0 },
    ];
    let bytes = mutate(original, fields, &mutations);
    let dir = temp("chunk-and-page-count");
    let opened = open_checked(&dir, &bytes, &|| format!("{mutations:?}")).unwrap_or_else(|e| panic!("{e}"));
    assert!(!opened, "refused");
    let _ = std::fs::remove_dir_all(&dir);
}

//! The world store on its own (no GPU): round trips, the overlay, and every way opening or
//! writing can fail, each refused with its own error and without touching what was there.

use std::path::PathBuf;

use glam::{IVec2, IVec3};
use voxgpu_core::voxel::{BlockId, BlockRegistry, Chunk, ChunkPos, blocks};
use voxgpu_store::{DATABASE_FILE, Store, StoreError, StoreMeta, decode_chunk, encode_chunk};

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("voxgpu-store-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_file(&dir);
    dir
}

fn meta() -> StoreMeta {
    StoreMeta { source: "terrain".into(), seed: 42 }
}

/// A chunk with a recognisable pattern for `seed`.
fn chunk(seed: u16) -> Chunk {
    let mut c = Chunk::empty();
    for i in 0..200usize {
        let (x, y, z) = ((i * 7 + seed as usize) % 32, (i * 13) % 32, (i * 5 + 3) % 32);
        c.set(x, y, z, BlockId(1 + (i as u16 + seed) % 11));
    }
    c
}

#[test]
fn chunks_round_trip_through_the_codec_and_the_store() {
    for c in [Chunk::empty(), Chunk::filled(blocks::STONE), chunk(3)] {
        assert_eq!(decode_chunk(&encode_chunk(&c)).expect("decodes").voxels(), c.voxels());
    }
    let path = temp("round-trip");
    let edits: Vec<(ChunkPos, Chunk)> =
        (0..20).map(|i| (ChunkPos(IVec3::new(i - 10, i % 3, 2 * i)), chunk(i as u16))).collect();
    {
        let (mut store, created) = Store::open_or_create(&path, &meta()).expect("created");
        assert!(created);
        store.commit(edits[..10].iter().map(|(p, c)| (*p, c))).expect("first batch");
        store.commit(edits[10..].iter().map(|(p, c)| (*p, c))).expect("second batch");
        // A later edit of the same chunk replaces it.
        store.commit([(edits[0].0, &Chunk::empty())]).expect("emptied");
    }
    let (store, created) =
        Store::open_or_create(&path, &StoreMeta { source: "flat".into(), seed: 1 }).expect("reopened");
    assert!(!created);
    assert_eq!(store.meta(), &meta(), "the store keeps the world it was created for");
    store.integrity_check().expect("intact");
    let overlay = store.overlay(&BlockRegistry::builtin()).expect("overlay");
    assert_eq!(overlay.len(), 20);
    assert!(overlay.get(edits[0].0).expect("stored").is_empty(), "an emptied chunk is stored as air");
    for (pos, c) in &edits[1..] {
        assert_eq!(overlay.get(*pos).expect("stored").voxels(), c.voxels(), "{pos:?}");
    }
    let _ = std::fs::remove_dir_all(&path);
}

#[test]
fn the_overlay_replaces_and_removes_generated_chunks() {
    let mut overlay = voxgpu_store::Overlay::default();
    let (kept, edited, emptied, added) = (
        ChunkPos(IVec3::new(1, 0, 2)),
        ChunkPos(IVec3::new(1, 1, 2)),
        ChunkPos(IVec3::new(1, 2, 2)),
        ChunkPos(IVec3::new(1, 5, 2)),
    );
    overlay.insert_encoded(edited, encode_chunk(&chunk(9)));
    overlay.insert_encoded(emptied, encode_chunk(&Chunk::empty()));
    overlay.insert_encoded(added, encode_chunk(&chunk(4)));
    let generated = vec![(kept, chunk(1)), (edited, chunk(2)), (emptied, chunk(3))];
    let applied = overlay.apply(IVec2::new(1, 2), generated.clone());
    let positions: Vec<ChunkPos> = applied.iter().map(|(p, _)| *p).collect();
    assert_eq!(positions, vec![kept, edited, added]);
    assert_eq!(applied[1].1.voxels(), chunk(9).voxels());
    // Another column is untouched.
    let other = overlay.apply(IVec2::new(0, 0), generated.clone());
    assert_eq!(other.len(), 3);
}

#[test]
fn what_is_not_a_store_is_refused_and_left_alone() {
    // A plain file.
    let file = temp("a-file");
    std::fs::write(&file, b"hello").expect("write");
    assert!(matches!(Store::open_or_create(&file, &meta()), Err(StoreError::NotAStore { .. })));
    assert_eq!(std::fs::read(&file).expect("still there"), b"hello");
    let _ = std::fs::remove_file(&file);
    // A directory with other things in it.
    let dir = temp("a-dir");
    std::fs::create_dir_all(&dir).expect("dir");
    std::fs::write(dir.join("notes.txt"), b"mine").expect("write");
    assert!(matches!(Store::open_or_create(&dir, &meta()), Err(StoreError::NotAStore { .. })));
    assert!(!dir.join(DATABASE_FILE).exists(), "nothing was created");
    // An SQLite database of another application.
    std::fs::write(dir.join(DATABASE_FILE), b"").expect("write");
    let other = rusqlite_free_database(&dir.join(DATABASE_FILE));
    let err = Store::open(&dir).err().expect("refused");
    assert!(matches!(err, StoreError::NotAStore { .. }), "{err}");
    assert_eq!(std::fs::read(dir.join(DATABASE_FILE)).expect("still there"), other);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Writes a minimal valid SQLite database (header only, no application id) and returns its bytes.
fn rusqlite_free_database(path: &std::path::Path) -> Vec<u8> {
    // A fresh store's file with the application id cleared: valid SQLite, not ours.
    let scratch = temp("scratch");
    drop(Store::create(&scratch, &meta()).expect("scratch store"));
    let mut bytes = std::fs::read(scratch.join(DATABASE_FILE)).expect("read");
    bytes[68..72].copy_from_slice(&[0, 0, 0, 0]);
    std::fs::write(path, &bytes).expect("write");
    let _ = std::fs::remove_dir_all(&scratch);
    bytes
}

#[test]
fn damaged_and_truncated_stores_are_refused_and_left_alone() {
    let path = temp("damaged");
    {
        let (mut store, _) = Store::open_or_create(&path, &meta()).expect("created");
        let many: Vec<(ChunkPos, Chunk)> =
            (0..40).map(|i| (ChunkPos(IVec3::new(i, 0, 0)), chunk(i as u16))).collect();
        store.commit(many.iter().map(|(p, c)| (*p, c))).expect("written");
    }
    let database = path.join(DATABASE_FILE);
    let whole = std::fs::read(&database).expect("read");
    // Garbage where the pages are.
    let mut garbage = whole.clone();
    for b in garbage[4096..].iter_mut().step_by(7) {
        *b ^= 0x5a;
    }
    std::fs::write(&database, &garbage).expect("write");
    let err = Store::open(&path).err().expect("refused");
    assert!(matches!(err, StoreError::Corrupt { .. }), "{err}");
    assert_eq!(std::fs::read(&database).expect("read"), garbage, "left as it was");
    // Cut in half.
    std::fs::write(&database, &whole[..whole.len() / 2]).expect("write");
    let err = Store::open(&path).err().expect("refused");
    assert!(matches!(err, StoreError::Corrupt { .. }), "{err}");
    assert_eq!(std::fs::read(&database).expect("read").len(), whole.len() / 2, "left as it was");
    // Not a database at all.
    std::fs::write(&database, vec![7u8; 10_000]).expect("write");
    let err = Store::open(&path).err().expect("refused");
    assert!(matches!(err, StoreError::Corrupt { .. }), "{err}");
    let _ = std::fs::remove_dir_all(&path);
}

#[test]
fn a_store_of_a_newer_format_is_refused_and_left_alone() {
    let path = temp("newer");
    drop(Store::create(&path, &meta()).expect("created"));
    let database = path.join(DATABASE_FILE);
    let mut bytes = std::fs::read(&database).expect("read");
    // user_version lives at offset 60 of the header, big-endian.
    bytes[60..64].copy_from_slice(&(voxgpu_store::FORMAT_VERSION + 1).to_be_bytes());
    std::fs::write(&database, &bytes).expect("write");
    let err = Store::open(&path).err().expect("refused");
    assert!(
        matches!(err, StoreError::NewerFormat { found, .. } if found == voxgpu_store::FORMAT_VERSION + 1),
        "{err}"
    );
    assert_eq!(std::fs::read(&database).expect("read"), bytes);
    let _ = std::fs::remove_dir_all(&path);
}

#[test]
fn a_second_holder_is_refused_with_the_first_named() {
    let path = temp("in-use");
    let (_first, _) = Store::open_or_create(&path, &meta()).expect("created");
    let err = Store::open(&path).err().expect("a second holder is refused");
    match &err {
        StoreError::InUse { holder, .. } => {
            assert!(holder.contains(&std::process::id().to_string()), "{err}")
        }
        other => panic!("expected InUse, got {other}"),
    }
    drop(_first);
    Store::open(&path).expect("free again once the first is closed");
    let _ = std::fs::remove_dir_all(&path);
}

#[test]
fn a_read_only_location_is_one_error() {
    // A directory without write permission; root writes there anyway, so when that is so the
    // test uses sysfs, which refuses new files to everyone.
    let parent = temp("read-only");
    std::fs::create_dir_all(&parent).expect("dir");
    let mut perms = std::fs::metadata(&parent).expect("meta").permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o555);
    std::fs::set_permissions(&parent, perms).expect("chmod");
    let writable = std::fs::write(parent.join("probe"), b"").is_ok();
    let location = if writable { PathBuf::from("/sys/voxgpu-store-test") } else { parent.join("world") };
    let err = Store::open_or_create(&location, &meta()).err().expect("refused");
    assert!(matches!(err, StoreError::Io { .. }), "{err}");
    assert!(!location.exists());
    let mut perms = std::fs::metadata(&parent).expect("meta").permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&parent, perms).expect("chmod");
    let _ = std::fs::remove_dir_all(&parent);
}

/// Makes `file` one this process cannot open for writing, and returns how it did it and how to
/// undo it, or `None` when it cannot. Without root, `chmod 0444` does; root writes such a file
/// anyway, so as root the file is made immutable (`chattr +i`, which root cannot write either)
/// or, where the file system has no such attribute, bind-mounted read-only onto itself.
fn make_read_only(file: &std::path::Path) -> Option<(&'static str, Box<dyn FnOnce()>)> {
    use std::os::unix::fs::PermissionsExt;
    let run = |program: &str, args: &[&std::ffi::OsStr]| {
        std::process::Command::new(program)
            .args(args)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    let writable = || std::fs::OpenOptions::new().write(true).open(file).is_ok();
    std::fs::set_permissions(file, std::fs::Permissions::from_mode(0o444)).expect("chmod");
    if !writable() {
        return Some(("chmod 0444", Box::new(|| {})));
    }
    let f = file.as_os_str().to_owned();
    if run("chattr", &["+i".as_ref(), &f]) {
        if !writable() {
            return Some(("chattr +i", Box::new(move || assert!(run("chattr", &["-i".as_ref(), &f])))));
        }
        run("chattr", &["-i".as_ref(), &f]);
    }
    if run("mount", &["--bind".as_ref(), &f, &f]) {
        let undo = {
            let f = f.clone();
            move || assert!(run("umount", &[&f]))
        };
        if run("mount", &["-o".as_ref(), "remount,bind,ro".as_ref(), &f, &f]) && !writable() {
            return Some(("a read-only bind mount", Box::new(undo)));
        }
        undo();
    }
    None
}

#[test]
fn a_read_only_database_in_a_writable_directory_is_refused_at_open() {
    let path = temp("read-only-file");
    {
        let (mut store, _) = Store::open_or_create(&path, &meta()).expect("created");
        store.commit([(ChunkPos(IVec3::new(1, 2, 3)), &chunk(5))]).expect("written");
    }
    let database = path.join(DATABASE_FILE);
    let before = std::fs::read(&database).expect("read");
    let Some((how, undo)) = make_read_only(&database) else {
        // Root, with neither an immutable attribute nor a mount here: nothing makes the file
        // read-only to this process, so SQLite opens it for writing and there is nothing to test.
        eprintln!("a_read_only_database_in_a_writable_directory_is_refused_at_open: did not run");
        let _ = std::fs::remove_dir_all(&path);
        return;
    };
    // What SQLite reports for the file made so: asked to open it for writing, it opens it
    // read-only, without an error.
    let read_only =
        rusqlite::Connection::open_with_flags(&database, rusqlite::OpenFlags::SQLITE_OPEN_READ_WRITE)
            .and_then(|conn| conn.is_readonly(rusqlite::MAIN_DB));
    // Closed before the undo: a bind mount cannot be taken away while the file is open.
    let opened = Store::open(&path).map(drop);
    undo();
    assert!(matches!(read_only, Ok(true)), "{how}: SQLite opens the database read-only: {read_only:?}");
    let err = opened.err().unwrap_or_else(|| panic!("{how}: a read-only database is refused at open"));
    assert!(matches!(err, StoreError::Io { .. }), "{how}: {err}");
    let line = err.to_string();
    assert!(line.contains("cannot write the world store") && !line.contains('\n'), "{how}: {line}");
    assert!(line.starts_with(&path.display().to_string()), "{how}: names the store: {line}");
    assert_eq!(std::fs::read(&database).expect("read"), before, "{how}: left as it was");
    assert!(!path.join(voxgpu_store::HOLDER_FILE).exists(), "{how}: no holder left behind");
    let mut perms = std::fs::metadata(&database).expect("meta").permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o644);
    std::fs::set_permissions(&database, perms).expect("chmod");
    let store = Store::open(&path).expect("writable again");
    assert_eq!(store.overlay(&BlockRegistry::builtin()).expect("overlay").len(), 1);
    drop(store);
    let _ = std::fs::remove_dir_all(&path);
}

#[test]
fn a_full_disk_fails_the_batch_and_keeps_what_was_stored() {
    let path = temp("full");
    let first: Vec<(ChunkPos, Chunk)> =
        (0..5).map(|i| (ChunkPos(IVec3::new(i, 0, 0)), chunk(i as u16))).collect();
    {
        let (mut store, _) = Store::open_or_create(&path, &meta()).expect("created");
        store.commit(first.iter().map(|(p, c)| (*p, c))).expect("first batch");
        // Room for a few pages more: a large batch of incompressible-ish chunks cannot fit.
        let pages: u32 = 30;
        store.limit_pages(pages).expect("limit");
        let big: Vec<(ChunkPos, Chunk)> =
            (0..200).map(|i| (ChunkPos(IVec3::new(i, 9, 9)), noisy(i as u32))).collect();
        let err = store.commit(big.iter().map(|(p, c)| (*p, c))).err().expect("the disk is full");
        assert!(matches!(err, StoreError::Full { .. }), "{err}");
    }
    let store = Store::open(&path).expect("reopens");
    store.integrity_check().expect("intact");
    let overlay = store.overlay(&BlockRegistry::builtin()).expect("overlay");
    assert_eq!(overlay.len(), 5, "the failed batch left nothing behind");
    for (pos, c) in &first {
        assert_eq!(overlay.get(*pos).expect("kept").voxels(), c.voxels());
    }
    let _ = std::fs::remove_dir_all(&path);
}

/// A chunk LZ4 cannot shrink much.
fn noisy(seed: u32) -> Chunk {
    let mut c = Chunk::empty();
    let mut state = seed.wrapping_mul(2_654_435_761).wrapping_add(1);
    for v in c.voxels_mut().iter_mut() {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        *v = BlockId((state % 11) as u16 + 1);
    }
    c
}

/// Asserts that `err` says, in one line, that the store at `path` is damaged.
fn assert_damaged(err: &StoreError, path: &std::path::Path) {
    let line = err.to_string();
    assert!(matches!(err, StoreError::Corrupt { .. }), "{line}");
    assert!(!line.contains('\n'), "one line: {line}");
    assert!(line.contains(&path.display().to_string()) && line.contains("damaged"), "{line}");
}

#[test]
fn a_chunk_with_blocks_the_world_lacks_is_refused_as_damage_and_left_alone() {
    let registry = BlockRegistry::builtin();
    let last = BlockId(registry.len() as u16 - 1);
    for (name, unknown) in [("id-65535", BlockId(u16::MAX)), ("id-past-the-registry", BlockId(last.0 + 1))] {
        let path = temp(name);
        {
            let (mut store, _) = Store::open_or_create(&path, &meta()).expect("created");
            let mut known = chunk(1);
            known.set(0, 0, 0, last);
            let mut bad = chunk(2);
            bad.set(3, 4, 5, unknown);
            store.commit([(ChunkPos(IVec3::ZERO), &known)]).expect("a known chunk");
            store.commit([(ChunkPos(IVec3::new(0, 1, 0)), &bad)]).expect("written as given");
        }
        let database = path.join(DATABASE_FILE);
        let before = std::fs::read(&database).expect("read");
        let store = Store::open(&path).expect("the database itself is sound");
        let err = store.overlay(&registry).expect_err("refused");
        assert_damaged(&err, &path);
        assert!(err.to_string().contains(&format!("block id {}", unknown.0)), "{err}");
        drop(store);
        assert_eq!(std::fs::read(&database).expect("read"), before, "{name}: left as it was");
        // A registry that has the id (a larger one, as another world's) reads the same rows.
        let mut larger = BlockRegistry::builtin();
        while larger.len() <= unknown.0 as usize {
            larger.register(registry.get(last).expect("registered").clone());
        }
        let store = Store::open(&path).expect("reopens");
        assert_eq!(store.overlay(&larger).expect("every id known").len(), 2);
        drop(store);
        let _ = std::fs::remove_dir_all(&path);
    }
}

#[test]
fn a_store_with_the_wrong_tables_is_refused_as_damage_and_left_alone() {
    // Each damage, made with SQLite itself (so the file stays a sound database), and whether
    // open or reading the chunks refuses it.
    let damages: [(&str, &str, bool); 6] = [
        ("no-meta", "DROP TABLE meta", true),
        ("no-chunks", "DROP TABLE chunks", true),
        (
            "text-x",
            "DROP TABLE chunks; CREATE TABLE chunks (x TEXT NOT NULL, y INTEGER NOT NULL,
             z INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (x, y, z)) WITHOUT ROWID;
             INSERT INTO chunks VALUES ('x', 0, 0, x'00')",
            true,
        ),
        ("missing-column", "ALTER TABLE meta DROP COLUMN value", true),
        ("text-in-x", "INSERT INTO chunks VALUES ('east', 0, 0, x'00')", false),
        ("text-data", "INSERT INTO chunks VALUES (1, 2, 3, 'not a chunk')", false),
    ];
    for (name, statement, at_open) in damages {
        let path = temp(name);
        drop(Store::create(&path, &meta()).expect("created"));
        let database = path.join(DATABASE_FILE);
        let conn = rusqlite::Connection::open(&database).expect("sqlite");
        conn.execute_batch(statement).unwrap_or_else(|e| panic!("{name}: {e}"));
        drop(conn);
        let before = std::fs::read(&database).expect("read");
        let err = match Store::open(&path) {
            Err(err) => {
                assert!(at_open, "{name}: refused at open: {err}");
                err
            }
            Ok(store) => {
                assert!(!at_open, "{name}: opened");
                store.overlay(&BlockRegistry::builtin()).expect_err("refused")
            }
        };
        assert_damaged(&err, &path);
        assert_eq!(std::fs::read(&database).expect("read"), before, "{name}: left as it was");
        assert!(!path.join(voxgpu_store::HOLDER_FILE).exists(), "{name}: no holder left behind");
        let _ = std::fs::remove_dir_all(&path);
    }
}

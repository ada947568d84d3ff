//! voxgpu's world store: what a world is made from and every chunk edited since, in one SQLite
//! database, so a world keeps its edits across sessions and crashes.
//!
//! A store is a directory holding `world.sqlite` and `holder` (who has it open). The database
//! has two tables: `meta` (the format version, the world's source and seed) and `chunks` (one
//! row per edited chunk: its position and its 32³ block ids, LZ4-compressed). Only chunks that
//! differ from what the source generates are stored: procedural terrain stays procedural, with
//! the edits as an overlay. A row replaces the generated chunk whole; an all-air row removes it.
//! Far level-of-detail nodes are not cached: they are generated again on reopening.
//!
//! Guarantees:
//! - **Atomic batches.** [`Store::commit`] writes its chunks in one transaction, in WAL mode
//!   with `synchronous = FULL`: once it returns, the batch survives a crash of the process or
//!   of the machine, and a crash during it leaves the previous state.
//! - **One holder.** The database is opened in exclusive locking mode and the lock is taken at
//!   once, so a second process is refused ([`StoreError::InUse`], naming the holder from its
//!   `holder` file). The operating system releases the lock when the holder dies.
//! - **Refusal without damage.** A directory that is not a store, a database that is not one of
//!   ours or that this process may not write, a newer format version, a failed integrity check,
//!   tables other than the store's own or values of the wrong type in them are refused before
//!   anything is written; so is a chunk that does not decode or holds a block id the world's
//!   registry does not have, when the chunks are read ([`Store::overlay`]).

#![warn(missing_docs)]

mod codec;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use glam::{IVec2, IVec3};
use rusqlite::{Connection, ErrorCode, OpenFlags, OptionalExtension, params};
use voxgpu_core::voxel::{BlockRegistry, Chunk, ChunkPos};

pub use codec::{decode_chunk, encode_chunk};

/// The format this build writes and the newest it reads.
pub const FORMAT_VERSION: u32 = 1;
/// `PRAGMA application_id` of a voxgpu store ("VXGP").
const APPLICATION_ID: i32 = 0x5658_4750;
/// The database file inside a store's directory.
pub const DATABASE_FILE: &str = "world.sqlite";
/// The file naming the process that has the store open.
pub const HOLDER_FILE: &str = "holder";

/// Why a store could not be opened, created or written. Each prints as one line.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The path exists but is not a voxgpu store (a file, or a directory with other things).
    #[error("{path}: not a voxgpu world store ({reason})")]
    NotAStore {
        /// The store's path.
        path: PathBuf,
        /// What was found instead.
        reason: String,
    },
    /// The database is damaged or truncated.
    #[error("{path}: the world store is damaged ({reason}); it was left as it is")]
    Corrupt {
        /// The store's path.
        path: PathBuf,
        /// What SQLite reported.
        reason: String,
    },
    /// Written by a newer voxgpu.
    #[error(
        "{path}: world store format {found} is newer than this voxgpu reads ({FORMAT_VERSION}); it was left as it is"
    )]
    NewerFormat {
        /// The store's path.
        path: PathBuf,
        /// The version found.
        found: u32,
    },
    /// Another process has the store open.
    #[error("{path}: the world store is in use by {holder}")]
    InUse {
        /// The store's path.
        path: PathBuf,
        /// The holder, as its `holder` file names it.
        holder: String,
    },
    /// The disk (or the store's size limit) is full: the batch was not written, and the store
    /// holds what it held before.
    #[error("{path}: the disk is full; the last edits were not saved (the store is unchanged)")]
    Full {
        /// The store's path.
        path: PathBuf,
    },
    /// Reading or writing failed (permissions, a read-only location, I/O).
    #[error("{path}: {reason}")]
    Io {
        /// The store's path.
        path: PathBuf,
        /// What failed.
        reason: String,
    },
}

/// What a world is made from: a source's spelling (`terrain`, `flat`, `vox:PATH`, …) and seed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreMeta {
    /// The world source, as the command line spells it.
    pub source: String,
    /// The procedural terrain's seed.
    pub seed: u64,
}

/// An open store, held exclusively by this process until dropped.
pub struct Store {
    conn: Connection,
    path: PathBuf,
    meta: StoreMeta,
}

/// The edited chunks of a store in memory, compressed: what a world source overlays on what it
/// generates. Cheap to share between generation threads.
#[derive(Clone, Debug, Default)]
pub struct Overlay {
    chunks: HashMap<ChunkPos, Vec<u8>>,
    /// Chunk positions per chunk column (x, z).
    columns: HashMap<IVec2, Vec<ChunkPos>>,
}

impl Overlay {
    /// Replaces the stored chunk at `pos` with `chunk` (already encoded).
    pub fn insert_encoded(&mut self, pos: ChunkPos, encoded: Vec<u8>) {
        if self.chunks.insert(pos, encoded).is_none() {
            self.columns.entry(IVec2::new(pos.0.x, pos.0.z)).or_default().push(pos);
        }
    }

    /// The edited chunk at `pos`, if it was edited (an all-air chunk when it was emptied).
    pub fn get(&self, pos: ChunkPos) -> Option<Chunk> {
        self.chunks.get(&pos).map(|bytes| decode_chunk(bytes).expect("overlay entries are valid encodings"))
    }

    /// The edited chunks of chunk column `xz`, bottom up.
    pub fn column(&self, xz: IVec2) -> Vec<(ChunkPos, Chunk)> {
        let mut positions = self.columns.get(&xz).cloned().unwrap_or_default();
        positions.sort();
        positions.into_iter().filter_map(|p| self.get(p).map(|c| (p, c))).collect()
    }

    /// `generated` (a chunk column's non-empty chunks) with the column's edits applied: edited
    /// chunks replace generated ones, all-air edits remove them.
    pub fn apply(&self, xz: IVec2, generated: Vec<(ChunkPos, Chunk)>) -> Vec<(ChunkPos, Chunk)> {
        if !self.columns.contains_key(&xz) {
            return generated;
        }
        let edited = self.column(xz);
        voxgpu_core::voxel::with_edited_chunks(xz, generated, edited.iter().map(|(p, c)| (*p, c)))
    }

    /// Every edited position, sorted.
    pub fn positions(&self) -> Vec<ChunkPos> {
        let mut out: Vec<ChunkPos> = self.chunks.keys().copied().collect();
        out.sort();
        out
    }

    /// Edited chunks held.
    pub fn len(&self) -> usize {
        self.chunks.len()
    }

    /// No chunk edited.
    pub fn is_empty(&self) -> bool {
        self.chunks.is_empty()
    }
}

fn io(path: &Path, e: impl std::fmt::Display) -> StoreError {
    StoreError::Io { path: path.to_path_buf(), reason: one_line(&e.to_string()) }
}

/// `text` with every run of white space (line breaks included) made one space: SQLite's
/// messages quote what a damaged file holds, and an error prints as one line.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Maps an SQLite error to the store's own, by what it means for the user.
fn sql(path: &Path, e: rusqlite::Error) -> StoreError {
    // A value of the wrong type in the store's own tables is damage, not an I/O failure.
    if let rusqlite::Error::InvalidColumnType(..)
    | rusqlite::Error::FromSqlConversionFailure(..)
    | rusqlite::Error::IntegralValueOutOfRange(..) = e
    {
        return StoreError::Corrupt {
            path: path.to_path_buf(),
            reason: one_line(&format!("a stored value: {e}")),
        };
    }
    match e.sqlite_error_code() {
        Some(ErrorCode::DiskFull) => StoreError::Full { path: path.to_path_buf() },
        Some(ErrorCode::DatabaseCorrupt) | Some(ErrorCode::NotADatabase) => {
            StoreError::Corrupt { path: path.to_path_buf(), reason: one_line(&e.to_string()) }
        }
        Some(ErrorCode::DatabaseBusy) | Some(ErrorCode::DatabaseLocked) => {
            StoreError::InUse { path: path.to_path_buf(), holder: holder(path) }
        }
        Some(ErrorCode::ReadOnly) | Some(ErrorCode::CannotOpen) | Some(ErrorCode::PermissionDenied) => {
            io(path, format!("cannot write the world store ({e})"))
        }
        _ => io(path, e),
    }
}

/// Who holds the store, from its holder file (written by the holder once it has the lock).
fn holder(path: &Path) -> String {
    std::fs::read_to_string(path.join(HOLDER_FILE))
        .ok()
        .map(|s| one_line(&s))
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "another process".into())
}

impl Store {
    /// Opens the store at `path`, or creates it with `meta` when nothing is there (or an empty
    /// directory). Returns whether it was created.
    pub fn open_or_create(path: &Path, meta: &StoreMeta) -> Result<(Self, bool), StoreError> {
        if Self::exists_at(path)? {
            Ok((Self::open(path)?, false))
        } else {
            Ok((Self::create(path, meta)?, true))
        }
    }

    /// Whether a store is at `path` (`false`: nothing is there, or an empty directory, where
    /// one can be created). `Err(NotAStore)` when something else is there.
    pub fn exists_at(path: &Path) -> Result<bool, StoreError> {
        if !path.exists() {
            return Ok(false);
        }
        if !path.is_dir() {
            return Err(StoreError::NotAStore {
                path: path.into(),
                reason: "a file, not a store directory".into(),
            });
        }
        if path.join(DATABASE_FILE).is_file() {
            return Ok(true);
        }
        if std::fs::read_dir(path).map_err(|e| io(path, e))?.next().is_none() {
            return Ok(false);
        }
        Err(StoreError::NotAStore {
            path: path.into(),
            reason: format!("a directory without {DATABASE_FILE}"),
        })
    }

    /// Opens an existing store, refusing it (untouched) when it is not one, is damaged, is newer
    /// than this build, or is in use.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        let database = path.join(DATABASE_FILE);
        if !database.is_file() {
            return Err(StoreError::NotAStore { path: path.into(), reason: format!("no {DATABASE_FILE}") });
        }
        let conn = Connection::open_with_flags(&database, OpenFlags::SQLITE_OPEN_READ_WRITE)
            .map_err(|e| sql(path, e))?;
        let check = |e| sql(path, e);
        // SQLite opens a file it may not write read-only, without an error; such a store could
        // not keep an edit, so it is refused here, before anything is read or written (the
        // exclusive lock below would otherwise fail as an I/O error that does not say why).
        if conn.is_readonly(rusqlite::MAIN_DB).map_err(check)? {
            return Err(io(path, format!("cannot write the world store ({DATABASE_FILE} is read-only)")));
        }
        // A store in use is refused at once, not after SQLite's default wait.
        conn.busy_timeout(std::time::Duration::ZERO).map_err(check)?;
        // Exclusive before the first read: SQLite then keeps the write-ahead log's index in
        // this process's memory and takes the database's exclusive lock with the first read,
        // without writing anything, and exclusive mode keeps it until the store is closed.
        conn.pragma_update(None, "locking_mode", "EXCLUSIVE").map_err(check)?;
        // Ours at all? Both are read from the header, before anything is written.
        let app: i32 = conn.query_row("PRAGMA application_id", [], |r| r.get(0)).map_err(check)?;
        if app != APPLICATION_ID {
            return Err(StoreError::NotAStore {
                path: path.into(),
                reason: format!("{DATABASE_FILE} is an SQLite database of another application"),
            });
        }
        let version: u32 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).map_err(check)?;
        if version > FORMAT_VERSION {
            return Err(StoreError::NewerFormat { path: path.into(), found: version });
        }
        // Everything that can refuse the store reads only: a write transaction, even an empty
        // one, may rewrite a damaged file's header.
        integrity(&conn, path)?;
        check_schema(&conn, path)?;
        let meta = read_meta(&conn, path)?;
        Self::lock(conn, path, meta)
    }

    /// Creates a store directory at `path` (which must not hold anything) for `meta`. The store
    /// is built whole in a sibling directory and renamed into place, so a crash or a failure
    /// half-way leaves nothing at `path`.
    pub fn create(path: &Path, meta: &StoreMeta) -> Result<Self, StoreError> {
        if Self::exists_at(path)? {
            return Err(io(path, "a world store is already there"));
        }
        let name = path.file_name().map_or_else(|| "store".into(), |n| n.to_string_lossy().into_owned());
        let staging = path.with_file_name(format!(".{name}.creating-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&staging);
        let built = Self::build(&staging, meta);
        if let Err(e) = built {
            let _ = std::fs::remove_dir_all(&staging);
            return Err(match e {
                // Report the path the user gave, not the staging directory.
                StoreError::Io { reason, .. } => io(path, reason),
                StoreError::Full { .. } => StoreError::Full { path: path.into() },
                other => other,
            });
        }
        if path.is_dir() {
            std::fs::remove_dir(path).map_err(|e| io(path, e))?;
        }
        std::fs::rename(&staging, path).map_err(|e| {
            let _ = std::fs::remove_dir_all(&staging);
            io(path, format!("cannot create the world store ({e})"))
        })?;
        Self::open(path)
    }

    /// Writes a complete new store into `dir`, and closes it.
    fn build(dir: &Path, meta: &StoreMeta) -> Result<(), StoreError> {
        std::fs::create_dir_all(dir).map_err(|e| io(dir, format!("cannot create the world store ({e})")))?;
        let conn = Connection::open(dir.join(DATABASE_FILE)).map_err(|e| sql(dir, e))?;
        let tx = || -> rusqlite::Result<()> {
            conn.pragma_update(None, "journal_mode", "WAL")?;
            conn.pragma_update(None, "synchronous", "FULL")?;
            conn.execute_batch(&format!(
                "BEGIN IMMEDIATE;
                 PRAGMA application_id = {APPLICATION_ID};
                 PRAGMA user_version = {FORMAT_VERSION};
                 CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                 CREATE TABLE chunks (x INTEGER NOT NULL, y INTEGER NOT NULL, z INTEGER NOT NULL,
                                      data BLOB NOT NULL, PRIMARY KEY (x, y, z)) WITHOUT ROWID;"
            ))?;
            conn.execute("INSERT INTO meta VALUES ('source', ?1)", params![meta.source])?;
            conn.execute("INSERT INTO meta VALUES ('seed', ?1)", params![meta.seed.to_string()])?;
            conn.execute_batch("COMMIT")
        };
        tx().map_err(|e| sql(dir, e))?;
        conn.close().map_err(|(_, e)| sql(dir, e))
    }

    /// Keeps the store found sound in WAL mode, under the exclusive lock its first read took,
    /// and records this process as the holder. Writes nothing to the database.
    fn lock(conn: Connection, path: &Path, meta: StoreMeta) -> Result<Self, StoreError> {
        let check = |e| sql(path, e);
        let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0)).map_err(check)?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(io(
                path,
                format!("the world store cannot use a write-ahead log here (journal mode {mode})"),
            ));
        }
        conn.pragma_update(None, "synchronous", "FULL").map_err(check)?;
        // Last, so that no failure above leaves a holder file naming a process without the lock.
        let holder = format!(
            "process {} ({})",
            std::process::id(),
            std::env::args().next().unwrap_or_else(|| "voxgpu".into())
        );
        std::fs::write(path.join(HOLDER_FILE), holder).map_err(|e| io(path, e))?;
        Ok(Self { conn, path: path.to_path_buf(), meta })
    }

    /// The store's directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What the world is made from.
    pub fn meta(&self) -> &StoreMeta {
        &self.meta
    }

    /// SQLite's full integrity check; `Err(Corrupt)` names the first problem (on one line, with
    /// the count of the others).
    pub fn integrity_check(&self) -> Result<(), StoreError> {
        integrity(&self.conn, &self.path)
    }

    /// Writes `chunks` (each replacing the stored chunk at its position) in one transaction:
    /// all of them or, on any failure, none.
    pub fn commit<'a>(
        &mut self,
        chunks: impl IntoIterator<Item = (ChunkPos, &'a Chunk)>,
    ) -> Result<(), StoreError> {
        let path = self.path.clone();
        let tx = self.conn.transaction().map_err(|e| sql(&path, e))?;
        {
            let mut insert = tx
                .prepare_cached("INSERT OR REPLACE INTO chunks (x, y, z, data) VALUES (?1, ?2, ?3, ?4)")
                .map_err(|e| sql(&path, e))?;
            for (pos, chunk) in chunks {
                let IVec3 { x, y, z } = pos.0;
                insert.execute(params![x, y, z, encode_chunk(chunk)]).map_err(|e| sql(&path, e))?;
            }
        }
        tx.commit().map_err(|e| sql(&path, e))
    }

    /// Every stored chunk, compressed, as an overlay for the world's source, whose blocks
    /// `registry` names. A chunk that does not decode, or holds a block the registry does not
    /// have, is damage: `Err(Corrupt)`, and the store is left as it is.
    pub fn overlay(&self, registry: &BlockRegistry) -> Result<Overlay, StoreError> {
        let path = &self.path;
        let mut statement =
            self.conn.prepare("SELECT x, y, z, data FROM chunks").map_err(|e| sql(path, e))?;
        let rows = statement
            .query_map([], |r| {
                Ok((ChunkPos(IVec3::new(r.get(0)?, r.get(1)?, r.get(2)?)), r.get::<_, Vec<u8>>(3)?))
            })
            .map_err(|e| sql(path, e))?;
        let mut overlay = Overlay::default();
        for row in rows {
            let (pos, data) = row.map_err(|e| sql(path, e))?;
            // A row that does not decode, or names blocks the world does not have, is damage
            // the integrity check cannot see.
            let damaged = |reason| StoreError::Corrupt {
                path: path.clone(),
                reason: format!("chunk {:?}: {reason}", pos.0.to_array()),
            };
            let chunk = decode_chunk(&data).map_err(damaged)?;
            if let Some((at, id)) = codec::unknown_block(&chunk, registry) {
                return Err(damaged(format!(
                    "block id {} at {at:?}, which the world's {} blocks do not include",
                    id.0,
                    registry.len()
                )));
            }
            overlay.insert_encoded(pos, data);
        }
        Ok(overlay)
    }

    /// Stored chunks.
    pub fn len(&self) -> Result<usize, StoreError> {
        let n: i64 = self
            .conn
            .query_row("SELECT count(*) FROM chunks", [], |r| r.get(0))
            .map_err(|e| sql(&self.path, e))?;
        Ok(n as usize)
    }

    /// Whether no chunk is stored.
    pub fn is_empty(&self) -> Result<bool, StoreError> {
        Ok(self.len()? == 0)
    }

    /// Caps the database at `pages` pages (4 KiB each), as a full disk would: for tests of the
    /// full-disk path.
    #[doc(hidden)]
    pub fn limit_pages(&self, pages: u32) -> Result<(), StoreError> {
        self.conn.pragma_update(None, "max_page_count", pages).map_err(|e| sql(&self.path, e))
    }
}

/// SQLite's full integrity check of `conn` (the store at `path`). Reads only.
fn integrity(conn: &Connection, path: &Path) -> Result<(), StoreError> {
    let result: String =
        conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).map_err(|e| sql(path, e))?;
    if result != "ok" {
        // SQLite lists the problems one per line, under a `*** in database main ***` heading.
        let problems: Vec<&str> =
            result.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with("***")).collect();
        let reason = match problems.as_slice() {
            [] => one_line(&result),
            [one] => one_line(one),
            [first, rest @ ..] => format!("{}, and {} more problems", one_line(first), rest.len()),
        };
        return Err(StoreError::Corrupt { path: path.into(), reason });
    }
    Ok(())
}

/// The world's source and seed, from `meta`; `Err(Corrupt)` where either is missing. Reads only.
fn read_meta(conn: &Connection, path: &Path) -> Result<StoreMeta, StoreError> {
    let meta_value = |key: &str| -> rusqlite::Result<Option<String>> {
        conn.query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0)).optional()
    };
    let source = meta_value("source").map_err(|e| sql(path, e))?;
    let seed = meta_value("seed").map_err(|e| sql(path, e))?.and_then(|s| s.parse().ok());
    let (Some(source), Some(seed)) = (source, seed) else {
        return Err(StoreError::Corrupt {
            path: path.into(),
            reason: "no world source or seed recorded".into(),
        });
    };
    Ok(StoreMeta { source, seed })
}

/// The columns of the store's two tables, as `build` creates them: (name, declared type).
const SCHEMA: [(&str, &[(&str, &str)]); 2] = [
    ("meta", &[("key", "TEXT"), ("value", "TEXT")]),
    ("chunks", &[("x", "INTEGER"), ("y", "INTEGER"), ("z", "INTEGER"), ("data", "BLOB")]),
];

/// Refuses (`Corrupt`) a database whose `meta` or `chunks` table is missing or has other
/// columns than the store's. Reads only.
fn check_schema(conn: &Connection, path: &Path) -> Result<(), StoreError> {
    let check = |e| sql(path, e);
    let mut statement =
        conn.prepare("SELECT name, type FROM pragma_table_info(?1) ORDER BY cid").map_err(check)?;
    for (table, expected) in SCHEMA {
        let columns: Vec<(String, String)> = statement
            .query_map([table], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(check)?
            .collect::<Result<_, _>>()
            .map_err(check)?;
        let matches = columns.len() == expected.len()
            && columns
                .iter()
                .zip(expected)
                .all(|((n, t), (en, et))| n.eq_ignore_ascii_case(en) && t.eq_ignore_ascii_case(et));
        if !matches {
            let spell = |columns: Vec<String>| columns.join(", ");
            let reason = if columns.is_empty() {
                format!("no table {table}")
            } else {
                let found = spell(columns.iter().map(|(n, t)| format!("{n} {t}")).collect());
                let want = spell(expected.iter().map(|(n, t)| format!("{n} {t}")).collect());
                format!("table {table} has columns ({found}), not ({want})")
            };
            return Err(StoreError::Corrupt { path: path.into(), reason });
        }
    }
    Ok(())
}

impl Drop for Store {
    fn drop(&mut self) {
        // The lock goes with the connection; the holder file would name a process without it.
        let _ = std::fs::remove_file(self.path.join(HOLDER_FILE));
    }
}

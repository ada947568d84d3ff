//! One set-up path for every front end: which world, built how far around the camera, in a
//! renderer with which options, filled whole or streamed. The viewer, `render`, `profile` and
//! `stats` open a [`Session`] from a [`WorldConfig`] and go on from there.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, RwLock};

use glam::{IVec3, Vec3};
use voxgpu_store::{Overlay, Store, StoreError, StoreMeta};

use voxgpu_core::camera::Camera;
use voxgpu_core::voxel::{BlockId, Chunk, ChunkPos, World};
use voxgpu_engine::{GpuContext, GpuError, Offscreen, RendererOptions};
use voxgpu_worlds::stream::{StreamSettings, Streamer, UpdateReport};
use voxgpu_worlds::worldgen::{self, TerrainColumns, WorldError, WorldParams, WorldSource};

pub use voxgpu_worlds::worldgen::MAX_FULL_DETAIL_VIEW;

/// Everything opening a session can fail with; each prints as one line.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// Building the world failed (unknown source, bad `.vox`, model too large).
    #[error(transparent)]
    World(#[from] WorldError),
    /// The GPU side failed (no adapter, bad frame size, device lost).
    #[error(transparent)]
    Gpu(#[from] GpuError),
    /// The world store could not be opened or written.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A configuration that does not make sense (a view distance the source cannot reach, a
    /// target equal to the camera).
    #[error("{0}")]
    Usage(String),
}

/// Which world, how far around the camera, and how much GPU memory it may take.
#[derive(Clone, Debug, PartialEq)]
pub struct WorldConfig {
    /// Where the blocks come from.
    pub source: WorldSource,
    /// Seed of the procedural terrain.
    pub seed: u64,
    /// Horizontal radius around the camera in 32-block chunks.
    pub view_distance: u32,
    /// GPU memory for the world's buffers, in MiB: past it the farthest nodes (for their size)
    /// are not loaded. Streamed worlds only.
    pub gpu_memory_budget_mib: u32,
    /// A world store to open (or create): its world replaces `source` and `seed`, its edited
    /// chunks overlay what the source generates, and edits are committed to it.
    pub store: Option<PathBuf>,
}

impl WorldConfig {
    /// Generation parameters centred on the block under `center`.
    pub fn params(&self, center: Vec3) -> WorldParams {
        WorldParams { seed: self.seed, center: center.floor().as_ivec3(), view_distance: self.view_distance }
    }

    /// Whether the world needs level-of-detail nodes (terrain beyond 8 chunks) rather than being
    /// generated whole at full detail.
    pub fn uses_nodes(&self) -> bool {
        self.source == WorldSource::Terrain && voxgpu_worlds::stream::plan::top_level(self.view_distance) > 0
    }

    /// Refuses a view distance the source cannot reach: every source but terrain is generated
    /// whole at full detail.
    pub fn check(&self) -> Result<(), SessionError> {
        if self.source != WorldSource::Terrain && self.view_distance > MAX_FULL_DETAIL_VIEW {
            return Err(SessionError::Usage(format!(
                "--view-distance {} chunks: only terrain streams level-of-detail nodes; --world {} is built whole, up to {MAX_FULL_DETAIL_VIEW} chunks",
                self.view_distance, self.source
            )));
        }
        Ok(())
    }

    /// Opens the world store this configuration names, where one exists, and takes its world
    /// (source and seed) in place of the flags'. `None` without a store, or where none exists
    /// yet: [`SessionPlan::with_store`] creates it once the world has been built. A front end
    /// that needs the store's world before it plans (the viewer, to choose its view distance)
    /// calls this and hands the store on, so the store is opened, and its integrity checked,
    /// once.
    pub fn open_store(&mut self) -> Result<Option<Store>, SessionError> {
        match &self.store {
            Some(path) if Store::exists_at(path)? => {
                let store = Store::open(path)?;
                self.source = store.meta().source.parse()?;
                self.seed = store.meta().seed;
                Ok(Some(store))
            }
            _ => Ok(None),
        }
    }

    /// The distance from the eye where haze reaches the sky: the radius the world is loaded
    /// within ([`voxgpu_worlds::worldgen::loaded_radius`]).
    pub fn fog_end(&self) -> f32 {
        voxgpu_worlds::worldgen::loaded_radius(self.view_distance)
    }

    /// The streamer of this world's terrain nodes for `renderer`: its level thresholds, and at
    /// most the nodes the memory budget and the adapter's voxel pool (with a tenth to spare for
    /// the estimate) allow.
    pub fn streamer(&self, renderer: &Offscreen, overlay: Arc<RwLock<Overlay>>) -> Streamer {
        let columns = TerrainColumns::new(self.seed);
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let settings = StreamSettings {
            lod: renderer.options().lod,
            max_nodes: Some(renderer.resident().node_budget(self.gpu_memory_budget_mib)),
            ..StreamSettings::new(self.view_distance)
        };
        let edit = move |xz, generated| overlay.read().expect("overlay lock").apply(xz, generated);
        Streamer::new(settings, threads, Arc::new(move |c| Ok(columns.node_column_with(c, &edit))))
    }
}

/// A session's world store and the edits on their way to it.
pub struct Persistence {
    store: Store,
    /// The stored chunks, shared with the streamer's workers, which overlay them on what they
    /// generate.
    overlay: Arc<RwLock<Overlay>>,
    /// Chunks edited since the last commit, as they were after their last edit, and the edits
    /// themselves (for the report).
    pending: BTreeMap<ChunkPos, Chunk>,
    edits: Vec<(IVec3, BlockId)>,
}

impl Persistence {
    /// The store.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Records that the block at `world` was set to `block` in `renderer`: its chunk, as the
    /// renderer holds it now (all air where it holds none), is committed with the next
    /// [`Self::commit`]. Taken now, so a chunk the streamer drops before the commit keeps it.
    pub fn edited(&mut self, renderer: &Offscreen, world: IVec3, block: BlockId) {
        let pos = ChunkPos::from_block(world).0;
        let chunk = renderer.resident().chunk(pos).map_or_else(Chunk::empty, |c| (**c).clone());
        self.pending.insert(pos, chunk);
        self.edits.push((world, block));
    }

    /// Commits every chunk edited since the last call in one transaction, and returns the edits
    /// it made durable. On failure the edits stay pending, for the next call to try again.
    pub fn commit(&mut self) -> Result<Vec<(IVec3, BlockId)>, StoreError> {
        if self.pending.is_empty() {
            return Ok(Vec::new());
        }
        self.store.commit(self.pending.iter().map(|(p, c)| (*p, c)))?;
        let mut overlay = self.overlay.write().expect("overlay lock");
        for (pos, chunk) in std::mem::take(&mut self.pending) {
            overlay.insert_encoded(pos, voxgpu_store::encode_chunk(&chunk));
        }
        Ok(std::mem::take(&mut self.edits))
    }
}

/// Whether chunk `pos` lies in the columns a world built with `params` covers.
fn chunk_within(pos: ChunkPos, params: &WorldParams) -> bool {
    let centre = ChunkPos::from_block(params.center).0.0;
    let r = params.view_distance as i32;
    (pos.0.x - centre.x).abs() <= r && (pos.0.z - centre.z).abs() <= r
}

/// How a session's terrain gets resident.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Residency {
    /// Terrain streams around the camera at any view distance (the viewer).
    StreamTerrain,
    /// Only worlds that need level-of-detail nodes stream; every other world is generated whole
    /// and inserted at once, so a headless picture is exactly the full-detail world.
    WholeWhereExact,
}

/// A world in a renderer, seen by a camera.
pub struct Session {
    /// The world's configuration.
    pub config: WorldConfig,
    /// The renderer, with its own targets.
    pub renderer: Offscreen,
    /// Streams node columns around the camera, for streamed worlds.
    pub streamer: Option<Streamer>,
    /// The camera the session was opened at (or last moved to).
    pub camera: Camera,
    /// The world generated on the CPU: all of it for a world built whole, the ground under the
    /// camera (the chunks within one chunk) for a streamed one. Its registry names the blocks.
    pub world: World,
    /// The world store, when the session has one.
    pub persistence: Option<Persistence>,
    /// Whether `fill` still has to insert `world` (built whole, not yet resident).
    unfilled: bool,
}

/// A session's CPU half, before any GPU work: the world built and the view chosen, so that bad
/// input is refused before an adapter is opened.
pub struct SessionPlan {
    config: WorldConfig,
    world: World,
    /// The camera the session opens at.
    pub camera: Camera,
    streams: bool,
    store: Option<(Store, Arc<RwLock<Overlay>>)>,
}

impl SessionPlan {
    /// Builds the world around `eye` (where given) and chooses the view (`eye` and `target`
    /// where given, the world's default view otherwise).
    pub fn new(
        config: WorldConfig,
        residency: Residency,
        view: (Option<Vec3>, Option<Vec3>),
    ) -> Result<Self, SessionError> {
        let mut config = config;
        let store = config.open_store()?;
        Self::with_store(config, store, residency, view)
    }

    /// [`Self::new`] for a `config` whose store [`WorldConfig::open_store`] has opened already:
    /// `store` is what it returned.
    pub fn with_store(
        config: WorldConfig,
        store: Option<Store>,
        residency: Residency,
        view: (Option<Vec3>, Option<Vec3>),
    ) -> Result<Self, SessionError> {
        // An existing store has said which world it is. A new one is created only once the
        // world has been built, so a configuration that fails creates nothing.
        config.check()?;
        if let (Some(eye), Some(target)) = view
            && (target - eye).length_squared() < 1e-6
        {
            return Err(SessionError::Usage("--target must differ from --camera".into()));
        }
        let params = config.params(view.0.unwrap_or(Vec3::ZERO));
        let streams = config.source == WorldSource::Terrain
            && (residency == Residency::StreamTerrain || config.uses_nodes());
        // A streamed world needs only the ground under the default camera from here.
        let built = if streams { WorldParams { view_distance: 1, ..params } } else { params };
        let mut world = worldgen::generate(&config.source, &built)?;
        // The stored chunks are read against the world's own registry (a `.vox` world's is its
        // palette): a block id it does not have is damage, refused before anything is drawn.
        let mut store = match store {
            Some(store) => {
                let overlay = store.overlay(&world.registry)?;
                Some((store, Arc::new(RwLock::new(overlay))))
            }
            None => None,
        };
        // The stored edits replace what was generated, for the part generated here: all of a
        // bounded world, the columns built of an unbounded one.
        let unbounded = matches!(config.source, WorldSource::Terrain | WorldSource::Flat);
        if let Some((_, overlay)) = &store {
            let overlay = overlay.read().expect("overlay lock");
            for pos in overlay.positions() {
                if !unbounded || chunk_within(pos, &built) {
                    world.insert(pos, overlay.get(pos).expect("listed"));
                }
            }
        }
        let default = worldgen::default_view(&config.source, &world, &params);
        let (eye, target) = (view.0.unwrap_or(default.0), view.1.unwrap_or(default.1));
        if (target - eye).length_squared() < 1e-6 {
            return Err(SessionError::Usage("--target must differ from --camera".into()));
        }
        if let (None, Some(path)) = (&store, &config.store) {
            // A model's path is recorded absolute, so the store opens from anywhere.
            let source = match &config.source {
                WorldSource::Vox(model) => {
                    WorldSource::Vox(std::fs::canonicalize(model).unwrap_or(model.clone()))
                }
                other => other.clone(),
            };
            let created = Store::create(path, &StoreMeta { source: source.to_string(), seed: config.seed })?;
            store = Some((created, Arc::default()));
        }
        Ok(Self { config, world, camera: Camera::look_at(eye, target), streams, store })
    }

    /// The world's configuration, with the store's source and seed where it has a store.
    pub fn config(&self) -> &WorldConfig {
        &self.config
    }

    /// The world generated on the CPU, with the store's edits.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// Makes the renderer on `gpu` from `options`, called with the fog distance. Nothing is
    /// resident yet: [`Session::fill`] or [`Session::update`].
    pub fn open(
        self,
        gpu: &GpuContext,
        options: impl FnOnce(f32) -> RendererOptions,
    ) -> Result<Session, SessionError> {
        let Self { config, world, camera, streams, store } = self;
        let renderer = Offscreen::new(gpu, options(config.fog_end()), &world.registry)?;
        let overlay = store.as_ref().map_or_else(Default::default, |(_, o)| Arc::clone(o));
        let streamer = streams.then(|| config.streamer(&renderer, overlay));
        let persistence = store.map(|(store, overlay)| Persistence {
            store,
            overlay,
            pending: BTreeMap::new(),
            edits: Vec::new(),
        });
        Ok(Session { config, renderer, streamer, camera, world, persistence, unfilled: !streams })
    }
}

impl Session {
    /// [`SessionPlan::new`] then [`SessionPlan::open`].
    pub fn open(
        gpu: &GpuContext,
        config: WorldConfig,
        residency: Residency,
        view: (Option<Vec3>, Option<Vec3>),
        options: impl FnOnce(f32) -> RendererOptions,
    ) -> Result<Self, SessionError> {
        SessionPlan::new(config, residency, view)?.open(gpu, options)
    }

    /// Makes the world around the camera resident and waits until it is all in: every chunk of
    /// a world built whole, or the streamed columns (generated on the workers meanwhile).
    pub fn fill(&mut self) -> Result<(), SessionError> {
        self.insert_whole()?;
        if let Some(streamer) = self.streamer.as_mut() {
            streamer.settle(self.camera.eye, &mut self.renderer)?;
        }
        Ok(())
    }

    /// One streaming step at the camera, within the streamer's per-update budgets; a world built
    /// whole is inserted on the first call.
    pub fn update(&mut self) -> Result<UpdateReport, SessionError> {
        self.insert_whole()?;
        match self.streamer.as_mut() {
            Some(streamer) => Ok(streamer.update(self.camera.eye, &mut self.renderer)?),
            None => Ok(UpdateReport::default()),
        }
    }

    fn insert_whole(&mut self) -> Result<(), SessionError> {
        if std::mem::take(&mut self.unfilled) {
            for (pos, chunk) in self.world.chunks() {
                self.renderer.insert_chunk(pos, Arc::clone(chunk))?;
            }
        }
        Ok(())
    }
}

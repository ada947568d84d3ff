//! Errors of the GPU layer. Each message is one line, ready for the CLI to print.

/// What can go wrong between choosing an adapter and reading a frame back.
#[derive(Clone, Debug, thiserror::Error)]
pub enum GpuError {
    /// No adapter matched the backends allowed by `WGPU_BACKEND` (or none exists at all).
    #[error(
        "no GPU adapter found (backends: {backends}); install mesa-vulkan-drivers for lavapipe or check WGPU_BACKEND"
    )]
    NoAdapter { backends: String },
    /// `WGPU_ADAPTER_NAME` was set but no adapter's name contains it.
    #[error("no adapter name contains WGPU_ADAPTER_NAME={wanted:?}; available: {available}")]
    AdapterNameNotFound { wanted: String, available: String },
    /// The adapter lacks an ability the renderer needs (vertex storage, indirect draws, compute).
    #[error("{adapter} cannot run voxgpu: missing {missing}")]
    Unsupported { adapter: String, missing: String },
    /// The adapter refused to create a device with the features and limits we asked for.
    #[error("could not create a device on {adapter}: {reason}")]
    RequestDevice { adapter: String, reason: String },
    /// The render target size is zero or beyond the adapter's texture limit.
    #[error("image size {width}x{height} is out of range: each side must be 1..={max}")]
    TargetSize { width: u32, height: u32, max: u32 },
    /// The mega quad buffer cannot grow to hold every resident quad.
    #[error(
        "mega quad buffer full: {needed} bytes needed, the adapter allows at most {limit} in one binding"
    )]
    QuadBufferFull { needed: u64, limit: u64 },
    /// The chunk pool cannot grow to hold another chunk on this adapter.
    #[error("chunk pool full: {slots} chunks needed, the adapter allows at most {limit} in one binding")]
    ChunkPoolFull { slots: u64, limit: u64 },
    /// The adapter (or the device as created) has no timestamp queries, which GPU timing needs.
    #[error("{adapter} has no timestamp queries (TIMESTAMP_QUERY); GPU timing is unavailable")]
    NoTimestamps { adapter: String },
    /// wgpu-profiler refused a frame or a setting (a scope left open, for instance).
    #[error("GPU profiler: {0}")]
    Profiler(String),
    /// `settle` rendered its frame limit and the mesher still had work.
    #[error("the world did not finish meshing within {frames} frames")]
    Unsettled { frames: u32 },
    /// `Renderer::record` was called without a `prepare` before it.
    #[error("a frame was recorded without prepare() before it")]
    NotPrepared,
    /// Mapping the readback buffer failed, usually because the device was lost.
    #[error("reading the frame back failed: {0}")]
    Readback(String),
    /// A window surface could not be created or configured.
    #[error("window surface: {0}")]
    Surface(String),
    /// The device was lost; nothing more can be rendered with it.
    #[error("GPU device lost: {0}")]
    DeviceLost(String),
}

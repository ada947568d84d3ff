//! A round trip through the world store on every world source, without a GPU: a world is
//! edited, its edited chunks committed to a new store, and the store reopened through the
//! session's set-up path gives back exactly the edited world, every chunk equal.

use std::collections::BTreeSet;

use glam::{IVec3, Vec3};
use voxgpu::session::{Residency, SessionPlan, WorldConfig};
use voxgpu_core::voxel::{BlockId, ChunkPos, World};
use voxgpu_store::{Store, StoreMeta};
use voxgpu_worlds::worldgen::WorldSource;

fn sources() -> Vec<WorldSource> {
    vec![
        WorldSource::Terrain,
        WorldSource::Flat,
        WorldSource::Checker,
        WorldSource::GlassChecker,
        WorldSource::Sphere,
        WorldSource::Vox(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/sample.vox").into()),
    ]
}

fn config(source: &WorldSource, store: Option<std::path::PathBuf>) -> WorldConfig {
    WorldConfig { source: source.clone(), seed: 5, view_distance: 2, gpu_memory_budget_mib: 2048, store }
}

fn plan_world(config: WorldConfig) -> World {
    let plan = SessionPlan::new(config, Residency::WholeWhereExact, (Some(Vec3::new(1.0, 1.0, 1.0)), None))
        .expect("the world builds");
    let mut world = World::new(plan.world().registry.clone());
    for (pos, chunk) in plan.world().chunks() {
        world.insert(pos, (**chunk).clone());
    }
    world
}

#[test]
fn every_source_round_trips_through_the_store() {
    for source in sources() {
        let name = source.to_string().replace(['/', ':'], "_");
        let path = std::env::temp_dir().join(format!("voxgpu-store-sources-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        let mut world = plan_world(config(&source, None));
        // Dig a tunnel through the middle of the world, and build a pillar of brick beside it.
        let solid: Vec<IVec3> = world
            .chunks()
            .flat_map(|(pos, chunk)| {
                let origin = pos.origin();
                chunk.voxels().iter().enumerate().filter(|(_, b)| !b.is_air()).map(move |(i, _)| {
                    origin + IVec3::new(i as i32 % 32, i as i32 / 32 % 32, i as i32 / 1024)
                })
            })
            .take(4000)
            .collect();
        let mut edited = BTreeSet::new();
        for (n, &at) in solid.iter().enumerate().step_by(7) {
            let block = if n % 3 == 0 { voxgpu_core::voxel::blocks::BRICK } else { BlockId::AIR };
            world.set_block(at, block);
            edited.insert(ChunkPos::from_block(at).0);
        }
        assert!(!edited.is_empty(), "{source}: nothing to edit");
        {
            let meta = StoreMeta { source: source.to_string(), seed: 5 };
            let (mut store, created) = Store::open_or_create(&path, &meta).expect("created");
            assert!(created);
            let air = voxgpu_core::voxel::Chunk::empty();
            let chunks: Vec<(ChunkPos, &voxgpu_core::voxel::Chunk)> =
                edited.iter().map(|&p| (p, world.chunk(p).map_or(&air, |c| &**c))).collect();
            store.commit(chunks).expect("committed");
        }
        // Reopened with other flags: the store's world and its edits come back.
        let reopened = plan_world(WorldConfig {
            source: WorldSource::Flat,
            seed: 99,
            ..config(&source, Some(path.clone()))
        });
        let positions = |w: &World| w.chunks().map(|(p, _)| p).collect::<BTreeSet<_>>();
        assert_eq!(positions(&reopened), positions(&world), "{source}: the same chunks");
        for (pos, chunk) in world.chunks() {
            assert_eq!(
                reopened.chunk(pos).expect("present").voxels(),
                chunk.voxels(),
                "{source}: chunk {pos:?}"
            );
        }
        let _ = std::fs::remove_dir_all(&path);
    }
}

/// A front end that needs the store's world before planning (the viewer) opens the store once
/// with `WorldConfig::open_store` and hands it to the plan. The store stays held (exclusively)
/// from that open to the session, so a second open on the way would be refused as in use.
#[test]
fn a_store_opened_before_planning_is_not_opened_again() {
    let path = std::env::temp_dir().join(format!("voxgpu-store-sources-{}-once", std::process::id()));
    let _ = std::fs::remove_dir_all(&path);
    let mut edited = voxgpu_core::voxel::Chunk::empty();
    edited.set(1, 2, 3, voxgpu_core::voxel::blocks::BRICK);
    let at = ChunkPos(IVec3::new(0, 0, 0));
    {
        let meta = StoreMeta { source: WorldSource::Sphere.to_string(), seed: 8 };
        let (mut store, _) = Store::open_or_create(&path, &meta).expect("created");
        store.commit([(at, &edited)]).expect("committed");
    }
    let mut flags = config(&WorldSource::Flat, Some(path.clone()));
    let store = flags.open_store().expect("opens").expect("exists");
    assert_eq!((&flags.source, flags.seed), (&WorldSource::Sphere, 8), "the store's world");
    assert!(
        matches!(Store::open(&path), Err(voxgpu_store::StoreError::InUse { .. })),
        "held from the first open on"
    );
    let plan =
        SessionPlan::with_store(flags, Some(store), Residency::WholeWhereExact, (Some(Vec3::ONE), None))
            .expect("planned with the store already open");
    assert_eq!(plan.world().chunk(at).expect("the edit").voxels(), edited.voxels());
    drop(plan);
    let _ = std::fs::remove_dir_all(&path);
}

/// A stored chunk with a block id the world's registry lacks (here past a `.vox` world's 256
/// palette blocks) is refused through the session's set-up, as damage, and left as it is.
#[test]
fn a_stored_block_the_world_lacks_is_refused_through_the_session() {
    let path = std::env::temp_dir().join(format!("voxgpu-store-sources-{}-unknown", std::process::id()));
    let _ = std::fs::remove_dir_all(&path);
    let model = WorldSource::Vox(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/sample.vox").into());
    let mut bad = voxgpu_core::voxel::Chunk::empty();
    bad.set(0, 0, 0, BlockId(256));
    {
        let meta = StoreMeta { source: model.to_string(), seed: 0 };
        let (mut store, _) = Store::open_or_create(&path, &meta).expect("created");
        store.commit([(ChunkPos(IVec3::ZERO), &bad)]).expect("committed");
    }
    let database = path.join(voxgpu_store::DATABASE_FILE);
    let before = std::fs::read(&database).expect("read");
    let err = SessionPlan::new(
        config(&WorldSource::Flat, Some(path.clone())),
        Residency::WholeWhereExact,
        (None, None),
    )
    .err()
    .expect("refused");
    let line = err.to_string();
    assert!(
        matches!(err, voxgpu::session::SessionError::Store(voxgpu_store::StoreError::Corrupt { .. })),
        "{line}"
    );
    assert!(line.contains("block id 256") && line.contains("damaged") && !line.contains('\n'), "{line}");
    assert_eq!(std::fs::read(&database).expect("read"), before, "left as it was");
    let _ = std::fs::remove_dir_all(&path);
}

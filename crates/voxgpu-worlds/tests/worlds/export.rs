//! `.vox` export round trips: a box of a world written out and read back through the importer
//! holds the same blocks in the same places with the same colours and transparency, for a box
//! that fits one model and for one that needs several 256³ tiles.

use glam::IVec3;
use voxgpu_core::voxel::{Opacity, World};
use voxgpu_worlds::worldgen::{WorldParams, WorldSource, export_vox, generate};

/// The non-air bounds of `world` in `[min, max)`.
fn bounds(world: &World, min: IVec3, max: IVec3) -> (IVec3, IVec3) {
    let (mut lo, mut hi) = (IVec3::splat(i32::MAX), IVec3::splat(i32::MIN));
    for z in min.z..max.z {
        for y in min.y..max.y {
            for x in min.x..max.x {
                let p = IVec3::new(x, y, z);
                if !world.block(p).is_air() {
                    lo = lo.min(p);
                    hi = hi.max(p + 1);
                }
            }
        }
    }
    (lo, hi)
}

/// Exports `[min, max)` of `world`, reads it back, and compares every voxel: air where air,
/// and otherwise the same colour and opacity (alpha too for transparent blocks).
fn round_trip(name: &str, world: &World, min: IVec3, max: IVec3) -> usize {
    let path = std::env::temp_dir().join(format!("voxgpu-export-{}-{name}.vox", std::process::id()));
    let exported = export_vox(world, min, max, &path).expect("exports");
    let back = generate(
        &WorldSource::Vox(path.clone()),
        &WorldParams { seed: 0, center: IVec3::ZERO, view_distance: 8 },
    )
    .expect("the export reads back");
    let _ = std::fs::remove_file(&path);
    // The importer puts the solid voxels' corner at the origin: align by the solid bounds.
    let (lo, hi) = bounds(world, min, max);
    let (back_lo, back_hi) = bounds(&back, IVec3::ZERO, max - min);
    assert_eq!(back_hi - back_lo, hi - lo, "{name}: the solid extent");
    let shift = back_lo - lo;
    let mut solid = 0;
    for z in lo.z..hi.z {
        for y in lo.y..hi.y {
            for x in lo.x..hi.x {
                let p = IVec3::new(x, y, z);
                let (a, b) = (world.block(p), back.block(p + shift));
                assert_eq!(a.is_air(), b.is_air(), "{name}: {p} air against {}", p + shift);
                if a.is_air() {
                    continue;
                }
                solid += 1;
                let (ia, ib) = (world.registry.get(a).expect("known"), back.registry.get(b).expect("known"));
                assert_eq!(ia.opacity, ib.opacity, "{name}: {p} opacity");
                let alpha = |i: &voxgpu_core::voxel::BlockInfo| {
                    if i.opacity == Opacity::Transparent { i.color[3] } else { 255 }
                };
                assert_eq!(ia.color[..3], ib.color[..3], "{name}: {p} colour");
                assert_eq!(alpha(ia), alpha(ib), "{name}: {p} alpha");
            }
        }
    }
    assert_eq!(solid, exported.voxels, "{name}: every exported voxel read back");
    solid
}

#[test]
fn terrain_with_water_round_trips_through_one_model() {
    let world =
        generate(&WorldSource::Terrain, &WorldParams { seed: 3, center: IVec3::ZERO, view_distance: 2 })
            .expect("terrain");
    let (min, max) = (IVec3::new(-40, 0, -40), IVec3::new(40, 96, 40));
    let transparent = (min.x..max.x)
        .flat_map(|x| (min.z..max.z).flat_map(move |z| (0..96).map(move |y| IVec3::new(x, y, z))))
        .filter(|&p| world.registry.get(world.block(p)).is_some_and(|i| i.opacity == Opacity::Transparent))
        .count();
    assert!(transparent > 100, "the box needs water to test transparency: {transparent}");
    assert!(round_trip("terrain", &world, min, max) > 100_000);
}

#[test]
fn a_box_wider_than_a_model_round_trips_through_tiles() {
    let world =
        generate(&WorldSource::Terrain, &WorldParams { seed: 8, center: IVec3::ZERO, view_distance: 5 })
            .expect("terrain");
    // 300 blocks along x: two tiles, the second 44 wide; odd sizes on every axis.
    round_trip("tiles", &world, IVec3::new(-150, 20, -17), IVec3::new(150, 61, 14));
}

#[test]
fn empty_and_oversized_boxes_are_errors() {
    let world =
        generate(&WorldSource::Sphere, &WorldParams { seed: 0, center: IVec3::ZERO, view_distance: 1 })
            .expect("sphere");
    let path = std::env::temp_dir().join("voxgpu-export-never.vox");
    let empty =
        export_vox(&world, IVec3::splat(5000), IVec3::splat(5010), &path).err().expect("nothing solid");
    assert!(empty.to_string().contains("holds no blocks"), "{empty}");
    let huge = export_vox(&world, IVec3::ZERO, IVec3::new(2000, 10, 10), &path).err().expect("too wide");
    assert!(huge.to_string().contains("each side must be"), "{huge}");
    assert!(!path.exists());
}

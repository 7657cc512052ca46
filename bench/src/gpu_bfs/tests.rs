//! The device benchmark's reports and charts, checked on the host.

/// Every chart of the device benchmark renders from a report (they only ever run
/// on the GPU machine, where a failure would cost device time).
#[test]
fn bench_charts_render_from_a_report() {
    use super::{BenchConfig, BenchReport, CpuSummary, RunSummary};
    use crate::host::HostInfo;
    use runtime::gpu::{BfsCombine, BfsKernel, DeviceInfo};
    let run = |scale: u32, kernel: BfsKernel, mec: u64| RunSummary {
        scale,
        kernel,
        combine: BfsCombine::Store,
        max_edge_count: mec,
        levels_per_sync: 1,
        roots: 4,
        gteps_hmean: 1.0 + scale as f64,
        time_ms_median: 1.0,
        time_ms_mean: 1.0,
        time_ms_min: 1.0,
        time_ms_max: 1.0,
        wall_ms_median: 1.0,
        sv_build_ms_mean: 0.1,
        check_end_ms_mean: 0.1,
        init_ms_mean: 0.0,
        num_levels_mean: 5.0,
        edges_traversed_mean: 1e6,
        bottom_up_levels_mean: 2.0,
        per_level_ms_median_root: vec![0.1, 0.5, 0.0, 0.2],
        bottom_up_median_root: vec![false, true, true, false],
        effective_gbs: 100.0,
        oracle_checked_roots: 1,
    };
    let config = BenchConfig {
        scales: vec![16, 17],
        sweep_scale: 17,
        ..BenchConfig::default()
    };
    let mut scaling = Vec::new();
    for s in [16, 17] {
        for k in [BfsKernel::Balanced, BfsKernel::Naive, BfsKernel::Direction] {
            scaling.push(run(s, k, 16));
        }
    }
    let report = BenchReport {
        config,
        device: DeviceInfo {
            ordinal: 0,
            name: "test".into(),
            compute_capability: (9, 0),
            multiprocessors: 132,
            total_memory: 1 << 30,
            driver_version: 13000,
        },
        host: HostInfo::read(),
        command_line: "test".into(),
        graphs: Vec::new(),
        scaling,
        ratios: vec![(16, 60.0)],
        direction_ratios: vec![(16, 2.0)],
        direction_sweep: vec![
            run(17, BfsKernel::Direction, 8),
            run(17, BfsKernel::Direction, 32),
        ],
        cpu: vec![CpuSummary {
            scale: 16,
            roots: 2,
            sequential_ms_median: 10.0,
            sequential_gteps_hmean: 0.1,
            parallel_ms_median: None,
            parallel_gteps_hmean: None,
            threads: 2,
        }],
        copy_bandwidth_gbs: 3000.0,
        sweep: vec![
            run(17, BfsKernel::Balanced, 8),
            run(17, BfsKernel::Balanced, 64),
        ],
        levels_per_sync: Vec::new(),
        combine: Vec::new(),
    };
    let dir = std::env::temp_dir().join(format!("vertex-gpu-charts-{}", std::process::id()));
    let files = super::write_report(&report, &dir).unwrap();
    assert_eq!(files.len(), 5, "{files:?}");
    for f in &files {
        assert!(std::fs::metadata(f).unwrap().len() > 100, "{}", f.display());
    }
    std::fs::remove_dir_all(&dir).ok();
}

//! What exists only in the PTX build: this crate's own kernels and the panic
//! handler (a bounds-check failure traps, which the host sees as a launch error).

#[cfg(feature = "builtin-kernels")]
mod builtin {
    crate::ptx_kernels!(crate::bfs::Bfs => bfs_init, bfs_naive_level, bfs_balanced_level);
    crate::ptx_kernels!(crate::bfs::BfsAtomicMin => bfs_min_init, bfs_min_naive_level, bfs_min_balanced_level);
    crate::sv_kernel!(vertex_build_sv);
    crate::tree_check_kernel!(vertex_check_bfs_tree);
    crate::peer_gather_kernel!(vertex_peer_gather);
    crate::cc_kernels!();
    crate::msbfs_kernels!();
    crate::tc_kernel!(vertex_tc_count);
    crate::plan_kernel!(vertex_plan_level, vertex_plan_pass);
    crate::stamped_queue_kernel!(vertex_stamped_queue);
    crate::direction_kernels!(crate::bfs::Bfs => bfs_td_chunks, bfs_td_select, bfs_td_relax, bfs_bottom_up, bfs_td_scan, bfs_level);
}

#[cfg(feature = "panic-handler")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    // SAFETY: `trap` aborts the kernel; no state is left half-updated that the host
    // would read (it reports the launch as failed).
    unsafe { core::arch::nvptx::trap() }
}

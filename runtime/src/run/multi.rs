//! Several GPUs of one machine through the one run call ([`Plan::gpus`] > 1):
//! push programs run the direction kernel on a 1-D partition of the vertices,
//! gather programs their rounds on the same partition, both through
//! [`MultiGpu`] as `vertex --gpus N` runs them.
//!
//! The GPUs, their NCCL communicator, each program's kernels and the graphs'
//! parts last uploaded are kept between calls, as one GPU's are
//! ([`super::device_cache`]): a caller running several programs, or one from
//! several sources, on one graph opens and uploads once.
//!
//! Asking for several GPUs is a request for them: `auto` does not fall back to
//! the CPU, and GPUs that cannot be opened are the run's error.

use super::device_cache::{self, Slot};
use super::{gpu_kernels, refuse, Backend, Plan, Report, Runnable};
use crate::error::{Error, Result};
use crate::gpu::multi::MultiGpu;

/// Refuses multi-GPU settings that cannot take effect, whatever the program:
/// an exchange route without several GPUs, several GPUs on the CPU.
pub(crate) fn check(plan: &Plan) -> Result<()> {
    if let Some(r) = plan.exchange {
        refuse(
            &format!("exchange {}", r.name()),
            plan.gpus <= 1,
            "it picks how several GPUs exchange: set gpus to 2 or more",
        )?;
    }
    refuse(
        &format!("gpus {}", plan.gpus),
        plan.gpus > 1 && plan.backend == Backend::Cpu,
        "several GPUs need backend `gpu` or `auto`, and the backend is `cpu`",
    )
}

/// Refuses several GPUs for a run that has no multi-GPU engine (`what`
/// names it: "intersection programs", "batched runs", ...).
pub(crate) fn one_gpu(plan: &Plan, what: &str) -> Result<()> {
    refuse(
        &format!("gpus {}", plan.gpus),
        plan.gpus > 1,
        &format!("{what} run on one GPU or the CPU, not on several GPUs"),
    )
}

/// Whether `P` runs on several GPUs, and if so why (the report's
/// `backend_reason`); `None`: one GPU or the CPU, as [`super::place`] decides
/// (and checks the plan's multi-GPU settings, [`check`]). Refuses CPU
/// settings and a program without GPU kernels before any GPU is opened.
pub(crate) fn placed<P: Runnable>(plan: &Plan) -> Result<Option<String>> {
    if plan.gpus <= 1 {
        return Ok(None);
    }
    check(plan)?;
    refuse(
        "schedule / threads",
        plan.schedule.is_some() || plan.threads.is_some(),
        &format!("CPU settings, and the run is on {} GPUs", plan.gpus),
    )?;
    refuse(
        &format!("device {}", plan.device),
        plan.device != 0,
        &format!("gpus {} runs on GPUs 0..{0}, not from another", plan.gpus),
    )?;
    gpu_kernels::<P>()?;
    Ok(Some(match plan.backend {
        Backend::Auto => format!("auto: {} GPUs asked for", plan.gpus),
        _ => format!("asked for {} GPUs", plan.gpus),
    }))
}

/// Runs `f` on GPUs `0..plan.gpus` ([`MultiGpu::open`]), kept between calls
/// with their kernels and uploads ([`device_cache::with_multi`]), on the
/// plan's exchange route (`None`: the route they opened with). Errors name the
/// option that asked.
pub(crate) fn with<R>(plan: &Plan, f: impl FnOnce(&mut Slot<MultiGpu>) -> Result<R>) -> Result<R> {
    let n = plan.gpus;
    let open = || {
        MultiGpu::open(n).map_err(|e| match e {
            Error::GpuUnavailable(why) => Error::GpuUnavailable(format!("gpus {n}: {why}")),
            e => e,
        })
    };
    device_cache::with_multi(n, open, |slot, default| {
        let route = plan.exchange.unwrap_or(default);
        slot.device_mut()
            .set_route(route)
            .map_err(|e| Error::InvalidArgument(format!("exchange {}: {e}", route.name())))?;
        f(slot)
    })
}

/// Fills in what ran on `m`: backend, device ("2 x NVIDIA H200") and the
/// strategy (`what`, the partition and the exchange route).
pub(crate) fn describe(m: &MultiGpu, what: &str, report: &mut Report) {
    let names: Vec<&str> = m.devices.iter().map(|d| d.info().name.as_str()).collect();
    report.backend = Backend::Gpu;
    report.device = Some(devices_named(&names));
    report.strategy = strategy(what, names.len(), m.route().describe());
}

/// The report's device: "N x NAME" when the GPUs are alike, else their names.
fn devices_named(names: &[&str]) -> String {
    match names {
        [first, rest @ ..] if rest.iter().all(|n| n == first) => {
            format!("{} x {first}", names.len())
        }
        _ => names.join(" + "),
    }
}

/// The report's strategy of a run over `gpus` GPUs.
fn strategy(what: &str, gpus: usize, route: &str) -> String {
    format!("{what} (1-D partition over {gpus} GPUs, exchange: {route})")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::multi::Route;

    fn plan(backend: Backend, gpus: usize, exchange: Option<Route>) -> Plan {
        Plan {
            backend,
            gpus,
            exchange,
            ..Plan::default()
        }
    }

    fn message(r: Result<impl std::fmt::Debug>) -> String {
        r.expect_err("refused").to_string()
    }

    #[test]
    fn several_gpus_on_the_cpu_are_refused() {
        let e = message(check(&plan(Backend::Cpu, 2, None)));
        assert!(e.starts_with("gpus 2:") && e.contains("backend"), "{e}");
        for b in [Backend::Gpu, Backend::Auto] {
            check(&plan(b, 2, None)).unwrap();
        }
    }

    #[test]
    fn an_exchange_without_several_gpus_is_refused() {
        for gpus in [0, 1] {
            let e = message(check(&plan(Backend::Gpu, gpus, Some(Route::Nccl))));
            assert!(e.starts_with("exchange nccl:") && e.contains("gpus"), "{e}");
        }
        check(&plan(Backend::Gpu, 2, Some(Route::Peer))).unwrap();
    }

    #[test]
    fn zero_and_one_gpu_are_one_device() {
        for gpus in [0, 1] {
            one_gpu(&plan(Backend::Gpu, gpus, None), "batched runs").unwrap();
        }
        let e = message(one_gpu(&plan(Backend::Auto, 3, None), "batched runs"));
        assert!(
            e.starts_with("gpus 3:") && e.contains("batched runs"),
            "{e}"
        );
    }

    /// A program whose crate built no GPU kernels.
    #[derive(Clone, Copy)]
    struct NoKernels;
    impl Runnable for NoKernels {
        type Weight = u32;
        type Output = ();
        const NAME: &'static str = "no_kernels";
        const KIND: super::super::Kind = super::super::Kind::Push;
        const NEEDS_SOURCE: bool = false;
        const WEIGHTED: bool = false;
        fn has_gpu_kernels() -> bool {
            false
        }
        fn go(_: &crate::graph::Graph<u32>, _: &Plan) -> Result<super::super::Outcome<()>> {
            Err(Error::InvalidArgument("not run in these tests".into()))
        }
    }

    #[test]
    fn several_gpus_are_a_request_checked_before_opening_them() {
        assert!(placed::<NoKernels>(&plan(Backend::Gpu, 1, None))
            .unwrap()
            .is_none());
        for b in [Backend::Gpu, Backend::Auto] {
            let e = placed::<NoKernels>(&plan(b, 2, None)).unwrap_err();
            assert!(matches!(e, Error::GpuUnavailable(_)), "{e}");
            let threads = Plan {
                threads: Some(4),
                ..plan(b, 2, None)
            };
            let e = message(placed::<NoKernels>(&threads));
            assert!(e.contains("threads") && e.contains("2 GPUs"), "{e}");
            let device = Plan {
                device: 1,
                ..plan(b, 2, None)
            };
            let e = message(placed::<NoKernels>(&device));
            assert!(e.starts_with("device 1:") && e.contains("gpus 2"), "{e}");
        }
    }

    #[test]
    fn exchange_names_parse_and_unknown_ones_name_the_choices() {
        for (name, r) in Route::NAMES {
            assert_eq!(Route::from_name(name).unwrap(), r);
            assert_eq!(r.name(), name);
        }
        let e = message(Route::from_name("foo"));
        assert!(
            e.contains("exchange `foo`") && e.contains("`peer` or `nccl`"),
            "{e}"
        );
    }

    #[test]
    fn the_report_names_the_gpus_and_the_route() {
        assert_eq!(devices_named(&["H200", "H200"]), "2 x H200");
        assert_eq!(devices_named(&["A", "B"]), "A + B");
        let s = strategy("direction", 2, Route::Peer.describe());
        assert!(
            s.contains("direction") && s.contains("2 GPUs") && s.contains("NVLink"),
            "{s}"
        );
    }
}

//! Which CUDA device each part of a one-process multi-GPU run opens.
//!
//! By default part `p` runs on device `p`. `VERTEX_MULTI_DEVICES` (a comma
//! list, e.g. `0,0`) names them instead, and may name one device for several
//! parts: then the run's whole multi-GPU code — partition, per-part kernels,
//! the peer exchange and its barrier — runs on a machine with one GPU, which is
//! how it is checked (against the oracles, under compute-sanitizer) when no
//! machine with several is at hand. Parts that share a device say nothing about
//! scaling: they split one GPU's multiprocessors and memory bandwidth.
//!
//! Parts on one device exchange over the peer route only: NCCL takes one rank
//! per GPU (`ncclCommInitAll` refuses a device listed twice), and the device-side
//! barrier would spin on one part's launch while the part it waits for cannot
//! be scheduled.

use super::peer::{Barrier, Route};
use super::MultiGpu;
use crate::error::{Error, Result};

/// The variable that names each part's device.
pub const VAR: &str = "VERTEX_MULTI_DEVICES";

/// The devices of a run over `gpus` parts, from [`VAR`] when it is set.
pub(super) fn device_ordinals(gpus: usize) -> Result<Vec<usize>> {
    parse(std::env::var(VAR).ok().as_deref(), gpus)
}

/// The devices of `gpus` parts: the first `gpus` of `list` (so one list serves
/// a run over fewer parts too, as the bench's one-GPU baseline), or `0..gpus`
/// when there is no list.
fn parse(list: Option<&str>, gpus: usize) -> Result<Vec<usize>> {
    let list = match list.map(str::trim) {
        None | Some("") => return Ok((0..gpus).collect()),
        Some(l) => l,
    };
    let ordinals = list
        .split(',')
        .map(|s| {
            s.trim().parse::<usize>().map_err(|_| {
                Error::InvalidArgument(format!(
                    "{VAR}={list}: `{}` is not a device number (expected e.g. `0,0` or `0,1,2,3`)",
                    s.trim()
                ))
            })
        })
        .collect::<Result<Vec<_>>>()?;
    if ordinals.len() < gpus {
        return Err(Error::InvalidArgument(format!(
            "{VAR}={list} names {} devices, and the run asks for {gpus} GPUs",
            ordinals.len()
        )));
    }
    Ok(ordinals[..gpus].to_vec())
}

/// Whether some device holds more than one part.
pub(super) fn shared(ordinals: &[usize]) -> bool {
    ordinals
        .iter()
        .enumerate()
        .any(|(i, d)| ordinals[..i].contains(d))
}

/// Refuses what parts on one device cannot do: an exchange over NCCL, the
/// device-side barrier, or no peer access between the devices named.
pub(super) fn check_shared(shared: bool, route: Route, barrier: Barrier, peer: bool) -> Result<()> {
    let why = match (route, barrier, peer) {
        _ if !shared => return Ok(()),
        (_, _, false) => "some pair of the devices named has no peer access, so the exchange would need NCCL",
        (Route::Nccl, _, _) => "the exchange `nccl` was asked for, and NCCL takes one rank per GPU",
        (_, Barrier::Device, _) => {
            "the peer barrier `device` was asked for, whose spinning launches would wait for parts that cannot be scheduled beside them"
        }
        _ => return Ok(()),
    };
    Err(Error::InvalidArgument(format!(
        "{VAR} puts several parts on one GPU: {why}"
    )))
}

impl MultiGpu {
    /// Whether some GPU holds several parts ([`VAR`]): the run checks the
    /// multi-GPU code, and its times say nothing about scaling.
    pub fn shares_gpus(&self) -> bool {
        self.comms.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_a_list_part_p_runs_on_device_p() {
        assert_eq!(parse(None, 3).unwrap(), vec![0, 1, 2]);
        assert_eq!(parse(Some(" "), 2).unwrap(), vec![0, 1]);
        assert!(!shared(&[0, 1, 2]));
    }

    #[test]
    fn a_list_names_each_part_s_device_and_may_repeat_one() {
        assert_eq!(parse(Some("0,0"), 2).unwrap(), vec![0, 0]);
        assert_eq!(parse(Some("0, 0,0,0"), 1).unwrap(), vec![0]);
        assert_eq!(parse(Some("3,1"), 2).unwrap(), vec![3, 1]);
        assert!(shared(&[0, 0]));
        assert!(shared(&[1, 2, 1]));
        assert!(!shared(&[3, 1]));
    }

    #[test]
    fn shared_devices_refuse_nccl_and_the_device_barrier() {
        check_shared(true, Route::Peer, Barrier::Events, true).unwrap();
        for (route, barrier, peer, says) in [
            (Route::Nccl, Barrier::Events, true, "`nccl`"),
            (Route::Peer, Barrier::Device, true, "`device`"),
            (Route::Peer, Barrier::Events, false, "no peer access"),
        ] {
            let e = check_shared(true, route, barrier, peer)
                .unwrap_err()
                .to_string();
            assert!(e.starts_with(VAR) && e.contains(says), "{e}");
            check_shared(false, route, barrier, peer).unwrap();
        }
    }

    #[test]
    fn bad_lists_name_the_variable_and_the_problem() {
        let e = parse(Some("0,x"), 2).unwrap_err().to_string();
        assert!(e.contains(VAR) && e.contains("`x`"), "{e}");
        let e = parse(Some("0,0"), 3).unwrap_err().to_string();
        assert!(
            e.contains(VAR) && e.contains("2 devices") && e.contains("3 GPUs"),
            "{e}"
        );
        let e = parse(Some("0,-1"), 2).unwrap_err().to_string();
        assert!(e.contains("`-1`"), "{e}");
    }
}

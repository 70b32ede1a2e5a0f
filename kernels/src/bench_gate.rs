//! Not a reduction: the **gate** that the benchmarks put in front of a timed launch.
//!
//! A timed run is `record(start); launch(kernel); record(stop)`. If the stream is idle, the GPU
//! passes `start` the moment it is queued, and then waits for the host to finish submitting the
//! launch, so the event window holds the host's launch latency too (several µs in a virtual
//! machine). NVIDIA's nvbench hides it with a *blocking kernel*, and so does this crate: the host
//! queues this one-thread kernel first, then `start`, the work and `stop`, and only then sets a
//! flag in pinned host memory. The gate spins until it sees the flag, so by the time `start`
//! passes, the whole run is already queued and the window holds GPU time only.
//!
//! The gate gives up after `timeout_ns` and says so in `timed_out`, so a host that dies or
//! takes too long to queue a run cannot hang the GPU; the host then reports the run as invalid.

use crate::gpu::{global_timer_ns, thread_idx, Coherent};

/// The gate's PTX entry name (`bench_gate` in [`crate::exports`]), which the host launches: not
/// a row of [`crate::table`] (not a reduction), so spelled here, beside its code.
pub const SYMBOL: &str = "bench_gate";

/// Spin until `flags[0] != 0` (written by the host) or `timeout_ns` has passed; on a timeout set
/// `flags[1] = 1`. Launch with one thread. The flags are [`Coherent`]: the host writes them while
/// the kernel runs, so every load reads memory again (never the read-only path or a cached line).
pub fn wait(flags: Coherent<u32>, timeout_ns: u64) {
    if thread_idx() != 0 {
        return;
    }
    let start = global_timer_ns();
    while flags.get(0) == 0 {
        if global_timer_ns().wrapping_sub(start) > timeout_ns {
            flags.set(1, 1);
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::wait;
    use crate::emu::{launch, LaunchConfig};
    use crate::gpu::Coherent;

    fn run_gate(flag: &mut [u32; 2], timeout_ns: u64, threads: usize) {
        let p = flag.as_mut_ptr() as usize;
        let cfg = LaunchConfig {
            grid_dim: 1,
            block_dim: threads,
            shared_bytes: 0,
        };
        launch(cfg, &|| {
            // SAFETY: `flag` holds two u32 and outlives the launch, which only the gate accesses.
            let flags = unsafe { Coherent::from_raw(p as *mut u32, 2) };
            wait(flags, timeout_ns)
        })
        .unwrap();
    }

    #[test]
    fn an_open_gate_lets_the_stream_go_on_at_once() {
        let mut flag = [1, 0];
        let t = std::time::Instant::now();
        run_gate(&mut flag, 10_000_000_000, 32);
        assert_eq!(flag, [1, 0], "no timeout reported");
        assert!(t.elapsed() < std::time::Duration::from_secs(5));
    }

    #[test]
    fn a_closed_gate_gives_up_after_the_timeout_and_says_so() {
        let mut flag = [0, 0];
        let t = std::time::Instant::now();
        run_gate(&mut flag, 2_000_000, 1);
        assert_eq!(flag, [0, 1], "the timeout is reported in flag[1]");
        assert!(t.elapsed() >= std::time::Duration::from_millis(2));
    }
}

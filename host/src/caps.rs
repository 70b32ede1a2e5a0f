//! [`DeviceCaps`]: what the planners know about a device, read from the driver's attributes, and
//! the published attributes of common GPUs ([`DeviceCaps::preset`]) for planning without one.
//!
//! Every policy sizes its launches from these numbers, never from the GPU the defaults were
//! measured on (an H200):
//!
//! | attribute | used by |
//! |---|---|
//! | `sm_count` | every grid: `sm_count × blocks per SM` |
//! | `max_threads_per_sm` | stage 8, the ladder and arg: blocks per SM = threads per SM / block; axis and exact: their tuned blocks per SM capped or scaled by it ([`DeviceCaps::scaled_blocks_per_sm`]) |
//! | registers, shared memory per SM | transform: the driver's occupancy calculator counts them for the loaded kernel |
//! | `shared_per_block_optin` | a launch asking for more dynamic shared memory than this is refused before the driver sees it |
//! | `total_mem` | inputs that do not fit are [`crate::ReduceError::TooLarge`] |
//! | `l2_bytes`, memory bus and clock | reported ([`DeviceCaps::peak_bandwidth`], the roofline of the benchmarks); no policy measured a dependence on them |

/// What the planner needs to know about the device.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct DeviceCaps {
    /// Marketing name (`NVIDIA H200`) or `CPU emulator`.
    pub name: String,
    /// Streaming multiprocessors.
    pub sm_count: usize,
    /// Resident threads per SM.
    pub max_threads_per_sm: usize,
    /// Resident blocks per SM.
    pub max_blocks_per_sm: usize,
    /// 32-bit registers per SM.
    pub registers_per_sm: usize,
    /// Shared memory per SM, bytes.
    pub shared_per_sm: usize,
    /// Dynamic shared memory one block may use after opting in, bytes.
    pub shared_per_block_optin: usize,
    /// L2 cache, bytes.
    pub l2_bytes: usize,
    /// Memory bus width, bits.
    pub memory_bus_bits: usize,
    /// Peak memory clock, kHz.
    pub memory_clock_khz: usize,
    /// Device memory in bytes.
    pub total_mem: u64,
    /// Compute capability (major, minor); (0, 0) for the emulator.
    pub compute_capability: (u32, u32),
}

/// Resident threads per SM of the GPU the tuned blocks-per-SM values were measured on (H200).
pub const REFERENCE_THREADS_PER_SM: usize = 2048;

/// The GPUs [`DeviceCaps::preset`] knows, by the name it takes.
pub const PRESETS: [&str; 5] = ["t4", "rtx4090", "a100", "h200", "b200"];

impl DeviceCaps {
    /// `tuned` blocks of `block` threads per SM, measured on a GPU of 2,048 resident threads per
    /// SM (the H200), for this device (at least 1):
    /// * a policy that fits on the reference SM at once (`tuned · block` ≤ 2,048: as many blocks
    ///   as registers or loads in flight allow) keeps `tuned`, capped at what this device's SM
    ///   holds (`max_threads_per_sm / block`: a T4 holds four 256-thread blocks, not six);
    /// * a policy of several waves (more blocks than the reference SM holds, to balance the
    ///   tail) keeps its number of waves: `tuned` scaled by this device's resident threads.
    ///
    /// On 2,048-thread SMs (A100, H100, H200, B200) it is `tuned` itself.
    pub fn scaled_blocks_per_sm(&self, tuned: usize, block: usize) -> usize {
        let fits = (self.max_threads_per_sm / block.max(1)).max(1);
        if tuned * block <= REFERENCE_THREADS_PER_SM {
            tuned.min(fits).max(1)
        } else {
            (tuned * self.max_threads_per_sm / REFERENCE_THREADS_PER_SM).max(1)
        }
    }

    /// Peak DRAM bandwidth in bytes per second from the bus width and memory clock (double data
    /// rate): the roofline a bandwidth-bound reduction is measured against. 0 when unknown.
    pub fn peak_bandwidth(&self) -> f64 {
        2.0 * self.memory_clock_khz as f64 * 1e3 * (self.memory_bus_bits / 8) as f64
    }

    /// A GPU's attributes as its public specification (NVIDIA's data sheets and the CUDA
    /// programming guide's per-architecture limits) gives them, by name (one of [`PRESETS`]):
    /// for planning, testing and the emulator without the GPU. `None` for another name.
    pub fn preset(name: &str) -> Option<DeviceCaps> {
        // (name, cc, SMs, threads/SM, blocks/SM, shared/SM KiB, opt-in KiB, L2 MiB, bus bits,
        //  memory clock MHz, memory GiB)
        let spec = match name {
            "t4" => ("Tesla T4", (7, 5), 40, 1024, 16, 64, 64, 4, 256, 5001, 15),
            "rtx4090" => (
                "GeForce RTX 4090",
                (8, 9),
                128,
                1536,
                24,
                100,
                99,
                72,
                384,
                10501,
                24,
            ),
            "a100" => (
                "A100-SXM4-80GB",
                (8, 0),
                108,
                2048,
                32,
                164,
                163,
                40,
                5120,
                1593,
                80,
            ),
            "h200" => ("H200", (9, 0), 132, 2048, 32, 228, 227, 50, 6144, 3125, 140),
            "b200" => (
                "B200",
                (10, 0),
                148,
                2048,
                32,
                228,
                227,
                126,
                8192,
                3906,
                179,
            ),
            _ => return None,
        };
        let (name, cc, sms, threads, blocks, smem, optin, l2, bus, clock, mem) = spec;
        Some(DeviceCaps {
            name: format!("{name} (published specification)"),
            sm_count: sms,
            max_threads_per_sm: threads,
            max_blocks_per_sm: blocks,
            registers_per_sm: 65536,
            shared_per_sm: smem << 10,
            shared_per_block_optin: optin << 10,
            l2_bytes: l2 << 20,
            memory_bus_bits: bus,
            memory_clock_khz: clock * 1000,
            total_mem: (mem as u64) << 30,
            compute_capability: cc,
        })
    }

    /// The CPU emulator's pretend device: an H200's per-SM limits on 4 SMs, which keeps the
    /// grid-stride stages' grids (and run times) small.
    pub(crate) fn emulator() -> DeviceCaps {
        let mut caps = DeviceCaps::preset("h200").expect("a preset");
        caps.name = "CPU emulator".into();
        caps.sm_count = 4;
        caps.total_mem = 1 << 34;
        caps.compute_capability = (0, 0);
        caps
    }

    /// A pretend device of compute capability 9.0 with an H200's per-SM limits, for the
    /// planners' tests.
    #[cfg(test)]
    pub(crate) fn sm90(name: impl Into<String>, sm_count: usize, total_mem: u64) -> Self {
        let mut caps = DeviceCaps::preset("h200").expect("a preset");
        caps.name = name.into();
        caps.sm_count = sm_count;
        caps.total_mem = total_mem;
        caps
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_scale_the_tuned_blocks_by_resident_threads() {
        let h200 = DeviceCaps::preset("h200").unwrap();
        for tuned in [1, 2, 3, 6, 32] {
            assert_eq!(h200.scaled_blocks_per_sm(tuned, 256), tuned);
        }
        let t4 = DeviceCaps::preset("t4").unwrap();
        // Resident-limited: capped at the four 256-thread blocks a T4 SM holds; waves: halved.
        assert_eq!(t4.scaled_blocks_per_sm(3, 256), 3);
        assert_eq!(t4.scaled_blocks_per_sm(6, 256), 4);
        assert_eq!(t4.scaled_blocks_per_sm(32, 256), 16);
        assert_eq!(t4.scaled_blocks_per_sm(1, 1024), 1);
        let rtx = DeviceCaps::preset("rtx4090").unwrap();
        assert_eq!(rtx.scaled_blocks_per_sm(4, 512), 3);
        assert_eq!(rtx.scaled_blocks_per_sm(16, 256), 12);
        assert!(DeviceCaps::preset("v100").is_none());
        for p in PRESETS {
            let c = DeviceCaps::preset(p).unwrap();
            assert!(c.peak_bandwidth() > 300e9, "{p}: {}", c.peak_bandwidth());
        }
        // An H200: 6,144-bit HBM3e, 4.8 TB/s.
        assert!((h200.peak_bandwidth() / 1e12 - 4.8).abs() < 0.01);
    }
}

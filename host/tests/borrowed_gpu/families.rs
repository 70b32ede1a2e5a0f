//! Every family besides stage 8 on the caller's stream: argmax, the dot product, the exact sum,
//! the wide `i32` sum and a column reduction, queued with `enqueue_on_cudarc` on a cudarc
//! stream, then captured together in one CUDA graph (raw `enqueue_on`) and replayed on new
//! data: each time the blocking forms' bits on library buffers.

use super::{cudarc, driver, gpu, raw, same, upload};
use crate::common::data;
use cust::sys as cu;
use libtest_mimic::Failed;
use reduce_host::*;

const N: usize = 1_000_003;
const ROWS: usize = 1000;
const COLS: usize = 1000;

/// The five plans, each one reduction at a time.
struct Plans {
    arg: PreparedArg<f32>,
    dot: PreparedTransform<f32>,
    exact: PreparedExact<f32>,
    wide: PreparedWide<i32>,
    cols: PreparedAxis<f32>,
}

impl Plans {
    fn new(b: &Backend) -> Result<Self, Failed> {
        let none = LaunchOverrides::default();
        let policy = AxisPolicy::default();
        Ok(Plans {
            arg: PreparedArg::new(b, Op::ArgMax, N)?,
            dot: PreparedTransform::new(b, Op::Dot, N)?,
            exact: PreparedExact::new(b, N, none)?,
            wide: PreparedWide::new(b, N, none)?,
            cols: PreparedAxis::matrix(b, &policy, AxisKind::Cols, Op::Sum, ROWS, COLS)?,
        })
    }

    /// The results (read after the stream has run the launches) against the blocking forms on
    /// library buffers holding the same data.
    fn check(&self, b: &Backend, seed: u64, cols: Vec<f32>, what: &str) -> Result<(), Failed> {
        let (x, y, xi) = inputs(seed);
        let (bx, by) = (b.upload(&x)?, b.upload(&y)?);
        let mut r = Reducer::new(b);
        same(
            &format!("{what}: argmax"),
            self.arg.read(b)?,
            r.argmax(&bx)?,
        )?;
        same(
            &format!("{what}: dot"),
            self.dot.read(b)?[0].to_bits(),
            r.dot(&bx, &by)?.to_bits(),
        )?;
        same(
            &format!("{what}: sum_exact"),
            self.exact.read_result(b)?.to_bits(),
            r.sum_exact(&bx)?.to_bits(),
        )?;
        let wide: i64 = xi.iter().map(|&v| i64::from(v)).sum();
        same(&format!("{what}: i32 sum"), self.wide.read(b)?, wide)?;
        let want = b.download(&r.reduce_cols(Op::Sum, &bx, ROWS, COLS)?, COLS)?;
        let bits = |v: &[f32]| v.iter().map(|e| e.to_bits()).collect::<Vec<_>>();
        same(&format!("{what}: column sums"), bits(&cols), bits(&want))
    }
}

fn inputs(seed: u64) -> (Vec<f32>, Vec<f32>, Vec<i32>) {
    (
        data::<f32>(N, seed),
        data::<f32>(N, seed + 1),
        data::<i32>(N, seed + 2),
    )
}

pub fn every_family_on_a_cudarc_stream_and_in_a_graph() -> Result<(), Failed> {
    let b = gpu();
    let (_ctx, s) = cudarc()?;
    let e = |e: cudarc::driver::DriverError| format!("cudarc: {e:?}");
    let (dx, dy, di) = inputs(61);
    let (mut x, mut y, mut xi) = (upload(&s, &dx)?, upload(&s, &dy)?, upload(&s, &di)?);
    let mut out = s.alloc_zeros::<f32>(COLS).map_err(e)?;
    let plans = Plans::new(&b)?;
    plans.arg.enqueue_on_cudarc(&b, &s, &x)?;
    plans.dot.enqueue_on_cudarc(&b, &s, &x, Some(&y))?;
    plans.exact.enqueue_on_cudarc(&b, &s, &x)?;
    plans.wide.enqueue_on_cudarc(&b, &s, &xi)?;
    plans.cols.enqueue_on_cudarc(&b, &s, &x, None, &mut out)?;
    s.synchronize().map_err(e)?;
    plans.check(&b, 61, s.clone_dtoh(&out).map_err(e)?, "cudarc stream")?;

    // The same five launches captured in one graph, on raw views of the same memory.
    let st = s.cu_stream() as cu::CUstream;
    let (xp, yp, ip, op) = (raw(&x, &s), raw(&y, &s), raw(&xi, &s), raw(&out, &s));
    // SAFETY: the slices outlive every launch (dropped at the end, after the stream is
    // synchronized); between replays they are rewritten only after a synchronization, and
    // `out` is written only by the graph's column kernel.
    let (vx, vy, vi, vo) = unsafe {
        (
            b.borrow_raw::<f32>(xp, N)?,
            b.borrow_raw::<f32>(yp, N)?,
            b.borrow_raw::<i32>(ip, N)?,
            b.borrow_raw::<f32>(op, COLS)?,
        )
    };
    let queue_all = || -> Result<()> {
        // SAFETY: as above; `st` is a live stream of the primary context; one plan each, and
        // `vo` (its own allocation) overlaps no input.
        unsafe {
            plans.arg.enqueue_on(&b, st, vx)?;
            plans.dot.enqueue_on(&b, st, vx, Some(vy))?;
            plans.exact.enqueue_on(&b, st, vx)?;
            plans.wide.enqueue_on(&b, st, vi)?;
            plans.cols.enqueue_on(&b, st, vx, None, vo)
        }
    };
    let mut graph: cu::CUgraph = std::ptr::null_mut();
    let mut exec: cu::CUgraphExec = std::ptr::null_mut();
    use cu::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL as GLOBAL;
    // SAFETY: `st` is a live stream; capture, end, instantiate with out-pointers to locals.
    // Every plan resolved its kernels when it was made: nothing loads a module in the capture.
    unsafe {
        driver(cu::cuStreamBeginCapture_v2(st, GLOBAL), "begin capture")?;
        let queued = queue_all();
        driver(cu::cuStreamEndCapture(st, &mut graph), "end capture")?;
        queued?;
        driver(
            cu::cuGraphInstantiateWithFlags(&mut exec, graph, 0),
            "instantiate",
        )?;
    }
    for replay in 0..2u64 {
        let seed = 70 + 3 * replay;
        let (dx, dy, di) = inputs(seed);
        s.memcpy_htod(&dx, &mut x).map_err(e)?;
        s.memcpy_htod(&dy, &mut y).map_err(e)?;
        s.memcpy_htod(&di, &mut xi).map_err(e)?;
        // SAFETY: `exec` is the instantiated graph; `st` a live stream.
        driver(unsafe { cu::cuGraphLaunch(exec, st) }, "graph launch")?;
        s.synchronize().map_err(e)?;
        let cols = s.clone_dtoh(&out).map_err(e)?;
        plans.check(&b, seed, cols, &format!("graph replay {replay}"))?;
    }
    // SAFETY: the graph and its instance are not used after this.
    unsafe {
        driver(cu::cuGraphExecDestroy(exec), "destroy graph exec")?;
        driver(cu::cuGraphDestroy(graph), "destroy graph")?;
    }
    Ok(())
}

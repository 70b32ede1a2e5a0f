//! `reduce info`: the device, the form of the kernels it loaded, and the plan each stage would use.

use reduce_host::{Backend, ElemType, LaunchOverrides, Op, ReduceError, Stage};

pub fn run(backend: &Backend, n: usize, ty: ElemType) -> Result<bool, ReduceError> {
    println!(
        "{}",
        serde_json::to_string_pretty(backend.caps()).unwrap_or_default()
    );
    if let Some(gpu) = backend.gpu() {
        println!("kernels: {}", gpu.kernel_image().describe());
    }
    for s in Stage::ALL {
        if !s.types().contains(&ty) {
            continue;
        }
        let p = reduce_host::plan(
            s,
            ty,
            Op::Sum,
            n,
            LaunchOverrides::default(),
            backend.caps(),
        )?;
        let shape: Vec<String> = p
            .passes
            .iter()
            .map(|p| format!("{}x{}", p.grid, p.block))
            .collect();
        println!(
            "stage {} {:<40} {:<38} passes {}",
            s.number(),
            s.title(),
            p.kernel,
            shape.join(" -> ")
        );
    }
    Ok(true)
}

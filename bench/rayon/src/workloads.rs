//! The tempo_bench workloads written the idiomatic Rayon way: rayon::join for
//! binary fork/join (tree sum, fib, nqueens), par_iter for n-ary fan-out
//! (UTS, skynet) and for loops (Mandelbrot, reduce, saxpy, matmul). Every
//! result is checked on every iteration, as in the C++ suite.

use crate::harness::{quantile, Bench, Runner};
use crate::uts;
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

pub struct Config {
    pub threads: Vec<usize>,
    pub tree_nodes: Vec<usize>,
    pub tree_nodes_per_iter: usize,
    pub fib_n: u32,
    pub nqueens_n: u32,
    pub uts: Vec<String>,
    pub skynet_log10: u32,
    pub mandel_size: usize,
    pub mandel_iters: u32,
    pub reduce_n: usize,
    pub matmul_n: usize,
    pub saxpy_n: usize,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            threads: vec![1, 2, 4, 8, 16, 32],
            tree_nodes: vec![1000, 1_000_000],
            tree_nodes_per_iter: 2_000_000,
            fib_n: 27,
            nqueens_n: 12,
            uts: vec!["T1".into(), "T3".into()],
            skynet_log10: 6,
            mandel_size: 512,
            mandel_iters: 1000,
            reduce_n: 100_000_000,
            matmul_n: 512,
            saxpy_n: 1 << 20,
        }
    }
}

/// A pool of exactly k threads. UTS T3 is 1572 levels deep and every level
/// nests par_iter frames, which overflows Rayon's default 2 MiB worker stacks;
/// 64 MiB is address space only (untouched pages cost no memory).
fn pool(k: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new().num_threads(k).stack_size(64 << 20).build().expect("rayon thread pool")
}

/// Times `iters` runs of `f`, checking each result with `ok`.
fn timed<R>(iters: u64, mut f: impl FnMut() -> R, ok: impl Fn(&R) -> Result<(), String>) -> Result<f64, String> {
    let mut t = 0.0;
    for _ in 0..iters {
        let st = Instant::now();
        let r = std::hint::black_box(f());
        t += st.elapsed().as_secs_f64();
        ok(&r)?;
    }
    Ok(t)
}

fn eq<T: PartialEq + std::fmt::Debug>(what: &'static str, want: T) -> impl Fn(&T) -> Result<(), String> {
    move |got: &T| if *got == want { Ok(()) } else { Err(format!("wrong result: {} = {:?}, expected {:?}", what, got, want)) }
}

// ---------------------------------------------------------------- tree sum
pub struct Node {
    value: i64,
    left: *const Node,
    right: *const Node,
}
// The tree is immutable once built and outlives every benchmark.
unsafe impl Sync for Node {}
unsafe impl Send for Node {}

impl Node {
    fn l(&self) -> Option<&Node> {
        unsafe { self.left.as_ref() }
    }
    fn r(&self) -> Option<&Node> {
        unsafe { self.right.as_ref() }
    }
}

fn build(nodes: &mut Vec<Node>, lo: i64, hi: i64) -> *const Node {
    if lo >= hi {
        return std::ptr::null();
    }
    let mid = lo + (hi - lo) / 2;
    let at = nodes.len();
    nodes.push(Node { value: mid, left: std::ptr::null(), right: std::ptr::null() });
    let l = build(nodes, lo, mid);
    let r = build(nodes, mid + 1, hi);
    nodes[at].left = l;
    nodes[at].right = r;
    &nodes[at] as *const Node
}

/// Pre-order in one contiguous allocation (capacity reserved up front, so
/// the pointers stay valid); leaked, as it lives for the whole run.
fn tree(n: usize) -> &'static Node {
    static CACHE: OnceLock<Mutex<HashMap<usize, usize>>> = OnceLock::new();
    let mut m = CACHE.get_or_init(|| Mutex::new(HashMap::new())).lock().unwrap();
    let addr = *m.entry(n).or_insert_with(|| {
        let mut v: Vec<Node> = Vec::with_capacity(n);
        build(&mut v, 0, n as i64);
        let v: &'static mut Vec<Node> = Box::leak(Box::new(v));
        &v[0] as *const Node as usize
    });
    unsafe { &*(addr as *const Node) }
}

fn sum(n: &Node) -> i64 {
    match (n.l(), n.r()) {
        (Some(a), Some(b)) => {
            let (x, y) = rayon::join(|| sum(a), || sum(b));
            n.value + x + y
        }
        (Some(a), None) => n.value + sum(a),
        (None, Some(b)) => n.value + sum(b),
        (None, None) => n.value,
    }
}

// --------------------------------------------------------------------- fib
fn fib(n: u32) -> u64 {
    if n < 2 {
        return n as u64;
    }
    let (a, b) = rayon::join(|| fib(n - 1), || fib(n - 2));
    a + b
}

fn fib_value(n: u32) -> u64 {
    let (mut a, mut b) = (0u64, 1u64);
    for _ in 0..n {
        let c = a + b;
        a = b;
        b = c;
    }
    a
}

// ----------------------------------------------------------------- nqueens
const NQ_SOLUTIONS: [u64; 17] =
    [1, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596, 2279184, 14772512];

#[derive(Clone, Copy)]
struct Board {
    all: u32,
    cols: u32,
    ld: u32,
    rd: u32,
}

impl Board {
    fn free(&self) -> u32 {
        self.all & !(self.cols | self.ld | self.rd)
    }
    fn place(&self, bit: u32) -> Board {
        Board { all: self.all, cols: self.cols | bit, ld: ((self.ld | bit) << 1) & self.all, rd: (self.rd | bit) >> 1 }
    }
}

fn low_half(m: u32) -> u32 {
    let mut rest = m;
    for _ in 0..m.count_ones() / 2 {
        rest &= rest - 1;
    }
    m ^ rest
}

fn nq_branch(b: Board, cand: u32) -> u64 {
    if cand & (cand - 1) == 0 {
        return nq_solve(b.place(cand));
    }
    let lo = low_half(cand);
    let (x, y) = rayon::join(|| nq_branch(b, lo), || nq_branch(b, cand ^ lo));
    x + y
}

fn nq_solve(b: Board) -> u64 {
    if b.cols == b.all {
        return 1;
    }
    let c = b.free();
    if c == 0 {
        0
    } else {
        nq_branch(b, c)
    }
}

fn nq_placements(b: Board) -> u64 {
    if b.cols == b.all {
        return 0;
    }
    let mut m = b.free();
    let mut s = 0;
    while m != 0 {
        let bit = m & m.wrapping_neg();
        s += 1 + nq_placements(b.place(bit));
        m &= m - 1;
    }
    s
}

// --------------------------------------------------------------------- UTS
fn uts_visit(p: &uts::Params, n: &uts::Node) -> uts::Res {
    let k = uts::num_children(p, n);
    let own = uts::own(n, k);
    if k == 0 {
        return own;
    }
    (0..k).into_par_iter().map(|i| uts_visit(p, &uts::child(n, i))).reduce(uts::Res::default, |a, b| a + b) + own
}

/// A UTS benchmark's runner: `walk` on every iteration, checked against the
/// serial walk (run once per tree and checked against the published size).
fn uts_runner(
    prm: uts::Params,
    reference: &'static OnceLock<Result<uts::Res, String>>,
    what: &'static str,
    walk: impl Fn(&uts::Params) -> uts::Res + 'static,
) -> (Runner, f64) {
    let want = reference
        .get_or_init(|| {
            let r = uts::serial(&prm, &uts::root(&prm));
            uts::verify(&prm, &r).map(|_| r)
        })
        .clone();
    let nodes = want.as_ref().map(|r| r.nodes as f64).unwrap_or(1.0);
    let r: Runner = Box::new(move |iters| {
        let want = want.clone()?;
        timed(iters, || walk(std::hint::black_box(&prm)), |got: &uts::Res| {
            if *got == want {
                Ok(())
            } else {
                Err(format!("wrong result: uts {}{}: {}", prm.name, what, uts::describe(got)))
            }
        })
    });
    (r, nodes)
}

// ------------------------------------------------------------------ skynet
fn skynet(num: u64, size: u64) -> u64 {
    if size == 1 {
        return num;
    }
    let sub = size / 10;
    (0..10u64).into_par_iter().map(|i| skynet(num + i * sub, sub)).sum()
}

// -------------------------------------------------------------- mandelbrot
fn pixel(size: usize, iters: u32, i: usize) -> u16 {
    let x = (i % size) as f64;
    let y = (i / size) as f64;
    let cr = -2.0 + 3.0 * x / size as f64;
    let ci = -1.5 + 3.0 * y / size as f64;
    let (mut zr, mut zi) = (0.0f64, 0.0f64);
    let mut k = 0;
    while k < iters {
        let (zr2, zi2) = (zr * zr, zi * zi);
        if zr2 + zi2 > 4.0 {
            break;
        }
        zi = 2.0 * zr * zi + ci;
        zr = zr2 - zi2 + cr;
        k += 1;
    }
    k as u16
}

// ------------------------------------------------------------------ reduce
fn reduce_value(i: usize) -> f32 {
    let x = (i as u32).wrapping_mul(2654435761) ^ ((i as u64 >> 32) as u32);
    (x >> 16) as f32 / 65536.0
}

// ------------------------------------------------------------------ matmul
const ROW_BLOCK: usize = 16;

/// Rows [r0, r0 + c.len()/n) of A B into c; the same tiling and k order as
/// the C++ kernel, so results agree bit for bit.
fn mm_rows(a: &[f64], b: &[f64], n: usize, c: &mut [f64], r0: usize) {
    const KB: usize = 128;
    const JB: usize = 256;
    let rows = c.len() / n;
    c.fill(0.0);
    for jj in (0..n).step_by(JB) {
        let je = n.min(jj + JB);
        for kk in (0..n).step_by(KB) {
            let ke = n.min(kk + KB);
            for ii in 0..rows {
                let i = r0 + ii;
                let ci = &mut c[ii * n..ii * n + n];
                let ai = &a[i * n..i * n + n];
                for k in kk..ke {
                    let aik = ai[k];
                    let bk = &b[k * n..k * n + n];
                    for j in jj..je {
                        ci[j] += aik * bk[j];
                    }
                }
            }
        }
    }
}

fn swept(cfg: &Config, base: &str, counter: &'static str, f: impl Fn(usize) -> Box<dyn Fn() -> (Runner, f64)>) -> Vec<Bench> {
    cfg.threads
        .iter()
        .map(|&k| Bench { name: format!("{}/rayon/threads:{}/real_time", base, k), counter, make: f(k) })
        .collect()
}

/// All Rayon benchmarks, named like tempo_bench's (`<workload>/rayon/...`).
pub fn all(cfg: &Config) -> Result<Vec<Bench>, String> {
    let mut v = Vec::new();

    for &nodes in &cfg.tree_nodes {
        let reps = if nodes >= cfg.tree_nodes_per_iter { 1 } else { cfg.tree_nodes_per_iter / nodes };
        let base = format!("tree_sum/rayon/nodes:{}", nodes);
        for &k in &cfg.threads {
            v.push(Bench {
                name: format!("{}/threads:{}/real_time", base, k),
                counter: "ns_per_node",
                make: Box::new(move || {
                    let root = tree(nodes);
                    let want = (nodes as i64) * (nodes as i64 - 1) / 2 * reps as i64;
                    let p = pool(k);
                    let r: Runner = Box::new(move |iters| {
                        timed(
                            iters,
                            || p.install(|| (0..reps).map(|_| sum(std::hint::black_box(root))).sum::<i64>()),
                            eq("tree sum", want),
                        )
                    });
                    (r, (nodes * reps) as f64)
                }),
            });
        }
    }

    let n = cfg.fib_n;
    v.extend(swept(cfg, "fib", "ns_per_task", |k| {
        Box::new(move || {
            let p = pool(k);
            let r: Runner =
                Box::new(move |iters| timed(iters, || p.install(|| fib(std::hint::black_box(n))), eq("fib", fib_value(n))));
            (r, 2.0 * fib_value(n + 1) as f64 - 1.0)
        })
    }));

    let qn = cfg.nqueens_n;
    if qn > 16 {
        return Err("--nqueens_n must be in 1..16".into());
    }
    let start = Board { all: (1u32 << qn) - 1, cols: 0, ld: 0, rd: 0 };
    let placements = OnceLock::new();
    let placements: &'static OnceLock<u64> = Box::leak(Box::new(placements));
    v.extend(swept(cfg, "nqueens", "ns_per_task", |k| {
        Box::new(move || {
            let p = pool(k);
            let r: Runner = Box::new(move |iters| {
                timed(iters, || p.install(|| nq_solve(std::hint::black_box(start))), eq("nqueens solutions", NQ_SOLUTIONS[qn as usize]))
            });
            (r, *placements.get_or_init(|| nq_placements(start)) as f64)
        })
    }));

    for t in &cfg.uts {
        let prm = uts::params(t)?;
        let reference: &'static OnceLock<Result<uts::Res, String>> = Box::leak(Box::new(OnceLock::new()));
        // Rayon's speed-up is over this plain serial walk of the same Rust code
        // (as tempo's and oneTBB's are over tempo_bench's `uts_T3/serial`), not
        // over Rayon's own 1-thread pool, which pays for its par_iter frames.
        let sprm = prm.clone();
        v.push(Bench {
            name: format!("uts_{}/serial_rust/real_time", t),
            counter: "ns_per_node",
            make: Box::new(move || uts_runner(sprm.clone(), reference, " (serial)", |q| uts::serial(q, &uts::root(q)))),
        });
        v.extend(swept(cfg, &format!("uts_{}", t), "ns_per_node", |k| {
            let prm = prm.clone();
            Box::new(move || {
                let p = pool(k);
                uts_runner(prm.clone(), reference, "", move |q| p.install(|| uts_visit(q, &uts::root(q))))
            })
        }));
    }

    let sk = cfg.skynet_log10;
    let leaves = 10u64.pow(sk);
    v.extend(swept(cfg, "skynet", "ns_per_task", |k| {
        Box::new(move || {
            let p = pool(k);
            let r: Runner = Box::new(move |iters| {
                timed(iters, || p.install(|| skynet(0, std::hint::black_box(leaves))), eq("skynet sum", leaves * (leaves - 1) / 2))
            });
            let tasks: f64 = (0..=sk).map(|i| 10f64.powi(i as i32)).sum();
            (r, tasks)
        })
    }));

    let (ms, mi) = (cfg.mandel_size, cfg.mandel_iters.min(65535));
    let mref: &'static OnceLock<Vec<u16>> = Box::leak(Box::new(OnceLock::new()));
    v.extend(swept(cfg, "mandelbrot", "ns_per_pixel", |k| {
        Box::new(move || {
            let want = mref.get_or_init(|| (0..ms * ms).map(|i| pixel(ms, mi, i)).collect());
            let p = pool(k);
            let mut img = vec![0u16; ms * ms];
            let r: Runner = Box::new(move |iters| {
                let mut t = 0.0;
                for _ in 0..iters {
                    let st = Instant::now();
                    p.install(|| img.par_iter_mut().enumerate().for_each(|(i, px)| *px = pixel(ms, mi, i)));
                    t += st.elapsed().as_secs_f64();
                    if img != *want {
                        return Err("wrong result: mandelbrot image".into());
                    }
                    img.fill(0);
                }
                Ok(t)
            });
            (r, (ms * ms) as f64)
        })
    }));

    let rn = cfg.reduce_n;
    let rdata: &'static OnceLock<(Vec<f32>, f64)> = Box::leak(Box::new(OnceLock::new()));
    v.extend(swept(cfg, "reduce", "ns_per_elem", |k| {
        Box::new(move || {
            let (data, want) = rdata.get_or_init(|| {
                let mut d = vec![0f32; rn];
                pool(std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1))
                    .install(|| d.par_iter_mut().enumerate().for_each(|(i, x)| *x = reduce_value(i)));
                let s: f64 = d.iter().map(|&x| x as f64).sum();
                (d, s)
            });
            let p = pool(k);
            let r: Runner = Box::new(move |iters| {
                timed(iters, || p.install(|| data.par_iter().map(|&x| x as f64).sum::<f64>()), eq("float sum", *want))
            });
            (r, rn as f64)
        })
    }));

    let sn = cfg.saxpy_n;
    v.extend(swept(cfg, "saxpy", "ns_per_elem", |k| {
        Box::new(move || {
            let x: Vec<f32> = (0..sn).map(|i| (i % 1024) as f32 * 0.125).collect();
            let want: Vec<f32> = x.iter().map(|&x| 2.5f32 * x + 0.75f32).collect();
            let mut y = vec![0f32; sn];
            let p = pool(k);
            let r: Runner = Box::new(move |iters| {
                let mut t = 0.0;
                for _ in 0..iters {
                    let st = Instant::now();
                    p.install(|| y.par_iter_mut().zip(x.par_iter()).for_each(|(o, &xi)| *o = 2.5f32 * xi + 0.75f32));
                    t += st.elapsed().as_secs_f64();
                    if y != want {
                        return Err("wrong result: saxpy output".into());
                    }
                    y.fill(0.0);
                }
                Ok(t)
            });
            (r, sn as f64)
        })
    }));

    let mn = cfg.matmul_n;
    if mn == 0 || mn % ROW_BLOCK != 0 {
        return Err("--matmul_n must be a positive multiple of 16".into());
    }
    let mm: &'static OnceLock<(Vec<f64>, Vec<f64>, Vec<f64>)> = Box::leak(Box::new(OnceLock::new()));
    v.extend(swept(cfg, "matmul", "ns_per_row", |k| {
        Box::new(move || {
            let (a, b, want) = mm.get_or_init(|| {
                let mut a = vec![0f64; mn * mn];
                let mut b = vec![0f64; mn * mn];
                for i in 0..mn {
                    for j in 0..mn {
                        a[i * mn + j] = ((i + 2 * j) % 8) as f64 - 3.0;
                        b[i * mn + j] = ((3 * i + j) % 5) as f64 - 2.0;
                    }
                }
                let mut c = vec![0f64; mn * mn];
                mm_rows(&a, &b, mn, &mut c, 0);
                (a, b, c)
            });
            let mut c = vec![0f64; mn * mn];
            let p = pool(k);
            let r: Runner = Box::new(move |iters| {
                let mut t = 0.0;
                for _ in 0..iters {
                    let st = Instant::now();
                    p.install(|| {
                        c.par_chunks_mut(ROW_BLOCK * mn)
                            .enumerate()
                            .for_each(|(blk, chunk)| mm_rows(a, b, mn, chunk, blk * ROW_BLOCK))
                    });
                    t += st.elapsed().as_secs_f64();
                    if c != *want {
                        return Err("wrong result: matmul product".into());
                    }
                }
                Ok(t)
            });
            (r, mn as f64)
        })
    }));

    Ok(v)
}

// ------------------------------------------------------- UTS, paired rounds
/// --uts_paired=ROUNDS: each tree of --uts at the largest --threads, in rounds
/// of one serial walk and one Rayon run back to back (alternating which goes
/// first), as tempo_paired times tempo's UTS. The per-round speed-up cancels
/// the host's slow drifts, which moved the serial walk by 1.6x within one
/// device call. Returns the JSON report.
pub fn uts_paired(cfg: &Config, rounds: usize) -> Result<String, String> {
    let k = *cfg.threads.iter().max().ok_or("--threads is empty")?;
    let p = pool(k);
    let list = |v: &[f64]| v.iter().map(|x| format!("{:.3}", x)).collect::<Vec<_>>().join(", ");
    let mut cases = Vec::new();
    for t in &cfg.uts {
        let prm = uts::params(t)?;
        let want = uts::serial(&prm, &uts::root(&prm));
        uts::verify(&prm, &want)?;
        // One timed walk: (milliseconds, result).
        let clocked = |walk: &dyn Fn(&uts::Params) -> uts::Res| {
            let st = Instant::now();
            let r = std::hint::black_box(walk(std::hint::black_box(&prm)));
            (st.elapsed().as_secs_f64() * 1e3, r)
        };
        let serial_ms = || clocked(&|q| uts::serial(q, &uts::root(q)));
        let rayon_ms = || clocked(&|q| p.install(|| uts_visit(q, &uts::root(q))));
        let _ = (serial_ms(), rayon_ms()); // warm-up: pages, caches, the pool's threads
        let (mut ser, mut par, mut sp) = (Vec::new(), Vec::new(), Vec::new());
        for round in 0..rounds.max(1) {
            let (s, r) = if round % 2 == 0 {
                let s = serial_ms();
                (s, rayon_ms())
            } else {
                let r = rayon_ms();
                (serial_ms(), r)
            };
            if s.1 != want || r.1 != want {
                return Err(format!("wrong result: uts {} (round {})", prm.name, round));
            }
            ser.push(s.0);
            par.push(r.0);
            sp.push(s.0 / r.0);
        }
        let nodes = want.nodes as f64;
        cases.push(format!(
            "  {{\"name\": \"uts_{}\", \"nodes\": {}, \"speedup_median\": {:.3}, \"speedup_p10\": {:.3}, \"speedup_p90\": {:.3},\n   \
             \"ns_per_node_median\": {{\"rayon\": {:.3}, \"serial_rust\": {:.3}}},\n   \
             \"ms\": {{\"rayon\": [{}], \"serial_rust\": [{}]}}}}",
            t,
            want.nodes,
            quantile(&sp, 0.5),
            quantile(&sp, 0.1),
            quantile(&sp, 0.9),
            quantile(&par, 0.5) * 1e6 / nodes,
            quantile(&ser, 0.5) * 1e6 / nodes,
            list(&par),
            list(&ser)
        ));
    }
    Ok(format!(
        "{{\n \"what\": \"UTS in paired rounds: speedup_* = serial walk time / Rayon time of the same round (median, p10, p90)\",\n \
         \"threads\": {}, \"rounds\": {},\n \"cases\": [\n{}\n ]\n}}\n",
        k,
        rounds.max(1),
        cases.join(",\n")
    ))
}

//! rayon_bench: the Rayon baseline of tempo_bench. Same flags for sizes
//! (--threads, --tree_nodes, --fib_n, ...), a subset of Google Benchmark's
//! (--benchmark_filter, --benchmark_min_time, --benchmark_repetitions,
//! --benchmark_out, --benchmark_format=json, --benchmark_list_tests) and
//! --rss_sweep/--rss_out for peak memory per variant (one child per variant),
//! --uts_paired=ROUNDS for UTS against its serial walk in paired rounds.

mod harness;
mod uts;
mod workloads;

use std::process::exit;

fn parse<T: std::str::FromStr>(flag: &str, v: &str) -> T {
    v.parse().unwrap_or_else(|_| {
        eprintln!("rayon_bench: --{}: '{}' is not a valid number", flag, v);
        exit(2)
    })
}

fn list<T: std::str::FromStr>(flag: &str, v: &str) -> Vec<T> {
    v.split(',').filter(|s| !s.is_empty()).map(|s| parse(flag, s)).collect()
}

fn regex_escape(s: &str) -> String {
    let mut r = String::new();
    for c in s.chars() {
        if ".[]{}()\\*+?^$|".contains(c) {
            r.push('\\');
        }
        r.push(c);
    }
    r
}

/// Runs this binary with `args`; returns (exit status, peak RSS in KiB, stdout).
fn child(args: &[String], capture: bool) -> (i32, i64, String) {
    use std::process::{Command, Stdio};
    let exe = std::env::current_exe().expect("current_exe");
    let mut cmd = Command::new(exe);
    cmd.args(args).stdout(if capture { Stdio::piped() } else { Stdio::null() }).stderr(Stdio::null());
    let mut ch = cmd.spawn().expect("spawn child");
    let mut out = String::new();
    if let Some(mut so) = ch.stdout.take() {
        use std::io::Read;
        let _ = so.read_to_string(&mut out);
    }
    // wait4 instead of Child::wait: it also returns the child's rusage.
    let pid = ch.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
        if r == pid {
            break;
        }
        if std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            eprintln!("rayon_bench: wait4 failed");
            exit(2);
        }
    }
    let code = if libc::WIFEXITED(status) { libc::WEXITSTATUS(status) } else { 128 + libc::WTERMSIG(status) };
    (code, ru.ru_maxrss as i64, out)
}

fn rss_sweep(regex: &str, out: &str, passthrough: &[String]) -> i32 {
    let mut list_args = passthrough.to_vec();
    list_args.push("--benchmark_list_tests=true".into());
    list_args.push(format!("--benchmark_filter={}", regex));
    let (st, _, names) = child(&list_args, true);
    if st != 0 {
        eprintln!("rayon_bench: listing benchmarks failed");
        return 2;
    }
    let names: Vec<&str> = names.lines().filter(|l| !l.is_empty()).collect();
    if names.is_empty() {
        eprintln!("rayon_bench: no benchmark matches '{}'", regex);
        return 2;
    }
    let mut base = passthrough.to_vec();
    base.push("--benchmark_filter=^$".into());
    let (_, b, _) = child(&base, false);
    let mut rows = vec![format!("    {{\"name\": \"baseline\", \"maxrss_kib\": {}, \"status\": 0}}", b)];
    let mut failed = 0;
    for n in names {
        let mut a = passthrough.to_vec();
        a.push(format!("--benchmark_filter=^{}$", regex_escape(n)));
        let (st, kib, _) = child(&a, false);
        if st != 0 {
            failed += 1;
        }
        eprintln!("rss: {} peak {} KiB{}", n, kib, if st != 0 { " (FAILED)" } else { "" });
        rows.push(format!("    {{\"name\": \"{}\", \"maxrss_kib\": {}, \"status\": {}}}", n, kib, st));
    }
    let js = format!(
        "{{\n  \"context\": {{\"kind\": \"peak_rss\", \"host_name\": \"{}\", \"filter\": \"{}\", \"method\": \"one child process per benchmark, ru_maxrss from wait4\"}},\n  \"peak_rss\": [\n{}\n  ]\n}}\n",
        harness::host_name(),
        regex.replace('\\', "\\\\").replace('"', "\\\""),
        rows.join(",\n")
    );
    if out == "-" {
        print!("{}", js);
    } else if let Err(e) = std::fs::write(out, js) {
        eprintln!("rayon_bench: cannot write {}: {}", out, e);
        return 2;
    }
    if failed > 0 {
        1
    } else {
        0
    }
}

fn main() {
    let mut cfg = workloads::Config::default();
    let mut opt = harness::Options {
        min_time: 0.5,
        repetitions: 1,
        filter: String::new(),
        out: None,
        json_stdout: false,
        list: false,
        skip_after_seconds: 0.0,
    };
    let (mut rss_regex, mut rss_out) = (None::<String>, None::<String>);
    let mut uts_paired = None::<usize>;
    let mut passthrough = Vec::new(); // for RSS children: everything but filter/out/rss
    for a in std::env::args().skip(1) {
        let (k, v) = match a.strip_prefix("--").and_then(|s| s.split_once('=')) {
            Some(kv) => kv,
            None => {
                if a == "--help" || a == "-h" {
                    println!("rayon_bench: same size flags as tempo_bench (--threads, --tree_nodes, --tree_nodes_per_iter, --fib_n, --nqueens_n, --uts, --skynet_log10, --mandel_size, --mandel_iters, --reduce_n, --matmul_n, --saxpy_n, --skip_after_seconds), --benchmark_filter/min_time/repetitions/out/format/list_tests, --rss_sweep/--rss_out, --uts_paired=ROUNDS (UTS at the largest --threads against its serial walk in paired rounds; JSON on stdout)");
                    exit(0);
                }
                eprintln!("rayon_bench: unrecognized argument '{}'", a);
                exit(2);
            }
        };
        let keep = !matches!(k, "benchmark_filter" | "benchmark_out" | "benchmark_out_format" | "benchmark_format" | "benchmark_list_tests" | "rss_sweep" | "rss_out");
        if keep {
            passthrough.push(a.clone());
        }
        match k {
            "threads" => cfg.threads = list(k, v),
            "tree_nodes" => cfg.tree_nodes = list(k, v),
            "tree_nodes_per_iter" => cfg.tree_nodes_per_iter = parse(k, v),
            "fib_n" => cfg.fib_n = parse(k, v),
            "nqueens_n" => cfg.nqueens_n = parse(k, v),
            "uts" => cfg.uts = v.split(',').map(String::from).collect(),
            "skynet_log10" => cfg.skynet_log10 = parse(k, v),
            "mandel_size" => cfg.mandel_size = parse(k, v),
            "mandel_iters" => cfg.mandel_iters = parse(k, v),
            "reduce_n" => cfg.reduce_n = parse(k, v),
            "matmul_n" => cfg.matmul_n = parse(k, v),
            "saxpy_n" => cfg.saxpy_n = parse(k, v),
            "skip_after_seconds" => opt.skip_after_seconds = parse(k, v),
            "benchmark_filter" => opt.filter = v.to_string(),
            "benchmark_min_time" => opt.min_time = parse(k, v.trim_end_matches('s')),
            "benchmark_repetitions" => opt.repetitions = parse::<usize>(k, v).max(1),
            "benchmark_out" => opt.out = Some(v.to_string()),
            "benchmark_out_format" => {
                if v != "json" {
                    eprintln!("rayon_bench: only --benchmark_out_format=json is supported");
                    exit(2);
                }
            }
            "benchmark_format" => opt.json_stdout = v == "json",
            "benchmark_list_tests" => opt.list = v == "true" || v == "1",
            "rss_sweep" => rss_regex = Some(v.to_string()),
            "rss_out" => rss_out = Some(v.to_string()),
            "uts_paired" => uts_paired = Some(parse(k, v)),
            _ => {
                eprintln!("rayon_bench: unrecognized flag '--{}'", k);
                exit(2);
            }
        }
    }
    if cfg.threads.iter().any(|&t| t == 0) || cfg.tree_nodes.iter().any(|&n| n == 0) {
        eprintln!("rayon_bench: --threads and --tree_nodes must be positive");
        exit(2);
    }
    if let Some(re) = rss_regex {
        exit(rss_sweep(&re, rss_out.as_deref().unwrap_or("-"), &passthrough));
    }
    if let Some(rounds) = uts_paired {
        match workloads::uts_paired(&cfg, rounds) {
            Ok(js) => {
                print!("{}", js);
                exit(0)
            }
            Err(e) => {
                eprintln!("rayon_bench: {}", e);
                exit(1)
            }
        }
    }
    let benches = workloads::all(&cfg).unwrap_or_else(|e| {
        eprintln!("rayon_bench: {}", e);
        exit(2)
    });
    let ctx: Vec<(String, String)> = vec![
        ("threads".into(), cfg.threads.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(",")),
        ("tree_nodes".into(), cfg.tree_nodes.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(",")),
        ("fib_n".into(), cfg.fib_n.to_string()),
        ("nqueens_n".into(), cfg.nqueens_n.to_string()),
        ("uts".into(), cfg.uts.join(",")),
        ("skynet_leaves".into(), format!("1e{}", cfg.skynet_log10)),
        ("mandel".into(), format!("{}x{} max {}", cfg.mandel_size, cfg.mandel_size, cfg.mandel_iters)),
        ("reduce_n".into(), cfg.reduce_n.to_string()),
        ("matmul_n".into(), cfg.matmul_n.to_string()),
        ("saxpy_n".into(), cfg.saxpy_n.to_string()),
    ];
    if !harness::run_all(&benches, &opt, &ctx) {
        eprintln!("rayon_bench: at least one benchmark failed its result check");
        exit(1);
    }
}

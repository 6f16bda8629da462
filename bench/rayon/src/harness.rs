//! A small Google Benchmark look-alike: the same iteration growth (run until
//! --benchmark_min_time is reached), the same names and the same JSON shape,
//! so scripts/plot_bench.py reads C++ and Rust results alike.

use std::io::Write;

/// Runs `iters` iterations; returns the timed seconds (checks excluded) or
/// the reason the result was wrong.
pub type Runner = Box<dyn FnMut(u64) -> Result<f64, String>>;

pub struct Bench {
    pub name: String,
    pub counter: &'static str,
    /// Builds the runner (thread pool, data) outside the timed region; also
    /// returns the units per iteration for the ns-per-unit counter.
    pub make: Box<dyn Fn() -> (Runner, f64)>,
}

pub struct Options {
    pub min_time: f64,
    pub repetitions: usize,
    pub filter: String,
    pub out: Option<String>,
    pub json_stdout: bool,
    pub list: bool,
    /// Once one thread count of a variant takes longer than this per
    /// iteration (seconds), its higher thread counts are skipped. 0 = off.
    pub skip_after_seconds: f64,
}

pub struct Row {
    name: String,
    run_name: String,
    run_type: &'static str,
    aggregate: Option<&'static str>,
    repetitions: usize,
    repetition_index: usize,
    iterations: u64,
    real_ns: f64,
    counter: &'static str,
    counter_value: f64,
    error: Option<String>,
}

/// A tiny regex subset for --benchmark_filter: literals, '.', '*', '^', '$',
/// '\' escapes, '|' and non-nested groups like `^(fib|skynet)/`. Unanchored
/// like Google Benchmark's.
pub fn filter_matches(filter: &str, name: &str) -> bool {
    if filter.is_empty() || filter == "all" {
        return true;
    }
    expand(filter).iter().any(|alt| matches_here_any(&tokens(alt), name))
}

/// Rewrites groups and alternation into a list of plain alternatives:
/// "^(a|b)/x|y" -> ["^a/x", "^b/x", "y"].
fn expand(p: &str) -> Vec<String> {
    // Top-level alternation first (a '|' outside any group).
    let mut depth = 0;
    let mut alts = Vec::new();
    let mut cur = String::new();
    let mut chars = p.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                cur.push(c);
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
                continue;
            }
            '(' => depth += 1,
            ')' => depth -= 1,
            '|' if depth == 0 => {
                alts.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    alts.push(cur);
    let mut out = Vec::new();
    for a in alts {
        match (a.find('('), a.find(')')) {
            (Some(open), Some(close)) if open < close => {
                let (pre, inner, post) = (&a[..open], &a[open + 1..close], &a[close + 1..]);
                for i in inner.split('|') {
                    out.extend(expand(&format!("{}{}{}", pre, i, post)));
                }
            }
            _ => out.push(a),
        }
    }
    out
}

#[derive(Clone, Copy)]
enum Tok {
    Start,
    End,
    Any,
    Lit(char),
    Star(Option<char>), // None = ".*"
}

fn tokens(p: &str) -> Vec<Tok> {
    let cs: Vec<char> = p.chars().collect();
    let mut out: Vec<Tok> = Vec::new();
    let mut i = 0;
    while i < cs.len() {
        let c = cs[i];
        let t = match c {
            '^' if i == 0 => Tok::Start,
            '$' if i + 1 == cs.len() => Tok::End,
            '.' => Tok::Any,
            '\\' if i + 1 < cs.len() => {
                i += 1;
                Tok::Lit(cs[i])
            }
            '*' => {
                let prev = out.pop();
                match prev {
                    Some(Tok::Any) => Tok::Star(None),
                    Some(Tok::Lit(x)) => Tok::Star(Some(x)),
                    _ => Tok::Lit('*'),
                }
            }
            _ => Tok::Lit(c),
        };
        out.push(t);
        i += 1;
    }
    out
}

fn matches_here_any(p: &[Tok], s: &str) -> bool {
    let sc: Vec<char> = s.chars().collect();
    if let Some(Tok::Start) = p.first() {
        return here(&p[1..], &sc);
    }
    (0..=sc.len()).any(|i| here(p, &sc[i..]))
}

fn one(t: Tok, c: char) -> bool {
    match t {
        Tok::Any => true,
        Tok::Lit(x) => x == c,
        _ => false,
    }
}

fn here(p: &[Tok], s: &[char]) -> bool {
    match p.first() {
        None => true,
        Some(Tok::End) => s.is_empty(),
        Some(Tok::Star(c)) => {
            let mut i = 0;
            loop {
                if here(&p[1..], &s[i..]) {
                    return true;
                }
                if i < s.len() && c.map_or(true, |c| s[i] == c) {
                    i += 1;
                } else {
                    return false;
                }
            }
        }
        Some(&t) => !s.is_empty() && one(t, s[0]) && here(&p[1..], &s[1..]),
    }
}

/// The f-quantile of v (0 <= f <= 1), interpolated between neighbours: the
/// median of an even count is the mean of the middle two, as in Google
/// Benchmark's aggregates, and p10/p90 mean what tempo_paired's
/// tb::cli::quantile means by them.
pub fn quantile(v: &[f64], f: f64) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(|a, b| a.total_cmp(b));
    let pos = f * (s.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = (lo + 1).min(s.len() - 1);
    s[lo] + (pos - lo as f64) * (s[hi] - s[lo])
}

fn run_one(b: &Bench, opt: &Options) -> Vec<Row> {
    let (mut runner, units) = (b.make)();
    let mut rows = Vec::new();
    let run_name = b.name.clone();
    let mut times = Vec::new();
    for rep in 0..opt.repetitions {
        // Google Benchmark's growth: start at 1, aim 40% past min_time, at most 10x per step.
        let mut iters: u64 = 1;
        let (secs, err) = loop {
            match runner(iters) {
                Err(e) => break (0.0, Some(e)),
                Ok(t) => {
                    if t >= opt.min_time || iters >= 1_000_000_000 {
                        break (t, None);
                    }
                    let mult = if t <= 1e-9 { 10.0 } else { (opt.min_time * 1.4 / t).min(10.0) };
                    iters = ((iters as f64 * mult) as u64).max(iters + 1);
                }
            }
        };
        let real_ns = if err.is_some() { 0.0 } else { secs * 1e9 / iters as f64 };
        if err.is_none() {
            times.push(real_ns);
        }
        rows.push(Row {
            name: run_name.clone(),
            run_name: run_name.clone(),
            run_type: "iteration",
            aggregate: None,
            repetitions: opt.repetitions,
            repetition_index: rep,
            iterations: iters,
            real_ns,
            counter: b.counter,
            counter_value: real_ns / units,
            error: err.clone(),
        });
        if err.is_some() {
            break;
        }
    }
    if opt.repetitions > 1 && times.len() == opt.repetitions {
        let n = times.len();
        let median = quantile(&times, 0.5);
        let mean = times.iter().sum::<f64>() / n as f64;
        for (agg, v) in [("mean", mean), ("median", median)] {
            rows.push(Row {
                name: format!("{}_{}", run_name, agg),
                run_name: run_name.clone(),
                run_type: "aggregate",
                aggregate: Some(agg),
                repetitions: opt.repetitions,
                repetition_index: 0,
                iterations: n as u64,
                real_ns: v,
                counter: b.counter,
                counter_value: v / units,
                error: None,
            });
        }
    }
    rows
}

fn json_str(s: &str) -> String {
    let mut r = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => r.push_str("\\\""),
            '\\' => r.push_str("\\\\"),
            '\n' => r.push_str("\\n"),
            _ => r.push(c),
        }
    }
    r.push('"');
    r
}

fn now_string() -> String {
    unsafe {
        let t = libc::time(std::ptr::null_mut());
        let mut tm: libc::tm = std::mem::zeroed();
        libc::localtime_r(&t, &mut tm);
        let mut buf = [0u8; 64];
        let fmt = b"%Y-%m-%dT%H:%M:%S%z\0";
        let n = libc::strftime(buf.as_mut_ptr() as *mut libc::c_char, buf.len(), fmt.as_ptr() as *const libc::c_char, &tm);
        String::from_utf8_lossy(&buf[..n]).into_owned()
    }
}

pub fn host_name() -> String {
    let mut buf = [0u8; 256];
    unsafe {
        libc::gethostname(buf.as_mut_ptr() as *mut libc::c_char, buf.len() - 1);
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(0);
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

fn to_json(rows: &[Row], context: &[(String, String)]) -> String {
    let mut s = String::from("{\n  \"context\": {\n");
    let mut ctx: Vec<(String, String)> = vec![
        ("date".into(), now_string()),
        ("host_name".into(), host_name()),
        ("executable".into(), std::env::args().next().unwrap_or_default()),
        (
            "num_cpus".into(),
            std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1).to_string(),
        ),
        ("library".into(), "rayon 1.6 (Debian librust-rayon-dev), rayon_bench".into()),
        ("cpu_time_note".into(), "cpu_time is not measured; it repeats real_time".into()),
    ];
    ctx.extend(context.iter().cloned());
    let parts: Vec<String> = ctx.iter().map(|(k, v)| format!("    {}: {}", json_str(k), json_str(v))).collect();
    s.push_str(&parts.join(",\n"));
    s.push_str("\n  },\n  \"benchmarks\": [\n");
    let mut items = Vec::new();
    for r in rows {
        let mut f = vec![
            format!("\"name\": {}", json_str(&r.name)),
            format!("\"run_name\": {}", json_str(&r.run_name)),
            format!("\"run_type\": {}", json_str(r.run_type)),
            format!("\"repetitions\": {}", r.repetitions),
            format!("\"repetition_index\": {}", r.repetition_index),
            "\"threads\": 1".to_string(),
            format!("\"iterations\": {}", r.iterations),
            format!("\"real_time\": {:e}", r.real_ns),
            format!("\"cpu_time\": {:e}", r.real_ns),
            "\"time_unit\": \"ns\"".to_string(),
            format!("{}: {:e}", json_str(r.counter), r.counter_value),
        ];
        if let Some(a) = r.aggregate {
            f.push(format!("\"aggregate_name\": {}", json_str(a)));
        }
        if let Some(e) = &r.error {
            f.push("\"error_occurred\": true".to_string());
            f.push(format!("\"error_message\": {}", json_str(e)));
        }
        items.push(format!("    {{\n      {}\n    }}", f.join(",\n      ")));
    }
    s.push_str(&items.join(",\n"));
    s.push_str("\n  ]\n}\n");
    s
}

/// Runs the matching benchmarks; returns false when any result was wrong.
pub fn run_all(benches: &[Bench], opt: &Options, context: &[(String, String)]) -> bool {
    let selected: Vec<&Bench> = benches.iter().filter(|b| filter_matches(&opt.filter, &b.name)).collect();
    let mut too_slow: std::collections::HashSet<String> = std::collections::HashSet::new();
    if opt.list {
        for b in &selected {
            println!("{}", b.name);
        }
        return true;
    }
    let mut rows = Vec::new();
    let mut ok = true;
    if !opt.json_stdout {
        println!("{:<64} {:>16} {:>12} {:>16}", "Benchmark", "Time", "Iterations", "ns per unit");
    }
    for b in &selected {
        let family = b.name.split("/threads:").next().unwrap_or("").to_string();
        let out = if opt.skip_after_seconds > 0.0 && too_slow.contains(&family) {
            vec![Row {
                name: b.name.clone(),
                run_name: b.name.clone(),
                run_type: "iteration",
                aggregate: None,
                repetitions: opt.repetitions,
                repetition_index: 0,
                iterations: 0,
                real_ns: 0.0,
                counter: b.counter,
                counter_value: 0.0,
                error: Some(format!(
                    "skipped: a lower thread count took over {} s per iteration (--skip_after_seconds)",
                    opt.skip_after_seconds
                )),
            }]
        } else {
            let st = std::time::Instant::now();
            let rows = run_one(b, opt);
            let iters: u64 = rows.iter().filter(|r| r.run_type == "iteration").map(|r| r.iterations).sum();
            if opt.skip_after_seconds > 0.0 && st.elapsed().as_secs_f64() / iters.max(1) as f64 > opt.skip_after_seconds {
                too_slow.insert(family);
            }
            rows
        };
        for r in out {
            let skipped = r.error.as_deref().map_or(false, |e| e.starts_with("skipped"));
            if r.error.is_some() && !skipped {
                ok = false;
            }
            if !opt.json_stdout {
                match &r.error {
                    Some(e) => println!("{:<64} ERROR OCCURRED: '{}'", r.name, e),
                    None => println!(
                        "{:<64} {:>13.0} ns {:>12} {}={:.4}",
                        r.name, r.real_ns, r.iterations, r.counter, r.counter_value
                    ),
                }
                let _ = std::io::stdout().flush();
            }
            rows.push(r);
        }
        // Rewritten after every benchmark so a run cut short by a timeout
        // still leaves valid JSON for what finished.
        if let Some(path) = &opt.out {
            let _ = std::fs::write(path, to_json(&rows, context));
        }
    }
    let js = to_json(&rows, context);
    if opt.json_stdout {
        print!("{}", js);
    }
    if let Some(path) = &opt.out {
        if let Err(e) = std::fs::write(path, &js) {
            eprintln!("rayon_bench: cannot write {}: {}", path, e);
            return false;
        }
    }
    ok
}

#[cfg(test)]
mod tests {
    use super::filter_matches as m;

    #[test]
    fn filter_subset_behaves_like_google_benchmark() {
        assert!(m("^(saxpy|reduce)/", "reduce/rayon/threads:1/real_time"));
        assert!(m("^(saxpy|reduce)/", "saxpy/rayon/threads:1/real_time"));
        assert!(!m("^(saxpy|reduce)/", "matmul/rayon/threads:1/real_time"));
        assert!(m("^fib/", "fib/rayon/threads:16/real_time"));
        assert!(!m("^$", "fib/rayon/threads:16/real_time"));
        assert!(m("^fib/rayon/threads:16/real_time$", "fib/rayon/threads:16/real_time"));
        assert!(!m("^fib/rayon/threads:1/real_time$", "fib/rayon/threads:16/real_time"));
        assert!(m("tree_sum/.*/nodes:1000/", "tree_sum/rayon/nodes:1000/threads:2/real_time"));
        assert!(m("uts|skynet", "skynet/rayon/threads:2/real_time"));
        assert!(m("", "anything"));
    }
}

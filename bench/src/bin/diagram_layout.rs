//! `fsmc graph --format svg` beside Graphviz `dot`: layout time and edge
//! crossings on the same machines.
//!
//! ```text
//! apt-get install -y graphviz     # for the comparison only; fsmc needs no Graphviz
//! cargo run --release --manifest-path bench/Cargo.toml --bin diagram_layout
//! cargo run --release --manifest-path bench/Cargo.toml --bin diagram_layout -- --runs 5
//! ```
//!
//! Machines: rings of `next`/`back` transitions (22 to 500 states, the shape
//! that made the previous engine exponential), a random machine of 500
//! states and 2,000 transitions (and one of 50 and 150), a 20,000-state
//! ring, chains whose every state can go back to the start (`cancel ->
//! s0`, 50 to 26,000 states: long edges made the layout quadratic), random
//! machines with guarded, prioritised, emitting transitions (50/200,
//! 500/2,000 and 5,000/20,000: labels of two and three lines), every example (`examples/*.fsm`),
//! every fixture of `tests/fixtures/ok`, and RFC 793's TCP machine
//! (`fsm-diagram/tests/diagram/tcp.fsm`).
//!
//! Times: `fsm_diagram::svg` in-process (layout and SVG text),
//! and `dot -Tsvg` on `fsm_diagram::dot`'s output as a process
//! (its start-up, about a millisecond, included). Medians of `--runs` runs.
//!
//! Crossings: both drawings are read back as polylines (our SVG's paths;
//! dot's `-Tplain` splines), curves sampled, and every proper intersection
//! of two different edges is counted, except within 4 px of either edge's
//! ends (edges that share a state meet there). When `dot` is not installed
//! its columns say so and the rest still runs.

use fsm_bench::host;
use fsm_bench::table::millis;
use fsm_bench::xorshift::XorShift;
use fsm_diagram::{dot, svg};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

const USAGE: &str = "\
usage: diagram_layout [--runs N] [--no-dot] [--only TEXT] [--print NAME]

  --runs N      timed runs per machine (default 5; 1 above 5,000 states)
  --no-dot      skip Graphviz even when it is installed
  --only TEXT   only the machines whose name contains TEXT
  --print NAME  print the generated machine NAME (`back 2000`, `labelled 500/2000`, ...)
                as .fsm source and stop, e.g. to time `fsmc graph` on it";

/// Machines with more edges than this get no crossing count (it compares
/// every pair of edges).
const CROSSING_LIMIT: usize = 1_200;
/// How long `dot` may take on one machine before it is stopped.
const DOT_LIMIT: Duration = Duration::from_secs(120);

fn main() -> ExitCode {
    let mut runs = 5;
    let mut use_dot = true;
    let mut only = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--runs" => match args.next().and_then(|n| n.parse().ok()) {
                Some(n) if n > 0 => runs = n,
                _ => {
                    eprintln!("--runs needs a positive number\n{USAGE}");
                    return ExitCode::from(2);
                }
            },
            "--no-dot" => use_dot = false,
            "--only" => only = args.next(),
            "--print" => {
                let name = args.next().unwrap_or_default();
                match generated().into_iter().find(|(n, _)| *n == name) {
                    Some((_, text)) => {
                        print!("{text}");
                        return ExitCode::SUCCESS;
                    }
                    None => {
                        let names: Vec<String> = generated().into_iter().map(|(n, _)| n).collect();
                        eprintln!("no generated machine {name:?}; there are {names:?}");
                        return ExitCode::from(2);
                    }
                }
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            other => {
                eprintln!("unknown argument {other}\n{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    let have_dot = use_dot && dot_version().is_some();
    println!("{}", host::summary());
    match (use_dot, dot_version()) {
        (false, _) => println!("Graphviz: skipped (--no-dot)"),
        (true, Some(v)) => println!("Graphviz: {v}"),
        (true, None) => {
            println!("Graphviz: `dot` not found, its columns are skipped (apt-get install -y graphviz)")
        }
    }
    println!();
    println!("| machine | states | edges | ours | dot -Tsvg | crossings ours | crossings dot |");
    println!("|:---|---:|---:|---:|---:|---:|---:|");

    let mut cases = generated();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf();
    let mut files: Vec<PathBuf> = Vec::new();
    for dir in ["examples", "tests/fixtures/ok"] {
        let mut found: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "fsm"))
            .collect();
        found.sort();
        files.extend(found);
    }
    // RFC 793's TCP connection diagram, from the diagram tests.
    files.push(root.join("fsm-diagram/tests/diagram/tcp.fsm"));
    for path in &files {
        let name = path.strip_prefix(&root).unwrap().display().to_string();
        cases.push((name, std::fs::read_to_string(path).unwrap()));
    }

    if let Some(only) = &only {
        cases.retain(|(name, _)| name.contains(only.as_str()));
    }
    let (mut ours_total, mut dot_total) = (0usize, 0usize);
    for (name, text) in &cases {
        let model = fsm_grammar::check(text)
            .into_model()
            .unwrap_or_else(|d| panic!("{name} has errors: {d:?}"));
        for machine in &model.machines {
            let label = if model.machines.len() > 1 {
                format!("{name} ({})", machine.name)
            } else {
                name.clone()
            };
            let big = machine.states.len() > 5_000;
            let runs = if big { 1 } else { runs };
            let (ours, picture) = time(runs, || svg(machine));
            let picture = match picture {
                Ok(picture) => picture,
                Err(too_large) => {
                    println!(
                        "| {label} | {} | – | refused: {too_large} | | | |",
                        machine.states.len()
                    );
                    continue;
                }
            };
            let edges = picture.matches("<path class=\"edge\"").count();
            let our_crossings = (edges <= CROSSING_LIMIT).then(|| crossings(&svg_polylines(&picture)));
            let source = dot(machine);
            // `None` inside: dot ran out of time.
            let dotted = (have_dot && !big).then(|| {
                // Once first: a machine dot cannot finish is not retried.
                run_dot(&source, "svg")?;
                let (t, _) = time(runs.min(3), || run_dot(&source, "svg"));
                let crossings = (edges <= CROSSING_LIMIT)
                    .then(|| run_dot(&source, "plain").map(|p| crossings(&plain_polylines(&p))))
                    .flatten();
                Some((t, crossings))
            });
            if let (Some(a), Some(Some((_, Some(b))))) = (our_crossings, &dotted) {
                if !name.contains(' ') {
                    ours_total += a;
                    dot_total += b;
                }
            }
            let count = |c: Option<usize>| c.map_or("–".to_string(), |c| c.to_string());
            println!(
                "| {label} | {} | {edges} | {} | {} | {} | {} |",
                machine.states.len(),
                millis(ours),
                match &dotted {
                    None => "–".to_string(),
                    Some(None) => format!("> {} s", DOT_LIMIT.as_secs()),
                    Some(Some((t, _))) => millis(*t),
                },
                count(our_crossings),
                match &dotted {
                    Some(Some((_, c))) => count(*c),
                    _ => "–".to_string(),
                },
            );
        }
    }
    println!();
    println!("examples, fixtures and TCP, crossings in total: ours {ours_total}, dot {dot_total}");
    println!("load average after: {}", host::load_average());
    ExitCode::SUCCESS
}

/// The median wall time of `runs` calls, and the last result.
fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut times = Vec::with_capacity(runs);
    let mut last = None;
    for _ in 0..runs {
        let start = Instant::now();
        let value = std::hint::black_box(f());
        times.push(start.elapsed());
        last = Some(value);
    }
    times.sort();
    (times[times.len() / 2], last.expect("at least one run"))
}

/// The generated machines, by name.
fn generated() -> Vec<(String, String)> {
    let mut cases: Vec<(String, String)> = Vec::new();
    for n in [22, 26, 28, 30, 50, 100, 200, 500] {
        cases.push((format!("ring {n}"), ring(n)));
    }
    cases.push(("random 50/150".into(), random(50, 150, 7)));
    cases.push(("random 500/2000".into(), random(500, 2_000, 7)));
    cases.push(("ring 20000".into(), ring(20_000)));
    for n in [50, 200, 1_000, 2_000, 26_000] {
        cases.push((format!("back {n}"), back_to_start(n)));
    }
    for (n, m) in [(50, 200), (500, 2_000), (5_000, 20_000)] {
        cases.push((format!("labelled {n}/{m}"), labelled(n, m, 7)));
    }
    cases
}

/// A chain of `n` states (`next`), every state after the first able to go
/// back to it (`cancel`): the shape of "every state can be cancelled".
fn back_to_start(n: usize) -> String {
    let mut text = String::from("machine Back {\n");
    for i in 0..n {
        let initial = if i == 0 { "initial " } else { "" };
        text.push_str(&format!("    {initial}state s{i} {{"));
        if i + 1 < n {
            text.push_str(&format!(" on next -> s{};", i + 1));
        }
        if i > 0 {
            text.push_str(" on cancel -> s0;");
        }
        text.push_str(" }\n");
    }
    text.push_str("}\n");
    text
}

/// [`random`]'s shape with the labels of real machines: actions in pairs of
/// candidates, a guarded one with a priority, effects and outputs, and a
/// fallback.
fn labelled(states: usize, transitions: usize, seed: u64) -> String {
    let mut rng = XorShift::new(seed);
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); states];
    for i in 1..states {
        out[rng.below(i)].push(i);
    }
    for _ in states - 1..transitions {
        out[rng.below(states)].push(rng.below(states));
    }
    let mut text = String::from(
        "machine Labelled {\n    context Ctx;\n    guard ready;\n    guard allowed;\n    \
         effect count_attempt;\n    output notify_owner;\n    output record_progress;\n",
    );
    for (i, targets) in out.iter().enumerate() {
        let initial = if i == 0 { "initial " } else { "" };
        text.push_str(&format!("    {initial}state s{i} {{"));
        for (j, t) in targets.iter().enumerate() {
            let action = j / 2;
            if j % 2 == 0 {
                let guard = if j % 4 == 0 {
                    "ready && !allowed"
                } else {
                    "allowed"
                };
                text.push_str(&format!(
                    " on event_{action} [{guard}] priority 1 -> s{t} do count_attempt emit notify_owner, record_progress;"
                ));
            } else {
                text.push_str(&format!(" on event_{action} -> s{t} emit record_progress;"));
            }
        }
        text.push_str(" }\n");
    }
    text.push_str("}\n");
    text
}

/// A ring of `n` states, each with `next` and `back`.
fn ring(n: usize) -> String {
    let mut text = String::from("machine Ring {\n");
    for i in 0..n {
        let initial = if i == 0 { "initial " } else { "" };
        text.push_str(&format!(
            "    {initial}state s{i} {{ on next -> s{}; on back -> s{}; }}\n",
            (i + 1) % n,
            (i + n - 1) % n
        ));
    }
    text.push_str("}\n");
    text
}

/// A machine of `states` states and `transitions` transitions: a random
/// tree from the initial state (so every state is reachable), then random
/// transitions; action names are unique per state.
fn random(states: usize, transitions: usize, seed: u64) -> String {
    let mut rng = XorShift::new(seed);
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); states];
    for i in 1..states {
        out[rng.below(i)].push(i);
    }
    for _ in states - 1..transitions {
        out[rng.below(states)].push(rng.below(states));
    }
    let mut text = String::from("machine Random {\n");
    for (i, targets) in out.iter().enumerate() {
        let initial = if i == 0 { "initial " } else { "" };
        text.push_str(&format!("    {initial}state s{i} {{"));
        for (j, t) in targets.iter().enumerate() {
            text.push_str(&format!(" on a{j} -> s{t};"));
        }
        text.push_str(" }\n");
    }
    text.push_str("}\n");
    text
}

fn dot_version() -> Option<String> {
    let output = Command::new("dot").arg("-V").output().ok()?;
    Some(String::from_utf8_lossy(&output.stderr).trim().to_string())
}

/// `dot -T<format>` on `source`; `None` when it runs longer than
/// [`DOT_LIMIT`] (then it is killed).
fn run_dot(source: &str, format: &str) -> Option<String> {
    let mut child = Command::new("dot")
        .arg(format!("-T{format}"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("dot runs");
    let mut stdin = child.stdin.take().unwrap();
    let source = source.to_string();
    let writer = std::thread::spawn(move || stdin.write_all(source.as_bytes()));
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut text).map(|_| text)
    });
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "dot failed");
            break;
        }
        if start.elapsed() > DOT_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let _ = writer.join();
    Some(reader.join().unwrap().unwrap())
}

type Polyline = Vec<(f64, f64)>;

/// A cubic Bézier piece sampled at 12 points after its start.
fn sample_cubic(out: &mut Polyline, p: [(f64, f64); 4]) {
    for i in 1..=12 {
        let t = i as f64 / 12.0;
        let u = 1.0 - t;
        let f = |a: f64, b: f64, c: f64, d: f64| {
            u * u * u * a + 3.0 * u * u * t * b + 3.0 * u * t * t * c + t * t * t * d
        };
        out.push((
            f(p[0].0, p[1].0, p[2].0, p[3].0),
            f(p[0].1, p[1].1, p[2].1, p[3].1),
        ));
    }
}

/// The edges of our SVG: `M`, `L` and `C` commands with `x,y` pairs.
fn svg_polylines(svg: &str) -> Vec<Polyline> {
    let mut edges = Vec::new();
    for line in svg.lines().filter(|l| l.starts_with("<path class=\"edge\"")) {
        let d = line.split("d=\"").nth(1).unwrap().split('"').next().unwrap();
        let mut points: Polyline = Vec::new();
        let mut command = ' ';
        let mut pending = Vec::new();
        for token in d.split_whitespace() {
            let token = if token.starts_with(|c: char| c.is_ascii_alphabetic()) {
                command = token.chars().next().unwrap();
                &token[1..]
            } else {
                token
            };
            let (x, y) = token.split_once(',').unwrap();
            pending.push((x.parse::<f64>().unwrap(), y.parse::<f64>().unwrap()));
            match command {
                'M' | 'L' => points.push(pending.pop().unwrap()),
                'C' if pending.len() == 3 => {
                    let start = *points.last().unwrap();
                    sample_cubic(&mut points, [start, pending[0], pending[1], pending[2]]);
                    pending.clear();
                }
                _ => {}
            }
        }
        edges.push(points);
    }
    edges
}

/// The edges of `dot -Tplain`: `edge tail head n x1 y1 ... xn yn ...`,
/// a piecewise cubic Bézier spline.
fn plain_polylines(plain: &str) -> Vec<Polyline> {
    let mut edges = Vec::new();
    for line in plain.lines().filter(|l| l.starts_with("edge ")) {
        let words = split_plain(line);
        let n: usize = words[3].parse().unwrap();
        let controls: Vec<(f64, f64)> = (0..n)
            .map(|i| {
                // Inches to points, like the SVG.
                let x: f64 = words[4 + 2 * i].parse().unwrap();
                let y: f64 = words[5 + 2 * i].parse().unwrap();
                (x * 72.0, y * 72.0)
            })
            .collect();
        let mut points = vec![controls[0]];
        for piece in controls[..].windows(4).step_by(3) {
            sample_cubic(&mut points, [piece[0], piece[1], piece[2], piece[3]]);
        }
        edges.push(points);
    }
    edges
}

/// Words of a `-Tplain` line; quoted names may hold spaces.
fn split_plain(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut chars = line.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c == ' ' {
            chars.next();
        } else if c == '"' {
            chars.next();
            let mut word = String::new();
            while let Some(c) = chars.next() {
                match c {
                    '\\' => word.extend(chars.next()),
                    '"' => break,
                    c => word.push(c),
                }
            }
            words.push(word);
        } else {
            let mut word = String::new();
            while let Some(&c) = chars.peek() {
                if c == ' ' {
                    break;
                }
                word.push(c);
                chars.next();
            }
            words.push(word);
        }
    }
    words
}

/// Proper intersections between different edges, away from their ends.
fn crossings(edges: &[Polyline]) -> usize {
    let near_end = |p: (f64, f64), e: &Polyline| {
        let (a, b) = (e[0], e[e.len() - 1]);
        (p.0 - a.0).hypot(p.1 - a.1) < 4.0 || (p.0 - b.0).hypot(p.1 - b.1) < 4.0
    };
    let bounds = |e: &Polyline| {
        e.iter().fold((f64::MAX, f64::MAX, f64::MIN, f64::MIN), |b, p| {
            (b.0.min(p.0), b.1.min(p.1), b.2.max(p.0), b.3.max(p.1))
        })
    };
    let boxes: Vec<_> = edges.iter().map(bounds).collect();
    let mut count = 0;
    for i in 0..edges.len() {
        for j in i + 1..edges.len() {
            let (a, b) = (boxes[i], boxes[j]);
            if a.2 < b.0 || b.2 < a.0 || a.3 < b.1 || b.3 < a.1 {
                continue;
            }
            for s in edges[i].windows(2) {
                for t in edges[j].windows(2) {
                    if let Some(p) = intersection(s[0], s[1], t[0], t[1]) {
                        if !near_end(p, &edges[i]) && !near_end(p, &edges[j]) {
                            count += 1;
                        }
                    }
                }
            }
        }
    }
    count
}

/// Where segments `ab` and `cd` cross, if they cross properly.
fn intersection(a: (f64, f64), b: (f64, f64), c: (f64, f64), d: (f64, f64)) -> Option<(f64, f64)> {
    let r = (b.0 - a.0, b.1 - a.1);
    let s = (d.0 - c.0, d.1 - c.1);
    let denom = r.0 * s.1 - r.1 * s.0;
    if denom.abs() < 1e-12 {
        return None;
    }
    let q = (c.0 - a.0, c.1 - a.1);
    let t = (q.0 * s.1 - q.1 * s.0) / denom;
    let u = (q.0 * r.1 - q.1 * r.0) / denom;
    // Half-open on one side, so a crossing at a shared sample point of
    // consecutive segments counts once.
    ((0.0..1.0).contains(&t) && (0.0..1.0).contains(&u)).then_some((a.0 + t * r.0, a.1 + t * r.1))
}

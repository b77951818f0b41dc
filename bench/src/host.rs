//! What the benchmarks print about the machine they ran on, since every
//! figure depends on it: the CPU, the core count, the compiler and the load
//! average when measured (the machine may be shared).

use std::process::Command;

/// The CPU model from `/proc/cpuinfo`, or `unknown CPU`.
pub fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|line| line.starts_with("model name"))
                .and_then(|line| line.split_once(':'))
                .map(|(_, model)| model.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into())
}

/// The number of CPUs this process may use.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The 1-, 5- and 15-minute load averages from `/proc/loadavg`, or `?`.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|| "?".into())
}

/// `rustc --version`, or `rustc (unknown version)`.
pub fn rustc_version() -> String {
    Command::new(std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into()))
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "rustc (unknown version)".into())
}

/// One line describing the machine now.
pub fn summary() -> String {
    format!(
        "{}, {} cores, {}; load average {}",
        cpu_model(),
        cores(),
        rustc_version(),
        load_average()
    )
}

//! Rendering of command results. Renderers write to a `dyn Write` and never decide exit codes.

pub mod gate;
pub mod handles;
pub mod hash;
pub mod rules;
pub mod show;
pub mod state;

/// Human-readable byte count (`1.5 KiB`).
pub fn human_bytes(n: i64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = n as f64;
    let mut unit = 0;
    while v.abs() >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} B")
    } else {
        format!("{v:.1} {}", UNITS[unit])
    }
}

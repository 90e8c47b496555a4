//! Output of `sp-inspect ls`.

use crate::discover::Snapshot;
use serde_json::{json, Value};
use std::io::{self, Write};
use std::time::{SystemTime, UNIX_EPOCH};

/// `checkpoint` for `chk-N/`, `savepoint` for `savepoint-…/` (Flink's directory names), else `-`.
fn kind(s: &Snapshot) -> &'static str {
    let name = s
        .dir
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    if name.starts_with("chk-") {
        "checkpoint"
    } else if name.starts_with("savepoint") {
        "savepoint"
    } else {
        "-"
    }
}

/// UTC time as `2026-12-01T08:50:12Z`.
fn utc(t: Option<SystemTime>) -> String {
    let Some(secs) = t
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map(|d| d.as_secs())
    else {
        return "-".into();
    };
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// One line per snapshot, oldest first; the last is what `--latest` takes.
pub fn write_table(found: &[Snapshot], out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "{:>13}  {:<10}  {:<20}  {:>10}  {:<6}  path",
        "checkpoint id", "kind", "written", "bytes", "format"
    )?;
    for s in found {
        writeln!(
            out,
            "{:>13}  {:<10}  {:<20}  {:>10}  {:<6}  {}",
            s.checkpoint_id,
            kind(s),
            utc(s.modified),
            s.metadata_bytes,
            s.version,
            s.dir.display()
        )?;
    }
    writeln!(
        out,
        "{} completed; --latest takes the last",
        crate::rules::plural(found.len(), "snapshot", "snapshots")
    )
}

/// The JSON document (`sp-inspect/ls-v1`).
pub fn to_json(found: &[Snapshot]) -> Value {
    json!({
        "schema": "sp-inspect/ls-v1",
        "snapshots": found.iter().map(|s| json!({
            "path": s.dir.display().to_string(),
            "checkpoint_id": s.checkpoint_id,
            "kind": kind(s),
            "written": utc(s.modified),
            "metadata_bytes": s.metadata_bytes,
            "format_version": s.version,
        })).collect::<Vec<_>>(),
        "latest": found.last().map(|s| s.dir.display().to_string()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn utc_dates() {
        assert_eq!(utc(Some(UNIX_EPOCH)), "1970-01-01T00:00:00Z");
        let t = UNIX_EPOCH + Duration::from_secs(1_796_114_412);
        assert_eq!(utc(Some(t)), "2026-12-01T08:40:12Z");
        let leap = UNIX_EPOCH + Duration::from_secs(951_782_400);
        assert_eq!(utc(Some(leap)), "2000-02-29T00:00:00Z");
    }
}

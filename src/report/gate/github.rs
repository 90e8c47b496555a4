use super::*;
use std::io::{self, Write};

/// GitHub shows at most this many annotations of each level per step.
const PER_LEVEL: usize = 10;

fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// GitHub Actions workflow commands: one annotation per finding, worst first, within GitHub's per-step
/// limits. The full report goes to the job summary (`$GITHUB_STEP_SUMMARY`) when that is set.
pub fn write_github(r: &GateReport, out: &mut dyn Write) -> io::Result<()> {
    let mut shown = [0usize; 3];
    let mut hidden = 0;
    for f in &r.findings {
        let (cmd, slot) = match f.severity {
            Severity::Error => ("error", 0),
            Severity::Warning => ("warning", 1),
            Severity::Info => ("notice", 2),
        };
        if shown[slot] >= PER_LEVEL {
            hidden += 1;
            continue;
        }
        shown[slot] += 1;
        // On the line of the job that creates the operator, where the manifest records it.
        let place = match &f.defined_at {
            Some(l) => format!("file={},line={}", escape_property(&l.file), l.line),
            None => format!("file={}", escape_property(&f.input)),
        };
        writeln!(
            out,
            "::{cmd} {place},title={}::{}",
            escape_property(f.rule.id),
            escape_data(&f.message)
        )?;
    }
    if let Some(line) = verdict_line(r) {
        writeln!(out, "{line}")?;
    }
    if hidden > 0 {
        writeln!(out, "{hidden} more findings are not annotated (GitHub's per-step limit); see the job summary")?;
    }
    writeln!(out, "{}", findings_line(r))?;
    if let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY") {
        let mut summary = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)?;
        write_markdown(r, &mut summary)?;
    }
    Ok(())
}

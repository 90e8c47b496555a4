use super::*;
use std::io::{self, Write};

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// The report as GitHub-flavoured Markdown (pull-request comments, job summaries).
pub fn write_markdown(r: &GateReport, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "## sp-inspect {}\n", r.command)?;
    for i in &r.inputs {
        writeln!(out, "- **{}**: `{}` ({})", i.role, i.path, i.kind)?;
    }
    if let (Some(line), Some(d)) = (verdict_line(r), &r.diff) {
        writeln!(out, "\n**Verdict: `{}`** — {line}\n", d.verdict.name())?;
        for reason in &d.reasons {
            writeln!(out, "- {}", cell(reason))?;
        }
        writeln!(
            out,
            "\n| # | status | old operator (state owner) | new operator | state | what happens |"
        )?;
        writeln!(out, "|---|---|---|---|---|---|")?;
        for e in &d.entries {
            writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} |",
                position_cell(e),
                e.status.name(),
                cell(&old_cell(e)),
                cell(&new_cell(e)),
                cell(&state_cell(e)),
                cell(&e.note)
            )?;
        }
    }
    if !r.findings.is_empty() {
        writeln!(out, "\n| severity | rule | finding |\n|---|---|---|")?;
        for f in &r.findings {
            writeln!(
                out,
                "| {} | `{}` | {} |",
                f.severity.name(),
                f.rule.id,
                cell(&f.message)
            )?;
        }
    }
    writeln!(out, "\n{}", findings_line(r))
}

use super::*;
use comfy_table::{presets::UTF8_FULL_CONDENSED, Table};
use std::io::{self, Write};

/// The terminal report.
pub fn write_table(r: &GateReport, out: &mut dyn Write) -> io::Result<()> {
    for i in &r.inputs {
        writeln!(out, "{:<5} {} ({})", format!("{}:", i.role), i.path, i.kind)?;
    }
    if let Some(line) = verdict_line(r) {
        let d = r
            .diff
            .as_ref()
            .map(|d| d.verdict.name())
            .unwrap_or_default();
        writeln!(out, "\nverdict: {} — {line}", d.to_uppercase())?;
        for reason in r.diff.iter().flat_map(|d| &d.reasons) {
            writeln!(out, "  - {reason}")?;
        }
    }
    if let Some(d) = &r.diff {
        let mut t = Table::new();
        t.load_preset(UTF8_FULL_CONDENSED);
        t.set_header(vec![
            "#",
            "status",
            "old operator (state owner)",
            "new operator",
            "state",
            "what happens",
        ]);
        for e in &d.entries {
            t.add_row(vec![
                position_cell(e),
                e.status.name().to_string(),
                old_cell(e),
                new_cell(e),
                state_cell(e),
                e.note.clone(),
            ]);
        }
        writeln!(out, "{t}")?;
    }
    if !r.findings.is_empty() {
        writeln!(out, "\nfindings:")?;
        for f in &r.findings {
            writeln!(
                out,
                "  {:<7} {:<30} {}",
                f.severity.name(),
                f.rule.id,
                f.message
            )?;
        }
    }
    writeln!(out, "\n{}", findings_line(r))
}

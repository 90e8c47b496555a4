use super::*;
use comfy_table::{presets::UTF8_FULL_CONDENSED, ContentArrangement, Table};
use std::io::{self, Write};

/// The terminal report.
pub fn write_table(r: &GateReport, out: &mut dyn Write) -> io::Result<()> {
    for i in &r.inputs {
        writeln!(out, "{:<5} {} ({})", format!("{}:", i.role), i.path, i.kind)?;
    }
    if let (Some(line), Some(d)) = (verdict_line(r), &r.diff) {
        writeln!(
            out,
            "\nverdict: {} — {line}",
            d.verdict.name().to_uppercase()
        )?;
        for reason in &d.reasons {
            writeln!(out, "  - {reason}")?;
        }
    }
    if let Some(d) = &r.diff {
        let mut t = Table::new();
        t.load_preset(UTF8_FULL_CONDENSED)
            .set_content_arrangement(ContentArrangement::Dynamic);
        if t.width().is_none() {
            // Not a terminal (CI logs): wrap the notes at a width logs still show in one screen.
            t.set_width(180);
        }
        t.set_header(vec![
            "#",
            "status",
            "old operator (state owner)",
            "new operator",
            "state",
            "what happens",
        ]);
        for e in &d.entries {
            t.add_row(
                [
                    position_cell(e),
                    e.status.name().to_string(),
                    old_cell(e),
                    new_cell(e),
                    state_cell(e),
                    e.note.clone(),
                ]
                .map(|c| crate::report::cell(&c)),
            );
        }
        writeln!(out, "{t}")?;
    }
    if !r.findings.is_empty() {
        writeln!(out, "\nfindings:")?;
        // Errors and warnings one by one; infos one line per rule (--format json lists them all).
        let mut infos: Vec<(&str, Vec<String>)> = Vec::new();
        for f in &r.findings {
            if f.severity > Severity::Info {
                writeln!(
                    out,
                    "  {:<7} {:<30} {}",
                    f.severity.name(),
                    f.rule.id,
                    f.message
                )?;
                continue;
            }
            let who = f
                .name
                .clone()
                .or(f.uid.clone())
                .or(f.operator_id.map(|i| i.to_string()))
                .unwrap_or_default();
            match infos.iter_mut().find(|(id, _)| *id == f.rule.id) {
                Some((_, v)) => v.push(who),
                None => infos.push((f.rule.id, vec![who])),
            }
        }
        for (id, who) in infos {
            let shown: Vec<&str> = who.iter().take(3).map(String::as_str).collect();
            let more = match who.len() {
                n if n > 3 => format!(" and {} more", n - 3),
                _ => String::new(),
            };
            writeln!(
                out,
                "  {:<7} {:<30} {} operators: {}{more}",
                "info",
                id,
                who.len(),
                shown.join(", ")
            )?;
        }
    }
    writeln!(out, "\n{}", findings_line(r))
}

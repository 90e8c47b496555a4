use super::*;
use crate::report::text::{fix_sentence, snippet, Lang};
use crate::report::wrap;
use comfy_table::{presets::UTF8_FULL_CONDENSED, ContentArrangement, Table};
use std::io::{self, Write};

/// How many findings of one rule are listed before "and N more".
const LISTED: usize = 4;
/// How many fixes are listed before "and N more".
const FIXES_LISTED: usize = 12;

/// The terminal report: the verdict, the problems grouped by rule, the fixes, a count of the rest, and the
/// summary; with `--all`, every operator in a table.
pub fn write_table(r: &GateReport, layout: Layout, out: &mut dyn Write) -> io::Result<()> {
    let w = layout.width;
    for i in &r.inputs {
        let role = format!("{}:", i.role);
        writeln!(
            out,
            "{}",
            wrap(
                &format!("{role:<10}{} ({})", i.path, i.kind),
                w,
                "",
                "          "
            )
        )?;
    }
    if let (Some(line), Some(d)) = (verdict_line(r), &r.diff) {
        let verdict = format!("verdict: {} — {line}", d.verdict.name().to_uppercase());
        writeln!(out, "\n{}", wrap(&verdict, w, "", "  "))?;
    }
    write_problems(r, w, out)?;
    write_fixes(r, w, out)?;
    if let Some(Ok(plan)) = &r.remap {
        let old = r.inputs.first().map_or("OLD", |i| i.path.as_str());
        let new = r.inputs.get(1).map_or("NEW", |i| i.path.as_str());
        let line = format!(
            "or repair the savepoint instead: sp-inspect remap {old} {new} --output DIR writes one this job restores as it is ({} paired; --dry-run lists them)",
            crate::rules::plural(plan.assignments.len(), "state", "states")
        );
        writeln!(out, "\n{}", wrap(&line, w, "", "  "))?;
    }
    if let Some(d) = &r.diff {
        let rest = format!(
            "operators: {}{}",
            counts_text(d),
            if layout.all {
                ""
            } else {
                " (--all lists every one)"
            }
        );
        writeln!(out, "\n{}", wrap(&rest, w, "", "  "))?;
        if layout.all {
            writeln!(out, "{}", entries_table(d, w))?;
        }
    }
    writeln!(out, "\n{}", wrap(&findings_line(r), w, "", "  "))
}

fn write_problems(r: &GateReport, w: usize, out: &mut dyn Write) -> io::Result<()> {
    let groups = groups(r);
    if groups.is_empty() {
        return Ok(());
    }
    writeln!(out, "\nproblems:")?;
    for g in &groups {
        let n = g.findings.len();
        let fixes = g.fixes();
        let fix_ref = match fixes.as_slice() {
            [] => String::new(),
            [one] => format!(" — fix {}", one + 1),
            many => format!(
                " — fixes {}",
                many.iter()
                    .map(|i| (i + 1).to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        let head = format!(
            "{:<7} {} ×{n}{fix_ref} (sp-inspect rules {})",
            g.severity.name(),
            g.rule.title,
            g.rule.id
        );
        writeln!(out, "{}", wrap(&head, w, "  ", "          "))?;
        let items: Vec<String> = match g.shared_detail() {
            Some(detail) => {
                let who: Vec<String> = g.findings.iter().map(|f| subject(f)).collect();
                vec![format!("{detail}: {}", crate::rules::first_few(&who))]
            }
            None if g.severity == Severity::Info => {
                let who: Vec<String> = g.findings.iter().map(|f| subject(f)).collect();
                vec![crate::rules::first_few(&who)]
            }
            None => g
                .findings
                .iter()
                .take(LISTED)
                .map(|f| f.message.clone())
                .chain(
                    (n > LISTED)
                        .then(|| format!("and {} more (--format json lists all)", n - LISTED)),
                )
                .collect(),
        };
        for item in items {
            writeln!(out, "{}", wrap(&item, w, "          ", "            "))?;
        }
        if fixes.is_empty() && g.severity == Severity::Error {
            writeln!(
                out,
                "{}",
                wrap(
                    &format!("help: {}", g.rule.help),
                    w,
                    "          ",
                    "            "
                )
            )?;
        }
    }
    Ok(())
}

fn write_fixes(r: &GateReport, w: usize, out: &mut dyn Write) -> io::Result<()> {
    if r.fixes.is_empty() {
        return Ok(());
    }
    let after = r.with_fixes.as_ref().map_or(String::new(), |d| {
        format!(
            "; predicted with them: {} ({})",
            d.verdict.name(),
            counts_text(d)
        )
    });
    let head = format!("fixes (Java/Scala; PyFlink: set_uid_hash, set_max_parallelism){after}:");
    writeln!(out, "\n{}", wrap(&head, w, "", "  "))?;
    for (i, f) in r.fixes.iter().enumerate().take(FIXES_LISTED) {
        let n = format!("{:>3}. ", i + 1);
        let line = format!("{}: {}", fix_sentence(f), snippet(f, Lang::Java));
        writeln!(out, "{}", wrap(&line, w, &n, "       "))?;
    }
    if r.fixes.len() > FIXES_LISTED {
        writeln!(
            out,
            "     and {} more (--format json lists all)",
            r.fixes.len() - FIXES_LISTED
        )?;
    }
    Ok(())
}

fn entries_table(d: &crate::diff::Diff, width: usize) -> Table {
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_width(u16::try_from(width).unwrap_or(u16::MAX));
    t.set_header(vec![
        "#",
        "status",
        "old operator (state)",
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
    t
}

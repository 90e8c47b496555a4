use super::*;
use crate::report::text::{fix_sentence, snippet, Lang};
use std::io::{self, Write};

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// A Mermaid label: quoted, without what would end it.
fn label(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "'").replace(['\n', '[', ']'], " "))
}

/// The report as GitHub-flavoured Markdown (pull-request comments, job summaries): verdict, problems
/// grouped by rule, fixes, a Mermaid picture of where state goes, and every operator folded away.
pub fn write_markdown(r: &GateReport, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "## sp-inspect {}\n", r.command)?;
    if let (Some(line), Some(d)) = (verdict_line(r), &r.diff) {
        writeln!(out, "**Verdict: `{}`** — {line}\n", d.verdict.name())?;
    }
    for i in &r.inputs {
        writeln!(out, "- **{}**: `{}` ({})", i.role, i.path, i.kind)?;
    }
    let groups = groups(r);
    if !groups.is_empty() {
        writeln!(out, "\n### Problems\n")?;
        for g in &groups {
            let fixes: Vec<String> = g.fixes().iter().map(|i| format!("fix {}", i + 1)).collect();
            write!(
                out,
                "- **{}** `{}` ×{}: {}",
                g.severity.name(),
                g.rule.id,
                g.findings.len(),
                g.rule.title
            )?;
            if !fixes.is_empty() {
                write!(out, " — {}", fixes.join(", "))?;
            }
            writeln!(out)?;
            let who: Vec<String> = g.findings.iter().map(|f| subject(f)).collect();
            match g.shared_detail() {
                Some(detail) => writeln!(
                    out,
                    "  - {}: {}",
                    cell(detail),
                    cell(&crate::rules::first_few(&who))
                )?,
                None => {
                    for f in g.findings.iter().take(6) {
                        writeln!(out, "  - {}", cell(&f.message))?;
                    }
                    if g.findings.len() > 6 {
                        writeln!(out, "  - and {} more", g.findings.len() - 6)?;
                    }
                }
            }
            if g.fixes().is_empty() && g.severity == Severity::Error {
                writeln!(out, "  - help: {}", cell(g.rule.help))?;
            }
        }
    }
    if !r.fixes.is_empty() {
        let after = r.with_fixes.as_ref().map_or(String::new(), |d| {
            format!(
                " (predicted with them: `{}`, {})",
                d.verdict.name(),
                counts_text(d)
            )
        });
        writeln!(out, "\n### Fixes{after}\n")?;
        for (i, f) in r.fixes.iter().enumerate() {
            writeln!(out, "{}. {}", i + 1, cell(&fix_sentence(f)))?;
            let (java, python) = (snippet(f, Lang::Java), snippet(f, Lang::Python));
            if java == python {
                writeln!(out, "   `{java}`")?;
            } else {
                writeln!(out, "   Java/Scala `{java}` · PyFlink `{python}`")?;
            }
        }
    }
    if let Some(d) = &r.diff {
        write_mermaid(d, out)?;
        writeln!(
            out,
            "\n<details><summary>Every operator: {}</summary>\n",
            counts_text(d)
        )?;
        writeln!(
            out,
            "| # | status | old operator (state owner) | new operator | state | what happens |"
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
        writeln!(out, "\n</details>")?;
    }
    writeln!(out, "\n{}", findings_line(r))
}

/// Where state goes: old operators (left) → new operators (right); shifted edges red, dropped state
/// struck through, new sources marked. GitHub renders it.
fn write_mermaid(d: &crate::diff::Diff, out: &mut dyn Write) -> io::Result<()> {
    let edges = picture(d);
    if edges.is_empty() {
        return Ok(());
    }
    writeln!(out, "\n```mermaid\nflowchart LR")?;
    let mut red = Vec::new();
    let mut links = 0usize;
    for (i, e) in edges.iter().enumerate() {
        match e {
            Edge::Moves { old, new, shifted } => {
                writeln!(out, "  o{i}[{}] --> n{i}[{}]", label(old), label(new))?;
                if *shifted {
                    red.push(links);
                    writeln!(out, "  class n{i} shifted")?;
                }
                links += 1;
            }
            Edge::Dropped { old } => writeln!(
                out,
                "  o{i}[{}]:::dropped",
                label(&format!("✗ {old} (dropped)"))
            )?,
            Edge::NewSource { new } => writeln!(
                out,
                "  n{i}[{}]:::newsource",
                label(&format!("★ {new} (new source)"))
            )?,
        }
    }
    writeln!(out, "  classDef dropped fill:#fdd,stroke:#c00,stroke-dasharray:4 3,text-decoration:line-through")?;
    writeln!(out, "  classDef newsource fill:#ffd,stroke:#b80")?;
    writeln!(out, "  classDef shifted fill:#fdd,stroke:#c00")?;
    if !red.is_empty() {
        let ids: Vec<String> = red.iter().map(ToString::to_string).collect();
        writeln!(
            out,
            "  linkStyle {} stroke:#c00,stroke-width:3px",
            ids.join(",")
        )?;
    }
    writeln!(out, "```")
}

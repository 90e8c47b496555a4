use super::*;
use std::io::{self, Write};

fn xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// JUnit XML: one test case per finding (failing at or above the threshold), plus one for the verdict.
pub fn write_junit(r: &GateReport, out: &mut dyn Write) -> io::Result<()> {
    let failing = r
        .findings
        .iter()
        .filter(|f| r.fail_on.fails(f.severity))
        .count();
    let tests = r.findings.len() + usize::from(r.diff.is_some());
    let verdict_fails = r.diff.as_ref().is_some_and(|d| d.verdict == Verdict::Fails);
    writeln!(out, r#"<?xml version="1.0" encoding="UTF-8"?>"#)?;
    writeln!(
        out,
        r#"<testsuites><testsuite name="sp-inspect {}" tests="{tests}" failures="{}">"#,
        r.command,
        failing + usize::from(verdict_fails)
    )?;
    if let (Some(d), Some(line)) = (&r.diff, verdict_line(r)) {
        write!(
            out,
            r#"<testcase classname="sp-inspect.verdict" name="{}">"#,
            d.verdict.name()
        )?;
        if verdict_fails {
            write!(
                out,
                r#"<failure message="{}">{}</failure>"#,
                xml(&line),
                xml(&d.reasons.join("\n"))
            )?;
        }
        writeln!(out, "</testcase>")?;
    }
    for f in &r.findings {
        let name = format!(
            "{}_{}",
            f.rule.id,
            f.operator_id.map(|i| i.to_string()).unwrap_or_default()
        );
        write!(
            out,
            r#"<testcase classname="sp-inspect.{}" name="{}">"#,
            f.rule.category.name(),
            xml(&name)
        )?;
        if r.fail_on.fails(f.severity) {
            write!(
                out,
                r#"<failure message="{}" type="{}"/>"#,
                xml(&f.message),
                f.severity.name()
            )?;
        } else {
            write!(
                out,
                "<system-out>{}: {}</system-out>",
                f.severity.name(),
                xml(&f.message)
            )?;
        }
        writeln!(out, "</testcase>")?;
    }
    writeln!(out, "</testsuite></testsuites>")
}

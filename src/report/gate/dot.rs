//! Graphviz: where state goes, old operators → new operators (the same picture as the Markdown's Mermaid).

use super::*;
use std::io::{self, Write};

fn quote(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// The picture as a DOT digraph: shifted edges red, dropped state struck out (dashed, red), new sources
/// marked.
pub fn write_dot(r: &GateReport, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "digraph state {{\n  rankdir=LR;\n  node [shape=box, fontname=\"sans-serif\"];"
    )?;
    if let Some(d) = &r.diff {
        for e in picture(d) {
            match e {
                Edge::Moves { old, new, shifted } => writeln!(
                    out,
                    "  {} -> {}{};",
                    quote(&format!("old: {old}")),
                    quote(&format!("new: {new}")),
                    if shifted {
                        " [color=red, penwidth=2, label=\"shifted\"]"
                    } else {
                        ""
                    }
                )?,
                Edge::Dropped { old } => writeln!(
                    out,
                    "  {} [style=dashed, color=red, label={}];",
                    quote(&format!("old: {old}")),
                    quote(&format!("✗ {old} (state dropped)"))
                )?,
                Edge::NewSource { new } => writeln!(
                    out,
                    "  {} [style=bold, label={}];",
                    quote(&format!("new: {new}")),
                    quote(&format!("★ {new} (new source)"))
                )?,
            }
        }
    }
    writeln!(out, "}}")
}

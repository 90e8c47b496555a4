//! Table and JSON output of `show`. The JSON schema is documented in `docs/show-json.md`.

use super::human_bytes;
use crate::metadata::writers_of;
use crate::model::Header;
use crate::show::{OperatorRow, ShowReport, UidSource};
use comfy_table::{presets::UTF8_FULL_CONDENSED, Cell, CellAlignment, ContentArrangement, Table};
use serde_json::{json, Value};
use std::io::{self, Write};

/// Schema identifier of the JSON document.
pub const SCHEMA: &str = "sp-inspect/show-v1";

fn snapshot_line(r: &ShowReport) -> String {
    match r.properties() {
        Some(p) if p.is_savepoint() => format!(
            "savepoint ({}), {}",
            p.type_name.as_deref().unwrap_or("?"),
            p.savepoint_format
                .as_deref()
                .unwrap_or("format not recorded")
        ),
        Some(p) => format!("checkpoint ({})", p.type_name.as_deref().unwrap_or("?")),
        None if r.header.version < 4 => {
            "not recorded before format 4 (savepoint or checkpoint)".into()
        }
        None => "not readable from the trailer".into(),
    }
}

/// An operator in two lines: ID, name and uid; then the other columns, named.
fn stacked_lines(o: &OperatorRow, row: &[Cell], width: usize) -> String {
    let text = |i: usize| {
        row.get(i)
            .map(|c| c.content().replace('\n', ""))
            .unwrap_or_default()
    };
    let mark = if is_stateful(o) { "●" } else { " " };
    let who = match (&o.name, text(2)) {
        (Some(n), u) if u != "-" => format!("{n} (uid {u})"),
        (Some(n), _) => n.clone(),
        (None, u) if u != "-" => format!("uid {u}"),
        (None, _) => "-".into(),
    };
    let mut rest = format!(
        "par/max {}, subtasks {}, state {}",
        text(3),
        text(4),
        match o.summary.coordinator_state_bytes {
            Some(c) => format!(
                "{} (coordinator {})",
                human_bytes(o.summary.state_bytes),
                human_bytes(c)
            ),
            None => human_bytes(o.summary.state_bytes),
        }
    );
    for (label, i) in [("kinds", 6), ("operator states", 7), ("keyed states", 8)] {
        let v = text(i);
        if !v.is_empty() && v != "-" {
            rest.push_str(&format!(", {label} {v}"));
        }
    }
    format!(
        "{}\n{}",
        super::wrap(&format!("{mark} {} {who}", o.id), width, "", "    "),
        super::wrap(&rest, width, "    ", "      ")
    )
}

/// A state kind as the table shows it (the JSON keeps the stable names).
fn short_kind(k: crate::stats::StateKind) -> &'static str {
    use crate::stats::StateKind::*;
    match k {
        ManagedOperator => "operator",
        RawOperator => "raw operator",
        ManagedKeyed => "keyed",
        RawKeyed => "raw keyed",
        InputChannel => "in-flight input",
        ResultSubpartition => "in-flight output",
    }
}

fn is_stateful(o: &OperatorRow) -> bool {
    o.summary.state_bytes > 0 || o.summary.subtasks_with_state > 0
}

/// The human-readable report.
pub fn write_table(r: &ShowReport, out: &mut dyn Write) -> io::Result<()> {
    let total: i64 = r.operators.iter().map(|o| o.summary.state_bytes).sum();
    let with_state = r.operators.iter().filter(|o| is_stateful(o)).count();
    writeln!(out, "file:          {} ({} bytes)", r.path, r.file_bytes)?;
    writeln!(
        out,
        "format:        version {} (written by {})",
        r.header.version,
        writers_of(r.header.version)
    )?;
    writeln!(out, "checkpoint id: {}", r.header.checkpoint_id)?;
    writeln!(out, "snapshot:      {}", snapshot_line(r))?;
    if r.header.master_states.is_empty() {
        writeln!(out, "master states: none")?;
    } else {
        let names: Vec<_> = r
            .header
            .master_states
            .iter()
            .map(|m| format!("{} ({} B)", m.name, m.payload.len()))
            .collect();
        writeln!(out, "master states: {}", names.join(", "))?;
    }
    match (r.absolute_paths.count, r.absolute_paths.under()) {
        (0, _) => writeln!(
            out,
            "state paths:   none absolute (inline, or relative to the snapshot directory)"
        )?,
        (n, Some(dir)) => writeln!(
            out,
            "state paths:   {n} absolute, under {dir} (sp-inspect relocate moves them)"
        )?,
        (n, None) => writeln!(out, "state paths:   {n} absolute, under several roots")?,
    }
    writeln!(
        out,
        "operators:     {} ({} with state), {} of state in total",
        r.operators.len(),
        with_state,
        human_bytes(total)
    )?;

    let width = crate::report::gate::Layout::width();
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Disabled);
    // One line of text per operator when the table would be wider than the terminal.
    let mut stacked = Vec::new();
    let with_names = r.operators.iter().any(|o| o.state_names.is_some());
    let mut header = vec![
        "operator id",
        "name",
        "uid",
        "par/max",
        "subtasks",
        "state (coord.)",
        "kinds",
        // Without --state the redistribution modes recorded in _metadata; with it, the state files' kinds.
        if with_names {
            "operator states (kind)"
        } else {
            "operator states (mode)"
        },
    ];
    if with_names {
        header.push("keyed states");
    }
    t.set_header(header);
    // Stateful operators first (marked ●), the largest state first; the rest in file order.
    let mut rows: Vec<&OperatorRow> = r.operators.iter().collect();
    rows.sort_by_key(|o| std::cmp::Reverse((is_stateful(o), o.summary.state_bytes)));
    for o in rows {
        let uid = match (&o.uid, o.uid_source) {
            (Some(u), Some(UidSource::UidsFile)) => format!("{u} (--uids)"),
            (Some(u), _) => u.clone(),
            (None, _) => "-".into(),
        };
        let subtasks = if o.fully_finished {
            "finished".to_string()
        } else if o.summary.finished_subtasks > 0 {
            format!(
                "{}/{} ({} finished)",
                o.summary.subtasks_with_state,
                o.summary.subtask_states,
                o.summary.finished_subtasks
            )
        } else {
            format!(
                "{}/{}",
                o.summary.subtasks_with_state, o.summary.subtask_states
            )
        };
        let kinds: Vec<_> = o.summary.kinds.iter().map(|k| short_kind(*k)).collect();
        // With --state, the kinds read from the state files; else the modes recorded in _metadata.
        let states: Vec<_> = match &o.state_names {
            Some(n) => n
                .operator
                .iter()
                .map(|(n, k)| format!("{n} ({k})"))
                .collect(),
            None => o
                .summary
                .operator_states
                .iter()
                .map(|(n, m)| format!("{n} ({})", m.name()))
                .collect(),
        };
        let mark = if is_stateful(o) { "● " } else { "  " };
        let state = match o.summary.coordinator_state_bytes {
            Some(c) => format!(
                "{} ({})",
                human_bytes(o.summary.state_bytes),
                human_bytes(c)
            ),
            None => human_bytes(o.summary.state_bytes),
        };
        let mut row = vec![
            Cell::new(format!("{mark}{}", o.id)),
            Cell::new(crate::report::cell(o.name.as_deref().unwrap_or("-"))),
            Cell::new(crate::report::cell(&uid)),
            Cell::new(format!("{}/{}", o.parallelism, o.max_parallelism))
                .set_alignment(CellAlignment::Right),
            Cell::new(subtasks).set_alignment(CellAlignment::Right),
            Cell::new(state).set_alignment(CellAlignment::Right),
            Cell::new(if kinds.is_empty() {
                "-".into()
            } else {
                kinds.join(", ")
            }),
            Cell::new(if states.is_empty() {
                "-".into()
            } else {
                states.join(", ")
            }),
        ];
        if let Some(n) = &o.state_names {
            let keyed: Vec<_> = n.keyed.iter().map(|(n, k)| format!("{n} ({k})")).collect();
            row.push(Cell::new(if keyed.is_empty() {
                "-".into()
            } else {
                keyed.join(", ")
            }));
        }
        stacked.push(stacked_lines(o, &row, width));
        t.add_row(row);
    }
    let natural: usize = t
        .column_max_content_widths()
        .iter()
        .map(|w| usize::from(*w) + 3)
        .sum::<usize>()
        + 1;
    if natural <= width {
        writeln!(out, "{t}")?;
    } else {
        writeln!(
            out,
            "\n● holds state; stateful operators first, the largest state first"
        )?;
        for lines in stacked {
            writeln!(out, "{lines}")?;
        }
    }
    if r.header.version < 5 && r.operators.iter().any(|o| o.uid.is_none()) {
        writeln!(
            out,
            "note: format {} stores no operator names or uids; pass --uids FILE to name operators by uid",
            r.header.version
        )?;
    }
    for o in r.operators.iter().filter(|o| !o.subtasks.is_empty()) {
        writeln!(
            out,
            "\n{} {}",
            o.id,
            o.name.as_deref().or(o.uid.as_deref()).unwrap_or("")
        )?;
        for s in &o.subtasks {
            let fin = if s.finished { " (finished)" } else { "" };
            writeln!(
                out,
                "  subtask {}{fin}: {}",
                s.index,
                human_bytes(s.state_bytes)
            )?;
            for h in &s.handles {
                writeln!(out, "    {:<20} {}", h.kind.name(), h.line)?;
            }
        }
    }
    Ok(())
}

/// One operator of the JSON document.
pub fn operator_json(o: &OperatorRow, with_subtasks: bool) -> Value {
    let mut v = json!({
        "id": o.id.to_string(),
        "name": o.name,
        "uid": o.uid,
        "uid_source": o.uid_source.map(|s| match s { UidSource::Metadata => "metadata", UidSource::UidsFile => "uids_file" }),
        "byte_offset": o.offset,
        "parallelism": o.parallelism,
        "max_parallelism": o.max_parallelism,
        "fully_finished": o.fully_finished,
        "subtask_states": o.summary.subtask_states,
        "subtasks_with_state": o.summary.subtasks_with_state,
        "finished_subtasks": o.summary.finished_subtasks,
        "coordinator_state_bytes": o.summary.coordinator_state_bytes,
        "state_bytes": o.summary.state_bytes,
        "state_kinds": o.summary.kinds.iter().map(|k| k.name()).collect::<Vec<_>>(),
        "operator_states": o.summary.operator_states.iter().map(|(n, m)| json!({"name": n, "mode": m.name()})).collect::<Vec<_>>(),
    });
    if let Some(n) = &o.state_names {
        v["state_names"] = json!({
            "operator": n.operator.iter().map(|(n, k)| json!({"name": n, "kind": k})).collect::<Vec<_>>(),
            "keyed": n.keyed.iter().map(|(n, k)| json!({"name": n, "kind": k})).collect::<Vec<_>>(),
            "problems": n.problems,
        });
    }
    if with_subtasks {
        v["subtasks"] = o
            .subtasks
            .iter()
            .map(|s| {
                let mut st =
                    json!({"index": s.index, "finished": s.finished, "state_bytes": s.state_bytes});
                for k in crate::stats::StateKind::ALL {
                    st[k.name()] = Value::Array(
                        s.handles
                            .iter()
                            .filter(|h| h.kind == k)
                            .map(|h| h.json.clone())
                            .collect(),
                    );
                }
                st
            })
            .collect();
    }
    v
}

/// The fields of the document known before the operators (the header).
pub fn json_head(path: &str, file_bytes: u64, h: &Header) -> Value {
    json!({
        "schema": SCHEMA,
        "path": path,
        "file_bytes": file_bytes,
        "format_version": h.version,
        "written_by": writers_of(h.version),
        "checkpoint_id": h.checkpoint_id,
        "master_states": h.master_states.iter().map(|m| json!({"name": m.name, "version": m.version, "bytes": m.payload.len()})).collect::<Vec<_>>(),
    })
}

/// The fields known after the operators (the trailer and the warnings).
pub fn json_tail(r: &ShowReport) -> Value {
    json!({
        "snapshot": r.properties().map(|p| json!({
            "kind": if p.is_savepoint() { "savepoint" } else { "checkpoint" },
            "type_class": p.type_class,
            "type_name": p.type_name,
            "savepoint_format": p.savepoint_format,
        })),
        "absolute_state_paths": {
            "count": r.absolute_paths.count,
            "under": r.absolute_paths.under(),
        },
        "warnings": r.warnings,
    })
}

/// Why the streamed JSON document could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ShowJsonError {
    /// The `_metadata` file is malformed.
    #[error("{path}: {error}")]
    Decode {
        /// Which file.
        path: String,
        /// What and where.
        error: crate::metadata::DecodeError,
    },
    /// Writing failed.
    #[error("writing output: {0}")]
    Output(#[from] serde_json::Error),
}

/// The operators array, serialized while the file is decoded (one operator in memory at a time); the
/// report of the decoding (or its error) is left in the cells.
struct Operators<'a> {
    file: &'a crate::input::MetadataFile,
    opts: &'a crate::show::ShowOptions,
    report: std::cell::RefCell<Option<Result<ShowReport, crate::metadata::DecodeError>>>,
}

impl serde::Serialize for Operators<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error, SerializeSeq};
        let mut seq = serializer.serialize_seq(None)?;
        let mut failed = None;
        let report = crate::show::stream(
            self.file,
            self.opts,
            |_| {},
            |row| {
                if failed.is_none() {
                    failed = seq
                        .serialize_element(&operator_json(&row, self.opts.subtasks))
                        .err();
                }
            },
        );
        if let Some(e) = failed {
            return Err(e);
        }
        let decoded = report.is_ok();
        *self.report.borrow_mut() = Some(report);
        if !decoded {
            return Err(S::Error::custom("the file did not decode"));
        }
        seq.end()
    }
}

/// Writes the JSON document (`sp-inspect/show-v1`) while the file is decoded, one operator at a time,
/// so that memory does not grow with the number of operators.
pub fn write_json_streaming(
    file: &crate::input::MetadataFile,
    opts: &crate::show::ShowOptions,
    out: &mut dyn Write,
) -> Result<ShowReport, ShowJsonError> {
    use serde::ser::{SerializeMap, Serializer};
    let path = file.path.display().to_string();
    let decode_error = |error| ShowJsonError::Decode {
        path: path.clone(),
        error,
    };
    // The header is read first (it is small), so that its fields come before the operators.
    let header = crate::metadata::Decoder::new(file.bytes(), opts.decode)
        .map_err(decode_error)?
        .header()
        .clone();
    let mut ser = serde_json::Serializer::new(out);
    let mut map = ser.serialize_map(None)?;
    let head = json_head(&path, file.bytes().len() as u64, &header);
    for (k, v) in head.as_object().into_iter().flatten() {
        map.serialize_entry(k, v)?;
    }
    let operators = Operators {
        file,
        opts,
        report: std::cell::RefCell::new(None),
    };
    let written = map.serialize_entry("operators", &operators);
    let report = match (operators.report.into_inner(), written) {
        (Some(Err(error)), _) => return Err(decode_error(error)),
        (_, Err(e)) => return Err(ShowJsonError::Output(e)),
        (Some(Ok(r)), Ok(())) => r,
        (None, Ok(())) => {
            use serde::ser::Error;
            return Err(ShowJsonError::Output(serde_json::Error::custom(
                "the operators were not written",
            )));
        }
    };
    for (k, v) in json_tail(&report).as_object().into_iter().flatten() {
        map.serialize_entry(k, v)?;
    }
    map.end()?;
    Ok(report)
}

/// The JSON document (`sp-inspect/show-v1`) of a report built in memory.
pub fn to_json(r: &ShowReport, with_subtasks: bool) -> Value {
    let mut doc = json_head(&r.path, r.file_bytes, &r.header);
    doc["operators"] = r
        .operators
        .iter()
        .map(|o| operator_json(o, with_subtasks))
        .collect();
    if let (Value::Object(d), Value::Object(t)) = (&mut doc, json_tail(r)) {
        d.extend(t);
    }
    doc
}

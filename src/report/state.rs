//! Output of `sp-inspect state`.

use crate::state::connectors::{Committable, EnumeratorState, SinkState, Split};
use crate::state::OperatorReport;
use std::io::{self, Write};

/// Where a file split resumes: FileSource's position is an offset (or -1, `NO_OFFSET`: from the split's
/// start) and a number of records to skip after it.
pub fn resume_text(offset: i64, records: i64) -> String {
    match offset {
        -1 => format!(", resumes from the split's start, skipping {records} records"),
        o => format!(", resumes at offset {o}, skipping {records} records"),
    }
}

/// One line per split.
pub fn split_line(s: &Split) -> String {
    match s {
        Split::Kafka {
            topic,
            partition,
            starting_offset,
            stopping_offset,
        } => {
            format!(
                "kafka {topic}-{partition}: from offset {starting_offset}, stop {stopping_offset}"
            )
        }
        Split::DynamicKafka {
            cluster_id, split, ..
        } => format!("{} (cluster {cluster_id})", split_line(split)),
        Split::NumberSequence { id, from, to } => {
            format!("number sequence split {id}: next {from}, last {to}")
        }
        Split::File {
            id,
            path,
            offset,
            length,
            position,
            ..
        } => format!(
            "file split {id}: {} [{offset}+{length}]{}",
            path.as_deref().unwrap_or("?"),
            position.map_or(String::new(), |(o, r)| resume_text(o, r))
        ),
        Split::Unknown(o) => format!(
            "unknown split: version {}, {} bytes, {}",
            o.version, o.length, o.hex_prefix
        ),
    }
}

fn sink_lines(s: &SinkState) -> Vec<String> {
    match s {
        SinkState::KafkaWriter { transactional_id_prefix, owned_subtask_id, precommitted, .. } => {
            let mut v = vec![format!(
                "kafka writer: transactional id prefix {transactional_id_prefix:?}{}",
                owned_subtask_id.map_or(String::new(), |o| format!(", owns subtask {o}"))
            )];
            v.extend(precommitted.iter().map(|(t, c)| format!("  precommitted transaction {t} (checkpoint {c})")));
            v
        }
        SinkState::Committables { checkpoints, .. } => checkpoints
            .iter()
            .flat_map(|c| {
                let at = c.checkpoint_id.map_or("legacy state".to_string(), |id| format!("checkpoint {id}"));
                c.committables.iter().map(move |p| match &p.committable {
                    Committable::Kafka { transactional_id, producer_id, epoch } => format!(
                        "{at}: pending kafka transaction {transactional_id} (producer {producer_id}, epoch {epoch}), {}",
                        p.state
                    ),
                    Committable::File { bucket_id, pending_file, in_progress_file_to_cleanup, .. } => format!(
                        "{at}: file sink committable{}: {}, {}",
                        bucket_id.as_deref().map_or(String::new(), |b| format!(" of bucket {b}")),
                        match (pending_file, in_progress_file_to_cleanup) {
                            (true, _) => "a pending part file to publish",
                            (false, true) => "an in-progress part file to clean up",
                            (false, false) => "a compacted file to clean up",
                        },
                        p.state
                    ),
                    Committable::Other(o) => format!(
                        "{at}: pending committable (version {}, {} bytes), {}",
                        o.version, o.length, p.state
                    ),
                })
            })
            .collect(),
        SinkState::FileWriter { bucket_id, bucket_path, in_progress_file, pending_files, .. } => {
            let mut v = vec![format!(
                "file sink writer: bucket {bucket_id} ({bucket_path}){}",
                if *in_progress_file { ", part file in progress" } else { "" }
            )];
            v.extend(pending_files.iter().map(|(c, n)| format!("  {n} pending part files of checkpoint {c}")));
            v
        }
        SinkState::Unknown(o) => vec![format!("unknown sink state: version {}, {} bytes", o.version, o.length)],
    }
}

fn enum_lines(e: &EnumeratorState) -> Vec<String> {
    match e {
        EnumeratorState::Kafka {
            version,
            partitions,
            ..
        } => {
            let mut v = vec![format!(
                "kafka enumerator (state version {version}): {} partitions",
                partitions.len()
            )];
            v.extend(partitions.iter().map(|(t, p, s)| format!("  {t}-{p} {s}")));
            v
        }
        EnumeratorState::DynamicKafka {
            version,
            streams,
            clusters,
        } => {
            let mut v = vec![format!(
                "dynamic kafka enumerator (state version {version}): {} streams",
                streams.len()
            )];
            for (stream, cs) in streams {
                for (cluster, topics, servers) in cs {
                    v.push(format!(
                        "  stream {stream}: cluster {cluster} ({servers}): {}",
                        topics.join(", ")
                    ));
                }
            }
            for (cluster, state) in clusters {
                v.extend(
                    enum_lines(state)
                        .into_iter()
                        .map(|l| format!("  cluster {cluster}: {l}")),
                );
            }
            v
        }
        EnumeratorState::File {
            splits,
            processed_paths,
        } => {
            let mut v = vec![format!(
                "file source enumerator: {} unassigned splits, {} files processed",
                splits.len(),
                processed_paths.len()
            )];
            v.extend(splits.iter().map(|s| format!("  {}", split_line(s))));
            v.extend(processed_paths.iter().map(|p| format!("  processed {p}")));
            v
        }
        EnumeratorState::NumberSequence { splits } => {
            let mut v = vec![format!(
                "number sequence enumerator: {} unassigned splits",
                splits.len()
            )];
            v.extend(splits.iter().map(|s| format!("  {}", split_line(s))));
            v
        }
        EnumeratorState::Unknown(o) => {
            vec![format!(
                "unknown enumerator: version {}, {} bytes, {}",
                o.version, o.length, o.hex_prefix
            )]
        }
    }
}

/// The human-readable report.
pub fn write_table(reports: &[OperatorReport], out: &mut dyn Write) -> io::Result<()> {
    for r in reports {
        let label = crate::diff::label(
            &crate::model::OperatorId::from_hex(&r.id).unwrap_or_default(),
            r.uid.as_deref(),
            r.name.as_deref(),
        );
        writeln!(
            out,
            "operator {} {}",
            r.id,
            if label == r.id { String::new() } else { label }
        )?;
        if let Some(c) = &r.coordinator {
            for l in enum_lines(&c.enumerator) {
                writeln!(out, "  coordinator: {l}")?;
            }
        }
        for s in &r.subtasks {
            writeln!(out, "  subtask {}", s.index)?;
            for n in &s.operator_states {
                writeln!(
                    out,
                    "    {} ({}{}): {}",
                    n.name,
                    n.kind.as_deref().unwrap_or(n.mode),
                    n.serializer
                        .as_deref()
                        .map_or(String::new(), |x| format!(", {x}")),
                    crate::rules::plural(n.elements, "element", "elements")
                )?;
                for sp in &n.splits {
                    writeln!(out, "      {}", split_line(sp))?;
                }
                for st in &n.sink {
                    for l in sink_lines(st) {
                        writeln!(out, "      {l}")?;
                    }
                }
            }
            for k in &s.keyed_states {
                writeln!(
                    out,
                    "    keyed {} ({}{})",
                    k.name,
                    k.kind,
                    k.serializer
                        .as_deref()
                        .map_or(String::new(), |x| format!(", {x}"))
                )?;
            }
            for p in &s.problems {
                writeln!(out, "    problem: {p}")?;
            }
        }
    }
    let problems = problem_count(reports);
    if problems > 0 {
        writeln!(
            out,
            "\nincomplete: {problems} state {} could not be read (the `problem:` lines); what is shown is what could",
            if problems == 1 { "handle" } else { "handles" }
        )?;
    }
    Ok(())
}

/// How many subtask problems (state that could not be read) the reports hold.
pub fn problem_count(reports: &[OperatorReport]) -> usize {
    reports
        .iter()
        .flat_map(|r| &r.subtasks)
        .map(|s| s.problems.len())
        .sum()
}

/// The JSON document (`sp-inspect/state-v1`); `complete` is false when some state could not be read.
/// Serialized straight from the reports (a `Value` tree of 10,000 splits took 30 times longer).
#[derive(serde::Serialize)]
pub struct StateDoc<'a> {
    schema: &'static str,
    path: &'a str,
    complete: bool,
    operators: &'a [OperatorReport],
}

/// The document for `reports` of the snapshot at `path`.
pub fn to_json<'a>(path: &'a str, reports: &'a [OperatorReport]) -> StateDoc<'a> {
    StateDoc {
        schema: "sp-inspect/state-v1",
        path,
        complete: problem_count(reports) == 0,
        operators: reports,
    }
}

//! Runs a parsed command line: the glue between flags, library and renderers.

use crate::cli::{Cli, Command, Format};
use crate::hash::operator_id;
use crate::input::MetadataFile;
use crate::metadata::DecodeOptions;
use crate::report;
use crate::show::{build, parse_uid_list, ShowOptions};
use std::fmt;
use std::io::{self, Write};

/// Why a command failed.
#[derive(Debug)]
pub enum RunError {
    /// A file could not be read.
    Input(crate::input::InputError),
    /// A `_metadata` file is malformed.
    Decode {
        /// Which file.
        path: String,
        /// What and where.
        error: crate::metadata::DecodeError,
    },
    /// Writing the output failed.
    Output(io::Error),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Input(e) => write!(f, "{e}"),
            RunError::Decode { path, error } => write!(f, "{path}: {error}"),
            RunError::Output(e) => write!(f, "writing output: {e}"),
        }
    }
}

impl std::error::Error for RunError {}

impl From<io::Error> for RunError {
    fn from(e: io::Error) -> Self {
        RunError::Output(e)
    }
}

/// Runs `cli`, writing results to `out` and warnings to `err`.
pub fn run(cli: Cli, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), RunError> {
    match cli.command {
        Command::Show {
            path,
            format,
            subtasks,
            resolve_paths,
            uids,
            flink_1_11_channel_state,
        } => {
            let mut opts = ShowOptions {
                subtasks,
                resolve_paths,
                decode: DecodeOptions {
                    channel_subtask_index: !flink_1_11_channel_state,
                },
                ..ShowOptions::default()
            };
            if let Some(f) = uids {
                let text = std::fs::read_to_string(&f).map_err(|e| {
                    RunError::Input(crate::input::InputError {
                        path: f.clone(),
                        error: e.to_string(),
                    })
                })?;
                opts.uids = parse_uid_list(&text)
                    .into_iter()
                    .map(|u| (operator_id(&u), u))
                    .collect();
            }
            let file = MetadataFile::open(&path).map_err(RunError::Input)?;
            let report = build(&file, &opts).map_err(|error| RunError::Decode {
                path: file.path.display().to_string(),
                error,
            })?;
            for w in &report.warnings {
                writeln!(err, "sp-inspect: warning: {}: {w}", report.path)?;
            }
            match format {
                Format::Table => report::show::write_table(&report, out)?,
                Format::Json => {
                    serde_json::to_writer_pretty(
                        &mut *out,
                        &report::show::to_json(&report, subtasks),
                    )
                    .map_err(io::Error::from)?;
                    writeln!(out)?;
                }
            }
        }
        Command::Hash { uids, sink, format } => match format {
            Format::Table => report::hash::write_table(&uids, sink, out)?,
            Format::Json => {
                serde_json::to_writer_pretty(&mut *out, &report::hash::to_json(&uids, sink))
                    .map_err(io::Error::from)?;
                writeln!(out)?;
            }
        },
    }
    out.flush()?;
    Ok(())
}

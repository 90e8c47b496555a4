//! Runs a parsed command line: the glue between flags, library and renderers.

use crate::cli::{Cli, Command, Format, GateArgs, GateFormat, RulesFormat};
use crate::config::{Config, FailOn};
use crate::diff::RestoreOptions;
use crate::gate::{run_diff, run_lint, DiffInputs, GateReport};
use crate::hash::operator_id;
use crate::input::{InputError, MetadataFile};
use crate::job::{JobInput, LoadError};
use crate::metadata::DecodeOptions;
use crate::report;
use crate::rules::Severity;
use crate::show::{build, parse_uid_list, ShowOptions};
use crate::state::access::StateAccess;
use std::fmt;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Why a command failed.
#[derive(Debug)]
pub enum RunError {
    /// A file could not be read.
    Input(InputError),
    /// A `_metadata` file is malformed.
    Decode {
        /// Which file.
        path: String,
        /// What and where.
        error: crate::metadata::DecodeError,
    },
    /// An argument of `diff`/`lint` could not be read.
    Load(LoadError),
    /// Bad usage or configuration.
    Usage(String),
    /// Writing the output failed.
    Output(io::Error),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Input(e) => write!(f, "{e}"),
            RunError::Decode { path, error } => write!(f, "{path}: {error}"),
            RunError::Load(e) => write!(f, "{e}"),
            RunError::Usage(m) => write!(f, "{m}"),
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

/// How a successful run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Nothing to report (exit 0).
    Clean,
    /// `diff`/`lint` findings at or above the threshold (exit 1).
    Findings,
}

fn read_text(path: &Path) -> Result<String, RunError> {
    std::fs::read_to_string(path).map_err(|e| {
        RunError::Input(InputError {
            path: path.to_path_buf(),
            error: e.to_string(),
        })
    })
}

fn decode_options(flink_1_11_channel_state: bool) -> DecodeOptions {
    DecodeOptions {
        channel_subtask_index: if flink_1_11_channel_state {
            crate::metadata::ChannelIndex::Without
        } else {
            crate::metadata::ChannelIndex::Auto
        },
    }
}

fn load(path: &Path, decode: DecodeOptions, err: &mut dyn Write) -> Result<JobInput, RunError> {
    let input = JobInput::load(path, decode).map_err(RunError::Load)?;
    if let JobInput::Savepoint(r) = &input {
        for w in &r.warnings {
            writeln!(err, "sp-inspect: warning: {}: {w}", r.path)?;
        }
    }
    Ok(input)
}

fn gate_config(args: &GateArgs) -> Result<(Config, FailOn), RunError> {
    let default = PathBuf::from("sp-inspect.toml");
    let path = match &args.config {
        Some(p) => Some(p.clone()),
        None => default.is_file().then_some(default),
    };
    let config = match path {
        Some(p) => Config::parse(&read_text(p.as_path())?)
            .map_err(|e| RunError::Usage(format!("{}: {e}", p.display())))?,
        None => Config::default(),
    };
    let fail_on = match &args.fail_on {
        Some(s) => FailOn::parse(s).ok_or_else(|| {
            RunError::Usage(format!(
                "--fail-on {s:?}: expected error, warning, info or never"
            ))
        })?,
        None => config.fail_on.unwrap_or(FailOn::Severity(Severity::Error)),
    };
    Ok((config, fail_on))
}

fn render_gate(
    r: &GateReport,
    args: &GateArgs,
    stdout: &mut dyn Write,
) -> Result<Outcome, RunError> {
    let mut file;
    let out: &mut dyn Write = match &args.output {
        Some(p) if p.as_os_str() != "-" => {
            file = io::BufWriter::new(std::fs::File::create(p).map_err(|e| {
                RunError::Input(InputError {
                    path: p.clone(),
                    error: e.to_string(),
                })
            })?);
            &mut file
        }
        _ => stdout,
    };
    match args.format {
        GateFormat::Table => report::gate::write_table(r, out)?,
        GateFormat::Markdown => report::gate::write_markdown(r, out)?,
        GateFormat::Github => report::gate::write_github(r, out)?,
        GateFormat::Junit => report::gate::write_junit(r, out)?,
        GateFormat::Json | GateFormat::Sarif => {
            let doc = if args.format == GateFormat::Json {
                report::gate::to_json(r)
            } else {
                report::gate::to_sarif(r)
            };
            serde_json::to_writer_pretty(&mut *out, &doc).map_err(io::Error::from)?;
            writeln!(out)?;
        }
    }
    out.flush()?;
    Ok(if r.failed() {
        Outcome::Findings
    } else {
        Outcome::Clean
    })
}

fn path_text(p: &Path) -> String {
    p.display().to_string()
}

/// Runs `cli`, writing results to `out` and warnings to `err`.
pub fn run(cli: Cli, out: &mut dyn Write, err: &mut dyn Write) -> Result<Outcome, RunError> {
    let outcome = match cli.command {
        Command::Show {
            path,
            format,
            subtasks,
            resolve_paths,
            uids,
            state,
            allow_absolute_paths,
            flink_1_11_channel_state,
        } => {
            let mut opts = ShowOptions {
                subtasks,
                resolve_paths,
                decode: decode_options(flink_1_11_channel_state),
                ..ShowOptions::default()
            };
            if state {
                let dir = MetadataFile::open(&path)
                    .map_err(RunError::Input)?
                    .dir()
                    .to_path_buf();
                opts.state = Some(StateAccess {
                    dir,
                    allow_absolute: allow_absolute_paths,
                });
            }
            if let Some(f) = uids {
                opts.uids = parse_uid_list(&read_text(&f)?)
                    .into_iter()
                    .map(|u| (operator_id(&u), u))
                    .collect();
            }
            let file = MetadataFile::open(&path).map_err(RunError::Input)?;
            let report = match format {
                Format::Table => {
                    let report = build(&file, &opts).map_err(|error| RunError::Decode {
                        path: file.path.display().to_string(),
                        error,
                    })?;
                    report::show::write_table(&report, out)?;
                    report
                }
                Format::Json => {
                    // Rendered while decoding, one operator at a time, into memory: nothing reaches the
                    // output unless the whole file decoded.
                    let mut text = Vec::new();
                    let report = report::show::write_json_streaming(&file, &opts, &mut text)?;
                    out.write_all(&text)?;
                    report
                }
            };
            for w in &report.warnings {
                writeln!(err, "sp-inspect: warning: {}: {w}", report.path)?;
            }
            Outcome::Clean
        }
        Command::Diff {
            old,
            new,
            old_graph,
            new_graph,
            allow_non_restored_state,
            gate,
        } => {
            let (config, fail_on) = gate_config(&gate)?;
            let decode = decode_options(gate.flink_1_11_channel_state);
            let old_input = load(&old, decode, err)?;
            let new_input = load(&new, decode, err)?;
            let old_graph = old_graph.map(|p| load(&p, decode, err)).transpose()?;
            let new_graph = new_graph.map(|p| load(&p, decode, err)).transpose()?;
            let (old_path, new_path) = (path_text(&old), path_text(&new));
            let report = run_diff(
                DiffInputs {
                    old: (&old_input, &old_path),
                    new: (&new_input, &new_path),
                    old_graph: old_graph.as_ref(),
                    new_graph: new_graph.as_ref(),
                },
                RestoreOptions {
                    allow_non_restored_state,
                },
                &config,
                fail_on,
            );
            render_gate(&report, &gate, out)?
        }
        Command::Lint {
            inputs,
            graph,
            gate,
        } => {
            let (config, fail_on) = gate_config(&gate)?;
            let decode = decode_options(gate.flink_1_11_channel_state);
            let loaded = inputs
                .iter()
                .map(|p| load(p, decode, err).map(|i| (i, path_text(p))))
                .collect::<Result<Vec<_>, _>>()?;
            let graph = graph.map(|p| load(&p, decode, err)).transpose()?;
            let refs: Vec<(&JobInput, &str)> =
                loaded.iter().map(|(i, p)| (i, p.as_str())).collect();
            let report = run_lint(&refs, graph.as_ref(), &config, fail_on);
            render_gate(&report, &gate, out)?
        }
        Command::State {
            path,
            operator,
            format,
            allow_absolute_paths,
        } => {
            let file = MetadataFile::open(&path).map_err(RunError::Input)?;
            let access = StateAccess {
                dir: file.dir().to_path_buf(),
                allow_absolute: allow_absolute_paths,
            };
            let md = crate::metadata::decode(file.bytes(), DecodeOptions::default()).map_err(
                |error| RunError::Decode {
                    path: file.path.display().to_string(),
                    error,
                },
            )?;
            let selected: Vec<_> = md
                .operators
                .iter()
                .filter(|o| match &operator {
                    None => !o.is_empty(),
                    Some(sel) => {
                        o.uid.as_deref() == Some(sel.as_str())
                            || o.name.as_deref() == Some(sel.as_str())
                            || o.id.to_string().eq_ignore_ascii_case(sel)
                            || o.id == operator_id(sel)
                    }
                })
                .collect();
            if let (Some(sel), true) = (&operator, selected.is_empty()) {
                return Err(RunError::Usage(format!(
                    "{}: no operator with uid, ID or name {sel:?}",
                    file.path.display()
                )));
            }
            let reports: Vec<_> = selected
                .iter()
                .map(|o| crate::state::inspect(o, &access))
                .collect();
            for r in &reports {
                for s in &r.subtasks {
                    for p in &s.problems {
                        writeln!(
                            err,
                            "sp-inspect: warning: {}: operator {} subtask {}: {p}",
                            file.path.display(),
                            r.id,
                            s.index
                        )?;
                    }
                }
            }
            match format {
                Format::Table => report::state::write_table(&reports, out)?,
                Format::Json => {
                    let doc = report::state::to_json(&file.path.display().to_string(), &reports);
                    serde_json::to_writer_pretty(&mut *out, &doc).map_err(io::Error::from)?;
                    writeln!(out)?;
                }
            }
            Outcome::Clean
        }
        Command::Rules { id, format } => {
            let rule = match id {
                Some(id) => Some(crate::rules::by_id(&id.to_uppercase()).ok_or_else(|| {
                    RunError::Usage(format!("no rule {id:?}; `sp-inspect rules` lists them"))
                })?),
                None => None,
            };
            match format {
                RulesFormat::Table => report::rules::write_table(rule, out)?,
                RulesFormat::Markdown => report::rules::write_markdown(out)?,
                RulesFormat::Json => {
                    serde_json::to_writer_pretty(&mut *out, &report::rules::to_json())
                        .map_err(io::Error::from)?;
                    writeln!(out)?;
                }
            }
            Outcome::Clean
        }
        Command::Hash { uids, sink, format } => {
            match format {
                Format::Table => report::hash::write_table(&uids, sink, out)?,
                Format::Json => {
                    serde_json::to_writer_pretty(&mut *out, &report::hash::to_json(&uids, sink))
                        .map_err(io::Error::from)?;
                    writeln!(out)?;
                }
            }
            Outcome::Clean
        }
    };
    out.flush()?;
    Ok(outcome)
}

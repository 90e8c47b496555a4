//! Runs a parsed command line: the glue between flags, library and renderers.

use crate::cli::{Cli, Command, Format, GateArgs, RulesFormat};
use crate::config::{Config, FailOn};
use crate::diff::RestoreOptions;
use crate::gate::{run_diff, run_lint, DiffInputs, GateReport};
use crate::hash::operator_id;
use crate::input::{check_output, read_text, InputError, MetadataFile};
use crate::job::{JobInput, LoadError};
use crate::metadata::DecodeOptions;
use crate::report;
use crate::rules::Severity;
use crate::show::{build, ShowOptions};
use crate::sniff::{sniff_text, TextInput, UID_LIST_MARKER};
use crate::state::access::StateAccess;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Why a command failed. Its `Display` is this level's words; `source()` the cause (printed after it).
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// A file could not be read.
    #[error(transparent)]
    Input(#[from] InputError),
    /// A `_metadata` file is malformed.
    #[error("{path}")]
    Decode {
        /// Which file.
        path: String,
        /// What and where.
        #[source]
        error: crate::metadata::DecodeError,
    },
    /// An argument of `diff`/`lint` could not be read.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// Bad usage or configuration.
    #[error("{0}")]
    Usage(String),
    /// Writing the output failed.
    #[error("writing output")]
    Output(#[from] io::Error),
}

/// How a successful run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Nothing to report (exit 0).
    Clean,
    /// `diff`/`lint` findings at or above the threshold (exit 1).
    Findings,
    /// The output is printed but incomplete: some state could not be read (exit 2).
    Incomplete,
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

fn decode_error(file: &MetadataFile) -> impl FnOnce(crate::metadata::DecodeError) -> RunError + '_ {
    |error| RunError::Decode {
        path: file.path.display().to_string(),
        error,
    }
}

/// Runs `cli`, writing results to `out` and warnings to `err`.
pub fn run(mut cli: Cli, out: &mut dyn Write, err: &mut dyn Write) -> Result<Outcome, RunError> {
    if cli.latest {
        take_latest(&mut cli.command)?;
    }
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
            let file = MetadataFile::open_snapshot(&path)?;
            let opts = ShowOptions {
                subtasks,
                resolve_paths,
                decode: decode_options(flink_1_11_channel_state),
                state: state.then(|| StateAccess::new(file.dir(), allow_absolute_paths)),
                uids: match uids {
                    Some(f) => read_uid_list(&f)?
                        .into_iter()
                        .map(|u| (operator_id(&u), u))
                        .collect(),
                    None => Default::default(),
                },
                ..ShowOptions::default()
            };
            show(&file, &opts, format, out, err)?
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
            let load = |p: &PathBuf| load(p, &gate);
            let (old_input, new_input) = (load(&old)?, load(&new)?);
            let old_graph_input = old_graph.as_ref().map(load).transpose()?;
            let new_graph_input = new_graph.as_ref().map(load).transpose()?;
            let paths: Vec<String> = [
                Some(&old),
                Some(&new),
                old_graph.as_ref(),
                new_graph.as_ref(),
            ]
            .iter()
            .map(|p| p.map_or(String::new(), |p| p.display().to_string()))
            .collect();
            let report = run_diff(
                DiffInputs {
                    old: (&old_input.0, &paths[0]),
                    new: (&new_input.0, &paths[1]),
                    old_graph: old_graph_input.as_ref().map(|g| (&g.0, paths[2].as_str())),
                    new_graph: new_graph_input.as_ref().map(|g| (&g.0, paths[3].as_str())),
                },
                RestoreOptions {
                    allow_non_restored_state,
                },
                &config,
                fail_on,
            )
            .map_err(|e| RunError::Usage(e.0))?;
            for w in [&old_input, &new_input]
                .into_iter()
                .chain(old_graph_input.iter())
                .chain(new_graph_input.iter())
                .flat_map(|i| &i.1)
            {
                writeln!(err, "sp-inspect: warning: {w}")?;
            }
            let inputs: Vec<&Path> = [
                Some(&old),
                Some(&new),
                old_graph.as_ref(),
                new_graph.as_ref(),
            ]
            .into_iter()
            .flatten()
            .map(PathBuf::as_path)
            .collect();
            render_gate(&report, &gate, &inputs, out)?
        }
        Command::Lint {
            inputs,
            graph,
            gate,
        } => {
            let (config, fail_on) = gate_config(&gate)?;
            let loaded = inputs
                .iter()
                .map(|p| load(p, &gate))
                .collect::<Result<Vec<_>, _>>()?;
            let graph_input = graph.as_ref().map(|p| load(p, &gate)).transpose()?;
            let paths: Vec<String> = inputs.iter().map(|p| p.display().to_string()).collect();
            let graph_path = graph.as_ref().map(|p| p.display().to_string());
            let refs: Vec<(&JobInput, &str)> = loaded
                .iter()
                .zip(&paths)
                .map(|(i, p)| (&i.0, p.as_str()))
                .collect();
            let report = run_lint(
                &refs,
                graph_input
                    .as_ref()
                    .map(|g| (&g.0, graph_path.as_deref().unwrap_or_default())),
                &config,
                fail_on,
            )
            .map_err(|e| RunError::Usage(e.0))?;
            for w in loaded.iter().chain(graph_input.iter()).flat_map(|i| &i.1) {
                writeln!(err, "sp-inspect: warning: {w}")?;
            }
            let all: Vec<&Path> = inputs
                .iter()
                .chain(graph.iter())
                .map(PathBuf::as_path)
                .collect();
            render_gate(&report, &gate, &all, out)?
        }
        Command::State {
            path,
            operator,
            format,
            allow_absolute_paths,
            allow_missing_state,
        } => state(
            &path,
            operator.as_deref(),
            format,
            allow_absolute_paths,
            allow_missing_state,
            out,
            err,
        )?,
        Command::Remap {
            old,
            new,
            output,
            map,
            old_graph,
            dry_run,
            copy,
        } => remap(
            &old,
            &new,
            output.as_deref(),
            map.as_deref(),
            old_graph.as_deref(),
            dry_run,
            copy,
            out,
        )?,
        Command::Relocate {
            old,
            from,
            to,
            output,
        } => {
            let file = MetadataFile::open_snapshot(&old)?;
            let (path, n) =
                crate::remap::write_relocated(&file, &from, &to, &output).map_err(remap_error)?;
            writeln!(
                out,
                "wrote {} ({} moved from {from} to {to}); {} is unchanged",
                path.display(),
                crate::rules::plural(n, "state path", "state paths"),
                file.path.display()
            )?;
            Outcome::Clean
        }
        Command::Verify { prediction, logs } => verify(&prediction, &logs, out)?,
        Command::Ls { dir, format } => {
            let found = crate::discover::snapshots(&dir)?;
            match format {
                Format::Table => report::discover::write_table(&found, out)?,
                Format::Json => write_json(&report::discover::to_json(&found), out)?,
            }
            Outcome::Clean
        }
        Command::Completions { shell } => {
            let mut cmd = <Cli as clap::CommandFactory>::command();
            clap_complete::generate(shell, &mut cmd, "sp-inspect", out);
            Outcome::Clean
        }
        Command::Man => {
            clap_mangen::Man::new(<Cli as clap::CommandFactory>::command()).render(out)?;
            Outcome::Clean
        }
        Command::Rules { id, format } => {
            let wanted = id.as_deref().map(str::to_uppercase);
            let category = crate::rules::ALL
                .iter()
                .map(|r| r.category)
                .find(|c| Some(c.name()) == wanted.as_deref());
            let rule = match (&wanted, category) {
                (Some(id), None) => Some(crate::rules::by_id(id).ok_or_else(|| {
                    let ids = crate::rules::ALL.iter().map(|r| r.id.to_string());
                    RunError::Usage(format!(
                        "no rule or category {id:?}{}; `sp-inspect rules` lists them",
                        did_you_mean(id, ids)
                    ))
                })?),
                _ => None,
            };
            match format {
                RulesFormat::Table => report::rules::write_table(rule, category, out)?,
                RulesFormat::Markdown => report::rules::write_markdown(out)?,
                RulesFormat::Json => write_json(&report::rules::to_json(), out)?,
            }
            Outcome::Clean
        }
        Command::Hash { uids, sink, format } => {
            match format {
                Format::Table => report::hash::write_table(&uids, sink, out)?,
                Format::Json => write_json(&report::hash::to_json(&uids, sink), out)?,
            }
            Outcome::Clean
        }
    };
    out.flush()?;
    Ok(outcome)
}

fn write_json(doc: &serde_json::Value, out: &mut dyn Write) -> Result<(), RunError> {
    serde_json::to_writer_pretty(&mut *out, doc).map_err(io::Error::from)?;
    writeln!(out)?;
    Ok(())
}

/// Loads an argument of `diff`/`lint`, with the warnings its decoding produced (printed once the
/// arguments are known to make sense together).
fn load(path: &Path, gate: &GateArgs) -> Result<(JobInput, Vec<String>), RunError> {
    let input = JobInput::load(
        path,
        decode_options(gate.flink_1_11_channel_state),
        gate.allow_absolute_paths,
    )
    .map_err(RunError::Load)?;
    let warnings = match &input {
        JobInput::Savepoint(s) => s.warnings.clone(),
        _ => Vec::new(),
    };
    Ok((input, warnings))
}

/// Reads a `--uids` file, which must be a uid list.
fn read_uid_list(path: &Path) -> Result<Vec<String>, RunError> {
    let text = read_text(path, "a uid list")?;
    match sniff_text(&text) {
        Ok(TextInput::UidList(uids)) => Ok(uids),
        Ok(TextInput::Manifest(_)) => Err(InputError::new(
            path,
            format!("a graph manifest, not a uid list (first line {UID_LIST_MARKER:?})"),
        )
        .into()),
        Err(what) => Err(InputError::new(path, what).into()),
    }
}

fn show(
    file: &MetadataFile,
    opts: &ShowOptions,
    format: Format,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Outcome, RunError> {
    let report = match format {
        Format::Table => {
            let report = build(file, opts).map_err(decode_error(file))?;
            report::show::write_table(&report, out)?;
            report
        }
        Format::Json => {
            // Rendered while decoding, one operator at a time, into memory: nothing reaches the
            // output unless the whole file decoded.
            let mut text = Vec::new();
            let report =
                report::show::write_json_streaming(file, opts, &mut text).map_err(|e| match e {
                    report::show::ShowJsonError::Decode { path, error } => {
                        RunError::Decode { path, error }
                    }
                    report::show::ShowJsonError::Output(e) => RunError::Output(e.into()),
                })?;
            text.push(b'\n');
            out.write_all(&text)?;
            report
        }
    };
    for w in &report.warnings {
        writeln!(err, "sp-inspect: warning: {}: {w}", report.path)?;
    }
    if !opts.uids.is_empty() && report.uids_matched == 0 {
        writeln!(
            err,
            "sp-inspect: warning: {}: no uid of the --uids list is the uid of an operator of this snapshot",
            report.path
        )?;
    }
    Ok(Outcome::Clean)
}

fn state(
    path: &Path,
    operator: Option<&str>,
    format: Format,
    allow_absolute_paths: bool,
    allow_missing_state: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Outcome, RunError> {
    let file = MetadataFile::open_snapshot(path)?;
    let access = StateAccess::new(file.dir(), allow_absolute_paths);
    let md = crate::metadata::decode(file.bytes(), DecodeOptions::default())
        .map_err(decode_error(&file))?;
    let selected: Vec<_> = md
        .operators
        .iter()
        .filter(|o| match operator {
            None => !o.is_empty(),
            Some(sel) => {
                o.uid.as_deref() == Some(sel)
                    || o.name.as_deref() == Some(sel)
                    || o.id.to_string().eq_ignore_ascii_case(sel)
                    || o.id == operator_id(sel)
            }
        })
        .collect();
    if let (Some(sel), true) = (operator, selected.is_empty()) {
        let names = md
            .operators
            .iter()
            .flat_map(|o| [o.uid.clone(), o.name.clone(), Some(o.id.to_string())])
            .flatten();
        return Err(RunError::Usage(format!(
            "{}: no operator with uid, ID or name {sel:?}{}",
            file.path.display(),
            did_you_mean(sel, names)
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
            let path = file.path.display().to_string();
            serde_json::to_writer_pretty(&mut *out, &report::state::to_json(&path, &reports))
                .map_err(io::Error::from)?;
            writeln!(out)?;
        }
    }
    let problems = report::state::problem_count(&reports);
    if problems > 0 && !allow_missing_state {
        out.flush()?;
        writeln!(
            err,
            "sp-inspect: error: {}: {problems} state {} could not be read; the output is incomplete (--allow-missing-state to exit 0)",
            file.path.display(),
            if problems == 1 { "handle" } else { "handles" }
        )?;
        return Ok(Outcome::Incomplete);
    }
    Ok(Outcome::Clean)
}

fn verify(prediction: &Path, logs: &[PathBuf], out: &mut dyn Write) -> Result<Outcome, RunError> {
    use crate::verify::{compare, Observed, Predicted};
    use std::io::BufRead;
    let text = read_text(
        prediction,
        "a diff-v1 prediction (sp-inspect diff --format json)",
    )?;
    let doc: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        InputError::new(
            prediction,
            format!(
                "not valid JSON at line {} column {}: {e}",
                e.line(),
                e.column()
            ),
        )
    })?;
    let predicted = Predicted::from_json(&doc).map_err(|e| InputError::new(prediction, e))?;
    let mut observed = Observed::default();
    for log in logs {
        let reader: Box<dyn BufRead> = if log.as_os_str() == "-" {
            Box::new(io::BufReader::new(io::stdin()))
        } else {
            Box::new(io::BufReader::new(crate::input::open_regular(log)?))
        };
        let mut reader = reader;
        let mut line = Vec::new();
        loop {
            line.clear();
            let n = reader
                .read_until(b'\n', &mut line)
                .map_err(|e| InputError::new(log, e.to_string()))?;
            if n == 0 {
                break;
            }
            observed.read(&String::from_utf8_lossy(&line));
        }
    }
    if !observed.says_anything() {
        return Err(RunError::Usage(format!(
            "{}: no restore in the logs (no \"Starting job ... from savepoint\", no skipped or unmapped state): nothing to verify",
            logs.iter().map(|l| l.display().to_string()).collect::<Vec<_>>().join(", ")
        )));
    }
    let differences = compare(&predicted, &observed);
    if differences.is_empty() {
        writeln!(
            out,
            "matched: Flink did what was predicted ({}; {} skipped, {} unmapped)",
            predicted.verdict,
            observed.skipped.len() + observed.skipped_empty.len(),
            observed.cannot_map.len() + observed.max_parallelism.len()
        )?;
        return Ok(Outcome::Clean);
    }
    writeln!(
        out,
        "differs: Flink did not do what was predicted ({}):",
        predicted.verdict
    )?;
    for d in &differences {
        writeln!(out, "  - {d}")?;
    }
    Ok(Outcome::Findings)
}

/// `--latest`: every snapshot argument that is a directory becomes the newest completed snapshot under it.
fn take_latest(command: &mut Command) -> Result<(), RunError> {
    let newest = |p: &mut PathBuf| -> Result<(), RunError> {
        if p.is_dir() {
            *p = crate::discover::latest(p)?.dir;
        }
        Ok(())
    };
    match command {
        Command::Show { path, .. } | Command::State { path, .. } => newest(path),
        Command::Diff { old, .. } | Command::Remap { old, .. } | Command::Relocate { old, .. } => {
            newest(old)
        }
        Command::Lint { inputs, .. } => inputs.iter_mut().try_for_each(newest),
        _ => Err(RunError::Usage(
            "--latest does nothing here: it picks the newest snapshot for show, state, diff (OLD), lint, remap and relocate".into(),
        )),
    }
}

fn remap_error(e: crate::remap::RemapError) -> RunError {
    use crate::remap::RemapError;
    match e {
        RemapError::Io(e) => RunError::Input(e),
        RemapError::Decode { path, error } => RunError::Decode { path, error },
        other => RunError::Usage(other.to_string()),
    }
}

#[allow(clippy::too_many_arguments)] // one per flag of the command
fn remap(
    old: &Path,
    new: &Path,
    output: Option<&Path>,
    map: Option<&Path>,
    old_graph: Option<&Path>,
    dry_run: bool,
    copy: bool,
    out: &mut dyn Write,
) -> Result<Outcome, RunError> {
    use crate::remap::{parse_map, plan, write_remapped, Files};
    let file = MetadataFile::open_snapshot(old)?;
    let decode = DecodeOptions::default();
    let mut old_ops = JobInput::load(old, decode, false)?.as_old();
    if let Some(g) = old_graph {
        match JobInput::load(g, decode, false)? {
            JobInput::Manifest(ops, _) => crate::job::name_old_from_graph(&mut old_ops, &ops),
            other => {
                return Err(RunError::Usage(format!(
                    "--old-graph {}: is a {}; expected a graph manifest",
                    g.display(),
                    other.kind()
                )))
            }
        }
    }
    let new_ops = match JobInput::load(new, decode, false)? {
        JobInput::Savepoint(_) => {
            return Err(RunError::Usage(format!(
                "NEW {}: is a savepoint; remap takes the new job's graph manifest",
                new.display()
            )))
        }
        graph => graph.as_new(),
    };
    let map = match map {
        Some(m) => {
            parse_map(&read_text(m, "a remap file (OLD = NEW lines)")?).map_err(remap_error)?
        }
        None => Vec::new(),
    };
    let plan = plan(&old_ops, &new_ops, &map).map_err(remap_error)?;
    for a in &plan.assignments {
        writeln!(
            out,
            "{} → {} {} (by {})",
            crate::diff::label(&a.old.id, a.old.uid.as_deref(), a.old.name.as_deref()),
            a.new.id,
            crate::diff::label(&a.new.id, a.new.uid.as_deref(), a.new.name.as_deref()),
            a.how.name()
        )?;
    }
    if !plan.dropped_empty.is_empty() {
        writeln!(
            out,
            "left out: {} that no new operator is meant for (Flink skips them anyway)",
            crate::rules::plural(plan.dropped_empty.len(), "empty entry", "empty entries")
        )?;
    }
    if dry_run {
        return Ok(Outcome::Clean);
    }
    let Some(dir) = output else {
        return Err(RunError::Usage(
            "--output DIR is required without --dry-run".into(),
        ));
    };
    let files = if copy { Files::Copied } else { Files::Shared };
    let path = write_remapped(&file, &plan, dir, files).map_err(remap_error)?;
    writeln!(
        out,
        "wrote {} ({}, format {}); {} is unchanged",
        path.display(),
        crate::rules::plural(plan.assignments.len(), "operator state", "operator states"),
        crate::metadata::Decoder::new(file.bytes(), decode)
            .map(|d| d.header().version)
            .unwrap_or_default(),
        file.path.display()
    )?;
    Ok(Outcome::Clean)
}

/// `; did you mean "x"?` for the closest of `candidates` to `given`, when one is close.
fn did_you_mean(given: &str, candidates: impl Iterator<Item = String>) -> String {
    let given_lower = given.to_lowercase();
    candidates
        .map(|c| (strsim::jaro_winkler(&given_lower, &c.to_lowercase()), c))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map_or(String::new(), |(_, c)| format!("; did you mean {c:?}?"))
}

fn gate_config(args: &GateArgs) -> Result<(Config, FailOn), RunError> {
    let default = PathBuf::from("sp-inspect.toml");
    let path = match &args.config {
        Some(p) => Some(p.clone()),
        None => default.is_file().then_some(default),
    };
    let config = match path {
        Some(p) => Config::parse(&read_text(&p, "an sp-inspect.toml configuration")?)
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
    inputs: &[&Path],
    stdout: &mut dyn Write,
) -> Result<Outcome, RunError> {
    let mut file;
    let out: &mut dyn Write = match &args.output {
        Some(p) if p.as_os_str() != "-" => {
            check_output(p, inputs)?;
            file = io::BufWriter::new(
                std::fs::File::create(p)
                    .map_err(|e| InputError::new(p, format!("cannot write the report: {e}")))?,
            );
            &mut file
        }
        _ => stdout,
    };
    report::gate::render(
        r,
        args.format,
        report::gate::Layout {
            all: args.all,
            width: report::gate::Layout::width(),
        },
        out,
    )?;
    out.flush()?;
    Ok(if r.failed() {
        Outcome::Findings
    } else {
        Outcome::Clean
    })
}

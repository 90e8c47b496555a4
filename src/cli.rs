//! Command-line flags and help text. No I/O here.

use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// A path argument: a local path, or a `file:` URL as Flink prints savepoint locations
/// (`file:/tmp/sp/savepoint-1`, `file:///tmp/sp/savepoint-1`).
fn path_arg(s: &str) -> Result<PathBuf, String> {
    let local = match s.strip_prefix("file://") {
        Some(rest) if rest.starts_with('/') => rest,
        Some(_) => {
            return Err(format!(
                "{s:?}: a file: URL names a local path, file:///path"
            ))
        }
        None => s.strip_prefix("file:").unwrap_or(s),
    };
    if local.is_empty() {
        return Err("an empty path".into());
    }
    Ok(PathBuf::from(local))
}

/// Tells you, before you deploy, what your Flink savepoint will do to the new job.
#[derive(Debug, Parser)]
#[command(name = "sp-inspect", version, about, after_help = EXIT_CODES)]
pub struct Cli {
    /// Take the newest completed snapshot under the directory given (a job's checkpoint directory, a
    /// savepoint directory): the highest checkpoint ID, as Flink's latest checkpoint.
    #[arg(long, global = true)]
    pub latest: bool,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

const EXIT_CODES: &str = "Exit codes: 0 = success (diff/lint: no finding at or above --fail-on), 1 = diff/lint \
findings at or above --fail-on, 2 = usage, I/O or decode error, or state files that `state` could not read \
(never 0 when an input could not be fully read). A closed output pipe exits 0.";

/// Output formats of `diff` and `lint`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GateFormat {
    /// A terminal report.
    Table,
    /// A stable JSON document (`sp-inspect/diff-v1`, `sp-inspect/lint-v1`; see docs/).
    Json,
    /// GitHub-flavoured Markdown (pull-request comments, job summaries).
    Markdown,
    /// GitHub Actions annotations, worst first within GitHub's limits; the rest in `$GITHUB_STEP_SUMMARY`.
    Github,
    /// SARIF 2.1.0 (code scanning).
    Sarif,
    /// JUnit XML.
    Junit,
    /// Graphviz: where state goes, old operators → new operators.
    Dot,
    /// GitLab code quality (Code Climate JSON): the `codequality` report of a merge request.
    Gitlab,
}

/// Options shared by `diff` and `lint`.
#[derive(Debug, clap::Args)]
pub struct GateArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = GateFormat::Table)]
    pub format: GateFormat,
    /// Exit 1 when a finding is at or above this severity: error, warning, info or never
    /// [default: the config file's fail_on, else error].
    #[arg(long, value_name = "LEVEL")]
    pub fail_on: Option<String>,
    /// Configuration file [default: ./sp-inspect.toml when it exists].
    #[arg(long, value_name = "FILE", value_parser = path_arg)]
    pub config: Option<PathBuf>,
    /// diff: list every operator (by default, those that restore fine or start empty are counted).
    #[arg(long)]
    pub all: bool,
    /// Write the report to FILE instead of stdout (`-` = stdout).
    #[arg(long, short, value_name = "FILE", value_parser = path_arg)]
    pub output: Option<PathBuf>,
    /// Unaligned checkpoints written by Flink 1.11 (see `show --help`).
    #[arg(long)]
    pub flink_1_11_channel_state: bool,
    /// Also read state files at absolute `file:` paths outside the snapshot directory (for the Kafka
    /// rules, which read sources' splits and sinks' transactions).
    #[arg(long)]
    pub allow_absolute_paths: bool,
}

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// A human-readable table.
    Table,
    /// A stable JSON document (see docs/).
    Json,
}

/// Output formats of `rules`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RulesFormat {
    /// A terminal listing.
    Table,
    /// JSON.
    Json,
    /// Markdown (docs/rules.md is this output).
    Markdown,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Show the operators and state of a savepoint or checkpoint.
    #[command(after_help = EXIT_CODES)]
    Show {
        /// A savepoint/checkpoint directory or its `_metadata` file.
        #[arg(value_parser = path_arg)]
        path: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
        /// Also show each subtask's state handles.
        #[arg(long)]
        subtasks: bool,
        /// With --subtasks: also print where relative state files are, resolved against the directory
        /// of `_metadata` (a path that would leave it is reported, never followed).
        #[arg(long, requires = "subtasks")]
        resolve_paths: bool,
        /// A uid list (first line `# sp-inspect/uids-v1`, then one uid per line, `#` comments): names
        /// operators of formats that store no uid (Flink before 2.0) by matching their hashes.
        #[arg(long, value_name = "FILE", value_parser = path_arg)]
        uids: Option<PathBuf>,
        /// Also read the state files and show the state names of each operator.
        #[arg(long)]
        state: bool,
        /// With --state: also read state files at absolute `file:` paths outside the snapshot directory.
        #[arg(long, requires = "state")]
        allow_absolute_paths: bool,
        /// The file is an unaligned checkpoint written by Flink 1.11, whose channel-state handles
        /// carry no subtask index.
        #[arg(long)]
        flink_1_11_channel_state: bool,
    },
    /// Predict what Flink does when NEW starts from OLD's state (the pre-deploy gate)
    ///
    /// For every old state and new operator: restored, shifted (state lands on a different operator),
    /// orphaned, new; and Flink's verdict. OLD and NEW are each a savepoint/checkpoint (directory or
    /// `_metadata`), a graph manifest (`sp-inspect/graph-v1` JSON) or a uid list (first line
    /// `# sp-inspect/uids-v1`), told apart by content; anything else is an input error.
    #[command(after_help = EXIT_CODES)]
    Diff {
        /// The state: usually the savepoint the new job will start from.
        #[arg(value_parser = path_arg)]
        old: PathBuf,
        /// The new job: usually its graph manifest (contrib/pyflink/sp_inspect_graph.py).
        #[arg(value_parser = path_arg)]
        new: PathBuf,
        /// The graph manifest of the job that wrote OLD: names its operators (formats before 5 store none).
        #[arg(long, value_name = "FILE", value_parser = path_arg)]
        old_graph: Option<PathBuf>,
        /// The graph manifest of the job that wrote NEW, when NEW is a savepoint.
        #[arg(long, value_name = "FILE", value_parser = path_arg)]
        new_graph: Option<PathBuf>,
        /// Predict a restore with allowNonRestoredState (execution.state-recovery.ignore-unclaimed-state).
        #[arg(long)]
        allow_non_restored_state: bool,
        /// Format, threshold, configuration.
        #[command(flatten)]
        gate: GateArgs,
    },
    /// Check savepoints or graphs for what makes state go to the wrong place on a later deploy.
    #[command(after_help = EXIT_CODES)]
    Lint {
        /// Savepoints/checkpoints, graph manifests or uid lists; given together, Kafka sinks sharing a
        /// transactional id prefix across them are found too.
        #[arg(required = true, value_parser = path_arg)]
        inputs: Vec<PathBuf>,
        /// The graph manifest of the job that wrote a savepoint (names operators of formats before 5).
        #[arg(long, value_name = "FILE", value_parser = path_arg)]
        graph: Option<PathBuf>,
        /// Format, threshold, configuration.
        #[command(flatten)]
        gate: GateArgs,
    },
    /// List the rules of `diff` and `lint`, or explain one.
    Rules {
        /// A rule ID to explain, or a category (RESTORE, STATE_LOSS, HYGIENE, COVERAGE) to list.
        id: Option<String>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = RulesFormat::Table)]
        format: RulesFormat,
    },
    /// Show what the state says: state names, source splits, enumerators, sink transactions
    ///
    /// Operator and keyed state names and serializers, source splits (Kafka topic, partition and offset;
    /// files; number ranges), enumerator checkpoints, Sink V2 writer and committer states.
    #[command(after_help = EXIT_CODES)]
    State {
        /// A savepoint/checkpoint directory or its `_metadata` file.
        #[arg(value_parser = path_arg)]
        path: PathBuf,
        /// Only this operator: its uid, ID or name.
        #[arg(long, value_name = "UID|ID|NAME")]
        operator: Option<String>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
        /// Also read state files at absolute `file:` paths outside the snapshot directory.
        #[arg(long)]
        allow_absolute_paths: bool,
        /// Exit 0 even when some state files could not be read (what could be read is printed either
        /// way, and what could not is listed).
        #[arg(long)]
        allow_missing_state: bool,
    },
    /// Write a savepoint whose operator IDs are the new job's, so that it restores without setUidHash
    ///
    /// Each old state with content goes to the new operator meant for it: a line of --map, else the same
    /// uid, else a name unique on both sides; what cannot be told stops the remap with a list to map.
    /// DIR gets a new _metadata in OLD's format; state files stay in OLD (their paths become absolute)
    /// unless --copy. OLD is never written.
    #[command(after_help = EXIT_CODES)]
    Remap {
        /// The savepoint (directory or `_metadata`).
        #[arg(value_parser = path_arg)]
        old: PathBuf,
        /// The new job's graph manifest (or uid list).
        #[arg(value_parser = path_arg)]
        new: PathBuf,
        /// The new savepoint directory (new, or empty).
        #[arg(long, short, value_name = "DIR", value_parser = path_arg, required_unless_present = "dry_run")]
        output: Option<PathBuf>,
        /// Pairs that cannot be told: a line `OLD = NEW` each (old ID or name; new ID, uid or name).
        #[arg(long, value_name = "FILE", value_parser = path_arg)]
        map: Option<PathBuf>,
        /// The graph manifest of the job that wrote OLD: names its operators (formats before 5 store none).
        #[arg(long, value_name = "FILE", value_parser = path_arg)]
        old_graph: Option<PathBuf>,
        /// Print the mapping and write nothing.
        #[arg(long)]
        dry_run: bool,
        /// Copy the relative state files into DIR instead of pointing at them in OLD.
        #[arg(long)]
        copy: bool,
    },
    /// Write a snapshot whose absolute state paths under one prefix are moved under another
    #[command(after_help = EXIT_CODES)]
    Relocate {
        /// The savepoint or checkpoint (directory or `_metadata`).
        #[arg(value_parser = path_arg)]
        old: PathBuf,
        /// The prefix the paths have now (e.g. `file:/old/checkpoints/`, `s3://old-bucket/`).
        #[arg(long, value_name = "PREFIX")]
        from: String,
        /// The prefix they get.
        #[arg(long, value_name = "PREFIX")]
        to: String,
        /// The new directory (new, or empty).
        #[arg(long, short, value_name = "DIR", value_parser = path_arg)]
        output: PathBuf,
    },
    /// After the deploy: did Flink do what diff predicted? (exit 0: yes, 1: no)
    ///
    /// Reads Flink's own log lines (JobManager logs: Skipping savepoint state for operator …, Cannot map
    /// checkpoint/savepoint state …, Max parallelism mismatch …) and compares them with a prediction
    /// written by `sp-inspect diff --format json`. A log that shows no restore is an input error.
    #[command(after_help = EXIT_CODES)]
    Verify {
        /// The prediction: `sp-inspect diff --format json` output (sp-inspect/diff-v1).
        #[arg(value_parser = path_arg)]
        prediction: PathBuf,
        /// Flink's logs (`-` for standard input).
        #[arg(required = true)]
        logs: Vec<PathBuf>,
    },
    /// List the snapshots under a directory: checkpoint ID, kind, when written, size, format
    #[command(after_help = EXIT_CODES)]
    Ls {
        /// A job's checkpoint directory, a directory of savepoints, or one above them.
        #[arg(value_parser = path_arg)]
        dir: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
    },
    /// Print shell completions (bash, zsh, fish, elvish, powershell) to stdout.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff) to stdout.
    Man,
    /// Print Flink's operator ID for each uid.
    #[command(after_help = EXIT_CODES)]
    Hash {
        /// The uids.
        #[arg(required = true)]
        uids: Vec<String>,
        /// Also print the IDs of the Sink V2 committer and global committer a sink with this uid gets.
        #[arg(long)]
        sink: bool,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
    },
}

//! Command-line flags and help text. No I/O here.

use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// Tells you, before you deploy, what your Flink savepoint will do to the new job.
#[derive(Debug, Parser)]
#[command(name = "sp-inspect", version, about, after_help = EXIT_CODES)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

const EXIT_CODES: &str =
    "Exit codes: 0 = success, 2 = usage, I/O or decode error. A closed output pipe exits 0.";

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// A human-readable table.
    Table,
    /// A stable JSON document (see docs/).
    Json,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Show the operators and state of a savepoint or checkpoint.
    #[command(after_help = EXIT_CODES)]
    Show {
        /// A savepoint/checkpoint directory or its `_metadata` file.
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
        /// A file of uids, one per line (`#` comments): names operators of formats that store no uid
        /// (Flink before 2.0) by matching their hashes.
        #[arg(long, value_name = "FILE")]
        uids: Option<PathBuf>,
        /// The file is an unaligned checkpoint written by Flink 1.11, whose channel-state handles
        /// carry no subtask index.
        #[arg(long)]
        flink_1_11_channel_state: bool,
    },
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

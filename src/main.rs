use clap::Parser;

/// Decoding allocates many small strings and vectors; mimalloc makes that about a quarter cheaper
/// than the system allocator (see benches/run.sh).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
use sp_inspect::cli::Cli;
use sp_inspect::run::{run, Outcome, RunError};
use std::io::{self, Write};
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let mut err = io::stderr();
    match run(cli, &mut out, &mut err) {
        Ok(Outcome::Clean) => ExitCode::SUCCESS,
        Ok(Outcome::Findings) => ExitCode::from(1),
        Ok(Outcome::Incomplete) => ExitCode::from(2),
        Err(RunError::Output(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            // This level's words, then each cause: "FILE: byte offset N in …: what was expected".
            let mut message = e.to_string();
            let mut cause = std::error::Error::source(&e);
            while let Some(c) = cause {
                message.push_str(": ");
                message.push_str(&c.to_string());
                cause = c.source();
            }
            let _ = writeln!(err, "sp-inspect: error: {message}");
            ExitCode::from(2)
        }
    }
}

//! The README's examples are the tool's output: every fenced block that starts with `$ sp-inspect ...`
//! (continued with `\` lines) is run, at 100 columns, and what follows the command must be exactly what it
//! prints. `SP_INSPECT_UPDATE=1 cargo test --test readme` rewrites the blocks.

use std::path::Path;
use std::process::Command;

/// The README, split into text and example blocks: (command line(s), the expected output).
enum Part {
    Text(String),
    Example { command: String, output: String },
}

fn parts(readme: &str) -> Vec<Part> {
    let mut parts = Vec::new();
    let mut text = String::new();
    let mut lines = readme.split_inclusive('\n');
    while let Some(line) = lines.next() {
        text.push_str(line);
        if !line.starts_with("```") {
            continue;
        }
        // An opening fence (with or without a language): is the block an example?
        let mut block = Vec::new();
        for l in lines.by_ref() {
            if l.trim_end() == "```" {
                break;
            }
            block.push(l);
        }
        if block
            .first()
            .is_some_and(|l| l.starts_with("$ sp-inspect "))
        {
            let n = block
                .iter()
                .position(|l| !l.trim_end().ends_with('\\'))
                .map_or(block.len(), |i| i + 1);
            parts.push(Part::Text(std::mem::take(&mut text)));
            parts.push(Part::Example {
                command: block[..n].concat(),
                output: block[n..].concat(),
            });
            text.push_str("```\n");
        } else {
            text.push_str(&block.concat());
            text.push_str("```\n");
        }
    }
    parts.push(Part::Text(text));
    parts
}

fn run(command: &str) -> String {
    let words: Vec<&str> = command
        .trim_start_matches("$ sp-inspect ")
        .split_whitespace()
        .filter(|w| *w != "\\")
        .collect();
    let out = Command::new(env!("CARGO_BIN_EXE_sp-inspect"))
        .args(&words)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("COLUMNS", "100")
        .output()
        .expect("run sp-inspect");
    assert!(
        out.status.code().is_some_and(|c| c < 2),
        "{command}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 output")
}

#[test]
fn every_example_in_the_readme_is_what_the_tool_prints() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    let readme = std::fs::read_to_string(&path).expect("README.md");
    let mut rewritten = String::new();
    let mut stale = Vec::new();
    let mut examples = 0;
    for part in parts(&readme) {
        match part {
            Part::Text(t) => rewritten.push_str(&t),
            Part::Example { command, output } => {
                examples += 1;
                let got = run(&command);
                if got != output {
                    stale.push(command.lines().next().unwrap_or_default().to_string());
                }
                rewritten.push_str(&command);
                rewritten.push_str(&got);
            }
        }
    }
    assert!(examples >= 4, "only {examples} examples found");
    if std::env::var_os("SP_INSPECT_UPDATE").is_some() {
        std::fs::write(&path, rewritten).expect("write README.md");
        return;
    }
    assert!(
        stale.is_empty(),
        "README examples out of date (SP_INSPECT_UPDATE=1 cargo test --test readme rewrites them): {stale:#?}"
    );
    assert_eq!(rewritten, readme, "the README's text survives the parse");
}

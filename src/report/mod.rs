//! Rendering of command results. Renderers write to a `dyn Write` and never decide exit codes.

pub mod discover;
pub mod gate;
pub mod handles;
pub mod hash;
pub mod rules;
pub mod show;
pub mod state;
pub mod text;

/// Human-readable byte count (`1.5 KiB`).
pub fn human_bytes(n: i64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = n as f64;
    let mut unit = 0;
    while v.abs() >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} B")
    } else {
        format!("{v:.1} {}", UNITS[unit])
    }
}

/// `text` filled to `width` columns (at least 40), the first line indented by `first`, the others by
/// `rest`. Breaks at spaces only, so that uids and IDs stay whole unless longer than a line.
pub fn wrap(text: &str, width: usize, first: &str, rest: &str) -> String {
    let opts = textwrap::Options::new(width.max(40))
        .initial_indent(first)
        .subsequent_indent(rest)
        .word_splitter(textwrap::WordSplitter::NoHyphenation);
    textwrap::fill(text, opts)
}

/// The longest run of characters without a space that table cells keep whole. comfy-table wraps a
/// longer word by trying every split of it (quadratic: three 65,535-byte names took 5 s); broken into
/// pieces of this length first, any cell renders in linear time.
const CELL_WORD: usize = 40;

/// `text` with every word longer than [`CELL_WORD`] characters broken into lines of that length.
pub fn cell(text: &str) -> String {
    if text.len() <= CELL_WORD {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + text.len() / CELL_WORD);
    let mut run = 0;
    for c in text.chars() {
        if c.is_whitespace() {
            run = 0;
        } else {
            if run == CELL_WORD {
                out.push('\n');
                run = 0;
            }
            run += 1;
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_break_only_long_words() {
        assert_eq!(cell("short words stay"), "short words stay");
        let long = "x".repeat(CELL_WORD * 2 + 1);
        let broken = cell(&format!("a {long} b"));
        let lines: Vec<&str> = broken.split('\n').collect();
        assert_eq!(lines.len(), 3, "{broken}");
        assert!(lines.iter().all(|l| l.chars().count() <= CELL_WORD + 2));
        assert_eq!(broken.replace('\n', ""), format!("a {long} b"));
    }
}

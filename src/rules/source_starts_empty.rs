//! `SOURCE_STARTS_EMPTY`: new sources that start without restored splits.

use super::*;

/// The rule.
pub static RULE: Rule = Rule {
    id: "SOURCE_STARTS_EMPTY",
    category: Category::StateLoss,
    default_severity: Severity::Warning,
    summary: "Every source of the new job resumes from restored splits or offsets.",
    explain: "A source that claims no state starts from its configured starting position (earliest, latest, committed offsets or a timestamp): it re-reads or skips data. Expected for a source added on purpose; a surprise when the source existed before under another ID.",
    title: "source starts without restored splits",
    help: "expected for a source added on purpose; if it existed before under another ID, give it setUidHash with that ID",
    checks: &[Check::Diff(check)],
};

fn check(ctx: &DiffContext<'_>) -> Vec<Finding> {
    ctx.entries(&RULE, |e| {
        e.status == Status::New && e.new.as_ref().is_some_and(|n| n.is_source())
    })
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use crate::diff::{diff, RestoreOptions};

    #[test]
    fn fires_on_a_new_source_and_not_on_another_new_operator() {
        let mut s = new_op("p9", "Source: s");
        s.source = true;
        assert_eq!(
            ids(&diff(&[], &[s], RestoreOptions::default())),
            ["SOURCE_STARTS_EMPTY"]
        );
        assert!(ids(&diff(
            &[],
            &[new_op("p9", "map")],
            RestoreOptions::default()
        ))
        .is_empty());
    }
}

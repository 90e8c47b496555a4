//! The words for fixes and for findings without one, shared by every renderer.

use crate::fix::{Fix, FixKind};

/// Languages of the snippets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    /// Java DataStream API.
    Java,
    /// Scala DataStream API.
    Scala,
    /// PyFlink.
    Python,
}

impl Lang {
    /// All, in the order reports show them.
    pub const ALL: [Lang; 3] = [Lang::Java, Lang::Scala, Lang::Python];

    /// Stable name used in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Lang::Java => "java",
            Lang::Scala => "scala",
            Lang::Python => "python",
        }
    }
}

fn who(f: &Fix) -> String {
    match (&f.new_name, f.new_id) {
        (Some(n), _) => n.clone(),
        (None, Some(id)) => id.to_string(),
        (None, None) => "the job".into(),
    }
}

/// The fix in one sentence.
pub fn fix_sentence(f: &Fix) -> String {
    let old = f
        .old_name
        .clone()
        .or(f.old_id.map(|i| i.to_string()))
        .unwrap_or_default();
    let sure = match f.pairing {
        Some(crate::fix::Pairing::Name) => " (paired by name)",
        _ => "",
    };
    match f.kind {
        FixKind::SetUidHash if f.old_name == f.new_name => {
            format!("{}: keep its state, under a uid of its own{sure}", who(f))
        }
        FixKind::SetUidHash => format!("{}: claim the state of {old}{sure}", who(f)),
        FixKind::SetUid if old.is_empty() => {
            format!("{}: it holds state, give it an ID of its own", who(f))
        }
        FixKind::SetUid => format!(
            "{}: an ID of its own, so that it stops taking the state of {old}",
            who(f)
        ),
        FixKind::KeepUid => format!("{}: take its old uid back, to claim its state{sure}", who(f)),
        FixKind::UnsetMaxParallelism => format!(
            "{} operators: remove the explicit max parallelism {} (setMaxParallelism, pipeline.max-parallelism) or set the savepoint's {}",
            f.operators.len(),
            f.configured_max_parallelism.unwrap_or_default(),
            f.max_parallelism.unwrap_or_default()
        ),
    }
}

/// The code change, in `lang`.
pub fn snippet(f: &Fix, lang: Lang) -> String {
    let uid = f.uid.as_deref().unwrap_or_default();
    let hash = f.uid_hash.map(|h| h.to_string()).unwrap_or_default();
    match (f.kind, lang) {
        (FixKind::SetUidHash, Lang::Python) => format!(".uid(\"{uid}\").set_uid_hash(\"{hash}\")"),
        (FixKind::SetUidHash, _) => format!(".uid(\"{uid}\").setUidHash(\"{hash}\")"),
        (FixKind::SetUid | FixKind::KeepUid, _) => format!(".uid(\"{uid}\")"),
        (FixKind::UnsetMaxParallelism, lang) => {
            let now = f.configured_max_parallelism.unwrap_or_default();
            let was = f.max_parallelism.unwrap_or_default();
            match lang {
                Lang::Python => format!(
                    "remove .set_max_parallelism({now}) and env.set_max_parallelism({now}), or set {was}"
                ),
                _ => format!(
                    "remove .setMaxParallelism({now}) and env.setMaxParallelism({now}), or set {was}"
                ),
            }
        }
    }
}

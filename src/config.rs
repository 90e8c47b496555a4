//! `sp-inspect.toml`: rule severities, the failure threshold and ignores.
//!
//! ```toml
//! fail_on = "error"                # error | warning | info | never
//!
//! [rules]
//! OPERATOR_WITHOUT_UID = "off"     # off | info | warning | error
//! SOURCE_STARTS_EMPTY = "error"
//!
//! [[ignore]]                       # a finding is ignored when every given key matches
//! rules = ["STATE_DROPPED_EMPTY"]  # rule IDs or categories (RESTORE, STATE_LOSS, HYGIENE); all when absent
//! uid = "legacy-*"                 # `*` matches any run of characters
//! name = "Source: *"
//! id = "cbc357ccb763df2852fee8c4fc7d55f2"
//! ```

use crate::rules::{self, Finding, Severity};
use serde::Deserialize;
use std::collections::BTreeMap;

/// The failure threshold: findings at or above it make the exit code 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailOn {
    /// At or above this severity.
    Severity(Severity),
    /// Never fail on findings.
    Never,
}

impl FailOn {
    /// Parses `error`, `warning`, `info` or `never`.
    pub fn parse(s: &str) -> Option<FailOn> {
        if s == "never" {
            Some(FailOn::Never)
        } else {
            Severity::parse(s).map(FailOn::Severity)
        }
    }

    /// Whether `s` fails the gate.
    pub fn fails(self, s: Severity) -> bool {
        matches!(self, FailOn::Severity(t) if s >= t)
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    fail_on: Option<String>,
    #[serde(default)]
    rules: BTreeMap<String, String>,
    #[serde(default)]
    ignore: Vec<Ignore>,
}

/// One ignore entry: every key given must match.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Ignore {
    /// Rule IDs or categories; all rules when absent.
    #[serde(default)]
    pub rules: Vec<String>,
    /// Uid pattern.
    pub uid: Option<String>,
    /// Operator ID (32 hex).
    pub id: Option<String>,
    /// Name pattern.
    pub name: Option<String>,
}

/// A loaded configuration.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Config {
    /// `fail_on`, when set.
    pub fail_on: Option<FailOn>,
    /// Severity per rule ID; `None` = off.
    pub severities: BTreeMap<String, Option<Severity>>,
    /// Ignores.
    pub ignore: Vec<Ignore>,
}

/// `*` matches any run of characters; everything else matches itself.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or_default();
    let Some(mut rest) = text.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty();
    };
    for p in middle {
        match rest.find(p) {
            Some(i) => rest = &rest[i + p.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

impl Config {
    /// Parses the TOML text of a configuration file.
    pub fn parse(text: &str) -> Result<Config, String> {
        let raw: RawConfig = toml::from_str(text).map_err(|e| e.to_string())?;
        let fail_on = match raw.fail_on {
            None => None,
            Some(s) => Some(FailOn::parse(&s).ok_or(format!(
                "fail_on = {s:?}: expected error, warning, info or never"
            ))?),
        };
        let mut severities = BTreeMap::new();
        for (id, level) in raw.rules {
            if rules::by_id(&id).is_none() {
                return Err(format!(
                    "[rules] {id}: no such rule (see `sp-inspect rules`)"
                ));
            }
            let sev = if level == "off" {
                None
            } else {
                Some(Severity::parse(&level).ok_or(format!(
                    "[rules] {id} = {level:?}: expected off, info, warning or error"
                ))?)
            };
            severities.insert(id, sev);
        }
        for ig in &raw.ignore {
            for r in &ig.rules {
                let category = rules::ALL.iter().any(|x| x.category.name() == r);
                if rules::by_id(r).is_none() && !category {
                    return Err(format!(
                        "[[ignore]] rules: {r:?} is neither a rule ID nor a category"
                    ));
                }
            }
        }
        Ok(Config {
            fail_on,
            severities,
            ignore: raw.ignore,
        })
    }

    /// Applies severities and ignores to findings.
    pub fn apply(&self, findings: Vec<Finding>) -> Vec<Finding> {
        findings
            .into_iter()
            .filter_map(|mut f| {
                if let Some(level) = self.severities.get(f.rule.id) {
                    f.severity = (*level)?;
                }
                (!self.ignore.iter().any(|ig| ignores(ig, &f))).then_some(f)
            })
            .collect()
    }
}

fn ignores(ig: &Ignore, f: &Finding) -> bool {
    let rule_ok = ig.rules.is_empty()
        || ig
            .rules
            .iter()
            .any(|r| r == f.rule.id || r == f.rule.category.name());
    let uid_ok = ig
        .uid
        .as_ref()
        .is_none_or(|p| f.uid.as_deref().is_some_and(|u| glob_match(p, u)));
    let name_ok = ig
        .name
        .as_ref()
        .is_none_or(|p| f.name.as_deref().is_some_and(|n| glob_match(p, n)));
    let id_ok = ig.id.as_ref().is_none_or(|i| {
        f.operator_id
            .is_some_and(|x| x.to_string().eq_ignore_ascii_case(i))
    });
    rule_ok && uid_ok && name_ok && id_ok
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glob() {
        assert!(glob_match("Source: *", "Source: orders"));
        assert!(glob_match("*orders*", "Source: orders-eu"));
        assert!(glob_match("a*b*c", "aXbYc"));
        assert!(!glob_match("a*b*c", "aXbY"));
        assert!(glob_match("exact", "exact"));
        assert!(!glob_match("exact", "exactly"));
        assert!(glob_match("*", ""));
    }

    #[test]
    fn config_sets_severity_and_ignores() {
        let c = Config::parse(
            "fail_on = \"warning\"\n[rules]\nOPERATOR_WITHOUT_UID = \"off\"\nSTATE_SHIFTED = \"warning\"\n[[ignore]]\nrules = [\"HYGIENE\"]\nname = \"Sink: *\"\n",
        )
        .expect("valid");
        assert_eq!(c.fail_on, Some(FailOn::Severity(Severity::Warning)));
        let f = |rule, name: &str| {
            Finding::new(rule, "m".into(), "x").on(
                crate::model::OperatorId([0; 16]),
                None,
                Some(name),
            )
        };
        let out = c.apply(vec![
            f(&rules::OPERATOR_WITHOUT_UID, "map"),
            f(&rules::STATE_SHIFTED, "map"),
            f(&rules::SINK_WITHOUT_UID, "Sink: Writer"),
            f(&rules::SINK_WITHOUT_UID, "files: Writer"),
        ]);
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].severity, Severity::Warning);
        assert_eq!(out[1].name.as_deref(), Some("files: Writer"));
        assert!(Config::parse("[rules]\nNO_SUCH_RULE = \"off\"").is_err());
        assert!(Config::parse("bogus = 1").is_err());
    }
}

//! Output of `sp-inspect hash`.

use crate::hash::{operator_id, sink_committer_uid, sink_global_committer_uid};
use comfy_table::{presets::UTF8_FULL_CONDENSED, Table};
use serde_json::{json, Value};
use std::io::{self, Write};

/// One row: (given uid, role, the uid Flink hashes, its operator ID).
fn rows(uids: &[String], sink: bool) -> Vec<(String, &'static str, String, String)> {
    let mut out = Vec::new();
    for u in uids {
        if sink {
            out.push((
                u.clone(),
                "sink writer",
                u.clone(),
                operator_id(u).to_string(),
            ));
            let c = sink_committer_uid(u);
            out.push((
                u.clone(),
                "sink committer",
                c.clone(),
                operator_id(&c).to_string(),
            ));
            let g = sink_global_committer_uid(u);
            out.push((
                u.clone(),
                "sink global committer",
                g.clone(),
                operator_id(&g).to_string(),
            ));
        } else {
            out.push((u.clone(), "operator", u.clone(), operator_id(u).to_string()));
        }
    }
    out
}

/// The table.
pub fn write_table(uids: &[String], sink: bool, out: &mut dyn Write) -> io::Result<()> {
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED);
    if sink {
        t.set_header(vec!["uid", "role", "hashed uid", "operator id"]);
        for (u, role, h, id) in rows(uids, true) {
            t.add_row(vec![u, role.to_string(), h, id]);
        }
    } else {
        t.set_header(vec!["uid", "operator id"]);
        for (u, _, _, id) in rows(uids, false) {
            t.add_row(vec![u, id]);
        }
    }
    writeln!(out, "{t}")
}

/// The JSON document (`sp-inspect/hash-v1`).
pub fn to_json(uids: &[String], sink: bool) -> Value {
    json!({
        "schema": "sp-inspect/hash-v1",
        "ids": rows(uids, sink).into_iter().map(|(u, role, h, id)| json!({
            "uid": u, "role": role.replace(' ', "_"), "hashed_uid": h, "id": id,
        })).collect::<Vec<_>>(),
    })
}

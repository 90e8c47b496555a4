//! Operator IDs from uid strings, exactly as Flink's `StreamGraphHasherV2` computes them.

use crate::model::OperatorId;

/// Flink's operator ID for a uid: murmur3 x64 128 (seed 0) of the uid's UTF-8 bytes, as h1 then h2,
/// each little-endian.
pub fn operator_id(uid: &str) -> OperatorId {
    // Reading from a byte slice cannot fail.
    let h = murmur3::murmur3_x64_128(&mut uid.as_bytes(), 0).unwrap_or_default();
    OperatorId(h.to_le_bytes())
}

/// The uid Flink gives a Sink V2 committer when the sink has uid `uid`.
pub fn sink_committer_uid(uid: &str) -> String {
    format!("Sink Committer: {uid}")
}

/// The uid Flink gives a Sink V2 global committer when the sink has uid `uid`.
pub fn sink_global_committer_uid(uid: &str) -> String {
    format!("Sink {uid} Global Committer")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_id_flink_prints() {
        // From DEVELOPERS.md: verified against real Flink.
        assert_eq!(
            operator_id("view-success").to_string(),
            "4e43b80edf788b2331a77ae743857d12"
        );
        assert_eq!(
            operator_id("").to_string(),
            "00000000000000000000000000000000"
        );
    }
}

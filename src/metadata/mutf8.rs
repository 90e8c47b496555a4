//! Java's "modified UTF-8" (`DataInput.readUTF`): NUL as `C0 80`, supplementary characters as two
//! encoded UTF-16 surrogates, no 4-byte sequences.

/// Decodes modified UTF-8. On failure returns the byte position in `raw` and the reason.
pub fn decode(raw: &[u8]) -> Result<String, (usize, &'static str)> {
    // Fast paths: ASCII (almost every name and path), and standard UTF-8 without 4-byte sequences,
    // decode to the same characters.
    if let Ok(s) = std::str::from_utf8(raw) {
        if s.is_ascii() || !raw.iter().any(|&b| b >= 0xF0) {
            return Ok(s.to_owned());
        }
    }
    let mut units: Vec<u16> = Vec::with_capacity(raw.len());
    let mut i = 0;
    while let Some(&b0) = raw.get(i) {
        let cont = |k: usize| -> Result<u16, (usize, &'static str)> {
            match raw.get(i + k) {
                Some(&b) if b & 0xC0 == 0x80 => Ok(u16::from(b & 0x3F)),
                Some(_) => Err((i + k, "bad continuation byte")),
                None => Err((i + k, "string ends inside a character")),
            }
        };
        match b0 >> 4 {
            0x0..=0x7 => {
                units.push(u16::from(b0));
                i += 1;
            }
            0xC | 0xD => {
                units.push((u16::from(b0 & 0x1F) << 6) | cont(1)?);
                i += 2;
            }
            0xE => {
                units.push((u16::from(b0 & 0x0F) << 12) | (cont(1)? << 6) | cont(2)?);
                i += 3;
            }
            _ => return Err((i, "byte that cannot start a character")),
        }
    }
    let mut out = String::with_capacity(units.len());
    for (k, c) in char::decode_utf16(units.iter().copied()).enumerate() {
        match c {
            Ok(c) => out.push(c),
            // Java strings may hold a lone surrogate; a Rust string cannot. Flink never writes one.
            Err(_) => return Err((k.min(raw.len()), "unpaired UTF-16 surrogate")),
        }
    }
    Ok(out)
}

/// Encodes a string as modified UTF-8 (the inverse of [`decode`]).
pub fn encode(s: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    let mut buf = [0u16; 2];
    for ch in s.chars() {
        for &u in ch.encode_utf16(&mut buf).iter() {
            match u {
                0x0001..=0x007F => out.push(u as u8),
                0x0000 | 0x0080..=0x07FF => {
                    out.push(0xC0 | (u >> 6) as u8);
                    out.push(0x80 | (u & 0x3F) as u8);
                }
                _ => {
                    out.push(0xE0 | (u >> 12) as u8);
                    out.push(0x80 | ((u >> 6) & 0x3F) as u8);
                    out.push(0x80 | (u & 0x3F) as u8);
                }
            }
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn nul_and_supplementary_characters_round_trip() {
        let s = "a\u{0}é€😀";
        let enc = encode(s);
        assert_eq!(enc[1..3], [0xC0, 0x80]);
        assert!(!enc.iter().any(|&b| b >= 0xF0), "no 4-byte sequences");
        assert_eq!(decode(&enc).unwrap(), s);
    }

    #[test]
    fn rejects_four_byte_sequences_and_lone_surrogates() {
        assert!(decode("😀".as_bytes()).is_err());
        assert!(decode(&[0xED, 0xA0, 0x80]).is_err());
        assert!(decode(&[0xC3]).is_err());
    }
}

//! Elements of operator list state: where each one starts (the handle's offsets), its framing
//! (`BytePrimitiveArraySerializer`, `SimpleVersionedSerialization`), and Snappy-framed compression.

use crate::metadata::error::ErrorKind;
use crate::metadata::reader::{Cursor, Result};

/// Decompresses Snappy framed chunks starting at the beginning of `data` until `want` bytes are out
/// (Flink flushes the compressor before every element, so each element offset is a chunk boundary).
fn unframe(data: &[u8], want: usize) -> Result<Vec<u8>> {
    let mut c = Cursor::new(data);
    let mut out = Vec::new();
    let mut decoder = snap::raw::Decoder::new();
    while out.len() < want {
        let at = c.offset();
        let kind = c.u8()?;
        let len = c
            .bytes(3)
            .map(|b| usize::from(b[0]) | usize::from(b[1]) << 8 | usize::from(b[2]) << 16)?;
        let chunk = c.bytes(len)?;
        match kind {
            0x00 | 0x01 => {
                let body = chunk.get(4..).ok_or_else(|| {
                    c.error_at(
                        at,
                        ErrorKind::BadValue {
                            what: "snappy chunk length",
                            value: len as i64,
                            expected: "4 or more",
                        },
                    )
                })?;
                if kind == 0x01 {
                    out.extend_from_slice(body);
                } else {
                    // The framing format caps a chunk at 64 KiB of data: refuse a block that claims more
                    // before allocating for it.
                    let len = snap::raw::decompress_len(body).unwrap_or(usize::MAX);
                    if len > 1 << 16 {
                        return Err(c.error_at(
                            at,
                            ErrorKind::BadValue {
                                what: "uncompressed snappy chunk length",
                                value: len.min(i64::MAX as usize) as i64,
                                expected: "at most 65536",
                            },
                        ));
                    }
                    let raw = decoder.decompress_vec(body).map_err(|e| {
                        c.error_at(
                            at,
                            ErrorKind::Unsupported(format!("corrupt snappy block: {e}")),
                        )
                    })?;
                    out.extend_from_slice(&raw);
                }
            }
            0x80..=0xFF => {} // stream identifier, padding and skippable chunks
            t => {
                return Err(c.error_at(
                    at,
                    ErrorKind::UnknownTag {
                        context: "snappy frame chunk",
                        tag: t,
                    },
                ))
            }
        }
    }
    Ok(out)
}

/// The bytes of the list-state element starting at `offset` of an operator state stream
/// (`BytePrimitiveArraySerializer`: i32 length, then the bytes).
pub fn list_element(stream: &[u8], offset: i64, compressed: bool) -> Result<Vec<u8>> {
    let start = usize::try_from(offset)
        .ok()
        .filter(|&o| o <= stream.len())
        .ok_or_else(|| {
            Cursor::new(stream).error_at(
                0,
                ErrorKind::BadValue {
                    what: "element offset",
                    value: offset,
                    expected: "a position inside the state stream",
                },
            )
        })?;
    let rest = stream.get(start..).unwrap_or_default();
    if compressed {
        let head = unframe(rest, 4)?;
        let n = i32::from_be_bytes(
            head.get(..4)
                .and_then(|b| b.try_into().ok())
                .unwrap_or_default(),
        );
        let n = usize::try_from(n).map_err(|_| {
            Cursor::new(rest).error(ErrorKind::Negative {
                what: "element length",
                value: i64::from(n),
            })
        })?;
        // A corrupt length could ask for more than the rest of the stream can hold, even compressed.
        if n > rest.len().saturating_mul(64) {
            return Err(Cursor::new(rest).error(ErrorKind::CountTooLarge {
                what: "element length",
                count: n as i64,
                min_bytes: n as u64,
                remaining: rest.len() as u64,
            }));
        }
        let all = unframe(rest, 4 + n)?;
        return Ok(all.get(4..4 + n).unwrap_or_default().to_vec());
    }
    let mut c = Cursor::nested(rest, start as u64, &Cursor::new(stream));
    Ok(c.byte_array("element length")?.to_vec())
}

/// Splits `SimpleVersionedSerialization` framing: i32 version, i32 length, the payload.
pub fn versioned(bytes: &[u8]) -> Result<(i32, &[u8])> {
    let mut c = Cursor::new(bytes);
    let version = c.i32()?;
    let payload = c.byte_array("versioned payload length")?;
    if c.remaining() != 0 {
        return Err(c.error(ErrorKind::BadValue {
            what: "bytes after the versioned payload",
            value: c.remaining() as i64,
            expected: "0",
        }));
    }
    Ok((version, payload))
}

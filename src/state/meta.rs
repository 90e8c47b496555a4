//! The headers of Flink's state streams: `OperatorBackendSerializationProxy` (operator state) and
//! `KeyedBackendSerializationProxy` (keyed state: canonical savepoints, heap checkpoints and the meta file of
//! RocksDB incremental checkpoints), with the state meta info and serializer snapshots they hold.
//!
//! Serializer snapshots have no length prefix: a reader must understand every snapshot class to find the
//! next state. Simple snapshots (Flink's base serializers) and composite ones (with Flink's nested-snapshot
//! magic numbers) are read; anything else stops the structured read, and the state names are then found by
//! the fixed byte pattern that follows every state name (and the result is marked partial).

use crate::metadata::error::ErrorKind;
use crate::metadata::reader::{Cursor, Result};

/// `CompositeTypeSerializerSnapshot`'s magic number.
const COMPOSITE_MAGIC: i32 = 911_108;
/// `NestedSerializersSnapshotDelegate`'s magic number.
const NESTED_MAGIC: i32 = 1_333_245;
/// Bytes searched for the nested magic after a composite snapshot's outer payload.
const OUTER_PAYLOAD_LIMIT: usize = 4096;

/// A serializer snapshot: the class, its version, and nested serializers' snapshots.
#[derive(Debug, Clone, PartialEq)]
pub struct SerializerSnapshot {
    /// The snapshot's class name.
    pub class: String,
    /// The snapshot's version.
    pub version: i32,
    /// Snapshots of nested serializers (composite serializers).
    pub nested: Vec<SerializerSnapshot>,
}

impl SerializerSnapshot {
    /// The serializer's simple name: `LongSerializer` for `…base.LongSerializer$LongSerializerSnapshot`.
    pub fn short(&self) -> String {
        let outer = self.class.split('$').next().unwrap_or(&self.class);
        let name = outer.rsplit('.').next().unwrap_or(outer).to_string();
        if self.nested.is_empty() {
            name
        } else {
            let inner: Vec<String> = self.nested.iter().map(SerializerSnapshot::short).collect();
            format!("{name}<{}>", inner.join(", "))
        }
    }
}

/// What kind of state a meta info entry describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BackendStateType {
    /// Keyed state.
    KeyValue,
    /// Operator list state.
    Operator,
    /// Broadcast state.
    Broadcast,
    /// Timers.
    PriorityQueue,
    /// Another ordinal.
    Unknown(i32),
}

impl BackendStateType {
    fn from_ordinal(o: i32) -> Self {
        match o {
            0 => Self::KeyValue,
            1 => Self::Operator,
            2 => Self::Broadcast,
            3 => Self::PriorityQueue,
            o => Self::Unknown(o),
        }
    }

    /// Flink's name.
    pub fn name(self) -> &'static str {
        match self {
            Self::KeyValue => "KEY_VALUE",
            Self::Operator => "OPERATOR",
            Self::Broadcast => "BROADCAST",
            Self::PriorityQueue => "PRIORITY_QUEUE",
            Self::Unknown(_) => "UNKNOWN",
        }
    }
}

/// One state's meta info.
#[derive(Debug, Clone, PartialEq)]
pub struct StateMeta {
    /// The state's name.
    pub name: String,
    /// Its kind.
    pub backend_type: BackendStateType,
    /// Options (`KEYED_STATE_TYPE` → `VALUE`, `OPERATOR_STATE_DISTRIBUTION_MODE` → …).
    pub options: Vec<(String, String)>,
    /// Serializer snapshots by role (`VALUE_SERIALIZER`, `NAMESPACE_SERIALIZER`, …); empty when partial.
    pub serializers: Vec<(String, SerializerSnapshot)>,
}

impl StateMeta {
    /// The value of an option.
    pub fn option(&self, key: &str) -> Option<&str> {
        self.options
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The keyed state type (`VALUE`, `LIST`, `MAP`, …), or the kind for non-keyed state.
    pub fn kind(&self) -> String {
        match self.backend_type {
            BackendStateType::KeyValue => self
                .option("KEYED_STATE_TYPE")
                .unwrap_or("KEY_VALUE")
                .to_string(),
            BackendStateType::PriorityQueue => "TIMERS".into(),
            t => t.name().to_string(),
        }
    }
}

/// A header, and whether all of it could be read.
#[derive(Debug, Clone, PartialEq)]
pub struct Header {
    /// Serialization proxy version.
    pub version: i32,
    /// Whether state values are compressed (Snappy, framed).
    pub compressed: bool,
    /// Keyed headers: the key serializer.
    pub key_serializer: Option<SerializerSnapshot>,
    /// The states (operator: list then broadcast states).
    pub states: Vec<StateMeta>,
    /// Why the structured read stopped, when it did (names were then found by pattern).
    pub partial: Option<String>,
}

fn is_simple(class: &str) -> bool {
    class.starts_with("org.apache.flink.api.common.typeutils.base.")
        || class.starts_with("org.apache.flink.runtime.state.VoidNamespaceSerializer")
        || class.starts_with("org.apache.flink.api.java.typeutils.runtime.ValueSerializer")
        || class.ends_with("$SimpleTypeSerializerSnapshot")
}

fn peek_i32(c: &Cursor<'_>) -> Option<i32> {
    c.rest()
        .get(..4)
        .map(|b| i32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

fn unsupported(c: &Cursor<'_>, class: &str) -> crate::metadata::DecodeError {
    c.error(ErrorKind::Unsupported(format!(
        "serializer snapshot {class}"
    )))
}

/// Reads a snapshot body: class, version, payload (no proxy version).
fn snapshot_body(c: &mut Cursor<'_>, depth: u32) -> Result<SerializerSnapshot> {
    let class = c.utf()?;
    let version = c.i32()?;
    if depth > 8 {
        return Err(unsupported(c, &class));
    }
    if version >= 3 && peek_i32(c) == Some(COMPOSITE_MAGIC) {
        c.i32()?;
        let _outer_version = c.i32()?;
        // The outer payload is class specific (often empty); the nested snapshots follow it.
        let rest = c.rest();
        let limit = rest.len().min(OUTER_PAYLOAD_LIMIT);
        let at = rest
            .get(..limit)
            .unwrap_or_default()
            .windows(4)
            .position(|w| w == NESTED_MAGIC.to_be_bytes())
            .ok_or_else(|| unsupported(c, &class))?;
        c.bytes(at + 4)?;
        let _nested_version = c.i32()?;
        let n = c.count("nested serializer count", 6)?;
        let mut nested = Vec::with_capacity(n);
        for _ in 0..n {
            nested.push(snapshot_body(c, depth + 1)?);
        }
        return Ok(SerializerSnapshot {
            class,
            version,
            nested,
        });
    }
    if is_simple(&class) {
        if version <= 2 {
            c.utf()?; // Flink 1.7-era simple snapshots carry the serializer class name.
        }
        return Ok(SerializerSnapshot {
            class,
            version,
            nested: Vec::new(),
        });
    }
    Err(unsupported(c, &class))
}

/// Reads a snapshot written with `TypeSerializerSnapshotSerializationUtil` (proxy version 2).
fn snapshot(c: &mut Cursor<'_>) -> Result<SerializerSnapshot> {
    let at = c.offset();
    let proxy = c.i32()?;
    if proxy != 2 {
        return Err(c.error_at(
            at,
            ErrorKind::BadValue {
                what: "serializer snapshot proxy version",
                value: i64::from(proxy),
                expected: "2 (Flink 1.7 and later)",
            },
        ));
    }
    snapshot_body(c, 0)
}

fn state_meta(c: &mut Cursor<'_>) -> Result<StateMeta> {
    let name = c.utf()?;
    let backend_type = BackendStateType::from_ordinal(c.i32()?);
    let n = c.count("state option count", 4)?;
    let mut options = Vec::with_capacity(n);
    for _ in 0..n {
        options.push((c.utf()?, c.utf()?));
    }
    let n = c.count("state serializer count", 10)?;
    let mut serializers = Vec::with_capacity(n);
    for _ in 0..n {
        let role = c.utf()?;
        serializers.push((role, snapshot(c)?));
    }
    Ok(StateMeta {
        name,
        backend_type,
        options,
        serializers,
    })
}

fn metas(c: &mut Cursor<'_>, out: &mut Vec<StateMeta>) -> Result<()> {
    let n = c.u16()? as usize;
    for _ in 0..n {
        out.push(state_meta(c)?);
    }
    Ok(())
}

/// Finds state names by the fixed bytes after each name: its type, then its option or serializer count.
fn scan_names(bytes: &[u8]) -> Vec<StateMeta> {
    let keyed = b"\x00\x00\x00\x00\x00\x00\x00\x01\x00\x10KEYED_STATE_TYPE";
    let timers = b"\x00\x00\x00\x03\x00\x00\x00\x00\x00\x00\x00\x01\x00\x10VALUE_SERIALIZER";
    let operator = b"\x00\x00\x00\x01\x00\x00\x00\x01\x00\x20OPERATOR_STATE_DISTRIBUTION_MODE";
    let mut out = Vec::new();
    for i in 0..bytes.len() {
        let rest = bytes.get(i..).unwrap_or_default();
        let (ty, pat): (BackendStateType, &[u8]) = if rest.starts_with(keyed) {
            (BackendStateType::KeyValue, keyed)
        } else if rest.starts_with(timers) {
            (BackendStateType::PriorityQueue, timers)
        } else if rest.starts_with(operator) {
            (BackendStateType::Operator, operator)
        } else {
            continue;
        };
        // Walk back over a modified-UTF-8 name whose u16 length ends right here.
        for len in 1..=i.saturating_sub(2).min(1024) {
            let Some(l) = bytes.get(i - len - 2..i - len) else {
                break;
            };
            if usize::from(u16::from_be_bytes([l[0], l[1]])) == len {
                if let Ok(name) =
                    crate::metadata::mutf8::decode(bytes.get(i - len..i).unwrap_or_default())
                {
                    let mut c = Cursor::new(rest.get(pat.len() - 18..).unwrap_or_default());
                    let options = if ty == BackendStateType::KeyValue {
                        c.utf().ok().zip(c.utf().ok()).into_iter().collect()
                    } else {
                        Vec::new()
                    };
                    out.push(StateMeta {
                        name,
                        backend_type: ty,
                        options,
                        serializers: Vec::new(),
                    });
                    break;
                }
            }
        }
    }
    out
}

/// When the structured read stopped, finds the state names by pattern instead, and says why.
fn fall_back_to_scan(
    bytes: &[u8],
    structured: Result<()>,
    states: &mut Vec<StateMeta>,
) -> Option<String> {
    structured.err().map(|e| {
        *states = scan_names(bytes);
        e.to_string()
    })
}

/// Reads the header of an operator state stream.
pub fn operator_header(bytes: &[u8]) -> Result<Header> {
    let mut c = Cursor::new(bytes);
    let version = c.i32()?;
    if !(5..=6).contains(&version) {
        return Err(c.error_at(
            0,
            ErrorKind::BadValue {
                what: "operator state proxy version",
                value: i64::from(version),
                expected: "5 (Flink 1.7-1.16) or 6 (1.17 and later)",
            },
        ));
    }
    let compressed = version >= 6 && c.u8()? != 0;
    let mut states = Vec::new();
    let structured = metas(&mut c, &mut states).and_then(|()| metas(&mut c, &mut states));
    let partial = fall_back_to_scan(bytes, structured, &mut states);
    Ok(Header {
        version,
        compressed,
        key_serializer: None,
        states,
        partial,
    })
}

/// Reads the header of a keyed state stream (or of a RocksDB meta data file).
pub fn keyed_header(bytes: &[u8]) -> Result<Header> {
    let mut c = Cursor::new(bytes);
    let version = c.i32()?;
    if version != 6 {
        return Err(c.error_at(
            0,
            ErrorKind::BadValue {
                what: "keyed state proxy version",
                value: i64::from(version),
                expected: "6 (Flink 1.7 and later)",
            },
        ));
    }
    let compressed = c.u8()? != 0;
    let mut states = Vec::new();
    let mut key_serializer = None;
    let structured = snapshot(&mut c).and_then(|k| {
        key_serializer = Some(k);
        metas(&mut c, &mut states)
    });
    let partial = fall_back_to_scan(bytes, structured, &mut states);
    Ok(Header {
        version,
        compressed,
        key_serializer,
        states,
        partial,
    })
}

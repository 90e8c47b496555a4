//! The Java-serialized `CheckpointProperties` that formats 4+ append after the operators.
//!
//! A small subset of the Java Object Serialization Stream Protocol, enough to read plain serializable
//! objects, strings and enums. Nothing is executed. Truncation is an error (Flink fails on it too);
//! well-formed streams using constructs outside the subset are kept as opaque bytes with a note.

use super::error::ErrorKind;
use super::reader::{Cursor, Result};
use crate::model::{CheckpointProperties, Trailer};
use std::rc::Rc;

const TC_NULL: u8 = 0x70;
const TC_REFERENCE: u8 = 0x71;
const TC_CLASSDESC: u8 = 0x72;
const TC_OBJECT: u8 = 0x73;
const TC_STRING: u8 = 0x74;
const TC_ENDBLOCKDATA: u8 = 0x78;
const TC_LONGSTRING: u8 = 0x7C;
const TC_ENUM: u8 = 0x7E;
const BASE_HANDLE: i32 = 0x7E_0000;
const SC_WRITE_METHOD: u8 = 0x01;
const SC_SERIALIZABLE: u8 = 0x02;
/// Objects nested deeper than this are not followed.
const MAX_DEPTH: u32 = 16;

#[derive(Debug)]
struct ClassDesc {
    name: String,
    flags: u8,
    fields: Vec<(u8, String)>,
    parent: Option<Rc<ClassDesc>>,
}

#[derive(Debug, Clone)]
enum Value {
    Null,
    Bool(bool),
    /// A number; its value is not needed.
    Number,
    Str(String),
    Enum {
        constant: String,
    },
    Object {
        class: String,
        fields: Vec<(String, Value)>,
    },
}

#[derive(Clone)]
enum Handle {
    Desc(Rc<ClassDesc>),
    Value(Value),
}

/// Why the subset reader stopped: a real error (truncation) or a construct it does not read.
enum Stop {
    Error(super::error::DecodeError),
    Unsupported(String),
}

impl From<super::error::DecodeError> for Stop {
    fn from(e: super::error::DecodeError) -> Self {
        Stop::Error(e)
    }
}

struct JavaReader<'c, 'a> {
    c: &'c mut Cursor<'a>,
    handles: Vec<Handle>,
}

type R<T> = std::result::Result<T, Stop>;

impl JavaReader<'_, '_> {
    fn unsupported<T>(&self, what: String) -> R<T> {
        Err(Stop::Unsupported(format!(
            "{what} at byte offset {}",
            self.c.offset()
        )))
    }

    fn handle(&mut self, at: u64) -> R<Handle> {
        let h = self.c.i32()?;
        match usize::try_from(h.wrapping_sub(BASE_HANDLE))
            .ok()
            .and_then(|i| self.handles.get(i))
        {
            Some(v) => Ok(v.clone()),
            None => Err(Stop::Error(self.c.error_at(
                at,
                ErrorKind::BadTrailer(format!("reference to unknown handle 0x{h:x}")),
            ))),
        }
    }

    fn class_desc(&mut self, depth: u32) -> R<Option<Rc<ClassDesc>>> {
        let at = self.c.offset();
        match self.c.u8()? {
            TC_NULL => Ok(None),
            TC_REFERENCE => match self.handle(at)? {
                Handle::Desc(d) => Ok(Some(d)),
                Handle::Value(_) => {
                    self.unsupported("reference to a non-class where a class was expected".into())
                }
            },
            TC_CLASSDESC => {
                let name = self.c.utf()?;
                let _serial_version_uid = self.c.i64()?;
                let slot = self.handles.len();
                self.handles.push(Handle::Value(Value::Null)); // replaced once the descriptor is complete
                let flags = self.c.u8()?;
                let n = self.c.u16()?;
                let mut fields = Vec::new();
                for _ in 0..n {
                    let type_code = self.c.u8()?;
                    let field = self.c.utf()?;
                    if type_code == b'L' || type_code == b'[' {
                        // The field's class name, as a string object.
                        self.content(depth + 1)?;
                    }
                    fields.push((type_code, field));
                }
                let end = self.c.offset();
                if self.c.u8()? != TC_ENDBLOCKDATA {
                    return self
                        .unsupported(format!("class annotation of {name} (byte offset {end})"));
                }
                let parent = self.class_desc(depth + 1)?;
                let desc = Rc::new(ClassDesc {
                    name,
                    flags,
                    fields,
                    parent,
                });
                if let Some(h) = self.handles.get_mut(slot) {
                    *h = Handle::Desc(desc.clone());
                }
                Ok(Some(desc))
            }
            tag => self.unsupported(format!(
                "type code 0x{tag:02x} where a class descriptor was expected"
            )),
        }
    }

    fn content(&mut self, depth: u32) -> R<Value> {
        if depth > MAX_DEPTH {
            return self.unsupported("objects nested too deeply".into());
        }
        let at = self.c.offset();
        match self.c.u8()? {
            TC_NULL => Ok(Value::Null),
            TC_REFERENCE => match self.handle(at)? {
                Handle::Value(v) => Ok(v),
                Handle::Desc(_) => {
                    self.unsupported("reference to a class where a value was expected".into())
                }
            },
            TC_STRING => {
                let s = self.c.utf()?;
                self.handles.push(Handle::Value(Value::Str(s.clone())));
                Ok(Value::Str(s))
            }
            TC_LONGSTRING => self.unsupported("long string".into()),
            TC_ENUM => {
                self.class_desc(depth + 1)?;
                let slot = self.handles.len();
                self.handles.push(Handle::Value(Value::Null));
                let constant = match self.content(depth + 1)? {
                    Value::Str(s) => s,
                    _ => return self.unsupported("enum constant that is not a string".into()),
                };
                let v = Value::Enum { constant };
                if let Some(h) = self.handles.get_mut(slot) {
                    *h = Handle::Value(v.clone());
                }
                Ok(v)
            }
            TC_OBJECT => {
                let Some(desc) = self.class_desc(depth + 1)? else {
                    return self.unsupported("object without a class".into());
                };
                let slot = self.handles.len();
                self.handles.push(Handle::Value(Value::Null));
                // Class data is written from the topmost serializable superclass down.
                let mut chain = Vec::new();
                let mut d = Some(desc.clone());
                while let Some(x) = d {
                    d = x.parent.clone();
                    chain.push(x);
                }
                let mut fields = Vec::new();
                for class in chain.iter().rev() {
                    if class.flags & SC_SERIALIZABLE == 0 || class.flags & SC_WRITE_METHOD != 0 {
                        return self.unsupported(format!(
                            "class {} with custom serialization",
                            class.name
                        ));
                    }
                    for (type_code, name) in &class.fields {
                        let v = match type_code {
                            b'Z' => Value::Bool(self.c.u8()? != 0),
                            b'B' => self.c.u8().map(|_| Value::Number)?,
                            b'C' | b'S' => self.c.u16().map(|_| Value::Number)?,
                            b'I' | b'F' => self.c.i32().map(|_| Value::Number)?,
                            b'J' | b'D' => self.c.i64().map(|_| Value::Number)?,
                            b'L' | b'[' => self.content(depth + 1)?,
                            t => return self.unsupported(format!("field type code 0x{t:02x}")),
                        };
                        fields.push((name.clone(), v));
                    }
                }
                let v = Value::Object {
                    class: desc.name.clone(),
                    fields,
                };
                if let Some(h) = self.handles.get_mut(slot) {
                    *h = Handle::Value(v.clone());
                }
                Ok(v)
            }
            tag => self.unsupported(format!("type code 0x{tag:02x}")),
        }
    }
}

/// An opaque trailer (one the Java subset reader cannot read) is kept whole up to this size. Flink's
/// CheckpointProperties take a few hundred bytes; a larger unreadable trailer is refused, not copied.
const OPAQUE_TRAILER_LIMIT: usize = 1 << 20;

/// Reads the trailer: the Java serialization stream from the cursor on. Returns it and the number of bytes
/// after the checkpoint properties, which Flink ignores (counted, not kept).
pub fn read_trailer(c: &mut Cursor<'_>) -> Result<(Trailer, u64)> {
    let offset = c.offset();
    let rest = c.rest();
    c.within("trailer", |c| {
        let magic_at = c.offset();
        let magic = c.u16()?;
        let version = c.u16()?;
        if magic != 0xACED || version != 5 {
            return Err(c.error_at(
                magic_at,
                ErrorKind::BadTrailer(format!(
                    "expected the Java serialization header ac ed 00 05, found {magic:04x} {version:04x}"
                )),
            ));
        }
        let mut r = JavaReader { c, handles: Vec::new() };
        // `complete`: the reader consumed one whole object, so what follows is what Flink ignores.
        let (properties, note, complete) = match r.content(0) {
            Ok(Value::Null) => (None, Some("the trailer holds null (no checkpoint properties)".to_string()), true),
            Ok(Value::Object { class, fields }) if class.ends_with(".CheckpointProperties") => {
                (Some(properties(fields)), None, true)
            }
            Ok(other) => (None, Some(format!("the trailer holds {}, not CheckpointProperties", describe(&other))), true),
            Err(Stop::Error(e)) => return Err(e),
            Err(Stop::Unsupported(what)) => {
                (None, Some(format!("trailer kept as opaque bytes: unsupported Java serialization ({what})")), false)
            }
        };
        let left = c.remaining();
        // What the subset reader did not understand is kept with the trailer (Flink reads it); what
        // follows a complete properties object is counted only. The cursor moves to the end.
        let (kept, ignored) = if complete {
            (rest.len() - left, left as u64)
        } else if rest.len() <= OPAQUE_TRAILER_LIMIT {
            (rest.len(), 0)
        } else {
            return Err(c.error_at(
                offset,
                ErrorKind::BadTrailer(format!(
                    "{} bytes that this reader cannot parse ({}); CheckpointProperties take a few hundred bytes",
                    rest.len(),
                    note.unwrap_or_default()
                )),
            ));
        };
        let _ = c.bytes(left)?;
        let bytes = rest.get(..kept).unwrap_or(rest).to_vec();
        Ok((Trailer { offset, bytes, properties, note }, ignored))
    })
}

fn describe(v: &Value) -> String {
    match v {
        Value::Object { class, .. } => format!("an object of class {class}"),
        Value::Str(_) => "a string".into(),
        Value::Enum { constant } => format!("the enum constant {constant}"),
        _ => "a primitive value".into(),
    }
}

fn properties(fields: Vec<(String, Value)>) -> CheckpointProperties {
    let mut p = CheckpointProperties {
        type_class: String::new(),
        type_name: None,
        savepoint_format: None,
        post_checkpoint_action: None,
        sharing_files_strategy: None,
        flags: Vec::new(),
    };
    for (name, v) in fields {
        match v {
            Value::Bool(b) => p.flags.push((name, b)),
            Value::Object { class, fields } if name == "checkpointType" => {
                p.type_class = class.rsplit('.').next().unwrap_or_default().to_string();
                for (f, v) in fields {
                    match (f.as_str(), v) {
                        ("name", Value::Str(s)) => p.type_name = Some(s),
                        ("formatType", Value::Enum { constant }) => {
                            p.savepoint_format = Some(constant)
                        }
                        ("postCheckpointAction", Value::Enum { constant }) => {
                            p.post_checkpoint_action = Some(constant)
                        }
                        ("sharingFilesStrategy", Value::Enum { constant }) => {
                            p.sharing_files_strategy = Some(constant)
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    p
}

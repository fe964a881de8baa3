//! The byte layer of world saves: fixed-width little-endian integers, `u32`-length-prefixed
//! strings and blobs, and field values as a tag byte and a payload. The reader never panics:
//! every read is checked against the bytes left and fails as
//! [`WorldLoadError::Truncated`] at its offset; a length is never trusted further than the
//! bytes that are left.

use crate::error::WorldLoadError;
use crate::value::Value;

/// Appends the encoding to a `Vec<u8>`.
#[derive(Debug, Default)]
pub(crate) struct Writer {
    pub(crate) bytes: Vec<u8>,
}

impl Writer {
    pub(crate) fn u8(&mut self, v: u8) {
        self.bytes.push(v);
    }
    pub(crate) fn u32(&mut self, v: u32) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }
    pub(crate) fn u64(&mut self, v: u64) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }
    /// A length or count (every count in a save fits a `u32`: a world has < 2^32 slots).
    pub(crate) fn len(&mut self, n: usize) {
        self.u32(u32::try_from(n).unwrap_or(u32::MAX));
    }
    pub(crate) fn str(&mut self, s: &str) {
        self.blob(s.as_bytes());
    }
    pub(crate) fn blob(&mut self, b: &[u8]) {
        self.len(b.len());
        self.bytes.extend_from_slice(b);
    }
    pub(crate) fn value(&mut self, v: &Value) {
        match v {
            Value::Bool(b) => {
                self.u8(0);
                self.u8(u8::from(*b));
            }
            Value::U8(x) => {
                self.u8(1);
                self.u8(*x);
            }
            Value::U16(x) => {
                self.u8(2);
                self.bytes.extend_from_slice(&x.to_le_bytes());
            }
            Value::U32(x) => {
                self.u8(3);
                self.u32(*x);
            }
            Value::U64(x) => {
                self.u8(4);
                self.u64(*x);
            }
            Value::I8(x) => {
                self.u8(5);
                self.bytes.extend_from_slice(&x.to_le_bytes());
            }
            Value::I16(x) => {
                self.u8(6);
                self.bytes.extend_from_slice(&x.to_le_bytes());
            }
            Value::I32(x) => {
                self.u8(7);
                self.bytes.extend_from_slice(&x.to_le_bytes());
            }
            Value::I64(x) => {
                self.u8(8);
                self.bytes.extend_from_slice(&x.to_le_bytes());
            }
            Value::F32(x) => {
                self.u8(9);
                self.u32(x.to_bits());
            }
            Value::F64(x) => {
                self.u8(10);
                self.u64(x.to_bits());
            }
            Value::Str(s) => {
                self.u8(11);
                self.str(s);
            }
            Value::Entity(e) => {
                self.u8(12);
                self.u64(*e);
            }
            Value::OptEntity(None) => self.u8(13),
            Value::OptEntity(Some(e)) => {
                self.u8(14);
                self.u64(*e);
            }
        }
    }
}

/// Reads the encoding, tracking the offset for errors.
#[derive(Debug)]
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
    pub(crate) offset: usize,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes, offset: 0 }
    }

    pub(crate) fn remaining(&self) -> usize {
        self.bytes.len() - self.offset
    }

    pub(crate) fn take(
        &mut self,
        n: usize,
        what: &'static str,
    ) -> Result<&'a [u8], WorldLoadError> {
        if n > self.remaining() {
            return Err(WorldLoadError::Truncated {
                offset: self.offset,
                what,
            });
        }
        let out = &self.bytes[self.offset..self.offset + n];
        self.offset += n;
        Ok(out)
    }

    fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], WorldLoadError> {
        let mut out = [0; N];
        out.copy_from_slice(self.take(N, what)?);
        Ok(out)
    }

    pub(crate) fn u8(&mut self, what: &'static str) -> Result<u8, WorldLoadError> {
        Ok(self.array::<1>(what)?[0])
    }
    pub(crate) fn u32(&mut self, what: &'static str) -> Result<u32, WorldLoadError> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }
    pub(crate) fn u64(&mut self, what: &'static str) -> Result<u64, WorldLoadError> {
        Ok(u64::from_le_bytes(self.array(what)?))
    }
    /// A count of items each at least `min_size` bytes long: refused as truncated when the
    /// bytes left cannot hold them (so no allocation is sized by an unchecked number).
    pub(crate) fn count(
        &mut self,
        min_size: usize,
        what: &'static str,
    ) -> Result<usize, WorldLoadError> {
        let at = self.offset;
        let n = self.u32(what)? as usize;
        if n.saturating_mul(min_size.max(1)) > self.remaining() {
            return Err(WorldLoadError::Truncated { offset: at, what });
        }
        Ok(n)
    }
    pub(crate) fn blob(&mut self, what: &'static str) -> Result<&'a [u8], WorldLoadError> {
        let n = self.count(1, what)?;
        self.take(n, what)
    }
    pub(crate) fn str(&mut self, what: &'static str) -> Result<&'a str, WorldLoadError> {
        let at = self.offset;
        let b = self.blob(what)?;
        std::str::from_utf8(b).map_err(|_| WorldLoadError::BadText { offset: at, what })
    }
    pub(crate) fn value(&mut self) -> Result<Value, WorldLoadError> {
        let what = "a field value";
        let at = self.offset;
        Ok(match self.u8(what)? {
            0 => match self.u8(what)? {
                0 => Value::Bool(false),
                1 => Value::Bool(true),
                tag => {
                    return Err(WorldLoadError::BadTag {
                        offset: at + 1,
                        what,
                        tag,
                    });
                }
            },
            1 => Value::U8(self.u8(what)?),
            2 => Value::U16(u16::from_le_bytes(self.array(what)?)),
            3 => Value::U32(self.u32(what)?),
            4 => Value::U64(self.u64(what)?),
            5 => Value::I8(i8::from_le_bytes(self.array(what)?)),
            6 => Value::I16(i16::from_le_bytes(self.array(what)?)),
            7 => Value::I32(i32::from_le_bytes(self.array(what)?)),
            8 => Value::I64(i64::from_le_bytes(self.array(what)?)),
            9 => Value::F32(f32::from_bits(self.u32(what)?)),
            10 => Value::F64(f64::from_bits(self.u64(what)?)),
            11 => Value::Str(self.str(what)?.to_owned()),
            12 => Value::Entity(self.u64(what)?),
            13 => Value::OptEntity(None),
            14 => Value::OptEntity(Some(self.u64(what)?)),
            tag => {
                return Err(WorldLoadError::BadTag {
                    offset: at,
                    what,
                    tag,
                });
            }
        })
    }
}

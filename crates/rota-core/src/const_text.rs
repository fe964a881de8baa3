//! Text in `const fn`: comparing strings and building a message for a compile-time check's
//! panic (a `const` panic prints one `&str`; a `const fn` cannot allocate or use `==` on
//! strings). Low level: the query aliasing checks and the bundle duplicate check use it.

/// Whether `a` and `b` are the same string (`str`'s `==` is not `const`).
pub(crate) const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// A message built in `const` (a fixed buffer: `const fn` cannot allocate).
pub(crate) struct ConstMessage {
    buf: [u8; 512],
    len: usize,
}

impl ConstMessage {
    const fn new() -> ConstMessage {
        ConstMessage {
            buf: [0; 512],
            len: 0,
        }
    }

    /// The message made of `parts`, in order.
    pub(crate) const fn concat(parts: &[&str]) -> ConstMessage {
        let mut m = ConstMessage::new();
        let mut i = 0;
        while i < parts.len() {
            m = m.push(parts[i]);
            i += 1;
        }
        m
    }

    const fn push(mut self, s: &str) -> ConstMessage {
        let bytes = s.as_bytes();
        let mut i = 0;
        // Truncate on a char boundary if the buffer is full (names are short; this is a guard).
        while i < bytes.len() && self.len < self.buf.len() - 4 {
            self.buf[self.len] = bytes[i];
            self.len += 1;
            i += 1;
        }
        while self.len > 0 && (self.buf[self.len - 1] & 0xC0) == 0x80 {
            self.len -= 1;
        }
        if self.len > 0 && self.buf[self.len - 1] >= 0xC0 {
            self.len -= 1;
        }
        self
    }

    pub(crate) const fn as_str(&self) -> &str {
        match std::str::from_utf8(self.buf.split_at(self.len).0) {
            Ok(s) => s,
            Err(_) => "a compile-time check failed (its message could not be built)",
        }
    }
}

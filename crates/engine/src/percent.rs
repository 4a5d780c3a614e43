//! Percent-encoding of link values (RFC 3986), below everything that writes or reads a link:
//! the permalink, the lessons' links and the loaders' messages that quote a link field.

/// Characters kept as they are; everything else is percent-encoded (UTF-8 bytes). `/` and `*`
/// are legal in a query and keep a `data=url:` link and a `steps=loss_*` pattern readable.
fn keep(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-_.~:@/*".contains(&b)
}

/// Percent-encodes a value (commas too: they separate list items).
pub fn encode_component(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for &b in s.as_bytes() {
        if keep(b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Decodes percent-encoding; `None` on broken escapes or invalid UTF-8. A literal `+` stays a
/// plus (our links write spaces as `%20`), so a hand-typed `methods=GCP+prior` works.
pub fn decode_component(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

//! Text and byte encodings: Base64, URL and HTML entities, string escaping, radix encodings
//! (hex, Base32/58/85), character codes, hex dumps, Morse, quoted-printable, Punycode and
//! legacy charsets.

pub(super) mod chars;
pub(super) mod encoders;
pub(super) mod escape;
pub(super) mod hexdump;
pub(super) mod radix;
pub(super) mod signals;
pub(super) mod text_codecs;

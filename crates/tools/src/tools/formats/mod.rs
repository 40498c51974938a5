//! Binary and data formats: MessagePack, CBOR, plists, Protocol Buffers, compression codecs,
//! CSV, files as Base64 with type sniffing, and detecting the format of pasted text.

pub(super) mod binary_formats;
pub(super) mod compression;
pub(super) mod detect;
pub(super) mod files;
pub(super) mod protobuf;
pub(super) mod tabular;

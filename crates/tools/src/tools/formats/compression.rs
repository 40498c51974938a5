//! Compression codecs: gzip-compressor (gzip RFC 1952, zlib RFC 1950, raw deflate RFC 1951),
//! bzip2-compressor, lz4-compressor (LZ4 frame and block formats) and lzma-compressor (.xz and
//! legacy .lzma). They share one contract: compressed data travels as Base64, input to compress
//! is text or Base64 bytes, decompressed output is text when it is UTF-8 and Base64 otherwise,
//! and decompression stops at a size cap so a small bomb cannot exhaust memory.

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::args::{Args, decode_base64_param};
use crate::tools::kit::tool::Tool;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use flate2::Compression;
use flate2::read::{DeflateDecoder, MultiGzDecoder, ZlibDecoder};
use flate2::write::{DeflateEncoder, ZlibEncoder};
use liblzma::stream::{Check, Filters, LzmaOptions, Stream};
use serde_json::{Map, Value, json};
use std::borrow::Cow;
use std::io::{Read, Write};

pub(crate) const TOOLS: &[Tool] = &[
    Tool::new("gzip-compressor", gzip_compressor),
    Tool::new("bzip2-compressor", bzip2_compressor),
    Tool::new("lz4-compressor", lz4_compressor),
    Tool::new("lzma-compressor", lzma_compressor),
];

/// Largest decompressed size accepted, so a small "zip bomb" cannot exhaust memory.
const MAX_DECOMPRESSED: u64 = 256 * 1024 * 1024;

/// Memory liblzma may use to decode: enough for `xz -9e` (64 MiB dictionary) with room to
/// spare, but a crafted header asking for a multi-GiB dictionary is refused.
const LZMA_MEMLIMIT: u64 = 256 * 1024 * 1024;

/// Options echoed in a result between `mode` and the sizes.
type Echo<'a> = &'a [(&'a str, Value)];

/// The bytes to compress: the input as UTF-8 text, or decoded Base64.
fn input_bytes<'a>(args: &Args<'a>) -> Result<Cow<'a, [u8]>, ToolError> {
    let input = args.str("input")?;
    match args.str("inputEncoding")? {
        "base64" => decode_base64_param("input", input).map(Cow::Owned),
        _ => Ok(Cow::Borrowed(input.as_bytes())),
    }
}

fn compressed_result(original: usize, packed: &[u8], echo: Echo) -> Value {
    let mut m = Map::new();
    // Moved in, not `json!`-ed: the macro would copy a result that may be hundreds of MiB.
    m.insert("output".into(), Value::String(STANDARD.encode(packed)));
    m.insert("mode".into(), json!("compress"));
    for (k, v) in echo {
        m.insert((*k).into(), v.clone());
    }
    m.insert("inputSize".into(), json!(original));
    m.insert("outputSize".into(), json!(packed.len()));
    insert_ratio(&mut m, packed.len(), original);
    Value::Object(m)
}

fn decompressed_result(packed: usize, out: Vec<u8>, echo: Echo) -> Value {
    let size = out.len();
    let (output, encoding) = match String::from_utf8(out) {
        Ok(text) => (text, "utf-8"),
        Err(e) => (STANDARD.encode(e.into_bytes()), "base64"),
    };
    let mut m = Map::new();
    m.insert("output".into(), Value::String(output));
    m.insert("outputEncoding".into(), json!(encoding));
    m.insert("mode".into(), json!("decompress"));
    for (k, v) in echo {
        m.insert((*k).into(), v.clone());
    }
    m.insert("inputSize".into(), json!(packed));
    m.insert("outputSize".into(), json!(size));
    insert_ratio(&mut m, packed, size);
    Value::Object(m)
}

fn compress_failed(e: impl std::fmt::Display) -> ToolError {
    ToolError::execution(format!("compression failed: {e}"))
}

fn gzip_compressor(args: &Args) -> ToolOutcome {
    let format = args.str("format")?;
    if args.str("mode")? == "decompress" {
        let data = decode_base64_param("input", args.str("input")?)?;
        let out = inflate(&data, format, MAX_DECOMPRESSED)?;
        return Ok(decompressed_result(
            data.len(),
            out,
            &[("format", json!(format))],
        ));
    }
    let data = input_bytes(args)?;
    let level = u32::try_from(args.i64("level")?)
        .map_err(|_| ToolError::invalid("parameter 'level' must be between 0 and 9"))?;
    let packed = compress(&data, format, Compression::new(level)).map_err(compress_failed)?;
    Ok(compressed_result(
        data.len(),
        &packed,
        &[("format", json!(format)), ("level", json!(level))],
    ))
}

fn compress(data: &[u8], format: &str, level: Compression) -> std::io::Result<Vec<u8>> {
    match format {
        "zlib" => {
            let mut e = ZlibEncoder::new(Vec::new(), level);
            e.write_all(data)?;
            e.finish()
        }
        "deflate" => {
            let mut e = DeflateEncoder::new(Vec::new(), level);
            e.write_all(data)?;
            e.finish()
        }
        _ => {
            // mtime 0 and no file name keep the output byte-for-byte reproducible (like gzip -n).
            let mut e = flate2::GzBuilder::new().mtime(0).write(Vec::new(), level);
            e.write_all(data)?;
            e.finish()
        }
    }
}

/// Decompresses `data`, refusing to produce more than `limit` bytes.
fn inflate(data: &[u8], format: &str, limit: u64) -> Result<Vec<u8>, ToolError> {
    let reader: Box<dyn Read + '_> = match format {
        "zlib" => Box::new(ZlibDecoder::new(data)),
        "deflate" => Box::new(DeflateDecoder::new(data)),
        _ => Box::new(MultiGzDecoder::new(data)),
    };
    read_capped(reader, limit, data, "gzip-compressor", format)
}

/// Reads a decoder to the end, refusing to produce more than `limit` bytes. A decoding error
/// names the format expected and, when the header says otherwise, the one the data looks like.
fn read_capped(
    reader: impl Read,
    limit: u64,
    data: &[u8],
    tool: &str,
    format: &str,
) -> Result<Vec<u8>, ToolError> {
    let mut out = Vec::new();
    if let Err(e) = reader.take(limit + 1).read_to_end(&mut out) {
        return Err(not_valid(data, tool, format, e));
    }
    if out.len() as u64 > limit {
        return Err(too_large(limit, data.len()));
    }
    Ok(out)
}

fn too_large(limit: u64, packed: usize) -> ToolError {
    ToolError::invalid(format!(
        "decompressed data exceeds the {} MiB limit (from {packed} compressed bytes); this may be a decompression bomb",
        limit / (1024 * 1024),
    ))
}

fn not_valid(data: &[u8], tool: &str, format: &str, e: impl std::fmt::Display) -> ToolError {
    let hint = match sniff(data) {
        Some((t, actual)) if t == tool && actual != format => {
            format!("; the data looks like {actual}, so try format '{actual}'")
        }
        Some((t, actual)) if t != tool => {
            format!("; the data looks like {actual}, so use {t}")
        }
        _ => String::new(),
    };
    let label = if tool == "lz4-compressor" {
        format!("LZ4 {format}")
    } else {
        format.to_string()
    };
    ToolError::invalid(format!("input is not valid {label} data: {e}{hint}"))
}

/// Recognises a container from its magic bytes, returning the tool and format that read it:
/// gzip (RFC 1952 §2.3.1), a zlib CMF/FLG pair (RFC 1950 §2.2: deflate method, window ≤ 32K,
/// check bits), bzip2 "BZh1".."BZh9", xz (FD 37 7A 58 5A 00), LZ4 frame (04 22 4D 18) and
/// the usual .lzma header (properties 5D, then a little-endian power-of-two dictionary size).
fn sniff(data: &[u8]) -> Option<(&'static str, &'static str)> {
    match data {
        [0x1f, 0x8b, ..] => Some(("gzip-compressor", "gzip")),
        [b'B', b'Z', b'h', b'1'..=b'9', ..] => Some(("bzip2-compressor", "bzip2")),
        [0xfd, b'7', b'z', b'X', b'Z', 0, ..] => Some(("lzma-compressor", "xz")),
        [0x04, 0x22, 0x4d, 0x18, ..] => Some(("lz4-compressor", "frame")),
        [0x5d, 0, 0, _, _, ..] => Some(("lzma-compressor", "lzma")),
        [cmf, flg, ..]
            if cmf & 0x0f == 8
                && cmf >> 4 <= 7
                && (u16::from(*cmf) * 256 + u16::from(*flg)) % 31 == 0 =>
        {
            Some(("gzip-compressor", "zlib"))
        }
        _ => None,
    }
}

/// Compressed size over uncompressed size, rounded to four decimals; left out for empty data
/// (rather than null, so the field is always a number).
fn insert_ratio(m: &mut Map<String, Value>, compressed: usize, uncompressed: usize) {
    if uncompressed > 0 {
        let r = compressed as f64 / uncompressed as f64;
        m.insert("ratio".into(), json!((r * 10_000.0).round() / 10_000.0));
    }
}

fn level(args: &Args, name: &str, max: u32) -> Result<u32, ToolError> {
    u32::try_from(args.i64(name)?)
        .ok()
        .filter(|l| *l <= max)
        .ok_or_else(|| {
            ToolError::invalid(format!("parameter '{name}' must be between 0 and {max}"))
        })
}

fn bzip2_compressor(args: &Args) -> ToolOutcome {
    if args.str("mode")? == "decompress" {
        let data = decode_base64_param("input", args.str("input")?)?;
        let out = bunzip(&data, MAX_DECOMPRESSED)?;
        return Ok(decompressed_result(data.len(), out, &[]));
    }
    let data = input_bytes(args)?;
    // bzip2 levels are block sizes of 100-900 kB; 0 is not one.
    let level = level(args, "level", 9)?.max(1);
    let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::new(level));
    e.write_all(&data).map_err(compress_failed)?;
    let packed = e.finish().map_err(compress_failed)?;
    Ok(compressed_result(
        data.len(),
        &packed,
        &[("level", json!(level))],
    ))
}

fn bunzip(data: &[u8], limit: u64) -> Result<Vec<u8>, ToolError> {
    // Concatenated streams (as from `cat a.bz2 b.bz2` or pbzip2) decode as one, like bunzip2.
    let reader = bzip2::read::MultiBzDecoder::new(data);
    read_capped(reader, limit, data, "bzip2-compressor", "bzip2")
}

fn lz4_compressor(args: &Args) -> ToolOutcome {
    let format = args.str("format")?;
    if args.str("mode")? == "decompress" {
        let data = decode_base64_param("input", args.str("input")?)?;
        let out = lz4_decompress(&data, format, MAX_DECOMPRESSED)?;
        return Ok(decompressed_result(
            data.len(),
            out,
            &[("format", json!(format))],
        ));
    }
    let data = input_bytes(args)?;
    let packed = match format {
        "block" => lz4_flex::block::compress_prepend_size(&data),
        "block-raw" => lz4_flex::block::compress(&data),
        _ => {
            // The lz4 CLI's frame: 64 KB independent blocks with a content checksum.
            let info = lz4_flex::frame::FrameInfo::new()
                .block_size(lz4_flex::frame::BlockSize::Max64KB)
                .content_checksum(true);
            let mut e = lz4_flex::frame::FrameEncoder::with_frame_info(info, Vec::new());
            e.write_all(&data).map_err(compress_failed)?;
            e.finish().map_err(compress_failed)?
        }
    };
    Ok(compressed_result(
        data.len(),
        &packed,
        &[("format", json!(format))],
    ))
}

fn lz4_decompress(data: &[u8], format: &str, limit: u64) -> Result<Vec<u8>, ToolError> {
    let cap = usize::try_from(limit).unwrap_or(usize::MAX);
    let block_error =
        |e: lz4_flex::block::DecompressError| not_valid(data, "lz4-compressor", format, e);
    match format {
        "block" => {
            let (size, body) = lz4_flex::block::uncompressed_size(data).map_err(block_error)?;
            if size > cap {
                return Err(too_large(limit, data.len()));
            }
            lz4_flex::block::decompress(body, size).map_err(block_error)
        }
        "block-raw" => {
            // A raw block does not record its size; LZ4 cannot expand more than 255:1.
            let bound = data.len().saturating_mul(255).saturating_add(64);
            if bound > cap {
                return Err(ToolError::invalid(format!(
                    "a raw LZ4 block of {} bytes may expand beyond the {} MiB limit; use the size-prepended block or frame format for large data",
                    data.len(),
                    limit / (1024 * 1024)
                )));
            }
            lz4_flex::block::decompress(data, bound).map_err(block_error)
        }
        _ => {
            let reader = lz4_flex::frame::FrameDecoder::new(data);
            read_capped(reader, limit, data, "lz4-compressor", "frame")
        }
    }
}

fn lzma_compressor(args: &Args) -> ToolOutcome {
    let format = args.str("format")?;
    if args.str("mode")? == "decompress" {
        let data = decode_base64_param("input", args.str("input")?)?;
        let out = unxz(&data, format, MAX_DECOMPRESSED)?;
        return Ok(decompressed_result(
            data.len(),
            out,
            &[("format", json!(format))],
        ));
    }
    let data = input_bytes(args)?;
    let preset = level(args, "preset", 9)?;
    let extreme = args.flag("extreme");
    let check = args.str("check")?;
    let options = lzma_options(preset, extreme, data.len())?;
    let stream = if format == "lzma" {
        Stream::new_lzma_encoder(&options)
    } else {
        let mut filters = Filters::new();
        filters.lzma2(&options);
        let check = match check {
            "none" => Check::None,
            "crc32" => Check::Crc32,
            "sha256" => Check::Sha256,
            _ => Check::Crc64,
        };
        Stream::new_stream_encoder(&filters, check)
    }
    .map_err(compress_failed)?;
    let mut e = liblzma::write::XzEncoder::new_stream(Vec::new(), stream);
    e.write_all(&data).map_err(compress_failed)?;
    let packed = e.finish().map_err(compress_failed)?;
    let mut echo = vec![
        ("format", json!(format)),
        ("preset", json!(preset)),
        ("extreme", json!(extreme)),
    ];
    if format != "lzma" {
        echo.push(("check", json!(check)));
    }
    Ok(compressed_result(data.len(), &packed, &echo))
}

/// The preset's LZMA options. Presets 7-9 use 16-64 MiB dictionaries and several hundred MiB
/// to compress; for input smaller than that the dictionary shrinks to 8 MiB (preset 6's),
/// which cannot change the result's decodability and keeps memory modest.
fn lzma_options(preset: u32, extreme: bool, input_len: usize) -> Result<LzmaOptions, ToolError> {
    const DICT_6: u32 = 8 * 1024 * 1024;
    let flags = if extreme {
        preset | liblzma::stream::PRESET_EXTREME
    } else {
        preset
    };
    let mut options = LzmaOptions::new_preset(flags).map_err(compress_failed)?;
    if preset > 6 && input_len <= DICT_6 as usize {
        options.dict_size(DICT_6);
    }
    Ok(options)
}

fn unxz(data: &[u8], format: &str, limit: u64) -> Result<Vec<u8>, ToolError> {
    let stream = if format == "lzma" {
        Stream::new_lzma_decoder(LZMA_MEMLIMIT)
    } else {
        // Concatenated .xz streams decode as one, as with the xz program.
        Stream::new_stream_decoder(LZMA_MEMLIMIT, liblzma::stream::CONCATENATED)
    }
    .map_err(|e| ToolError::execution(format!("cannot start the decoder: {e}")))?;
    let reader = liblzma::read::XzDecoder::new_stream(data, stream);
    read_capped(reader, limit, data, "lzma-compressor", format).map_err(|mut e| {
        if e.message.contains("memory limit reached") {
            e.message = format!(
                "input is not valid {format} data: its header asks for more than the {} MiB of decoder memory allowed",
                LZMA_MEMLIMIT / (1024 * 1024)
            );
        }
        e
    })
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use base64::Engine;
    use serde_json::json;

    // `printf 'hello\n' | gzip -n | base64` (GNU gzip 1.12).
    const GZIP_HELLO: &str = "H4sIAAAAAAAAA8tIzcnJ5wIAIDA6NgYAAAA=";

    #[test]
    fn decompresses_output_of_the_gzip_program() {
        let data = run_ok(
            "gzip-compressor",
            json!({"input": GZIP_HELLO, "mode": "decompress"}),
        );
        assert_eq!(data["output"], "hello\n");
        assert_eq!(data["outputEncoding"], "utf-8");
        assert_eq!(data["outputSize"], 6);
        assert_eq!(data["inputSize"], 26);
    }

    // RFC 1950: the default-level zlib header is 78 9C; the stream ends with the Adler-32 of
    // the data (RFC 1950 §9 example: Adler-32 of "Wikipedia" is 0x11E60398).
    #[test]
    fn zlib_has_rfc1950_header_and_adler32_trailer() {
        let data = run_ok(
            "gzip-compressor",
            json!({"input": "Wikipedia", "format": "zlib"}),
        );
        let bytes = super::STANDARD
            .decode(data["output"].as_str().unwrap())
            .unwrap();
        assert_eq!(&bytes[..2], &[0x78, 0x9c]);
        assert_eq!(&bytes[bytes.len() - 4..], &[0x11, 0xe6, 0x03, 0x98]);
        assert_eq!(data["inputSize"], 9);
        // zlib.compress(b"hello") in CPython, which uses the same default level.
        let hello = run_ok(
            "gzip-compressor",
            json!({"input": "hello", "format": "zlib"}),
        );
        assert_eq!(hello["output"], "eJzLSM3JyQcABiwCFQ==");
    }

    #[test]
    fn gzip_output_is_reproducible_and_round_trips() {
        let text = "The quick brown fox jumps over the lazy dog. ".repeat(20);
        let a = run_ok("gzip-compressor", json!({"input": text, "level": 9}));
        let b = run_ok("gzip-compressor", json!({"input": text, "level": 9}));
        assert_eq!(a["output"], b["output"]);
        let bytes = super::STANDARD
            .decode(a["output"].as_str().unwrap())
            .unwrap();
        // ID1 ID2 CM FLG, then MTIME = 0 (RFC 1952 §2.3).
        assert_eq!(&bytes[..8], &[0x1f, 0x8b, 8, 0, 0, 0, 0, 0]);
        assert!(a["ratio"].as_f64().unwrap() < 0.1);
        let back = run_ok(
            "gzip-compressor",
            json!({"input": a["output"], "mode": "decompress"}),
        );
        assert_eq!(back["output"], text);
    }

    #[test]
    fn raw_deflate_and_binary_round_trip() {
        let packed = run_ok(
            "gzip-compressor",
            json!({"input": "AP8A/wA=", "inputEncoding": "base64", "format": "deflate", "level": 0}),
        );
        // Level 0 is a stored block: BFINAL=1 BTYPE=00, LEN=5, NLEN=!5 (RFC 1951 §3.2.4).
        assert_eq!(packed["output"], "AQUA+v8A/wD/AA==");
        let back = run_ok(
            "gzip-compressor",
            json!({"input": packed["output"], "mode": "decompress", "format": "deflate"}),
        );
        assert_eq!(back["output"], "AP8A/wA=");
        assert_eq!(back["outputEncoding"], "base64");
    }

    #[test]
    fn wrong_format_and_corrupt_data_are_reported() {
        let (code, msg) = run_err(
            "gzip-compressor",
            json!({"input": GZIP_HELLO, "mode": "decompress", "format": "zlib"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("not valid zlib data"), "{msg}");
        assert!(msg.contains("try format 'gzip'"), "{msg}");
        let (code, msg) = run_err(
            "gzip-compressor",
            json!({"input": "aGVsbG8gd29ybGQ=", "mode": "decompress"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("not valid gzip data"), "{msg}");
    }

    // The real cap is 256 MiB; a debug-build test inflating that much takes many seconds, so
    // the guard is exercised with a 1 MiB cap on 3 MiB of zeros (about 3 KB compressed).
    #[test]
    fn decompression_bomb_is_refused() {
        let zeros = vec![0u8; 3 * 1024 * 1024];
        let bomb = super::compress(&zeros, "zlib", flate2::Compression::best()).unwrap();
        assert!(bomb.len() < 4096);
        let err = super::inflate(&bomb, "zlib", 1024 * 1024).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidInput);
        assert!(
            err.message.contains("exceeds the 1 MiB limit"),
            "{}",
            err.message
        );
        assert_eq!(
            super::inflate(&bomb, "zlib", 3 * 1024 * 1024)
                .unwrap()
                .len(),
            zeros.len()
        );
    }

    // Literals below come from the real programs: bzip2 1.0.8, xz (XZ Utils) 5.4.1 and
    // lz4 v1.9.4, e.g. `printf hello | bzip2 | base64`.
    const BZ2_HELLO: &str = "QlpoOTFBWSZTWRkxZT0AAACBAAJEoAAhmmgzTQczi7kinChIDJiynoA=";
    const XZ_HELLO: &str =
        "/Td6WFoAAATm1rRGAgAhARYAAAB0L+WjAQAEaGVsbG8AAAAAsTe52+XaHpsAAR0FuC2Arx+2830BAAAAAARZWg==";
    const LZMA_HELLO: &str = "XQAAgAD//////////wA0GUnujmgh////ueAAAA==";
    const LZ4_HELLO: &str = "BCJNGGRApwUAAIBoZWxsbwAAAAD5dwD7";

    fn unpack(id: &str, input: &str, extra: serde_json::Value) -> serde_json::Value {
        let mut args = json!({"input": input, "mode": "decompress"});
        args.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        run_ok(id, args)
    }

    #[test]
    fn bzip2_matches_the_bzip2_program() {
        let data = run_ok("bzip2-compressor", json!({"input": "hello"}));
        assert_eq!(data["output"], BZ2_HELLO);
        assert_eq!(data["level"], 9);
        assert_eq!(data["inputSize"], 5);
        let back = unpack("bzip2-compressor", BZ2_HELLO, json!({}));
        assert_eq!(back["output"], "hello");
        assert_eq!(back["outputEncoding"], "utf-8");
    }

    #[test]
    fn bzip2_round_trips_binary_and_concatenated_streams() {
        let packed = run_ok(
            "bzip2-compressor",
            json!({"input": "AP8A/wA=", "inputEncoding": "base64", "level": 1}),
        );
        let bytes = super::STANDARD
            .decode(packed["output"].as_str().unwrap())
            .unwrap();
        assert_eq!(&bytes[..4], b"BZh1");
        let back = unpack(
            "bzip2-compressor",
            packed["output"].as_str().unwrap(),
            json!({}),
        );
        assert_eq!(back["output"], "AP8A/wA=");
        assert_eq!(back["outputEncoding"], "base64");
        // `cat a.bz2 b.bz2 | bunzip2` yields both members.
        let mut two = super::STANDARD.decode(BZ2_HELLO).unwrap();
        two.extend(super::STANDARD.decode(BZ2_HELLO).unwrap());
        let both = unpack("bzip2-compressor", &super::STANDARD.encode(two), json!({}));
        assert_eq!(both["output"], "hellohello");
    }

    #[test]
    fn bzip2_rejects_corrupt_data_and_names_the_real_format() {
        let mut bytes = super::STANDARD.decode(BZ2_HELLO).unwrap();
        bytes[20] ^= 0xff;
        let (code, msg) = run_err(
            "bzip2-compressor",
            json!({"input": super::STANDARD.encode(bytes), "mode": "decompress"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("not valid bzip2 data"), "{msg}");
        let (code, msg) = run_err(
            "bzip2-compressor",
            json!({"input": XZ_HELLO, "mode": "decompress"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(
            msg.contains("looks like xz, so use lzma-compressor"),
            "{msg}"
        );
    }

    #[test]
    fn lz4_frame_matches_the_lz4_program() {
        let data = run_ok("lz4-compressor", json!({"input": "hello"}));
        assert_eq!(data["output"], LZ4_HELLO);
        let back = unpack("lz4-compressor", LZ4_HELLO, json!({}));
        assert_eq!(back["output"], "hello");
        // `lz4 -c fox.txt`: 900 bytes of a repeated sentence, compressed by the CLI.
        let fox = "The quick brown fox jumps over the lazy dog. ".repeat(20);
        let cli = "BCJNGGRApzsAAAD/HlRoZSBxdWljayBicm93biBmb3gganVtcHMgb3ZlciB0aGUgbGF6eSBkb2cuIC0A////QlBkb2cuIAAAAACfgnyB";
        assert_eq!(unpack("lz4-compressor", cli, json!({}))["output"], fox);
        // Without the content checksum (`lz4 --no-frame-crc`).
        assert_eq!(
            unpack("lz4-compressor", "BCJNGGBAggUAAIBoZWxsbwAAAAA=", json!({}))["output"],
            "hello"
        );
    }

    #[test]
    fn lz4_block_formats_round_trip() {
        let text = "abcabcabcabcabcabcabcabcabcabc";
        let packed = run_ok("lz4-compressor", json!({"input": text, "format": "block"}));
        let bytes = super::STANDARD
            .decode(packed["output"].as_str().unwrap())
            .unwrap();
        // The 4-byte little-endian size of the original comes first.
        assert_eq!(&bytes[..4], &[30, 0, 0, 0]);
        let back = unpack(
            "lz4-compressor",
            packed["output"].as_str().unwrap(),
            json!({"format": "block"}),
        );
        assert_eq!(back["output"], text);
        let raw = run_ok(
            "lz4-compressor",
            json!({"input": text, "format": "block-raw"}),
        );
        assert_eq!(
            super::STANDARD
                .decode(raw["output"].as_str().unwrap())
                .unwrap(),
            &bytes[4..]
        );
        let back = unpack(
            "lz4-compressor",
            raw["output"].as_str().unwrap(),
            json!({"format": "block-raw"}),
        );
        assert_eq!(back["output"], text);
    }

    #[test]
    fn lz4_rejects_corrupt_data_and_oversized_blocks() {
        let (code, msg) = run_err(
            "lz4-compressor",
            json!({"input": BZ2_HELLO, "mode": "decompress"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("not valid LZ4 frame data"), "{msg}");
        assert!(msg.contains("use bzip2-compressor"), "{msg}");
        // A size prefix claiming 4 GiB is refused before anything is allocated.
        let (code, msg) = run_err(
            "lz4-compressor",
            json!({"input": "/////wA=", "mode": "decompress", "format": "block"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("exceeds the 256 MiB limit"), "{msg}");
        let (code, _) = run_err(
            "lz4-compressor",
            json!({"input": "BQAAAPBA", "mode": "decompress", "format": "block"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
    }

    #[test]
    fn xz_and_lzma_match_the_xz_program() {
        let data = run_ok("lzma-compressor", json!({"input": "hello"}));
        assert_eq!(data["output"], XZ_HELLO);
        let alone = run_ok(
            "lzma-compressor",
            json!({"input": "hello", "format": "lzma"}),
        );
        assert_eq!(alone["output"], LZMA_HELLO);
        assert_eq!(
            unpack("lzma-compressor", XZ_HELLO, json!({}))["output"],
            "hello"
        );
        assert_eq!(
            unpack("lzma-compressor", LZMA_HELLO, json!({"format": "lzma"}))["output"],
            "hello"
        );
        // `printf 'hello\n' | xz -1`: a different preset, same decoder.
        let xz1 = "/Td6WFoAAATm1rRGAgAhARAAAACocI6GAQAFaGVsbG8KAAAApWCX8ZT2/eAAAR4GwS+kHR+2830BAAAAAARZWg==";
        assert_eq!(
            unpack("lzma-compressor", xz1, json!({}))["output"],
            "hello\n"
        );
    }

    #[test]
    fn xz_options_round_trip() {
        let text = "The quick brown fox jumps over the lazy dog. ".repeat(50);
        for (preset, extreme, check) in
            [(0, false, "none"), (9, true, "sha256"), (3, false, "crc32")]
        {
            let packed = run_ok(
                "lzma-compressor",
                json!({"input": text, "preset": preset, "extreme": extreme, "check": check}),
            );
            assert!(packed["ratio"].as_f64().unwrap() < 0.1);
            let bytes = super::STANDARD
                .decode(packed["output"].as_str().unwrap())
                .unwrap();
            // Stream flags (xz file format §2.1.1.2): the check id is the low nibble.
            let id = match check {
                "none" => 0,
                "crc32" => 1,
                _ => 0x0a,
            };
            assert_eq!(bytes[7], id);
            let back = unpack(
                "lzma-compressor",
                packed["output"].as_str().unwrap(),
                json!({}),
            );
            assert_eq!(back["output"], text);
        }
    }

    #[test]
    fn xz_rejects_corrupt_data_and_wrong_format() {
        let mut bytes = super::STANDARD.decode(XZ_HELLO).unwrap();
        let n = bytes.len();
        bytes[n - 20] ^= 0x55;
        let (code, msg) = run_err(
            "lzma-compressor",
            json!({"input": super::STANDARD.encode(bytes), "mode": "decompress"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("not valid xz data"), "{msg}");
        let (code, msg) = run_err(
            "lzma-compressor",
            json!({"input": LZMA_HELLO, "mode": "decompress"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("try format 'lzma'"), "{msg}");
    }

    #[test]
    fn every_decoder_stops_at_the_cap() {
        let zeros = vec![0u8; 3 * 1024 * 1024];
        let mib = 1024 * 1024;
        let mut bz = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::new(9));
        std::io::Write::write_all(&mut bz, &zeros).unwrap();
        let bz = bz.finish().unwrap();
        let err = super::bunzip(&bz, mib).unwrap_err();
        assert!(
            err.message.contains("exceeds the 1 MiB limit"),
            "{}",
            err.message
        );
        let xz = super::STANDARD
            .decode(
                run_ok(
                    "lzma-compressor",
                    json!({"input": super::STANDARD.encode(&zeros), "inputEncoding": "base64", "preset": 0}),
                )["output"]
                    .as_str()
                    .unwrap(),
            )
            .unwrap();
        let err = super::unxz(&xz, "xz", mib).unwrap_err();
        assert!(
            err.message.contains("exceeds the 1 MiB limit"),
            "{}",
            err.message
        );
        let lz4 = super::STANDARD
            .decode(
                run_ok(
                    "lz4-compressor",
                    json!({"input": super::STANDARD.encode(&zeros), "inputEncoding": "base64"}),
                )["output"]
                    .as_str()
                    .unwrap(),
            )
            .unwrap();
        let err = super::lz4_decompress(&lz4, "frame", mib).unwrap_err();
        assert!(
            err.message.contains("exceeds the 1 MiB limit"),
            "{}",
            err.message
        );
        assert_eq!(
            super::lz4_decompress(&lz4, "frame", 4 * mib).unwrap().len(),
            zeros.len()
        );
    }
}

//! DEFLATE-family compression: gzip-compressor (gzip RFC 1952, zlib RFC 1950, raw deflate RFC 1951).

use super::ToolFn;
use super::args::{Args, decode_base64_param};
use super::data::with_output;
use crate::ctp::{ToolError, ToolOutcome};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use flate2::Compression;
use flate2::read::{DeflateDecoder, MultiGzDecoder, ZlibDecoder};
use flate2::write::{DeflateEncoder, ZlibEncoder};
use serde_json::{Value, json};
use std::io::{Read, Write};

pub const TOOLS: &[(&str, ToolFn)] = &[("gzip-compressor", gzip_compressor)];

/// Largest decompressed size accepted, so a small "zip bomb" cannot exhaust memory.
const MAX_DECOMPRESSED: u64 = 256 * 1024 * 1024;

fn gzip_compressor(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    let format = args.str("format")?;
    if args.str("mode")? == "decompress" {
        return decompress(input, format);
    }
    let data: std::borrow::Cow<[u8]> = match args.str("inputEncoding")? {
        "base64" => decode_base64_param("input", input)?.into(),
        _ => input.as_bytes().into(),
    };
    let level = u32::try_from(args.i64("level")?)
        .map_err(|_| ToolError::invalid("parameter 'level' must be between 0 and 9"))?;
    let compressed = compress(&data, format, Compression::new(level))
        .map_err(|e| ToolError::execution(format!("compression failed: {e}")))?;
    let fields = json!({
        "mode": "compress",
        "format": format,
        "level": level,
        "inputSize": data.len(),
        "outputSize": compressed.len(),
        "ratio": ratio(compressed.len(), data.len()),
    });
    Ok(with_output(STANDARD.encode(&compressed), fields))
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

fn decompress(input: &str, format: &str) -> ToolOutcome {
    let data = decode_base64_param("input", input)?;
    let out = inflate(&data, format, MAX_DECOMPRESSED)?;
    let size = out.len();
    let (output, encoding) = match String::from_utf8(out) {
        Ok(text) => (text, "utf-8"),
        Err(e) => (STANDARD.encode(e.into_bytes()), "base64"),
    };
    let fields = json!({
        "outputEncoding": encoding,
        "mode": "decompress",
        "format": format,
        "inputSize": data.len(),
        "outputSize": size,
        "ratio": ratio(data.len(), size),
    });
    Ok(with_output(output, fields))
}

/// Decompresses `data`, refusing to produce more than `limit` bytes.
fn inflate(data: &[u8], format: &str, limit: u64) -> Result<Vec<u8>, ToolError> {
    let reader: Box<dyn Read + '_> = match format {
        "zlib" => Box::new(ZlibDecoder::new(data)),
        "deflate" => Box::new(DeflateDecoder::new(data)),
        _ => Box::new(MultiGzDecoder::new(data)),
    };
    let mut out = Vec::new();
    if let Err(e) = reader.take(limit + 1).read_to_end(&mut out) {
        let hint = match sniff(data) {
            Some(actual) if actual != format => {
                format!("; the data looks like {actual}, so try format '{actual}'")
            }
            _ => String::new(),
        };
        return Err(ToolError::invalid(format!(
            "input is not valid {format} data: {e}{hint}"
        )));
    }
    if out.len() as u64 > limit {
        return Err(ToolError::invalid(format!(
            "decompressed data exceeds the {} MiB limit (from {} compressed bytes); this may be a decompression bomb",
            limit / (1024 * 1024),
            data.len()
        )));
    }
    Ok(out)
}

/// Recognises the container from its header: gzip magic (RFC 1952 §2.3.1) or a zlib
/// CMF/FLG pair (RFC 1950 §2.2: deflate method, window ≤ 32K, check bits).
fn sniff(data: &[u8]) -> Option<&'static str> {
    match data {
        [0x1f, 0x8b, ..] => Some("gzip"),
        [cmf, flg, ..]
            if cmf & 0x0f == 8
                && cmf >> 4 <= 7
                && (u16::from(*cmf) * 256 + u16::from(*flg)) % 31 == 0 =>
        {
            Some("zlib")
        }
        _ => None,
    }
}

/// Compressed size over uncompressed size, rounded to four decimals (null for empty data).
fn ratio(compressed: usize, uncompressed: usize) -> Value {
    if uncompressed == 0 {
        return Value::Null;
    }
    let r = compressed as f64 / uncompressed as f64;
    json!((r * 10_000.0).round() / 10_000.0)
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::testing::{run_err, run_ok};
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
}

//! checksum-calculator: non-cryptographic checksums — CRCs from the `crc` crate's catalogue
//! (the reveng.sourceforge.io CRC catalogue), Adler-32 (`adler2`), Fletcher-16/32/64,
//! MurmurHash3 (`murmur3`), the RFC 1071 Internet checksum and XOR-8.

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::crypto::classic_ciphers::decode_hex;
use crate::tools::kit::args::{Args, decode_base64_param};
use crate::tools::kit::tool::Tool;
use crc::{Algorithm, Crc};
use serde_json::{Value, json};
use std::io::Cursor;

pub(crate) const TOOLS: &[Tool] = &[Tool::new("checksum-calculator", checksum_calculator)];

/// How a checksum is computed, by width (CRCs) or by family.
enum Kind {
    Crc8(&'static Algorithm<u8>),
    Crc16(&'static Algorithm<u16>),
    Crc32(&'static Algorithm<u32>),
    Crc64(&'static Algorithm<u64>),
    Adler32,
    Fletcher16,
    Fletcher32,
    Fletcher64,
    Murmur32,
    Murmur128X64,
    Murmur128X86,
    Internet,
    Xor8,
}

/// (option value, canonical name, width in bits, kind), in the order "all" lists them.
const ALGORITHMS: &[(&str, &str, u32, Kind)] = &[
    (
        "crc32",
        "CRC-32/ISO-HDLC",
        32,
        Kind::Crc32(&crc::CRC_32_ISO_HDLC),
    ),
    (
        "crc32c",
        "CRC-32/ISCSI (CRC-32C)",
        32,
        Kind::Crc32(&crc::CRC_32_ISCSI),
    ),
    (
        "crc32-bzip2",
        "CRC-32/BZIP2",
        32,
        Kind::Crc32(&crc::CRC_32_BZIP2),
    ),
    (
        "crc32-mpeg2",
        "CRC-32/MPEG-2",
        32,
        Kind::Crc32(&crc::CRC_32_MPEG_2),
    ),
    (
        "crc32-cksum",
        "CRC-32/CKSUM (POSIX)",
        32,
        Kind::Crc32(&crc::CRC_32_CKSUM),
    ),
    (
        "crc32-jamcrc",
        "CRC-32/JAMCRC",
        32,
        Kind::Crc32(&crc::CRC_32_JAMCRC),
    ),
    (
        "crc32-autosar",
        "CRC-32/AUTOSAR",
        32,
        Kind::Crc32(&crc::CRC_32_AUTOSAR),
    ),
    (
        "crc32-aixm",
        "CRC-32/AIXM (CRC-32Q)",
        32,
        Kind::Crc32(&crc::CRC_32_AIXM),
    ),
    (
        "crc32-base91-d",
        "CRC-32/BASE91-D (CRC-32D)",
        32,
        Kind::Crc32(&crc::CRC_32_BASE91_D),
    ),
    (
        "crc32-xfer",
        "CRC-32/XFER",
        32,
        Kind::Crc32(&crc::CRC_32_XFER),
    ),
    (
        "crc24-openpgp",
        "CRC-24/OPENPGP",
        24,
        Kind::Crc32(&crc::CRC_24_OPENPGP),
    ),
    ("crc24-ble", "CRC-24/BLE", 24, Kind::Crc32(&crc::CRC_24_BLE)),
    ("crc16-arc", "CRC-16/ARC", 16, Kind::Crc16(&crc::CRC_16_ARC)),
    (
        "crc16-ccitt-false",
        "CRC-16/IBM-3740 (CCITT-FALSE)",
        16,
        Kind::Crc16(&crc::CRC_16_IBM_3740),
    ),
    (
        "crc16-xmodem",
        "CRC-16/XMODEM",
        16,
        Kind::Crc16(&crc::CRC_16_XMODEM),
    ),
    (
        "crc16-kermit",
        "CRC-16/KERMIT (CCITT)",
        16,
        Kind::Crc16(&crc::CRC_16_KERMIT),
    ),
    (
        "crc16-modbus",
        "CRC-16/MODBUS",
        16,
        Kind::Crc16(&crc::CRC_16_MODBUS),
    ),
    (
        "crc16-x25",
        "CRC-16/IBM-SDLC (X-25)",
        16,
        Kind::Crc16(&crc::CRC_16_IBM_SDLC),
    ),
    ("crc16-usb", "CRC-16/USB", 16, Kind::Crc16(&crc::CRC_16_USB)),
    (
        "crc16-maxim",
        "CRC-16/MAXIM-DOW",
        16,
        Kind::Crc16(&crc::CRC_16_MAXIM_DOW),
    ),
    (
        "crc16-genibus",
        "CRC-16/GENIBUS",
        16,
        Kind::Crc16(&crc::CRC_16_GENIBUS),
    ),
    ("crc16-dnp", "CRC-16/DNP", 16, Kind::Crc16(&crc::CRC_16_DNP)),
    (
        "crc16-umts",
        "CRC-16/UMTS (BUYPASS)",
        16,
        Kind::Crc16(&crc::CRC_16_UMTS),
    ),
    (
        "crc16-t10-dif",
        "CRC-16/T10-DIF",
        16,
        Kind::Crc16(&crc::CRC_16_T10_DIF),
    ),
    (
        "crc16-aug-ccitt",
        "CRC-16/SPI-FUJITSU (AUG-CCITT)",
        16,
        Kind::Crc16(&crc::CRC_16_SPI_FUJITSU),
    ),
    ("crc8", "CRC-8/SMBUS", 8, Kind::Crc8(&crc::CRC_8_SMBUS)),
    (
        "crc8-maxim",
        "CRC-8/MAXIM-DOW (1-Wire)",
        8,
        Kind::Crc8(&crc::CRC_8_MAXIM_DOW),
    ),
    (
        "crc8-autosar",
        "CRC-8/AUTOSAR",
        8,
        Kind::Crc8(&crc::CRC_8_AUTOSAR),
    ),
    (
        "crc8-bluetooth",
        "CRC-8/BLUETOOTH",
        8,
        Kind::Crc8(&crc::CRC_8_BLUETOOTH),
    ),
    (
        "crc8-cdma2000",
        "CRC-8/CDMA2000",
        8,
        Kind::Crc8(&crc::CRC_8_CDMA2000),
    ),
    (
        "crc8-dvb-s2",
        "CRC-8/DVB-S2",
        8,
        Kind::Crc8(&crc::CRC_8_DVB_S2),
    ),
    (
        "crc8-itu",
        "CRC-8/I-432-1 (ITU)",
        8,
        Kind::Crc8(&crc::CRC_8_I_432_1),
    ),
    ("crc8-rohc", "CRC-8/ROHC", 8, Kind::Crc8(&crc::CRC_8_ROHC)),
    (
        "crc8-sae-j1850",
        "CRC-8/SAE-J1850",
        8,
        Kind::Crc8(&crc::CRC_8_SAE_J1850),
    ),
    (
        "crc64-ecma",
        "CRC-64/ECMA-182",
        64,
        Kind::Crc64(&crc::CRC_64_ECMA_182),
    ),
    ("crc64-xz", "CRC-64/XZ", 64, Kind::Crc64(&crc::CRC_64_XZ)),
    (
        "crc64-go-iso",
        "CRC-64/GO-ISO",
        64,
        Kind::Crc64(&crc::CRC_64_GO_ISO),
    ),
    ("crc64-we", "CRC-64/WE", 64, Kind::Crc64(&crc::CRC_64_WE)),
    (
        "crc64-redis",
        "CRC-64/REDIS",
        64,
        Kind::Crc64(&crc::CRC_64_REDIS),
    ),
    (
        "crc64-nvme",
        "CRC-64/NVME",
        64,
        Kind::Crc64(&crc::CRC_64_NVME),
    ),
    ("adler32", "Adler-32", 32, Kind::Adler32),
    ("fletcher16", "Fletcher-16", 16, Kind::Fletcher16),
    ("fletcher32", "Fletcher-32", 32, Kind::Fletcher32),
    ("fletcher64", "Fletcher-64", 64, Kind::Fletcher64),
    ("murmur3-32", "MurmurHash3 x86_32", 32, Kind::Murmur32),
    (
        "murmur3-128",
        "MurmurHash3 x64_128",
        128,
        Kind::Murmur128X64,
    ),
    (
        "murmur3-x86-128",
        "MurmurHash3 x86_128",
        128,
        Kind::Murmur128X86,
    ),
    (
        "internet",
        "Internet checksum (RFC 1071)",
        16,
        Kind::Internet,
    ),
    ("xor8", "XOR-8 (LRC)", 8, Kind::Xor8),
];

fn checksum_calculator(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    let data = match args.str("inputEncoding")? {
        "hex" => decode_hex("input", input)?,
        "base64" => decode_base64_param("input", input)?,
        _ => input.as_bytes().to_vec(),
    };
    let seed = u32::try_from(args.i64("seed")?)
        .map_err(|_| ToolError::invalid("parameter 'seed' must be between 0 and 4294967295"))?;
    let algorithm = args.str("algorithm")?;
    let uppercase = args.flag("uppercase");
    let results: Vec<Value> = ALGORITHMS
        .iter()
        .filter(|(id, ..)| algorithm == "all" || *id == algorithm)
        .map(|(id, name, width, kind)| {
            let value = compute(kind, &data, seed);
            let digits = (*width as usize).div_ceil(4);
            let hex = if uppercase {
                format!("{value:0digits$X}")
            } else {
                format!("{value:0digits$x}")
            };
            json!({
                "algorithm": id,
                "name": name,
                "hex": hex,
                "decimal": value.to_string(),
                "bits": width,
            })
        })
        .collect();
    let Some(first) = results.first() else {
        return Err(ToolError::invalid(format!(
            "unknown algorithm '{algorithm}'"
        )));
    };
    let output = if algorithm == "all" {
        results
            .iter()
            .map(|r| {
                format!(
                    "{}: {}",
                    r["name"].as_str().unwrap_or_default(),
                    r["hex"].as_str().unwrap_or_default()
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    } else {
        first["hex"].as_str().unwrap_or_default().to_string()
    };
    let mut out = json!({ "output": output, "inputSize": data.len() });
    if algorithm == "all" {
        out["results"] = Value::Array(results);
    } else if let Value::Object(single) = first {
        for (k, v) in single {
            out[k] = v.clone();
        }
    }
    Ok(out)
}

fn compute(kind: &Kind, data: &[u8], seed: u32) -> u128 {
    match kind {
        Kind::Crc8(a) => u128::from(Crc::<u8>::new(a).checksum(data)),
        Kind::Crc16(a) => u128::from(Crc::<u16>::new(a).checksum(data)),
        Kind::Crc32(a) => u128::from(Crc::<u32>::new(a).checksum(data)),
        Kind::Crc64(a) => u128::from(Crc::<u64>::new(a).checksum(data)),
        Kind::Adler32 => u128::from(adler2::adler32_slice(data)),
        Kind::Fletcher16 => u128::from(fletcher(data, 1)),
        Kind::Fletcher32 => u128::from(fletcher(data, 2)),
        Kind::Fletcher64 => u128::from(fletcher(data, 4)),
        // Reading from memory cannot fail; the crate's API is generic over readers.
        Kind::Murmur32 => {
            u128::from(murmur3::murmur3_32(&mut Cursor::new(data), seed).unwrap_or(0))
        }
        // The reference implementation writes h1 then h2 as little-endian words; printing
        // those 16 bytes in order gives the hex that mmh3.hash_bytes and CyberChef show.
        Kind::Murmur128X64 => u128::from_be_bytes(
            murmur3::murmur3_x64_128(&mut Cursor::new(data), seed)
                .unwrap_or(0)
                .to_le_bytes(),
        ),
        Kind::Murmur128X86 => u128::from_be_bytes(
            murmur3::murmur3_x86_128(&mut Cursor::new(data), seed)
                .unwrap_or(0)
                .to_le_bytes(),
        ),
        Kind::Internet => u128::from(internet_checksum(data)),
        Kind::Xor8 => u128::from(data.iter().fold(0u8, |acc, b| acc ^ b)),
    }
}

/// Fletcher's checksum over words of `word_bytes` bytes (1, 2 or 4), little-endian, the last
/// word zero-padded; sums are modulo 2^(8·word_bytes) − 1 — the definition and test vectors of
/// Wikipedia's "Fletcher's checksum" article.
fn fletcher(data: &[u8], word_bytes: usize) -> u64 {
    let bits = 8 * word_bytes as u32;
    let modulus: u64 = (1u64 << bits) - 1;
    let (mut a, mut b) = (0u64, 0u64);
    for chunk in data.chunks(word_bytes) {
        let mut word = [0u8; 8];
        word[..chunk.len()].copy_from_slice(chunk);
        let w = u64::from_le_bytes(word);
        a = (a + w) % modulus;
        b = (b + a) % modulus;
    }
    (b << bits) | a
}

/// The Internet checksum (RFC 1071): the ones' complement of the ones' complement sum of the
/// data as big-endian 16-bit words, an odd last byte padded with zero.
fn internet_checksum(data: &[u8]) -> u16 {
    let mut sum: u64 = data
        .chunks(2)
        .map(|c| u64::from(u16::from_be_bytes([c[0], c.get(1).copied().unwrap_or(0)])))
        .sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::json;

    fn check(algorithm: &str, input: &str) -> String {
        run_ok(
            "checksum-calculator",
            json!({"input": input, "algorithm": algorithm}),
        )["hex"]
            .as_str()
            .unwrap()
            .to_string()
    }

    // The "check" value of each algorithm in the CRC catalogue: its CRC of "123456789".
    #[test]
    fn crc_catalogue_check_values() {
        let vectors = [
            ("crc32", "cbf43926"),
            ("crc32c", "e3069283"),
            ("crc32-bzip2", "fc891918"),
            ("crc32-mpeg2", "0376e6e7"),
            ("crc32-cksum", "765e7680"),
            ("crc24-openpgp", "21cf02"),
            ("crc16-arc", "bb3d"),
            ("crc16-ccitt-false", "29b1"),
            ("crc16-xmodem", "31c3"),
            ("crc16-kermit", "2189"),
            ("crc16-modbus", "4b37"),
            ("crc16-x25", "906e"),
            ("crc8", "f4"),
            ("crc8-maxim", "a1"),
            ("crc64-ecma", "6c40df5f0b497347"),
            ("crc64-xz", "995dc9bbdf1939fa"),
        ];
        for (algorithm, expected) in vectors {
            assert_eq!(check(algorithm, "123456789"), expected, "{algorithm}");
        }
        let data = run_ok("checksum-calculator", json!({"input": "123456789"}));
        assert_eq!(data["output"], "cbf43926");
        assert_eq!(data["decimal"], "3421780262");
        assert_eq!(data["name"], "CRC-32/ISO-HDLC");
    }

    // Adler-32 of "Wikipedia" (RFC 1950 and Wikipedia's worked example); Fletcher vectors from
    // Wikipedia's "Fletcher's checksum" article.
    #[test]
    fn adler_and_fletcher_vectors() {
        assert_eq!(check("adler32", "Wikipedia"), "11e60398");
        assert_eq!(check("fletcher16", "abcde"), "c8f0");
        assert_eq!(check("fletcher16", "abcdef"), "2057");
        assert_eq!(check("fletcher16", "abcdefgh"), "0627");
        assert_eq!(check("fletcher32", "abcde"), "f04fc729");
        assert_eq!(check("fletcher32", "abcdef"), "56502d2a");
        assert_eq!(check("fletcher32", "abcdefgh"), "ebe19591");
        assert_eq!(check("fletcher64", "abcde"), "c8c6c527646362c6");
        assert_eq!(check("fletcher64", "abcdef"), "c8c72b276463c8c6");
        assert_eq!(check("fletcher64", "abcdefgh"), "312e2b28cccac8c6");
    }

    // MurmurHash3 vectors from the murmur3 crate's test suite (checked against the reference
    // C++ implementation) and the widely quoted x86_32 "hello" value.
    #[test]
    fn murmur3_vectors() {
        let lorem = "Lorem ipsum dolor sit amet, consectetur adipisicing elit";
        assert_eq!(check("murmur3-32", lorem), "3bf7e870");
        assert_eq!(
            check("murmur3-128", lorem),
            "6f5cb02cfd5edc6fe69df0ff60417046"
        );
        assert_eq!(
            check("murmur3-x86-128", lorem),
            "ab533f57ad3bba56fea49f7348889110"
        );
        assert_eq!(check("murmur3-32", "hello"), "248bfa47");
        assert_eq!(check("murmur3-32", ""), "00000000");
        let seeded = run_ok(
            "checksum-calculator",
            json!({"input": "", "algorithm": "murmur3-32", "seed": 1}),
        );
        assert_eq!(seeded["hex"], "514e28b7");
    }

    // RFC 1071 §3 numerical example: bytes 00 01 f2 03 f4 f5 f6 f7 sum to ddf2.
    #[test]
    fn internet_checksum_and_xor8() {
        let data = run_ok(
            "checksum-calculator",
            json!({"input": "0001f203f4f5f6f7", "inputEncoding": "hex", "algorithm": "internet"}),
        );
        assert_eq!(data["hex"], "220d");
        let xor = run_ok(
            "checksum-calculator",
            json!({"input": "AQID", "inputEncoding": "base64", "algorithm": "xor8", "uppercase": true}),
        );
        assert_eq!(xor["hex"], "00");
        assert_eq!(check("xor8", "ab"), "03");
    }

    #[test]
    fn all_lists_every_algorithm() {
        let data = run_ok(
            "checksum-calculator",
            json!({"input": "123456789", "algorithm": "all"}),
        );
        let results = data["results"].as_array().unwrap();
        assert_eq!(results.len(), super::ALGORITHMS.len());
        assert_eq!(results[0]["hex"], "cbf43926");
        assert!(
            data["output"]
                .as_str()
                .unwrap()
                .contains("CRC-64/XZ: 995dc9bbdf1939fa")
        );
    }

    #[test]
    fn rejects_bad_hex_input() {
        let (code, msg) = run_err(
            "checksum-calculator",
            json!({"input": "abc", "inputEncoding": "hex"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("odd number of digits"), "{msg}");
    }
}

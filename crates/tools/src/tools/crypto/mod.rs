//! Cryptography and secrets: digests, MACs and checksums, ciphers, key derivation and password
//! hashing, one-time passwords, JWTs, keys and their formats (PEM, DER, JWK, ASN.1, SSH), X.509.

pub(super) mod checksums;
pub(super) mod cipher;
pub(super) mod classic_ciphers;
pub(super) mod fernet;
pub(super) mod hash_id;
pub(super) mod hashing;
pub(super) mod jwt;
pub(super) mod kdf;
pub(super) mod keyformats;
pub(super) mod keys;
pub(super) mod oid;
pub(super) mod otp;
pub(super) mod passwords;
pub(super) mod secrets;
pub(super) mod x509;

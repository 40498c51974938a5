//! Identifiers: UUID and ULID generation and analysis, and validation of IBANs, phone numbers
//! and Luhn check digits.

pub(super) mod ids;
pub(super) mod validators;

//! Pictures and colours: CSS colour conversion, QR codes and SVG placeholder images.

pub(super) mod color;
pub(super) mod qr;
pub(super) mod svg;

//! Markup and stylesheets: XML (format, convert, validate, XPath), HTML (selectors, to text),
//! Markdown to HTML, and CSS layout.

pub(super) mod css;
pub(super) mod css_layout;
pub(super) mod html;
pub(super) mod html_scan;
pub(super) mod markdown;
pub(super) mod xml;
pub(super) mod xml_query;

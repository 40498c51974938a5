//! Plain text: case, clean-up, diff, extraction, wrapping and tables, line and list editing,
//! regular expressions and find-replace, statistics and distances, templates, lorem ipsum,
//! banners and emoji.

pub(super) mod art;
pub(super) mod case;
pub(super) mod cleanup;
pub(super) mod diff;
pub(super) mod extract;
pub(super) mod layout;
pub(super) mod lines;
pub(super) mod lists;
pub(super) mod lorem;
pub(super) mod measure;
pub(super) mod pattern;
pub(super) mod replace;
pub(super) mod stats;
pub(super) mod template;

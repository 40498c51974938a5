//! Networks and the web: IPv4 and IPv6 addressing, MAC addresses, URLs, user agents, redirect
//! unwrapping, HTTP status codes and MIME types.

pub(super) mod addresses;
pub(super) mod ipv6;
pub(super) mod lookup;
pub(super) mod web;

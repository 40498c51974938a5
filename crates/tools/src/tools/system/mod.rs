//! System administration: Unix file permissions and `docker run` to Compose.

pub(super) mod docker;
pub(super) mod permissions;

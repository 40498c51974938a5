//! cmpx's tool library: the catalogue of CTP tool definitions with their declared contracts,
//! the tools that implement them, and [`run`], which runs one in-process. It has no front end
//! and no policy, and reads a file only when its host hands it one to stream, so it can be used
//! alone (and built for a browser); the `cmpx` crate adds the executor, the front ends and the
//! exports.

// What other crates may use is `pub` from here; everything else says `pub(crate)`.
#![warn(unreachable_pub)]

pub mod catalogue;
pub mod contract;
pub mod ctp;
pub mod jsonstr;
pub mod limits;
pub mod run;
pub mod suggest;
pub mod text;
pub mod tools;

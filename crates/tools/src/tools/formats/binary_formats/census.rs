//! A count of a property list's values and of how deep they nest, taken before the plist crate
//! builds its tree.
//!
//! A binary property list refers to objects by number, and one object may be referred to many
//! times, so a file of a few hundred bytes can stand for a tree of billions of values; an XML
//! one can nest without bound. The plist crate expands references as it builds and has no
//! limit of its own. Its serde deserializer reads the same events one at a time, so a visitor
//! that only counts, and stops at the limits, bounds both the work and the memory.

use crate::ctp::ToolError;
use crate::tools::kit::budget;
use crate::tools::kit::depth::{self, JSON_DEPTH};
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use std::cell::Cell;
use std::fmt;
use std::io::Cursor;

/// Values a property list may expand to: the plist crate keeps about 250 bytes per value by
/// the time cmpx has its JSON.
pub(super) const MAX_PLIST_VALUES: usize = 2_000_000;

thread_local! {
    static SEEN: Cell<usize> = const { Cell::new(0) };
    static LEVEL: Cell<usize> = const { Cell::new(0) };
    static STOP: Cell<Option<Stop>> = const { Cell::new(None) };
}

#[derive(Clone, Copy)]
enum Stop {
    Deep,
    Many,
}

/// Refuses a property list (XML or binary) that nests deeper than [`JSON_DEPTH`] or expands
/// to more than [`MAX_PLIST_VALUES`] values. Malformed input passes: the real parse reports it.
pub(super) fn check(bytes: &[u8]) -> Result<(), ToolError> {
    SEEN.with(|c| c.set(0));
    LEVEL.with(|c| c.set(0));
    STOP.with(|c| c.set(None));
    let _ = plist::from_reader::<_, Census>(Cursor::new(bytes));
    match STOP.with(Cell::take) {
        Some(Stop::Deep) => Err(depth::too_deep("input", JSON_DEPTH, depth::Place::Unknown)),
        Some(Stop::Many) => Err(budget::too_many_of(
            MAX_PLIST_VALUES,
            "the property list",
            "values (counting each use of a shared object)",
            "convert a smaller one",
        )),
        None => Ok(()),
    }
}

struct Census;

fn stop<E: de::Error>(why: Stop) -> E {
    STOP.with(|c| c.set(Some(why)));
    E::custom("limit reached")
}

impl<'de> Deserialize<'de> for Census {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let seen = SEEN.with(|c| {
            c.set(c.get() + 1);
            c.get()
        });
        if seen > MAX_PLIST_VALUES {
            return Err(stop(Stop::Many));
        }
        d.deserialize_any(CensusVisitor)
    }
}

struct CensusVisitor;

/// Enters one level of nesting for the duration of `f`.
fn nested<E: de::Error>(f: impl FnOnce() -> Result<(), E>) -> Result<Census, E> {
    let level = LEVEL.with(|c| {
        c.set(c.get() + 1);
        c.get()
    });
    let result = if level > JSON_DEPTH {
        Err(stop(Stop::Deep))
    } else {
        f()
    };
    LEVEL.with(|c| c.set(c.get() - 1));
    result.map(|()| Census)
}

impl<'de> Visitor<'de> for CensusVisitor {
    type Value = Census;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a property list value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Census, E> {
        Ok(Census)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Census, E> {
        Ok(Census)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Census, E> {
        Ok(Census)
    }
    fn visit_i128<E>(self, _: i128) -> Result<Census, E> {
        Ok(Census)
    }
    fn visit_u128<E>(self, _: u128) -> Result<Census, E> {
        Ok(Census)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Census, E> {
        Ok(Census)
    }
    fn visit_str<E>(self, _: &str) -> Result<Census, E> {
        Ok(Census)
    }
    fn visit_bytes<E>(self, _: &[u8]) -> Result<Census, E> {
        Ok(Census)
    }
    fn visit_unit<E>(self) -> Result<Census, E> {
        Ok(Census)
    }
    fn visit_none<E>(self) -> Result<Census, E> {
        Ok(Census)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Census, D::Error> {
        Census::deserialize(d)
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Census, D::Error> {
        Census::deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Census, A::Error> {
        nested(|| {
            while seq.next_element::<Census>()?.is_some() {}
            Ok(())
        })
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Census, A::Error> {
        nested(|| {
            while map.next_entry::<Census, Census>()?.is_some() {}
            Ok(())
        })
    }
    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<Census, A::Error> {
        use de::VariantAccess;
        let (Census, variant) = data.variant::<Census>()?;
        variant.newtype_variant::<Census>()
    }
}

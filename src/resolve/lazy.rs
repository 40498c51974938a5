//! A list stored encoded, item after item, and decoded one item at a time the first time it is
//! used: a warm `resolve` touches the few hundred intents its words name, not the tens of
//! thousands installed, so decoding all of them was most of its own work.

use serde::de::{self, DeserializeOwned, Deserializer, Visitor};
use serde::ser::Serializer;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::OnceLock;

/// What a decoded item may refer to; an item out of these bounds is not used.
#[derive(Debug, Default, Clone, Copy, Serialize, Deserialize)]
pub struct Bounds {
    pub terms: usize,
    pub tools: usize,
}

/// An item that can say whether its ids fit an index of the given size, so that a cache that
/// decodes but does not fit (a damaged or hand-made file) cannot index out of bounds.
pub trait Fits {
    fn fits(&self, bounds: Bounds) -> bool;
}

#[derive(Default)]
pub struct Lazy<T> {
    /// The items' postcard encodings, one after another.
    bytes: Vec<u8>,
    /// Where each item's encoding ends in `bytes`.
    ends: Vec<u32>,
    cells: Vec<OnceLock<T>>,
    bounds: Bounds,
    /// Stands in for an item that does not decode or does not fit.
    empty: T,
}

impl<T: Serialize + DeserializeOwned + Fits + Default> Lazy<T> {
    /// A list built in memory: encoded for the cache, and already decoded.
    pub fn built(items: Vec<T>, bounds: Bounds) -> Self {
        let mut bytes = Vec::new();
        let mut ends = Vec::with_capacity(items.len());
        for item in &items {
            // Encoding plain structs into a Vec cannot fail; an item that somehow did would be
            // stored empty and decode to `empty`.
            if let Ok(b) = postcard::to_extend(item, std::mem::take(&mut bytes)) {
                bytes = b;
            }
            ends.push(bytes.len() as u32);
        }
        Lazy {
            bytes,
            ends,
            cells: items.into_iter().map(OnceLock::from).collect(),
            bounds,
            empty: T::default(),
        }
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Item `i`, decoded now if it was not yet. Panics only for `i` out of range, like a slice.
    pub fn get(&self, i: usize) -> &T {
        let cell = &self.cells[i];
        if let Some(item) = cell.get() {
            return item;
        }
        let start = i
            .checked_sub(1)
            .map_or(0, |p| self.ends[p] as usize)
            .min(self.bytes.len());
        let end = (self.ends[i] as usize).clamp(start, self.bytes.len());
        match postcard::from_bytes::<T>(&self.bytes[start..end]) {
            Ok(item) if item.fits(self.bounds) => cell.get_or_init(|| item),
            _ => &self.empty,
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = &T> {
        (0..self.len()).map(|i| self.get(i))
    }

    /// Whether the stored offsets are in order and inside the bytes.
    pub fn consistent(&self) -> bool {
        self.ends.windows(2).all(|w| w[0] <= w[1])
            && self
                .ends
                .last()
                .is_none_or(|&e| e as usize <= self.bytes.len())
    }

    /// Sets what decoded items are checked against (known only once the whole index is read).
    pub fn bound(&mut self, bounds: Bounds) {
        self.bounds = bounds;
    }
}

impl<T: Serialize + DeserializeOwned + Fits + Default> std::ops::Index<usize> for Lazy<T> {
    type Output = T;
    fn index(&self, i: usize) -> &T {
        self.get(i)
    }
}

impl<T> fmt::Debug for Lazy<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Lazy({} items, {} bytes)",
            self.ends.len(),
            self.bytes.len()
        )
    }
}

/// On disk: the bytes (as one byte string, copied in one piece) and the offsets.
#[derive(Deserialize)]
struct Stored {
    bytes: Bytes,
    ends: Vec<u32>,
}

impl<T> Serialize for Lazy<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Borrowed<'a> {
            bytes: BytesRef<'a>,
            ends: &'a [u32],
        }
        Borrowed {
            bytes: BytesRef(&self.bytes),
            ends: &self.ends,
        }
        .serialize(s)
    }
}

impl<'de, T: Default> Deserialize<'de> for Lazy<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let Stored { bytes, ends } = Stored::deserialize(d)?;
        Ok(Lazy {
            bytes: bytes.0,
            cells: (0..ends.len()).map(|_| OnceLock::new()).collect(),
            ends,
            bounds: Bounds::default(),
            empty: T::default(),
        })
    }
}

struct BytesRef<'a>(&'a [u8]);

impl Serialize for BytesRef<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(self.0)
    }
}

/// A byte string decoded in one copy; serde's `Vec<u8>` goes byte by byte through a visitor.
struct Bytes(Vec<u8>);

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Bytes;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a byte string")
            }
            fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Bytes, E> {
                Ok(Bytes(v.to_vec()))
            }
            fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<Bytes, E> {
                Ok(Bytes(v))
            }
        }
        d.deserialize_byte_buf(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
    struct Item {
        term: u32,
        name: String,
    }

    impl Fits for Item {
        fn fits(&self, b: Bounds) -> bool {
            (self.term as usize) < b.terms
        }
    }

    fn items() -> Vec<Item> {
        (0..5)
            .map(|i| Item {
                term: i,
                name: format!("item {i}"),
            })
            .collect()
    }

    #[test]
    fn decodes_each_item_on_first_use_after_a_round_trip() {
        let bounds = Bounds { terms: 5, tools: 0 };
        let built = Lazy::built(items(), bounds);
        let bytes = postcard::to_stdvec(&built).unwrap();
        let mut read: Lazy<Item> = postcard::from_bytes(&bytes).unwrap();
        read.bound(bounds);
        assert!(read.consistent());
        assert_eq!(read.len(), 5);
        assert!(read.cells.iter().all(|c| c.get().is_none()));
        assert_eq!(read[3].name, "item 3");
        assert_eq!(read.cells.iter().filter(|c| c.get().is_some()).count(), 1);
        assert_eq!(
            read.iter().collect::<Vec<_>>(),
            items().iter().collect::<Vec<_>>()
        );
    }

    #[test]
    fn an_item_that_does_not_fit_or_decode_reads_as_empty() {
        let built = Lazy::built(items(), Bounds::default());
        let bytes = postcard::to_stdvec(&built).unwrap();
        let mut read: Lazy<Item> = postcard::from_bytes(&bytes).unwrap();
        // Only terms 0 and 1 exist: items 2..5 point past them.
        read.bound(Bounds { terms: 2, tools: 0 });
        assert_eq!(read[1].name, "item 1");
        assert_eq!(read[4], Item::default());
        // Offsets that cut an item short decode nothing and still do not panic.
        let mut cut: Lazy<Item> = postcard::from_bytes(&bytes).unwrap();
        cut.bound(Bounds { terms: 5, tools: 0 });
        cut.ends[2] = cut.ends[1] + 1;
        assert_eq!(cut[2], Item::default());
        // Offsets out of order or past the end fail the check that makes a load rebuild, and
        // reading through them anyway still does not panic.
        cut.ends[4] = u32::MAX;
        assert!(!cut.consistent());
        let _ = &cut[4];
    }
}

//! [`ExactPolicy`] from text: `fast_f32=1,blocks_per_sm=4,…` (what `reduce exact --policy`
//! takes), each key one field, each value checked.

use super::plan::{exact_blocks, ExactPolicy};
use crate::error::{ReduceError, Result};
use crate::policy_settings::{pairs, size, unknown};

impl ExactPolicy {
    /// The keys [`ExactPolicy::set`] knows: the field names.
    pub const KEYS: [&'static str; 5] = [
        "block",
        "blocks_per_sm",
        "min_tiles",
        "fast_f32",
        "fast_f64",
    ];

    /// Set the field named `key` from `value`.
    ///
    /// # Errors
    /// [`ReduceError::Policy`] for an unknown key or a bad value: `block` one of the built
    /// blocks (256, 512), `blocks_per_sm` 1..=64, `min_tiles` 1..=2^20, `fast_f32` and
    /// `fast_f64` 0 or 1.
    pub fn set(&mut self, key: &str, value: &str) -> Result<()> {
        match key {
            "block" => {
                let b = size(key, value, 1, 1 << 20)?;
                if !exact_blocks().contains(&b) {
                    return Err(ReduceError::Policy {
                        key: key.into(),
                        why: format!("{b} is not a built block size {:?}", exact_blocks()),
                    });
                }
                self.block = b;
            }
            "blocks_per_sm" => self.blocks_per_sm = size(key, value, 1, 64)?,
            "min_tiles" => self.min_tiles = size(key, value, 1, 1 << 20)?,
            "fast_f32" => self.fast_f32 = size(key, value, 0, 1)? == 1,
            "fast_f64" => self.fast_f64 = size(key, value, 0, 1)? == 1,
            _ => return Err(unknown(key, &Self::KEYS)),
        }
        Ok(())
    }

    /// This policy with the `key=value,…` settings of `text` applied in order (an empty text
    /// changes nothing).
    ///
    /// # Errors
    /// [`ReduceError::Policy`] naming the first bad item (see [`ExactPolicy::set`]).
    pub fn with_settings(mut self, text: &str) -> Result<Self> {
        for (k, v) in pairs(text)? {
            self.set(k, v)?;
        }
        Ok(self)
    }
}

//! [`AxisPolicy`] from text: `blocks_per_sm=8,col_tile=32,…` (what `reduce axis --policy`
//! takes), each key one field, each value checked against the field's range.

use super::{AxisPolicy, AXIS_BLOCK};
use crate::error::Result;
use crate::policy_settings::{size, unknown, PolicySettings};

impl PolicySettings for AxisPolicy {
    /// The keys [`PolicySettings::set`] knows: the field names.
    const KEYS: &'static [&'static str] = &[
        "blocks_per_sm",
        "vectors_per_lane",
        "block_run",
        "min_piece",
        "min_piece_rows",
        "segment_piece",
        "col_tile",
        "max_col_parts",
        "finish_piece_rows",
        "row_waves",
        "col_blocks_per_sm",
        "segment_blocks_per_sm",
        "long_row_blocks_per_sm",
        "min_col_tiles",
        "col_once_max_vcols",
        "col_once_blocks_per_sm",
        "finish_col_tile",
        "row_unroll",
        "col_short_rows",
        "col_once_flat",
        "col_flat_blocks_per_sm",
        "col_flat_fine",
        "wide_col_short_rows",
        "wide_col_blocks_per_sm",
    ];

    /// Set the field named `key` from `value` (digits with an optional `K`/`M`/`G` suffix, or
    /// `2^E`).
    ///
    /// # Errors
    /// [`crate::ReduceError::Policy`] for an unknown key or a value outside the key's range:
    /// `blocks_per_sm` and `row_waves` 1..=64, `col_blocks_per_sm`, `segment_blocks_per_sm`,
    /// `long_row_blocks_per_sm`, `col_once_blocks_per_sm`, `col_flat_blocks_per_sm` and
    /// `wide_col_blocks_per_sm` 0..=64 (0: another knob's value), `vectors_per_lane` 1..=1024,
    /// `col_tile` 1..=256, `finish_col_tile` 0..=256 (0: the first pass's tile), `min_col_tiles`
    /// 1..=2^20, `row_unroll` 4 or 8, `col_once_max_vcols` 0 (off) or more, `min_piece`,
    /// `min_piece_rows`, `segment_piece` and `max_col_parts` at least 1, `finish_piece_rows` 0
    /// (off) or at least 2, `col_once_flat` 0 or 1, `col_flat_fine` 0 or 1, `col_short_rows` and
    /// `wide_col_short_rows` 0 or 16; every count at most 2^40.
    fn set(&mut self, key: &str, value: &str) -> Result<()> {
        match key {
            "blocks_per_sm" => self.blocks_per_sm = size(key, value, 1, 64)?,
            "vectors_per_lane" => self.vectors_per_lane = size(key, value, 1, 1024)?,
            "block_run" => self.block_run = size(key, value, 0, BIG)?,
            "min_piece" => self.min_piece = size(key, value, 1, BIG)?,
            "min_piece_rows" => self.min_piece_rows = size(key, value, 1, BIG)?,
            "segment_piece" => self.segment_piece = size(key, value, 1, BIG)?,
            "col_tile" => self.col_tile = size(key, value, 1, AXIS_BLOCK)?,
            "max_col_parts" => self.max_col_parts = size(key, value, 1, BIG)?,
            "row_waves" => self.row_waves = size(key, value, 1, 64)?,
            "col_blocks_per_sm" => self.col_blocks_per_sm = size(key, value, 0, 64)?,
            "segment_blocks_per_sm" => self.segment_blocks_per_sm = size(key, value, 0, 64)?,
            "long_row_blocks_per_sm" => self.long_row_blocks_per_sm = size(key, value, 0, 64)?,
            "min_col_tiles" => self.min_col_tiles = size(key, value, 1, 1 << 20)?,
            "col_once_max_vcols" => self.col_once_max_vcols = size(key, value, 0, BIG)?,
            "col_once_blocks_per_sm" => self.col_once_blocks_per_sm = size(key, value, 0, 64)?,
            "finish_col_tile" => self.finish_col_tile = size(key, value, 0, AXIS_BLOCK)?,
            "row_unroll" => self.row_unroll = unroll(key, value)?,
            "col_short_rows" => self.col_short_rows = one_of(key, value, &[0, 16])?,
            "wide_col_short_rows" => self.wide_col_short_rows = one_of(key, value, &[0, 16])?,
            "wide_col_blocks_per_sm" => self.wide_col_blocks_per_sm = size(key, value, 0, 64)?,
            "col_once_flat" => self.col_once_flat = one_of(key, value, &[0, 1])?,
            "col_flat_blocks_per_sm" => self.col_flat_blocks_per_sm = size(key, value, 0, 64)?,
            "col_flat_fine" => self.col_flat_fine = one_of(key, value, &[0, 1])?,
            "finish_piece_rows" => {
                let v = size(key, value, 0, BIG)?;
                if v == 1 {
                    return Err(crate::ReduceError::Policy {
                        key: key.into(),
                        why: "1 would never shrink the split; use 0 (off) or at least 2".into(),
                    });
                }
                self.finish_piece_rows = v;
            }
            _ => return Err(unknown(key, Self::KEYS)),
        }
        Ok(())
    }
}

/// A value the kernels are built for: one of `allowed`.
fn one_of(key: &str, value: &str, allowed: &[usize]) -> Result<usize> {
    let v = size(key, value, 0, BIG)?;
    if !allowed.contains(&v) {
        return Err(crate::ReduceError::Policy {
            key: key.into(),
            why: format!("{v}: the column kernels are built for {allowed:?}"),
        });
    }
    Ok(v)
}

/// Largest count a setting takes.
const BIG: usize = 1 << 40;

/// The row kernel's unroll depth: 4 or 8, the two it is built with.
fn unroll(key: &str, value: &str) -> Result<usize> {
    let v = size(key, value, 4, 8)?;
    if v != 4 && v != 8 {
        return Err(crate::ReduceError::Policy {
            key: key.into(),
            why: format!("{v}: the row kernel is built with 4 or 8 loads in flight"),
        });
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_set_fields_and_bad_ones_are_named() {
        let p = AxisPolicy::default()
            .with_settings("blocks_per_sm=4, col_tile=32,segment_piece=2^18,min_piece=16K")
            .unwrap();
        assert_eq!(
            (p.blocks_per_sm, p.col_tile, p.segment_piece, p.min_piece),
            (4, 32, 1 << 18, 16384)
        );
        assert_eq!(
            AxisPolicy::default().with_settings("").unwrap(),
            AxisPolicy::default()
        );
        // A value other than the default's for each key.
        let other_value = |key: &str| match key {
            "row_unroll" => "4",
            "col_short_rows" => "16",
            "wide_col_short_rows" => "0",
            "col_once_flat" => "0", // (1 is the default)
            "col_flat_blocks_per_sm" => "3",
            "col_flat_fine" => "0",
            "wide_col_blocks_per_sm" => "2",
            "col_once_blocks_per_sm" => "3", // (2 is the default)
            _ => "2",
        };
        crate::policy_settings::assert_keys::<AxisPolicy>(
            other_value,
            &[
                ("nope=1", "nope"),
                ("blocks_per_sm=0", "blocks_per_sm"),
                ("col_tile=257", "col_tile"),
                ("finish_col_tile=257", "finish_col_tile"),
                ("col_once_blocks_per_sm=65", "col_once_blocks_per_sm"),
                ("row_unroll=5", "row_unroll"),
                ("row_unroll=16", "row_unroll"),
                ("col_short_rows=32", "col_short_rows"),
                ("wide_col_short_rows=8", "wide_col_short_rows"),
                ("col_once_flat=2", "col_once_flat"),
                ("col_flat_blocks_per_sm=65", "col_flat_blocks_per_sm"),
                ("wide_col_blocks_per_sm=65", "wide_col_blocks_per_sm"),
                ("min_piece=x", "min_piece"),
                ("finish_piece_rows=1", "finish_piece_rows"),
                ("blocks_per_sm", "blocks_per_sm"),
            ],
        );
    }
}

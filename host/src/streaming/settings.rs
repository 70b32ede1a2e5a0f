//! [`StreamPolicy`] from text: `copy_threads=16,max_chunk_bytes=8M,…` (what `reduce host
//! --policy` takes), each key one field, each value checked against the field's range.

use super::policy::StreamPolicy;
use crate::error::Result;
use crate::policy_settings::{size, unknown, PolicySettings};

impl PolicySettings for StreamPolicy {
    /// The keys [`PolicySettings::set`] knows: the field names.
    const KEYS: &'static [&'static str] = &[
        "max_chunk_bytes",
        "min_chunk_bytes",
        "target_chunks",
        "slots",
        "copy_threads",
        "min_bytes_per_thread",
        "zero_copy_max_bytes",
        "register_min_bytes",
    ];

    /// Set the field named `key` from `value` (digits with an optional `K`/`M`/`G` suffix, or
    /// `2^E`; `register_min_bytes` also takes `off`).
    ///
    /// # Errors
    /// [`crate::ReduceError::Policy`] for an unknown key or a value outside the key's range:
    /// `max_chunk_bytes` 8 bytes..=4 GiB, `min_chunk_bytes` at most 4 GiB, `target_chunks`
    /// 1..=4096, `slots` 2..=64, `copy_threads` 1..=256, the byte thresholds at most 2^50.
    fn set(&mut self, key: &str, value: &str) -> Result<()> {
        const BIG: usize = 1 << 50;
        match key {
            "max_chunk_bytes" => self.max_chunk_bytes = size(key, value, 8, 4 << 30)?,
            "min_chunk_bytes" => self.min_chunk_bytes = size(key, value, 0, 4 << 30)?,
            "target_chunks" => self.target_chunks = size(key, value, 1, 4096)?,
            "slots" => self.slots = size(key, value, 2, 64)?,
            "copy_threads" => self.copy_threads = size(key, value, 1, 256)?,
            "min_bytes_per_thread" => self.min_bytes_per_thread = size(key, value, 1, BIG)?,
            "zero_copy_max_bytes" => self.zero_copy_max_bytes = size(key, value, 0, BIG)?,
            "register_min_bytes" if value == "off" => self.register_min_bytes = usize::MAX,
            "register_min_bytes" => self.register_min_bytes = size(key, value, 0, BIG)?,
            _ => return Err(unknown(key, Self::KEYS)),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_set_fields_and_bad_ones_are_named() {
        let p = StreamPolicy::default()
            .with_settings("copy_threads=16,max_chunk_bytes=8M,register_min_bytes=2^26,slots=4")
            .unwrap();
        assert_eq!(
            (
                p.copy_threads,
                p.max_chunk_bytes,
                p.register_min_bytes,
                p.slots
            ),
            (16, 8 << 20, 1 << 26, 4)
        );
        let off = p.with_settings("register_min_bytes=off").unwrap();
        assert_eq!(off.register_min_bytes, usize::MAX);
        crate::policy_settings::assert_keys::<StreamPolicy>(
            |_| "9",
            &[
                ("threads=4", "threads"),
                ("slots=1", "slots"),
                ("copy_threads=0", "copy_threads"),
                ("max_chunk_bytes=4", "max_chunk_bytes"),
                ("target_chunks=many", "target_chunks"),
            ],
        );
    }
}

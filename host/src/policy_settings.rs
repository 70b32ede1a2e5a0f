//! Tuning policies set from text, without recompiling: `key=value,key=value`, the form that
//! `reduce axis --policy` and `reduce host --policy` take (and that the H200 tuning sweeps
//! used). Each policy ([`crate::AxisPolicy`], [`crate::StreamPolicy`]) names its keys and
//! bounds; this module only splits the text and reads the numbers, so that every bad setting is a
//! [`ReduceError::Policy`] naming the key and the problem.
//!
//! [`PolicySettings`] is what the policies share: each names its keys and sets one field, and the
//! trait's one default method applies a whole `key=value,…` text.

use crate::error::{ReduceError, Result};

/// A tuning policy whose fields can be set one key at a time from text.
pub trait PolicySettings: Sized {
    /// The keys [`PolicySettings::set`] knows: the field names.
    const KEYS: &'static [&'static str];

    /// Set the field named `key` from `value`.
    ///
    /// # Errors
    /// [`ReduceError::Policy`] for an unknown key or a value outside the key's range.
    fn set(&mut self, key: &str, value: &str) -> Result<()>;

    /// This policy with the `key=value,…` settings of `text` applied in order (an empty text
    /// changes nothing).
    ///
    /// # Errors
    /// [`ReduceError::Policy`] naming the first bad item (see [`PolicySettings::set`]).
    fn with_settings(mut self, text: &str) -> Result<Self> {
        for (k, v) in pairs(text)? {
            self.set(k, v)?;
        }
        Ok(self)
    }
}

/// `key=value` pairs of `text` (comma-separated; spaces around items ignored; an empty text has
/// none).
pub(crate) fn pairs(text: &str) -> Result<Vec<(&str, &str)>> {
    text.split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .map(|item| {
            item.split_once('=')
                .map(|(k, v)| (k.trim(), v.trim()))
                .ok_or_else(|| ReduceError::Policy {
                    key: item.to_string(),
                    why: "expected key=value".into(),
                })
        })
        .collect()
}

/// A count or byte size in `lo..=hi`: decimal digits with an optional binary suffix `K` (2^10),
/// `M` (2^20) or `G` (2^30), or `2^E`.
pub(crate) fn size(key: &str, value: &str, lo: usize, hi: usize) -> Result<usize> {
    let bad = |why: String| ReduceError::Policy {
        key: key.to_string(),
        why,
    };
    let parsed = if let Some(e) = value.strip_prefix("2^") {
        e.parse::<u32>()
            .ok()
            .and_then(|e| 1usize.checked_shl(e).filter(|_| e < usize::BITS))
    } else {
        let (digits, scale) = match value.char_indices().last() {
            Some((i, 'K' | 'k')) => (&value[..i], 1usize << 10),
            Some((i, 'M' | 'm')) => (&value[..i], 1 << 20),
            Some((i, 'G' | 'g')) => (&value[..i], 1 << 30),
            _ => (value, 1),
        };
        digits
            .parse::<usize>()
            .ok()
            .and_then(|d| d.checked_mul(scale))
    };
    let v = parsed.ok_or_else(|| {
        bad(format!(
            "`{value}` is not a count (digits with an optional K/M/G suffix, or 2^E)"
        ))
    })?;
    if v < lo || v > hi {
        return Err(bad(format!("{v} is outside {lo}..={hi}")));
    }
    Ok(v)
}

/// `Ok` when every field of `policy` that differs from the default is a value
/// [`PolicySettings::set`] accepts for its key. The policies' fields are public, so a policy built
/// field by field reaches the planner without passing through `set`: this holds it to the same
/// ranges (a field out of range is the [`ReduceError::Policy`] naming it, not an overflow or a
/// division by zero in the plan). Free for the default policy.
pub(crate) fn check_fields<P>(policy: &P) -> Result<()>
where
    P: PolicySettings + Default + PartialEq + serde::Serialize,
{
    check_fields_with(policy, P::KEYS, P::set)
}

/// [`check_fields`] for a policy whose keys and setter are its own (not [`PolicySettings`]).
pub(crate) fn check_fields_with<P>(
    policy: &P,
    keys: &[&str],
    set: impl Fn(&mut P, &str, &str) -> Result<()>,
) -> Result<()>
where
    P: Default + PartialEq + serde::Serialize,
{
    let default = P::default();
    if *policy == default {
        return Ok(());
    }
    let as_json = |p: &P| {
        serde_json::to_value(p).map_err(|e| ReduceError::InvalidArgument(format!("a policy: {e}")))
    };
    let (fields, defaults) = (as_json(policy)?, as_json(&default)?);
    for &key in keys {
        let Some(value) = fields.get(key).filter(|&v| Some(v) != defaults.get(key)) else {
            continue;
        };
        let text = match value {
            serde_json::Value::Bool(b) => u8::from(*b).to_string(),
            other => other.to_string(),
        };
        set(&mut P::default(), key, &text)?;
    }
    Ok(())
}

/// The error for a key the policy does not have.
pub(crate) fn unknown(key: &str, keys: &[&str]) -> ReduceError {
    ReduceError::Policy {
        key: key.to_string(),
        why: format!("unknown key; the keys are {}", keys.join(", ")),
    }
}

/// The policies' tests of their keys: every key of `P` sets its field (to `other_value(key)`,
/// a value other than the default's), and each `(text, key)` of `refused` fails over `P`'s
/// default with a [`ReduceError::Policy`] naming `key`.
#[cfg(test)]
pub(crate) fn assert_keys<P>(other_value: impl Fn(&str) -> &'static str, refused: &[(&str, &str)])
where
    P: PolicySettings + Default + PartialEq + std::fmt::Debug,
{
    for key in P::KEYS {
        let mut q = P::default();
        q.set(key, other_value(key)).unwrap();
        assert!(q != P::default(), "{key} sets nothing");
    }
    for &(text, key) in refused {
        let e = P::default().with_settings(text).unwrap_err();
        assert!(
            matches!(&e, ReduceError::Policy { key: k, .. } if k == key),
            "{text}: {e}"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_and_sizes() {
        assert_eq!(
            pairs(" a=1, b = 2M ,").unwrap(),
            vec![("a", "1"), ("b", "2M")]
        );
        assert!(pairs("").unwrap().is_empty());
        assert!(matches!(pairs("a=1,b"), Err(ReduceError::Policy { key, .. }) if key == "b"));
        assert_eq!(size("k", "16", 0, 100).unwrap(), 16);
        assert_eq!(size("k", "4K", 0, 1 << 40).unwrap(), 4096);
        assert_eq!(size("k", "3M", 0, 1 << 40).unwrap(), 3 << 20);
        assert_eq!(size("k", "1G", 0, 1 << 40).unwrap(), 1 << 30);
        assert_eq!(size("k", "2^16", 0, 1 << 40).unwrap(), 1 << 16);
        for bad in [
            "",
            "x",
            "-1",
            "1.5",
            "2^99",
            "99999999999999999999G",
            "0",
            "101",
        ] {
            let e = size("k", bad, 1, 100).unwrap_err();
            assert!(
                matches!(&e, ReduceError::Policy { key, .. } if key == "k"),
                "{bad}: {e}"
            );
        }
    }
}

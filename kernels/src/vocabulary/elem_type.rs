//! The element types: one vocabulary for the kernel table, the host's API and plans, the command
//! line and the JSON records (`f32` …, [`ElemType::name`]).

/// The element types the library reduces: one vocabulary for the kernel table, the host's
/// plans and the command line (`f32` …, [`ElemType::name`]). A Rust type names its own with
/// [`crate::Element::TYPE`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "lowercase")
)]
pub enum ElemType {
    /// `f32`
    F32,
    /// `f64`
    F64,
    /// `i32`
    I32,
    /// `u32`
    U32,
    /// `i64`
    I64,
    /// `u64`
    U64,
    /// IEEE binary16 ([`crate::half::F16`]): stage 8's operators, argmin/argmax and the
    /// transform-reduces; not in [`ElemType::ALL`].
    F16,
    /// bfloat16 ([`crate::half::Bf16`]): as [`ElemType::F16`].
    BF16,
}

impl ElemType {
    /// The six types every operator is built for.
    pub const ALL: [ElemType; 6] = [
        Self::F32,
        Self::F64,
        Self::I32,
        Self::U32,
        Self::I64,
        Self::U64,
    ];
    /// The two 2-byte float types (kept out of [`ElemType::ALL`]).
    pub const HALVES: [ElemType; 2] = [Self::F16, Self::BF16];
    /// The name in symbols and on the command line (`f32` …).
    pub const fn name(self) -> &'static str {
        match self {
            ElemType::F32 => "f32",
            ElemType::F64 => "f64",
            ElemType::I32 => "i32",
            ElemType::U32 => "u32",
            ElemType::I64 => "i64",
            ElemType::U64 => "u64",
            ElemType::F16 => "f16",
            ElemType::BF16 => "bf16",
        }
    }
    /// Size in bytes.
    pub const fn size(self) -> usize {
        match self {
            Self::F16 | Self::BF16 => 2,
            Self::F32 | Self::I32 | Self::U32 => 4,
            Self::F64 | Self::I64 | Self::U64 => 8,
        }
    }
    /// Is it a float (`f32`, `f64`, `f16`, `bf16`)?
    pub const fn is_float(self) -> bool {
        matches!(self, Self::F32 | Self::F64 | Self::F16 | Self::BF16)
    }
}

impl core::fmt::Display for ElemType {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is no [`ElemType`] (`"f8".parse::<ElemType>()`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownElemType;

impl core::fmt::Display for UnknownElemType {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(
            "unknown element type (expected one of f32, f64, i32, u32, i64, u64, f16, bf16)",
        )
    }
}

impl core::error::Error for UnknownElemType {}

impl core::str::FromStr for ElemType {
    type Err = UnknownElemType;
    fn from_str(s: &str) -> Result<Self, UnknownElemType> {
        let mut all = Self::ALL.into_iter().chain(Self::HALVES);
        all.find(|t| t.name() == s).ok_or(UnknownElemType)
    }
}

//! The Python API's rules, without Python or a GPU.

use super::*;

#[test]
fn typestrs_of_the_six_types() {
    for (s, t) in [
        ("<f4", ElemType::F32),
        ("<f8", ElemType::F64),
        ("<i4", ElemType::I32),
        ("<u4", ElemType::U32),
        ("<i8", ElemType::I64),
        ("<u8", ElemType::U64),
        ("=f4", ElemType::F32),
    ] {
        assert_eq!(dtype_of_typestr(s), Ok(t), "{s}");
    }
    for t in SUPPORTED {
        let s = format!(
            "<{}{}",
            match t {
                ElemType::F32 | ElemType::F64 => 'f',
                ElemType::I32 | ElemType::I64 => 'i',
                _ => 'u',
            },
            t.size()
        );
        assert_eq!(dtype_of_typestr(&s), Ok(t));
    }
}

#[test]
fn other_typestrs_are_type_errors() {
    for s in [
        "<f2", "<c8", "|b1", "|u1", "<i2", ">f4", ">i8", "", "<", "<f", "<fx", "f4",
    ] {
        assert!(
            matches!(dtype_of_typestr(s), Err(ArgError::Type(_))),
            "{s:?}: {:?}",
            dtype_of_typestr(s)
        );
    }
    let half = dtype_of_typestr("<f2").unwrap_err().to_string();
    assert!(half.contains("float16"), "{half}");
    assert!(dtype_of_typestr(">f4")
        .unwrap_err()
        .to_string()
        .contains("big-endian"));
}

#[test]
fn torch_dtype_names() {
    assert_eq!(dtype_of_torch("torch.float32"), Ok(ElemType::F32));
    assert_eq!(dtype_of_torch("torch.float64"), Ok(ElemType::F64));
    assert_eq!(dtype_of_torch("torch.int32"), Ok(ElemType::I32));
    assert_eq!(dtype_of_torch("torch.uint32"), Ok(ElemType::U32));
    assert_eq!(dtype_of_torch("torch.int64"), Ok(ElemType::I64));
    assert_eq!(dtype_of_torch("torch.uint64"), Ok(ElemType::U64));
    for bad in [
        "torch.float16",
        "torch.bfloat16",
        "torch.bool",
        "torch.complex64",
        "torch.int8",
    ] {
        let e = dtype_of_torch(bad).unwrap_err();
        assert!(matches!(e, ArgError::Type(_)));
        assert!(e.to_string().contains(&bad[6..]), "{e}");
    }
}

#[test]
fn blocking_32_bit_integer_sums_are_wide() {
    assert!(wide_sum(Op::Sum, ElemType::I32, false));
    assert!(wide_sum(Op::Sum, ElemType::U32, false));
    // With out= of the same type: the 32-bit sum, torch.sum(x, out=o)'s value.
    assert!(!wide_sum(Op::Sum, ElemType::I32, true));
    assert!(!wide_sum(Op::Min, ElemType::I32, false));
    assert!(!wide_sum(Op::Sum, ElemType::I64, false));
    assert!(!wide_sum(Op::Sum, ElemType::F32, false));
}

#[test]
fn element_counts_with_overflow_checks() {
    assert_eq!(element_count(&[], 4), Ok(1));
    assert_eq!(element_count(&[0], 4), Ok(0));
    assert_eq!(element_count(&[3, 0, 5], 4), Ok(0));
    assert_eq!(element_count(&[1 << 15, 1 << 15], 4), Ok(1 << 30));
    assert!(matches!(
        element_count(&[2, -1], 4),
        Err(ArgError::Value(_))
    ));
    assert!(matches!(
        element_count(&[1 << 40, 1 << 40], 4),
        Err(ArgError::Value(_))
    ));
    // Fits in usize, but not its bytes in isize.
    assert!(element_count(&[1 << 62], 4).is_err());
    assert!(element_count(&[i64::MAX, 2], 1).is_err());
}

#[test]
fn c_contiguity() {
    assert!(is_c_contiguous(&[2, 3], &[12, 4], 4));
    assert!(is_c_contiguous(&[], &[], 4));
    assert!(is_c_contiguous(&[5], &[8], 8));
    // Extent-1 dimensions may have any stride; empty arrays are contiguous.
    assert!(is_c_contiguous(&[1, 3], &[999, 4], 4));
    assert!(is_c_contiguous(&[2, 0], &[7, -3], 4));
    // Transposed, strided, reversed, wrong rank.
    assert!(!is_c_contiguous(&[2, 3], &[4, 8], 4));
    assert!(!is_c_contiguous(&[4], &[8], 4));
    assert!(!is_c_contiguous(&[4], &[-4], 4));
    assert!(!is_c_contiguous(&[2, 3], &[12], 4));
    assert!(!is_c_contiguous(&[2, 2], &[0, 4], 4));
}

#[test]
fn cai_stream_rules() {
    assert_eq!(cai_stream(None), Ok(None));
    assert_eq!(cai_stream(Some(1)), Ok(Some(LEGACY_STREAM)));
    assert_eq!(cai_stream(Some(2)), Ok(Some(PER_THREAD_STREAM)));
    assert_eq!(
        cai_stream(Some(0x7f00_dead_0000)),
        Ok(Some(0x7f00_dead_0000))
    );
    let zero = cai_stream(Some(0)).unwrap_err();
    assert!(matches!(zero, ArgError::Value(_)));
    assert!(zero.to_string().contains("forbids"), "{zero}");
    assert!(cai_stream(Some(-5)).is_err());
    assert!(cai_stream(Some(1 << 64)).is_err());
}

#[test]
fn user_stream_rules() {
    assert_eq!(user_stream(0), Ok(NULL_STREAM));
    assert_eq!(user_stream(1), Ok(LEGACY_STREAM));
    assert_eq!(user_stream(0x5555_0000), Ok(0x5555_0000));
    assert_eq!(user_stream(u64::MAX as i128), Ok(u64::MAX));
    assert!(matches!(user_stream(-1), Err(ArgError::Value(_))));
    assert!(user_stream(1 << 64).is_err());
}

#[test]
fn overlap() {
    assert!(overlaps(0x1000, 4, 0x1000, 1, 4));
    assert!(overlaps(0x1000, 4, 0x100c, 1, 4));
    assert!(!overlaps(0x1000, 4, 0x1010, 1, 4));
    assert!(!overlaps(0x1010, 1, 0x1000, 4, 4));
    assert!(!overlaps(0x1000, 0, 0x1000, 1, 4));
    assert!(overlaps(u64::MAX - 7, 2, u64::MAX - 3, 1, 4));
}

//! The checks of borrowed device memory that need no GPU: the shape of the request, and the
//! attributes a driver would report, faked.

use super::{check_attributes, check_shape, Expected, PointerAttributes, PointerProblem};
use crate::{Backend, BackendChoice, ReduceError};

const DEVICE: u32 = cust::sys::CUmemorytype::CU_MEMORYTYPE_DEVICE as u32;
const HOST: u32 = cust::sys::CUmemorytype::CU_MEMORYTYPE_HOST as u32;
const OURS: Expected = Expected {
    context: 0x5000,
    ordinal: 0,
};

/// A 4 KiB device allocation at 0x7000_0000 of our context.
fn good() -> PointerAttributes {
    PointerAttributes {
        context: OURS.context,
        memory_type: DEVICE,
        is_managed: false,
        device_ordinal: 0,
        range_start: 0x7000_0000,
        range_size: 4096,
    }
}

#[test]
fn a_request_inside_our_device_allocation_passes() {
    let bytes = check_shape(0x7000_0000, 1024, 4, 4).unwrap().unwrap();
    assert_eq!(bytes, 4096);
    check_attributes(0x7000_0000, bytes, &good(), OURS).unwrap();
    // A misaligned-for-16-bytes but f32-aligned start inside it (an offset view).
    check_attributes(0x7000_0004, 4092, &good(), OURS).unwrap();
}

#[test]
fn empty_views_are_allowed_whatever_the_address() {
    assert_eq!(check_shape(0, 0, 4, 4), Ok(None));
    assert_eq!(check_shape(3, 0, 8, 8), Ok(None));
}

#[test]
fn null_overflow_and_misalignment_are_caught_before_the_driver() {
    assert_eq!(check_shape(0, 1, 4, 4), Err(PointerProblem::Null));
    assert!(matches!(
        check_shape(0x1000, usize::MAX / 2, 4, 4),
        Err(PointerProblem::Overflow { .. })
    ));
    assert!(matches!(
        check_shape(u64::MAX - 8, 4, 4, 4),
        Err(PointerProblem::Overflow { .. })
    ));
    assert_eq!(
        check_shape(0x7000_0002, 4, 4, 4),
        Err(PointerProblem::Misaligned {
            ptr: 0x7000_0002,
            align: 4
        })
    );
    assert!(check_shape(0x7000_0004, 4, 8, 8).is_err());
    assert!(check_shape(0x7000_0001, 4, 1, 1).is_ok());
}

#[test]
fn host_and_unknown_memory_are_not_device_memory() {
    let unknown = PointerAttributes::default();
    assert_eq!(
        check_attributes(0x1234, 4, &unknown, OURS),
        Err(PointerProblem::Unknown { ptr: 0x1234 })
    );
    let pinned = PointerAttributes {
        memory_type: HOST,
        ..good()
    };
    assert!(matches!(
        check_attributes(0x7000_0000, 4, &pinned, OURS),
        Err(PointerProblem::NotDeviceMemory { kind, .. }) if kind == "host"
    ));
    // Managed memory is device-readable.
    let managed = PointerAttributes {
        memory_type: HOST,
        is_managed: true,
        ..good()
    };
    assert!(check_attributes(0x7000_0000, 4, &managed, OURS).is_ok());
}

#[test]
fn another_context_or_device_is_refused() {
    let other = PointerAttributes {
        context: 0x6000,
        ..good()
    };
    assert_eq!(
        check_attributes(0x7000_0000, 4, &other, OURS),
        Err(PointerProblem::WrongContext { ptr: 0x7000_0000 })
    );
    let gpu1 = PointerAttributes {
        device_ordinal: 1,
        ..good()
    };
    assert!(matches!(
        check_attributes(0x7000_0000, 4, &gpu1, OURS),
        Err(PointerProblem::WrongDevice {
            found: 1,
            expected: 0,
            ..
        })
    ));
    // Stream-ordered (memory-pool) allocations are reported without a context: allowed on
    // this device.
    let pooled = PointerAttributes {
        context: 0,
        ..good()
    };
    assert!(check_attributes(0x7000_0000, 4, &pooled, OURS).is_ok());
}

#[test]
fn past_the_allocation_is_refused() {
    // One element past the 4 KiB.
    assert_eq!(
        check_attributes(0x7000_0000, 4100, &good(), OURS),
        Err(PointerProblem::PastAllocation {
            ptr: 0x7000_0000,
            end: 0x7000_1004,
            start: 0x7000_0000,
            alloc_end: 0x7000_1000,
        })
    );
    // Starting before it.
    assert!(check_attributes(0x6fff_fffc, 8, &good(), OURS).is_err());
    // A range the driver reports absurdly (start + size overflowing) does not panic.
    let odd = PointerAttributes {
        range_size: u64::MAX,
        ..good()
    };
    assert!(check_attributes(0x7000_0000, 4, &odd, OURS).is_ok());
}

#[test]
fn the_emulator_has_no_device_memory_to_borrow() {
    let backend = Backend::open(BackendChoice::Emu).unwrap();
    // SAFETY: refused before any address is used.
    let r = unsafe { backend.borrow_raw::<f32>(0x7000_0000, 4) };
    assert!(matches!(
        r,
        Err(ReduceError::BadPointer {
            arg: "ptr",
            problem: PointerProblem::Emulator
        })
    ));
}

#[test]
fn messages_name_the_argument_and_the_problem() {
    let e = ReduceError::BadPointer {
        arg: "ptr",
        problem: PointerProblem::Misaligned {
            ptr: 0x12,
            align: 8,
        },
    };
    let text = e.to_string();
    assert!(
        text.contains("`ptr`") && text.contains("0x12") && text.contains("8 bytes"),
        "{text}"
    );
}

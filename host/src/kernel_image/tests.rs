//! The embedded images: every cubin is its architecture's and holds every kernel; which image a
//! device loads; a corrupt image is a typed error.

use super::*;

#[test]
fn every_embedded_cubin_is_an_elf_image_of_its_architecture() {
    for &(major, minor) in SASS_ARCHS {
        let c = embedded_cubin((major, minor)).unwrap().unwrap();
        assert_eq!(&c[..4], b"\x7fELF", "not an ELF file");
        assert_eq!(c[4], 2, "not a 64-bit ELF");
        // e_machine 190 = EM_CUDA; the SM version (e.g. 90, 120) is in e_flags: the low byte
        // in the older ELF ABI, bits 8..16 in the newer one ptxas writes for sm_100 and on.
        assert_eq!(u16::from_le_bytes([c[18], c[19]]), 190, "not a CUDA ELF");
        let flags = u32::from_le_bytes([c[48], c[49], c[50], c[51]]);
        let sm = major * 10 + minor;
        assert!(
            flags & 0xff == sm || (flags >> 8) & 0xff == sm,
            "e_flags {flags:#x} do not name sm_{sm}"
        );
    }
    assert_eq!(embedded_cubin((8, 7)).unwrap(), None);
}

#[test]
fn a_device_loads_the_cubin_of_its_major_version_or_the_ptx() {
    let e = KernelSource::Embedded;
    for (cc, image) in [
        ((7, 0), KernelImage::Sass((7, 0))),
        ((7, 2), KernelImage::Sass((7, 0))),
        ((7, 5), KernelImage::Sass((7, 5))),
        ((8, 0), KernelImage::Sass((8, 0))),
        ((8, 6), KernelImage::Sass((8, 6))),
        ((8, 7), KernelImage::Sass((8, 6))),
        ((8, 9), KernelImage::Sass((8, 9))),
        ((9, 0), KernelImage::Sass((9, 0))),
        ((10, 0), KernelImage::Sass((10, 0))),
        ((10, 3), KernelImage::Sass((10, 0))),
        ((11, 0), KernelImage::PtxPerKernel),
        ((12, 0), KernelImage::Sass((12, 0))),
        ((12, 1), KernelImage::Sass((12, 0))),
        ((13, 0), KernelImage::PtxPerKernel),
    ] {
        assert_eq!(e.image_for(cc), image, "{cc:?}");
    }
    let other = KernelSource::Ptx {
        text: ".target sm_90",
        origin: "x.ptx",
    };
    assert_eq!(other.image_for((9, 0)), KernelImage::Ptx);
    assert_eq!(
        KernelSource::EmbeddedPtx.image_for((9, 0)),
        KernelImage::PtxPerKernel
    );
}

#[test]
fn a_corrupt_image_is_a_typed_error_naming_it() {
    assert!(decompress(b"not zstd").is_err());
    static BAD: OnceLock<std::result::Result<Box<[u8]>, String>> = OnceLock::new();
    let e = image(&BAD, "test image", || {
        decompress(b"\x28\xb5\x2f\xfd junk").map(Vec::into)
    })
    .unwrap_err()
    .to_string();
    assert!(e.contains("test image cannot be decompressed"), "{e}");
}

#[test]
fn every_kernel_of_the_ptx_is_in_every_cubin() {
    for &arch in SASS_ARCHS {
        every_kernel_is_in(arch);
    }
}

fn every_kernel_is_in(arch: (u32, u32)) {
    let cubin = String::from_utf8_lossy(embedded_cubin(arch).unwrap().unwrap());
    let mut n = 0;
    for line in embedded_ptx().unwrap().lines() {
        if let Some(rest) = line.trim().strip_prefix(".visible .entry ") {
            let name = rest.split('(').next().unwrap_or_default();
            // A cubin has one `.text.NAME` section per kernel.
            let section = format!(".text.{name}\0");
            assert!(
                cubin.contains(&section),
                "{name} is not in the {arch:?} cubin"
            );
            n += 1;
        }
    }
    assert!(n > 50, "only {n} kernels in the PTX");
}

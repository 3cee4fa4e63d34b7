//! Builders for the resources of a 68k Palm application (PALM_FACTS §1.5,
//! §1.6): `code` 0, `data` 0, `pref` 0, `tAIN` and `tver` payloads, plus the
//! type codes and IDs an application PRC uses.
//!
//! These produce resource *data*; the PRC builder combines them with `code` 1
//! into a [`crate::Database`]. Sources are cited per item; facts are from the
//! named files, no code was taken from them.

use crate::FourCC;

/// Database type of an application, `'appl'` (`sysFileTApplication`,
/// `palm-os-sdk:sdk-3.5/include/Core/System/SystemResources.h`).
pub const APPL: FourCC = FourCC::new(*b"appl");
/// Resource type of code resources, `'code'`: ID 0 is the A5-world
/// descriptor ([`code0`]), ID 1 the main code, entered at offset 0.
pub const CODE: FourCC = FourCC::new(*b"code");
/// Resource type of the initialised-globals resource, `'data'` (ID 0, [`data0_no_globals`]).
pub const DATA: FourCC = FourCC::new(*b"data");
/// Resource type of prc-tools' relocation chain heads (`rloc` 0, [`rloc0`]).
pub const RLOC: FourCC = FourCC::new(*b"rloc");
/// Resource type of the launch preferences, `'pref'` (ID 0, [`pref0`]).
pub const PREF: FourCC = FourCC::new(*b"pref");
/// Resource type of the launcher name, `'tAIN'` (`ainRsc`,
/// `palm-os-sdk:sdk-3.5/include/Core/UI/UIResources.h`), ID [`AIN_ID`].
pub const TAIN: FourCC = FourCC::new(*b"tAIN");
/// Resource type of the version string, `'tver'` (`verRsc`, `UIResources.h`), ID [`APP_VERSION_ID`].
pub const TVER: FourCC = FourCC::new(*b"tver");
/// ID of the `tAIN` resource the launcher reads: 1000 (`ainID`, `UIResources.h`).
pub const AIN_ID: u16 = 1000;
/// ID of the application's `tver` resource: 1 (`appVersionID`, `UIResources.h`).
pub const APP_VERSION_ID: u16 = 1;

/// Bytes above A5 that prc-tools declares in `code` 0: 40 = the 32-byte area
/// Palm OS reserves above A5 plus an 8-byte jump table
/// (`prc-tools-remix:prc-tools-2.3/tools/binres.cpp`, `make_code0`).
pub const CODE0_ABOVE_A5: u32 = 40;
/// Size of the `code` 0 resource: 24 bytes.
pub const CODE0_SIZE: usize = 24;

/// The `code` 0 resource (A5-world descriptor), 24 bytes as prc-tools writes
/// it (`prc-tools-remix:prc-tools-2.3/tools/binres.cpp`, `make_code0`;
/// PALM_FACTS §1.6), all big-endian:
///
/// | offset | size | value |
/// |---|---|---|
/// | 0 | 4 | `above_a5`: bytes above A5 (prc-tools: [`CODE0_ABOVE_A5`]) |
/// | 4 | 4 | `below_a5`: bytes of globals below A5 (.data + .bss, rounded up to 4 by the caller) |
/// | 8 | 4 | 8, the jump-table size |
/// | 12 | 4 | 32, the jump-table offset from A5 |
/// | 16 | 8 | `00 00 3F 3C 00 01 A9 F0`, one unused Mac jump-table entry |
///
/// PumpkinOS reads only the first two fields and sets A5 = globals block +
/// `below_a5` (`PumpkinOS:src/libpumpkin/emulation/emupalmos.c`).
pub fn code0(above_a5: u32, below_a5: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity(CODE0_SIZE);
    for field in [above_a5, below_a5, 8, 32] {
        out.extend_from_slice(&field.to_be_bytes());
    }
    out.extend_from_slice(&[0x00, 0x00, 0x3F, 0x3C, 0x00, 0x01, 0xA9, 0xF0]);
    out
}

/// Size of [`data0_no_globals`]: 43 bytes.
pub const DATA0_NO_GLOBALS_SIZE: usize = 43;

/// The `data` 0 resource of an application without globals (no .data, no
/// .bss), 43 bytes exactly as prc-tools builds it with compression 0
/// (`prc-tools-remix:prc-tools-2.3/tools/binres.cpp`, `make_data`; PALM_FACTS
/// §1.6 item 7):
///
/// - `00 00 00 1F`: offset 31 of the code-xref counts below;
/// - three empty compressed blocks, each a start offset `00 00 00 00`
///   (0 − 0 bytes below A5) and the end-of-block byte `00`;
/// - three zero data-xref counts (12 bytes), three zero code-xref counts (12 bytes).
pub fn data0_no_globals() -> Vec<u8> {
    data0(&[Data0Block::default(); 3])
}

/// One of the three compressed blocks of `data` 0: `bytes` written from
/// A5 + `start` on (`start` is negative for globals below A5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Data0Block<'a> {
    /// Where the block starts, in bytes relative to A5.
    pub start: i32,
    /// Its bytes, uncompressed.
    pub bytes: &'a [u8],
}

/// The `data` 0 resource holding `blocks` (PALM_FACTS §1.6: the format the OS's
/// `SysAppStartup` decodes, as prc-tools' build-prc writes it:
/// `prc-tools-remix:prc-tools-2.3/tools/binres.cpp`, `make_data`): the offset of
/// the code-xref counts, the three blocks, each its A5-relative start and its
/// bytes as runs of zeros (`01nnnnnn`: n+1 zero bytes, up to 64) and literals
/// (`1nnnnnnn`: n+1 bytes follow, up to 128) ended by `00`, then three zero
/// data-xref counts and three zero code-xref counts (prc-tools relocates with
/// its own `rloc` 0 instead). Bytes the blocks do not cover are the zeros the
/// OS fills the globals with.
pub fn data0(blocks: &[Data0Block<'_>; 3]) -> Vec<u8> {
    let mut out = vec![0; 4];
    for b in blocks {
        out.extend_from_slice(&b.start.to_be_bytes());
        let mut rest = b.bytes;
        while !rest.is_empty() {
            let zeros = rest.iter().take(64).take_while(|&&x| x == 0).count();
            // A run of two zeros or more; one zero goes with the literals.
            if zeros >= 2 {
                out.push(0x40 | (zeros as u8 - 1));
                rest = &rest[zeros..];
                continue;
            }
            let lit = (1..rest.len().min(128))
                .find(|&i| rest[i] == 0 && rest.get(i + 1) == Some(&0))
                .unwrap_or(rest.len().min(128));
            out.push(0x80 | (lit as u8 - 1));
            out.extend_from_slice(&rest[..lit]);
            rest = &rest[lit..];
        }
        out.push(0);
    }
    let code_xrefs = out.len() as u32 + 12;
    out[..4].copy_from_slice(&code_xrefs.to_be_bytes());
    out.extend_from_slice(&[0; 24]);
    out
}

/// No relocation chain: the head value of an empty chain in [`rloc0`].
pub const RLOC_END: u16 = 0xFFFF;

/// prc-tools' `rloc` 0 resource: one big-endian `u16` chain head per chain,
/// data first, then code 1, code 2, … (`prc-tools-remix:prc-tools-2.3/tools/
/// binres.cpp`, `make_rloc_and_chains`). A head is the offset from the first
/// global (`data_start`) of the chain's first 32-bit site, [`RLOC_END`] for
/// none; each site holds `{next: u16, addend: u16}` (the next site's offset
/// or `0xFFFF`, then the target's offset in its resource) until the app's
/// startup code replaces it with the chain's base + addend (`crt/dreloc.c`,
/// `_RelocateChain`).
pub fn rloc0(heads: &[u16]) -> Vec<u8> {
    heads.iter().flat_map(|h| h.to_be_bytes()).collect()
}

/// prc-tools' default `pref` 0 priority: 30 (`binres.cpp`, `make_pref`).
pub const PREF0_DEFAULT_PRIORITY: u16 = 30;
/// prc-tools' default `pref` 0 stack size: 4096 bytes (`build-prc.cpp`/`obj-res.cpp`).
pub const PREF0_DEFAULT_STACK_SIZE: u32 = 4096;
/// prc-tools' default `pref` 0 minimum free heap: 4096 bytes.
pub const PREF0_DEFAULT_MIN_HEAP: u32 = 4096;

/// The `pref` 0 resource (`SysAppPrefsType`), 10 bytes big-endian:
/// `priority` u16 (task priority), `stack_size` u32 (bytes), `min_heap` u32
/// (minimum free dynamic-heap bytes). Layout: `palm-os-sdk:sdk-5r4
/// .../SystemMgr.h` and `sdk-3.5 .../SysResTypes.rh` (PALM_FACTS §1.6).
/// prc-tools' defaults are the `PREF0_DEFAULT_*` constants.
pub fn pref0(priority: u16, stack_size: u32, min_heap: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity(10);
    out.extend_from_slice(&priority.to_be_bytes());
    out.extend_from_slice(&stack_size.to_be_bytes());
    out.extend_from_slice(&min_heap.to_be_bytes());
    out
}

/// Why a string cannot be a `tAIN`/`tver` payload.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TextError {
    /// A NUL byte would end the string early.
    #[error("{text:?} has a NUL byte at index {index}")]
    ContainsNul {
        /// The rejected text.
        text: String,
        /// Byte index of the NUL.
        index: usize,
    },
    /// A non-ASCII character: Palm OS does not use UTF-8, so its bytes would
    /// show as other characters on the device.
    #[error("{text:?} has a non-ASCII character at byte {index}; Palm OS text is not UTF-8")]
    NotAscii {
        /// The rejected text.
        text: String,
        /// Byte index of the first non-ASCII byte.
        index: usize,
    },
}

/// The `tAIN` payload (ID [`AIN_ID`]): the launcher's name for the app, as
/// ASCII bytes plus a NUL terminator, unpadded, as PilRC's
/// `ParseDumpApplicationIconName` writes it
/// (`PumpkinOS:src/pilrc/pilrc.c`: `strlen + 1` bytes).
///
/// # Errors
/// [`TextError`] if `name` contains NUL or a non-ASCII character.
pub fn tain(name: &str) -> Result<Vec<u8>, TextError> {
    c_string(name)
}

/// The `tver` payload (ID [`APP_VERSION_ID`]): the version string as ASCII
/// bytes plus a NUL terminator (`UIResources.h` `verRsc`; PALM_FACTS §1.6).
///
/// # Errors
/// [`TextError`] if `version` contains NUL or a non-ASCII character.
pub fn tver(version: &str) -> Result<Vec<u8>, TextError> {
    c_string(version)
}

fn c_string(text: &str) -> Result<Vec<u8>, TextError> {
    if let Some(index) = text.bytes().position(|b| b == 0) {
        return Err(TextError::ContainsNul {
            text: text.to_owned(),
            index,
        });
    }
    if let Some(index) = text.bytes().position(|b| !b.is_ascii()) {
        return Err(TextError::NotAscii {
            text: text.to_owned(),
            index,
        });
    }
    let mut out = Vec::with_capacity(text.len() + 1);
    out.extend_from_slice(text.as_bytes());
    out.push(0);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code0_layout() {
        assert_eq!(
            code0(CODE0_ABOVE_A5, 0x124),
            [
                0x00, 0x00, 0x00, 0x28, // above A5: 40
                0x00, 0x00, 0x01, 0x24, // below A5
                0x00, 0x00, 0x00, 0x08, // jump-table size
                0x00, 0x00, 0x00, 0x20, // jump-table offset from A5
                0x00, 0x00, 0x3F, 0x3C, 0x00, 0x01, 0xA9, 0xF0,
            ]
        );
        assert_eq!(code0(0, 0).len(), CODE0_SIZE);
    }

    #[test]
    fn data0_layout() {
        let data0 = data0_no_globals();
        assert_eq!(data0.len(), DATA0_NO_GLOBALS_SIZE);
        assert_eq!(data0[..4], [0x00, 0x00, 0x00, 0x1F]);
        assert!(data0[4..].iter().all(|&b| b == 0));
        // The header long points at the three code-xref counts: the last 12 bytes.
        let xref_at = u32::from_be_bytes([data0[0], data0[1], data0[2], data0[3]]);
        assert_eq!(xref_at as usize, data0.len() - 12);
    }

    #[test]
    fn data0_blocks_are_runs_and_literals() {
        let globals = [0, 0, 0, 41, 1, 2, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0];
        let got = [0xFF, 0xFF, 0x00, 0x08];
        let d = data0(&[
            Data0Block {
                start: -16,
                bytes: &globals,
            },
            Data0Block {
                start: 40,
                bytes: &got,
            },
            Data0Block::default(),
        ]);
        let mut want = vec![0, 0, 0, 0];
        want.extend_from_slice(&(-16i32).to_be_bytes());
        // 3 zeros; 41 1 2 0 3 as literals (one zero stays in them); 8 zeros; end.
        want.extend_from_slice(&[0x42, 0x84, 41, 1, 2, 0, 3, 0x47, 0]);
        want.extend_from_slice(&40i32.to_be_bytes());
        want.extend_from_slice(&[0x83, 0xFF, 0xFF, 0x00, 0x08, 0]);
        want.extend_from_slice(&[0, 0, 0, 0, 0]);
        let xrefs = want.len() as u32 + 12;
        want[..4].copy_from_slice(&xrefs.to_be_bytes());
        want.extend_from_slice(&[0; 24]);
        assert_eq!(d, want);
        // Long runs split at 64 zeros and 128 literals.
        let big: Vec<u8> = (0..300u32)
            .map(|i| if i < 130 { 0 } else { i as u8 | 1 })
            .collect();
        let d = data0(&[
            Data0Block {
                start: -300,
                bytes: &big,
            },
            Data0Block::default(),
            Data0Block::default(),
        ]);
        assert_eq!(&d[8..11], &[0x7F, 0x7F, 0x41]);
        assert_eq!(d[11], 0xFF);
        assert_eq!(d[11 + 129], 0xA9);
    }

    #[test]
    fn rloc0_is_the_heads() {
        assert_eq!(
            rloc0(&[0x000C, RLOC_END, 0x0010]),
            [0x00, 0x0C, 0xFF, 0xFF, 0x00, 0x10]
        );
    }

    #[test]
    fn pref0_layout() {
        assert_eq!(
            pref0(
                PREF0_DEFAULT_PRIORITY,
                PREF0_DEFAULT_STACK_SIZE,
                PREF0_DEFAULT_MIN_HEAP
            ),
            [0x00, 0x1E, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x10, 0x00]
        );
        assert_eq!(
            pref0(0x0102, 0x0304_0506, 0x0708_090A),
            [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
        );
    }

    #[test]
    fn text_payloads() {
        assert_eq!(tain("Starter").unwrap(), b"Starter\0");
        assert_eq!(tver("1.0").unwrap(), b"1.0\0");
        assert_eq!(tver("").unwrap(), b"\0");
        assert_eq!(
            tain("a\0b"),
            Err(TextError::ContainsNul {
                text: "a\0b".into(),
                index: 1
            })
        );
        let err = tain("Café").unwrap_err();
        assert_eq!(
            err,
            TextError::NotAscii {
                text: "Café".into(),
                index: 3
            }
        );
        assert_eq!(
            err.to_string(),
            "\"Café\" has a non-ASCII character at byte 3; Palm OS text is not UTF-8"
        );
    }
}

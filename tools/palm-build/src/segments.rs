//! A C application in prc-tools' layout (`palm-build c-app --segments`):
//! globals and several code resources, from Debian's GNU C.
//!
//! prc-tools builds an app with globals below A5 (initialised from `data` 0 by
//! the OS's `SysAppStartup`), code 2…n for the functions of each `multiple
//! code` section, and an `rloc` 0 from which its own startup code relocates the
//! globals' pointers to data, code 1 and code 2…n (PALM_FACTS §1.6; prc-tools-
//! remix `tools/binres.cpp`, `crt/dreloc.c`). This module builds the same
//! resources from objects compiled with [`GCC_FLAGS`], whose `-msep-data` makes
//! every reference to a global, a function or a string a load from the GOT
//! through A5 (`move.l sym@GOT(%a5),%a0`; GNU C has no A5-relative globals like
//! prc-tools' gcc): the GOT is part of the A5 world, above A5 after the 40 bytes
//! prc-tools' `code` 0 declares there (the OS's 32 reserved bytes and the
//! jump table), and its entries are relocated like the globals' pointers.
//!
//! The link ([`linker_script`]) puts code 1 (`.text` with palm-build's startup
//! code `rt/crt0.s` first, then `.rodata`) at 0, code resource N (the input
//! sections named by `--segments`, in that order from N = 2) at
//! N × [`SEGMENT_STRIDE`], the globals (`.data`, `.bss`) below the link
//! address of A5 and the GOT above it; so the ELF's addresses are code 1
//! offsets for code 1, `N × SEGMENT_STRIDE + offset` for code N (what `memdbg
//! report` symbolizes a `segment N + offset` frame with), and every pointer's
//! target resource is known from its value. [`crate::verify::verify_segmented`]
//! checks the image.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use object::{Object, ObjectSection, ObjectSymbol, RelocationFlags, RelocationTarget, elf};
use palm_prc::app::{self, Data0Block, RLOC_END};

use crate::link::Binutils;
use crate::prc::AppParts;
use crate::{Linked, verify};

/// GNU C's flags for objects of an application in prc-tools' layout
/// (`m68k-linux-gnu-gcc`), the optimization level and warnings aside: the
/// 68000 only; `-mshort`, a 16-bit `int`, as prc-tools' gcc has by default,
/// so that a `UInt16` or `int` argument takes Palm's 2-byte stack slot
/// (`PilotMain(UInt16, MemPtr, UInt16)`, as the startup code calls it);
/// `-msep-data`, globals, functions and strings reached through the GOT at A5
/// (which the startup code relocates) and A5 never written; a frame pointer in
/// A6 (memdbg's call stacks); no libc; a section per function and datum; no
/// unwind tables; DWARF for the report's file:line.
pub const GCC_FLAGS: &[&str] = crate::capp::gcc_flags!("-mshort", "-msep-data");

/// Code resource N (N ≥ 2) is linked at N × this address, so that an ELF
/// address names its code resource: `memdbg report` looks a frame `segment N
/// + offset` up at `N * SEGMENT_STRIDE + offset`.
pub const SEGMENT_STRIDE: u32 = 0x0100_0000;

/// Most code resources: code 1 and 2…[`MAX_CODE_RESOURCES`] (their link
/// addresses stay below the globals', 0x40000000).
pub const MAX_CODE_RESOURCES: usize = 63;

/// Where the globals are linked: `data_start`, the first global.
const DATA_LINK: u32 = 0x4000_0000;

/// Where GNU ld's `.got.plt` goes (12 bytes nothing reads: `-msep-data` code
/// uses `.got` only; discarding it makes GNU ld 2.40 crash). Not in the PRC.
const GOT_PLT_LINK: u32 = 0x5000_0000;

/// The startup code (`rt/crt0.s`): SysAppStartup, the relocation from `rloc`
/// 0, code 2…n locked, PilotMain, SysAppExit.
pub const CRT0_ASM: &str = include_str!("../rt/crt0.s");

/// The linker script for code 1 and the code resources made of the input
/// sections `segments` (code 2, 3, … in that order), with the symbols the
/// startup code uses: `data_start` (the first global), `__palm_a5` (A5's link
/// address, the globals' end, 4-aligned) and the absolute
/// `__palm_data_start_a5` (`data_start` − A5).
pub fn linker_script(segments: &[String]) -> String {
    let mut s = String::from(
        "/* palm-build's linker script for an application in prc-tools' layout\n \
         * (palm-build c-app --segments; palm-build's segments module documents it). */\n\
         OUTPUT_FORMAT(\"elf32-m68k\")\nOUTPUT_ARCH(m68k)\nSECTIONS\n{\n    . = 0;\n    \
         .text : { KEEP(*(.text.palm_entry)) *(.text .text.*) }\n    \
         .rodata : { *(.rodata .rodata.*) }\n",
    );
    for (name, n) in segments.iter().zip(2u32..) {
        s += &format!(
            "    {name} 0x{:08X} : {{ *({name}) }}\n",
            n * SEGMENT_STRIDE
        );
    }
    s += &format!(
        "    .data 0x{DATA_LINK:08X} : {{\n        data_start = .;\n        \
         *(.data .data.* .data.rel.ro .data.rel.ro.*)\n        \
         *(.bss .bss.* COMMON)\n        . = ALIGN(4);\n    }}\n    \
         __palm_a5 = .;\n    \
         .got __palm_a5 : {{ . += {above}; *(.got) }}\n    \
         __palm_data_start_a5 = ABSOLUTE(data_start - __palm_a5);\n    \
         .got.plt 0x{GOT_PLT_LINK:08X} : {{ *(.got.plt) }}\n    \
         /DISCARD/ : {{ *(.note.GNU-stack) *(.comment) *(.eh_frame) *(.eh_frame_hdr) }}\n}}\n",
        above = app::CODE0_ABOVE_A5
    );
    s
}

/// A linked application in prc-tools' layout.
#[derive(Clone, Debug)]
pub struct Segmented {
    /// Code 1 as linked and verified (its symbols: those of code 1).
    pub linked: Linked,
    /// Its resources: `code` 0, code 1…n, `data` 0, `rloc` 0.
    pub parts: AppParts,
}

/// Links `inputs` (objects compiled with [`GCC_FLAGS`] and archives, a
/// `palm-build lib` archive among them) with palm-build's startup code into
/// `elf` in prc-tools' layout, code resource 2, 3, … made of the input
/// sections `segments`, verifies it and makes its resources. `work` holds the
/// startup code's object and the linker script.
///
/// # Errors
/// More than [`MAX_CODE_RESOURCES`] code resources or a section name ld
/// cannot take (bad input); ld fails; the verifier rejects the image; a
/// pointer in the globals or the GOT points outside code and data, or the
/// globals and GOT are too large for `rloc` 0's 16-bit offsets.
pub fn link(
    binutils: &Binutils,
    inputs: &[PathBuf],
    segments: &[String],
    work: &Path,
    elf: &Path,
) -> Result<Segmented> {
    if segments.len() + 1 > MAX_CODE_RESOURCES {
        crate::bail_input!(
            "{} code resources: at most {MAX_CODE_RESOURCES} (code 1 and --segments)",
            segments.len() + 1
        );
    }
    for name in segments {
        let ok = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$'))
            && !matches!(
                name.as_str(),
                ".text" | ".rodata" | ".data" | ".bss" | ".got"
            );
        if !ok || segments.iter().filter(|n| *n == name).count() > 1 {
            crate::bail_input!(
                "--segments {name:?}: give each code section's name once, as in \
                 __attribute__((section(\"NAME\"))) (letters, digits, _ . $)"
            );
        }
    }
    std::fs::create_dir_all(work).with_context(|| format!("creating {}", work.display()))?;
    let crt0 = work.join("crt0.s");
    std::fs::write(&crt0, CRT0_ASM).with_context(|| format!("writing {}", crt0.display()))?;
    let crt0_o = work.join("crt0.o");
    crate::link::assemble(binutils, &crt0, &crt0_o, &[])?;
    let script = work.join("segments.ld");
    std::fs::write(&script, linker_script(segments))
        .with_context(|| format!("writing {}", script.display()))?;
    let mut all = vec![crt0_o];
    all.extend_from_slice(inputs);
    crate::link::run_ld(
        binutils,
        &script,
        &all,
        elf,
        crate::ImageKind::App,
        &[],
        true,
        &|stderr| {
            if stderr.contains("relocation truncated to fit: R_68K_PC") {
                return Some(
                    "a PC-relative reference cannot reach its target: the globals are linked \
                     apart from the code, so compile every object with \
                     palm_build::segments::GCC_FLAGS (-msep-data: globals, functions and strings \
                     through the GOT at A5; not -mpcrel), and keep each code resource under \
                     32 KB"
                        .to_string(),
                );
            }
            crate::link::explain_link_failure(stderr, &all)
        },
    )?;
    let names: Vec<&str> = segments.iter().map(String::as_str).collect();
    let verified = verify::verify_segmented(elf, &names, &binutils.objdump)?;
    let data = std::fs::read(elf).with_context(|| format!("reading {}", elf.display()))?;
    let file = object::File::parse(&*data).with_context(|| format!("parsing {}", elf.display()))?;
    let layout = Layout::read(&file, segments)?;
    let parts = layout.parts(&file)?;
    let linked = crate::link::read_image(elf)?;
    Ok(Segmented {
        linked: Linked {
            elf: elf.to_path_buf(),
            code: linked.code,
            symbols: linked.symbols,
            verified,
        },
        parts,
    })
}

/// Where each resource is in the linked ELF.
struct Layout<'d> {
    /// Code 1's bytes (`.text`, `.rodata`).
    code1: Vec<u8>,
    /// Code 2…n: (link address, bytes).
    code: Vec<(u32, &'d [u8])>,
    /// The globals: `data_start`'s link address and the bytes up to A5.
    data: (u32, Vec<u8>),
    /// The GOT: A5's link address and the bytes above A5 (the 40 reserved
    /// ones first).
    got: (u32, Vec<u8>),
}

impl<'d> Layout<'d> {
    fn read(file: &object::File<'d>, segments: &[String]) -> Result<Layout<'d>> {
        let linked_code = crate::link::code1(file)?;
        let mut code = Vec::new();
        for name in segments {
            let (address, bytes) = match file.section_by_name(name) {
                Some(s) => (s.address() as u32, s.data()?),
                None => (0, &[][..]),
            };
            if bytes.is_empty() {
                bail!(
                    "--segments {name}: no function is in section {name} (or the link dropped \
                     them all: nothing calls them); give only the sections the app's \
                     __attribute__((section(...))) names"
                );
            }
            code.push((address, bytes));
        }
        let section = |name: &str| -> Result<(u32, Vec<u8>)> {
            Ok(match file.section_by_name(name) {
                Some(s) => (s.address() as u32, s.data()?.to_vec()),
                None => (0, Vec::new()),
            })
        };
        let symbol = |name: &str| {
            file.symbols()
                .find(|s| s.name() == Ok(name))
                .map(|s| s.address() as u32)
        };
        let (Some(data_start), Some(a5)) = (symbol("data_start"), symbol("__palm_a5")) else {
            bail!("the linked ELF lacks data_start or __palm_a5 (palm-build's linker script)");
        };
        let (_, mut data) = section(".data")?;
        data.resize((a5 - data_start) as usize, 0);
        let (_, got) = section(".got")?;
        Ok(Layout {
            code1: linked_code,
            code,
            data: (data_start, data),
            got: (a5, got),
        })
    }

    /// The chain (0 data, 1 code 1, N code N) and addend of a pointer whose
    /// linked value is `value`.
    fn target(&self, value: u32) -> Option<(usize, u32)> {
        if value <= self.code1.len() as u32 {
            return Some((1, value));
        }
        for ((base, bytes), n) in self.code.iter().zip(2usize..) {
            if (*base..=base + bytes.len() as u32).contains(&value) {
                return Some((n, value - base));
            }
        }
        let (start, bytes) = &self.data;
        (*start..=start + bytes.len() as u32)
            .contains(&value)
            .then(|| (0, value - start))
    }

    /// The 4 bytes at the link address `site` of the globals or the GOT (a site
    /// the caller found in one of them).
    fn word(&mut self, site: u32) -> &mut [u8] {
        let (bytes, at) = if site >= self.got.0 {
            (&mut self.got.1, (site - self.got.0) as usize)
        } else {
            (&mut self.data.1, (site - self.data.0) as usize)
        };
        &mut bytes[at..at + 4]
    }

    /// The resources: the globals' and the GOT's pointers become rloc 0's
    /// chains (sites in address order), then `data` 0 holds the globals below
    /// A5 and the GOT above it.
    fn parts(mut self, file: &object::File<'_>) -> Result<AppParts> {
        let (data_start, a5) = (self.data.0, self.got.0);
        // Pointer sites: (link address, what) of every 32-bit pointer to relocate.
        let mut sites: Vec<(u32, String)> = Vec::new();
        if let Some(d) = file.section_by_name(".data") {
            for (offset, r) in d.relocations() {
                if r.flags()
                    != (RelocationFlags::Elf {
                        r_type: elf::R_68K_32,
                    })
                {
                    continue;
                }
                let undefined = match r.target() {
                    RelocationTarget::Symbol(i) => {
                        file.symbol_by_index(i).is_ok_and(|s| s.is_undefined())
                    }
                    _ => false,
                };
                if !undefined {
                    sites.push((
                        offset as u32,
                        format!(".data+0x{:x}", offset as u32 - data_start),
                    ));
                }
            }
        }
        let reserved = app::CODE0_ABOVE_A5 as usize;
        for at in (reserved..self.got.1.len().saturating_sub(3)).step_by(4) {
            sites.push((a5 + at as u32, format!("GOT entry at A5+{at}")));
        }
        sites.sort();
        let chains = 2 + self.code.len();
        let mut heads = vec![RLOC_END; chains];
        let mut last: Vec<Option<u32>> = vec![None; chains];
        for (site, what) in &sites {
            let value = u32::from_be_bytes(self.word(*site).try_into()?);
            let Some((chain, addend)) = self.target(value) else {
                bail!(
                    "the pointer at {what} holds 0x{value:08X}, which is in no code resource \
                     and not in the globals: it cannot be relocated"
                );
            };
            let offset = site - data_start;
            if offset > 0x7FFF || addend > 0xFFFF {
                bail!(
                    "the pointer at {what} is {offset} bytes from the first global (target \
                     offset {addend}): rloc 0's chains reach 32,767 bytes of globals and GOT \
                     and 65,535 bytes of a target"
                );
            }
            // {next, addend}: the end until a later site of the chain links here.
            self.word(*site)
                .copy_from_slice(&[0xFF, 0xFF, (addend >> 8) as u8, addend as u8]);
            match last[chain] {
                None => heads[chain] = offset as u16,
                Some(prev) => self.word(prev + data_start)[..2]
                    .copy_from_slice(&(offset as u16).to_be_bytes()),
            }
            last[chain] = Some(offset);
        }
        let below = self.data.1.len() as u32;
        let data0 = app::data0(&[
            Data0Block {
                start: -(below as i32),
                bytes: &self.data.1,
            },
            Data0Block {
                start: reserved as i32,
                bytes: self.got.1.get(reserved..).unwrap_or(&[]),
            },
            Data0Block::default(),
        ]);
        let mut code = vec![self.code1];
        code.extend(self.code.iter().map(|(_, b)| b.to_vec()));
        Ok(AppParts {
            above_a5: (self.got.1.len() as u32).max(app::CODE0_ABOVE_A5),
            below_a5: below,
            code,
            data0,
            rloc0: Some(app::rloc0(&heads)),
        })
    }
}

//! `palm-build c-app`: a Palm application written in C, from the command
//! line. The C objects (compiled by GNU C for the 68000: `-m68000 -mpcrel
//! -ffixed-a5`, see `palm-sys/include/palm-sys.h`) and archives (`palm-build
//! lib`'s `libmemdbg.a`) are linked with palm-build's linker script and
//! verified as code 1 ([`crate::link_objects`]: entry `__palm_entry` at
//! offset 0, PC-relative references only, no writable sections, 68000
//! instructions only, ≤ 32 KB), the `.rcp` resources compiled, and the PRC
//! written with the ELF kept for `memdbg report`.
//!
//! MacsBug names ([`crate::macsbug`]): the C objects are linked as GNU C
//! made them, without names (palm-build adds names to assembly it assembles
//! itself, and an object's code cannot grow after compilation; GNU C for
//! m68k-linux has no option to write them), so POSE and palm-run name only
//! the functions of the archives `palm-build lib` made, memdbg's among them.
//! The verifier accepts both.
//!
//! With [`CApp::segments`] the app is built in prc-tools' layout instead
//! ([`crate::segments`]): globals, code 2…n made of the named sections, and
//! palm-build's startup code, for objects compiled with
//! [`crate::segments::GCC_FLAGS`].

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow};
use object::{Object, ObjectSymbol};

use crate::error::bad_input;
use crate::prc::{self, AppMeta};
use crate::{ImageKind, Linked, bail_input, verify};

/// GNU C's flags for code 1 (`m68k-linux-gnu-gcc`), the optimization level
/// and warnings aside: the 68000 only; `-mpcrel`, every reference to code
/// and constant data PC-relative (code 1 runs where the OS puts it: no GOT,
/// no absolute address); `-ffixed-a5`, A5 (the OS's globals pointer) never
/// used; a frame pointer in A6 (memdbg walks the A6 chain for call stacks);
/// no libc and no builtins that call it; a section per function and datum
/// (the link keeps what the entry reaches); no unwind tables; DWARF for the
/// report's file:line. `palm-build new --c`'s Makefile and the C tests use
/// these.
pub const GCC_FLAGS: &[&str] = gcc_flags!("-mpcrel", "-ffixed-a5");

/// GNU C's flags for palm-build's C layouts: the 68000, then `$layout` (how
/// code and globals are reached), then what both need (A6 frames, no libc or
/// builtins, a section per function and datum, no unwind tables, DWARF).
macro_rules! gcc_flags {
    ($($layout:literal),*) => {
        &[
            "-m68000",
            $($layout,)*
            "-fno-omit-frame-pointer",
            "-ffreestanding",
            "-fno-builtin",
            "-nostdlib",
            "-ffunction-sections",
            "-fdata-sections",
            "-fno-asynchronous-unwind-tables",
            "-g",
        ]
    };
}
pub(crate) use gcc_flags;

/// What to build.
#[derive(Clone, Debug)]
pub struct CApp {
    /// Objects and archives in link order (the app's objects, then the
    /// libraries they use, as for `ld`).
    pub inputs: Vec<PathBuf>,
    /// The PRC's settings (`meta.resources`: the `.rcp` files).
    pub meta: AppMeta,
    /// The PRC to write.
    pub prc: PathBuf,
    /// The linked ELF to keep (symbols and DWARF for `memdbg report`).
    pub elf: PathBuf,
    /// The sections that become code 2, 3, … in this order (prc-tools' `multiple
    /// code` sections, `__attribute__((section("NAME")))`); with any, the app is
    /// built in prc-tools' layout ([`crate::segments`]): its globals in `data` 0,
    /// palm-build's startup code (`rt/crt0.s`) first in code 1, the objects
    /// compiled with [`crate::segments::GCC_FLAGS`].
    pub segments: Vec<String>,
    /// No progress lines on stderr.
    pub quiet: bool,
}

/// A built C application.
#[derive(Clone, Debug)]
pub struct BuiltCApp {
    /// The PRC written.
    pub prc: PathBuf,
    /// Code 1 as linked and verified.
    pub linked: Linked,
    /// The code resources' sizes in bytes: code 1, 2, …
    pub code_sizes: Vec<usize>,
    /// Number of resources in the PRC.
    pub resources: usize,
    /// The PRC's size in bytes.
    pub bytes: usize,
}

/// Whether `path` defines the global symbol `name`: an ELF object, or an
/// archive with such a member.
///
/// # Errors
/// Bad input: the file cannot be read, or it is neither an ELF object for
/// the 68k nor an archive.
fn defines_symbol(path: &Path, name: &str) -> Result<bool> {
    let data = std::fs::read(path)
        .with_context(|| format!("{}: cannot read it", path.display()))
        .map_err(bad_input)?;
    let has = |bytes: &[u8], what: &str| -> Result<bool> {
        if bytes.starts_with(&m68k_coff::MC68MAGIC.to_be_bytes()) {
            bail_input!(
                "{what}: a coff-m68k (prc-tools) object, not an ELF object: c-app links GNU C's \
                 ELF objects (m68k-linux-gnu-gcc, the flags of palm_build::capp::GCC_FLAGS); \
                 compile the source with it, or link this object with prc-tools \
                 (m68k-palmos-gcc, with the coff-m68k libmemdbg.a of `palm-build lib --format \
                 coff`)"
            );
        }
        let file = object::File::parse(bytes)
            .map_err(|e| bad_input(anyhow!("{what}: not an ELF object or archive: {e}")))?;
        if file.architecture() != object::Architecture::M68k {
            bail_input!(
                "{what}: an object for {:?}, not the 68k (compile with m68k-linux-gnu-gcc -m68000)",
                file.architecture()
            );
        }
        if file.kind() != object::ObjectKind::Relocatable {
            bail_input!(
                "{what}: {}, not an object: c-app links the app's objects (.o, from gcc -c) \
                 and archives (libmemdbg.a) itself",
                match file.kind() {
                    object::ObjectKind::Executable => "a linked executable".to_string(),
                    object::ObjectKind::Dynamic => "a shared library".to_string(),
                    k => format!("an ELF file of kind {k:?}"),
                }
            );
        }
        Ok(file
            .symbols()
            .any(|s| s.is_definition() && s.is_global() && s.name() == Ok(name)))
    };
    if data.starts_with(b"!<arch>\n") {
        let archive = object::read::archive::ArchiveFile::parse(&*data)
            .map_err(|e| bad_input(anyhow!("{}: a broken archive: {e}", path.display())))?;
        for member in archive.members() {
            let member = member
                .map_err(|e| bad_input(anyhow!("{}: a broken archive: {e}", path.display())))?;
            let bytes = member
                .data(&*data)
                .map_err(|e| bad_input(anyhow!("{}: a broken archive: {e}", path.display())))?;
            let what = format!(
                "{}({})",
                path.display(),
                String::from_utf8_lossy(member.name())
            );
            if has(bytes, &what)? {
                return Ok(true);
            }
        }
        return Ok(false);
    }
    has(&data, &path.display().to_string())
}

/// Links, verifies and packages `app`.
///
/// # Errors
/// Bad input: no inputs, an input that is missing or not a 68k ELF object or
/// archive, none defining `__palm_entry`, a `.rcp` error, an output that
/// cannot be written. A failed build: ld fails (an undefined symbol, over 32
/// KB), the verifier rejects the image.
pub fn build_c_app(app: &CApp) -> Result<BuiltCApp> {
    if app.inputs.is_empty() {
        bail_input!("no objects to link: give the app's .o files and libmemdbg.a");
    }
    let mut has_entry = false;
    let mut has_main = false;
    for input in &app.inputs {
        has_entry |= defines_symbol(input, verify::ENTRY_SYMBOL)?;
        has_main |= !app.segments.is_empty() && defines_symbol(input, "PilotMain")?;
    }
    if !app.segments.is_empty() {
        if has_entry {
            bail_input!(
                "--segments links palm-build's own startup code, which defines {}: remove the \
                 PALM_APP_ENTRY line (PilotMain is called with Palm's 16-bit arguments)",
                verify::ENTRY_SYMBOL
            );
        }
        if !has_main {
            bail_input!(
                "none of {} defines PilotMain, which the startup code calls",
                app.inputs
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
    } else if !has_entry {
        bail_input!(
            "none of {} defines {}, the application's entry: write PALM_APP_ENTRY(PilotMain) \
             in one C file (palm-sys/include/palm-sys.h)",
            app.inputs
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
            verify::ENTRY_SYMBOL
        );
    }
    let resources = prc::compile_resources(&app.meta).map_err(bad_input)?;
    for out in [&app.prc, &app.elf] {
        if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("creating {}", dir.display()))
                .map_err(bad_input)?;
        }
    }
    let (linked, parts) = if app.segments.is_empty() {
        let linked = crate::link_objects(&app.inputs, &app.elf, ImageKind::App)?;
        let parts = prc::AppParts::no_globals(&linked.code);
        (linked, parts)
    } else {
        let work = app.elf.with_extension("work");
        let s = crate::segments::link(
            &crate::Binutils::default(),
            &app.inputs,
            &app.segments,
            &work,
            &app.elf,
        )?;
        (s.linked, s.parts)
    };
    if !app.quiet {
        eprintln!(
            "palm-build: verified {}: {} bytes of code + {} bytes of rodata, {} instructions, \
             all 68000",
            app.elf.display(),
            linked.verified.text_bytes,
            linked.verified.rodata_bytes,
            linked.verified.instructions
        );
    }
    let (bytes, count) =
        prc::build_prc_from_parts(&parts, &app.meta, resources, crate::creation_date())?;
    std::fs::write(&app.prc, &bytes)
        .with_context(|| format!("writing {}", app.prc.display()))
        .map_err(bad_input)?;
    let code_sizes: Vec<usize> = parts.code.iter().map(Vec::len).collect();
    if !app.quiet {
        let sizes = code_sizes
            .iter()
            .zip(1..)
            .map(|(n, id)| format!("code {id} is {n} bytes"))
            .collect::<Vec<_>>()
            .join(", ");
        eprintln!(
            "palm-build: wrote {} ({} bytes: {sizes}, {count} resources)",
            app.prc.display(),
            bytes.len(),
        );
    }
    Ok(BuiltCApp {
        prc: app.prc.clone(),
        linked,
        code_sizes,
        resources: count,
        bytes: bytes.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 52-byte ELF header: 32-bit, big-endian, 68k, of type `e_type`.
    fn elf_header(e_type: u16) -> Vec<u8> {
        let mut h = b"\x7fELF\x01\x02\x01".to_vec();
        h.resize(16, 0);
        h.extend(e_type.to_be_bytes());
        h.extend(4u16.to_be_bytes()); // EM_68K
        h.extend(1u32.to_be_bytes()); // EV_CURRENT
        h.resize(40, 0);
        h.extend(52u16.to_be_bytes()); // e_ehsize
        h.resize(52, 0);
        h
    }

    /// Findings: a prc-tools COFF object was "Unknown file magic", and a
    /// linked ELF executable reached ld (exit 1, ld's message); both are bad
    /// input that says what the file is.
    #[test]
    fn a_coff_object_and_a_linked_executable_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let coff = dir.path().join("sample.o");
        let mut bytes = vec![0x01, 0x50, 0x00, 0x02];
        bytes.resize(100, 0);
        std::fs::write(&coff, bytes).unwrap();
        let e = defines_symbol(&coff, "PilotMain").unwrap_err();
        assert!(crate::error::is_bad_input(&e));
        assert!(
            e.to_string().starts_with(&format!(
                "{}: a coff-m68k (prc-tools) object, not an ELF object: c-app links GNU C's ELF \
                 objects",
                coff.display()
            )),
            "{e}"
        );
        let exe = dir.path().join("good.elf");
        std::fs::write(&exe, elf_header(2)).unwrap();
        let e = defines_symbol(&exe, "PilotMain").unwrap_err();
        assert!(crate::error::is_bad_input(&e));
        assert_eq!(
            e.to_string(),
            format!(
                "{}: a linked executable, not an object: c-app links the app's objects (.o, from \
                 gcc -c) and archives (libmemdbg.a) itself",
                exe.display()
            )
        );
        let obj = dir.path().join("ok.o");
        std::fs::write(&obj, elf_header(1)).unwrap();
        assert!(!defines_symbol(&obj, "PilotMain").unwrap());
    }
}

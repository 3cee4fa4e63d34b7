//! The C path, end to end: `palm-build lib` builds memdbg's C interface
//! (`capi-lib`) into an archive; `m68k-linux-gnu-gcc` compiles a Palm application
//! written in C (`tests/c-app/leak.c`: `palm-sys.h`'s entry and system calls,
//! PilotMain, `memdbg.h`'s macros); palm-build links the two with its linker script and verifies the image
//! (entry at 0, PC-relative only, no writable sections, 68000 only); palm-run runs
//! the PRC; the exported MemDbgDB must list exactly the one leak, with the C file
//! and line `MemPtrNew` was called from, and count the resize and the two frees
//! (a pointer and a handle, freed through memdbg.h's `MemPtrFree`/`MemHandleFree`
//! wrappers); its three small allocations, on three lines, are three small-allocation
//! sites.
//!
//! gcc (Debian's gcc-m68k-linux-gnu, ci/setup) is the C compiler here: the test is
//! skipped, saying so, only when `m68k-linux-gnu-gcc` is missing.

use std::path::{Path, PathBuf};
use std::process::Command;

use memdbg::record::{FileName, Header, HeaderFlags, Record, crc32, kind};
use palm_build::prc::AppMeta;
use palm_prc::{Content, Database, FourCC};
use palm_run::{Config, Machine};

const GCC: &str = "m68k-linux-gnu-gcc";
/// The C source as `__FILE__` sees it (gcc runs in the workspace root).
const C_SOURCE: &str = "memdbg/tests/c-app/leak.c";
const APP_NAME: &str = "MemDbgC";

/// The compile's own flags, after palm-build's for code 1
/// (`palm_build::capp::GCC_FLAGS`: 68000 only, PC-relative, A5 untouched, A6
/// frames, no libc).
const GCC_FLAGS: &[&str] = &["-Os", "-Wall", "-Werror"];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The line of the `@mark name` comment in the C source.
fn mark(name: &str) -> u16 {
    let source = std::fs::read_to_string(workspace().join(C_SOURCE)).unwrap();
    let lines: Vec<usize> = source
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains(&format!("@mark {name} ")))
        .map(|(i, _)| i + 1)
        .collect();
    assert_eq!(lines.len(), 1, "`@mark {name}` in {C_SOURCE}");
    lines[0] as u16
}

#[test]
fn a_c_app_linked_with_the_pipeline_built_archive_records_its_leak() {
    if Command::new(GCC).arg("--version").output().is_err() {
        eprintln!(
            "SKIPPED: {GCC} is not installed (Debian package gcc-m68k-linux-gnu; ci/setup \
             installs it), so the C path's end-to-end test cannot run"
        );
        return;
    }
    let target_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("target"));
    let out = target_dir.join("palm").join("c-app");
    std::fs::create_dir_all(&out).unwrap();

    // 1. The archive, through palm-build's pipeline.
    let archive = out.join("libmemdbg.a");
    let lib = palm_build::build_lib(
        &palm_build::Options {
            manifest_path: Path::new(env!("CARGO_MANIFEST_DIR")).join("capi-lib/Cargo.toml"),
            target_dir: Some(target_dir.clone()),
            kind: palm_build::ImageKind::TestLib,
            features: Vec::new(),
            quiet: true,
            raw_llvm: false,
            macsbug_names: true,
        },
        &archive,
    )
    .unwrap_or_else(|e| panic!("palm-build lib failed: {e:#}"));
    for f in [
        "memdbg_start",
        "memdbg_stop",
        "memdbg_checkpoint",
        "memdbg_ptr_new",
        "memdbg_handle_new",
        "memdbg_chunk_new",
        "memdbg_ptr_free",
    ] {
        assert!(
            lib.exported.iter().any(|e| e == f),
            "{f}: {:?}",
            lib.exported
        );
    }

    // 2. The C application.
    let object = out.join("leak.o");
    let cc = Command::new(GCC)
        .current_dir(workspace())
        .args(palm_build::capp::GCC_FLAGS)
        .args(GCC_FLAGS)
        .args(["-Ipalm-sys/include", "-Imemdbg/include"])
        .args(["-c", C_SOURCE, "-o"])
        .arg(&object)
        .output()
        .unwrap();
    assert!(
        cc.status.success(),
        "{GCC} failed:\n{}",
        String::from_utf8_lossy(&cc.stderr)
    );

    // 3. Linked and verified as Palm code 1, packaged as a PRC.
    let linked = palm_build::link_objects(
        &[object, archive],
        &out.join(format!("{APP_NAME}.elf")),
        palm_build::ImageKind::App,
    )
    .unwrap_or_else(|e| panic!("linking the C app failed: {e:#}"));
    assert_eq!(linked.symbols.get("__palm_entry"), Some(&0));
    // memcpy & co. are palm-build's (rt/mem.s), and compiler_builtins' unused
    // implementations were not dragged in with them.
    let builtin_mem: Vec<_> = linked
        .symbols
        .keys()
        .filter(|k| {
            ["6memcpy", "7memmove", "6memset"]
                .iter()
                .any(|f| k.contains(&format!("compiler_builtins3mem{f}")))
        })
        .collect();
    assert!(builtin_mem.is_empty(), "{builtin_mem:?}");
    let meta = AppMeta {
        name: APP_NAME.into(),
        creator: FourCC::new(*b"MDtC"),
        launcher_name: APP_NAME.into(),
        version: "1.0".into(),
        stack_size: 4096,
        resources: Vec::new(),
    };
    let (prc, _) =
        palm_build::prc::build_prc_from_code(&linked.code, &meta, Vec::new(), 0).unwrap();

    // 4. Run: PilotMain's own checks (the pointers the library returns are usable,
    //    callee-saved registers survive its calls, memdbg_stop counts one leak).
    let mut m = Machine::with_config(&Config::default()).unwrap();
    m.install(&prc).unwrap();
    if std::env::var_os("MEMDBG_TRACE").is_some() {
        m.trace_traps = true;
        m.echo = true;
    }
    let outcome = m.launch(APP_NAME).unwrap();
    assert!(
        outcome.stop.is_none(),
        "stopped: {:?}\n{}",
        outcome.stop,
        m.output.join("\n")
    );
    assert_eq!(
        outcome.result,
        Some(0),
        "PilotMain's check failed (leak.c)\n{}",
        m.output.join("\n")
    );
    assert!(
        outcome.patches_left.is_empty(),
        "{:?}",
        outcome.patches_left
    );

    // 5. The ledger.
    let db = Database::parse(&m.export("MemDbgDB").unwrap()).unwrap();
    let Content::Records(recs) = &db.content else {
        panic!("MemDbgDB is a resource database")
    };
    let header = Header::decode(&recs[0].data).unwrap();
    assert_eq!(header.app_name_bytes(), APP_NAME.as_bytes());
    assert_eq!(header.code_size.get() as usize, linked.code.len());
    assert_eq!(header.code_checksum(), Some(crc32(&linked.code)));
    assert!(!header.header_flags().contains(HeaderFlags::RUNNING));
    let allocs: Vec<_> = recs[1..]
        .iter()
        .filter_map(|r| match Record::decode(&r.data).unwrap() {
            Record::Alloc(a) => Some(a),
            _ => None,
        })
        .collect();
    assert_eq!(allocs.len(), 1, "{allocs:?}");
    // Each small allocation under its own line (they used to share the first's).
    let small_sites: Vec<_> = recs[1..]
        .iter()
        .filter_map(|r| match Record::decode(&r.data).unwrap() {
            Record::SmallSite(s) => Some((
                s.count.get(),
                s.bytes.get(),
                s.first.line.get(),
                String::from_utf8_lossy(s.first.file.bytes()).into_owned(),
            )),
            _ => None,
        })
        .collect();
    let file = String::from_utf8_lossy(FileName::new(C_SOURCE.as_bytes()).bytes()).into_owned();
    assert_eq!(
        small_sites,
        [
            (1, 10, mark("c-small-10"), file.clone()),
            (1, 4, mark("c-small-4"), file.clone()),
            (1, 8, mark("c-small-8"), file)
        ]
    );
    let a = &allocs[0];
    assert_eq!(
        (
            a.kind,
            a.size.get(),
            String::from_utf8_lossy(a.file.bytes()),
            a.line.get()
        ),
        (
            kind::POINTER,
            24,
            String::from_utf8_lossy(FileName::new(C_SOURCE.as_bytes()).bytes()),
            mark("c-leak")
        )
    );
    // Made before the checkpoint: generation 0; the checkpoint saw it live.
    assert_eq!(a.generation, 0);
    let checkpoints: Vec<_> = recs[1..]
        .iter()
        .filter_map(|r| match Record::decode(&r.data).unwrap() {
            Record::Checkpoint(c) => Some((
                c.generation,
                c.live_count.get(),
                c.live_bytes.get(),
                c.counters.allocations.get(),
            )),
            _ => None,
        })
        .collect();
    assert_eq!(checkpoints, [(1, 1, 24, 1)]);
    let c = &header.counters;
    assert_eq!(
        [
            c.allocations.get(),
            c.frees.get(),
            c.resizes.get(),
            c.leaks.get(),
            c.leaked_bytes.get(),
            c.unknown_frees.get(),
            c.double_frees.get(),
            c.overruns.get(),
        ],
        [5, 4, 1, 1, 24, 0, 0, 0],
        "allocations, frees, resizes, leaks, leaked bytes, unknown frees, double frees, overruns"
    );
    // palm-run's sweep at exit finds the same one block still owned by the app.
    assert_eq!(outcome.leaks.len(), 1, "{:?}", outcome.leaks);
}

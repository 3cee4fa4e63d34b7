//! An app in prc-tools' layout, launched as the OS launches it: `code` 0 as
//! prc-tools writes it, `data` 0 with its globals in block 1, an `rloc` 0
//! with a data chain and a code-2 chain, and a second code resource. Its
//! startup code does what prc-tools' crt0 does (`prc-tools-remix:
//! prc-tools-2.3/crt/crt0.c` `start`, `crt/dreloc.c`
//! `_GccLoadCodeAndRelocateData`, `_RelocateChain`, `_GccReleaseCode`):
//! SysAppStartup; only with sysAppLaunchFlagNewGlobals, store code 1's
//! address in `__text__`, get and lock `code` 2 into `__text__seg2`, walk the
//! `rloc` 0 chains adding `data_start`, code 1 and code 2, call into code 2
//! through a relocated function pointer, unlock and release `code` 2;
//! SysAppExit. (prc-tools' gcc reaches code 2..n only through those
//! `__text__SEC` globals: `gcc-2.95.3/gcc/config/m68k/m68k.c`,
//! `legitimize_pic_text_address`; code 0's jump table is never used.)

use palm_prc::{Database, FourCC, Header, Resource, app};
use palm_run::{Config, Machine};

/// Globals below A5 (`data_start` = A5 − 20): `__text__`, `__text__seg2`,
/// `gValue` = 0x01020304, `gPtr` (→ gValue), `gFn` (→ code 2 + 2).
const BELOW_A5: u32 = 20;

const CODE1: &str = r"
start:
	link.w %a6,#-12
	movem.l %d3-%d4/%a2-%a3,-(%sp)
	pea -12(%a6)
	pea -8(%a6)
	pea -4(%a6)
	trap #15
	.short 0xA08F            | SysAppStartup
	lea 12(%sp),%sp
	moveq #0,%d4
	move.l -4(%a6),%a0
	move.w 6(%a0),%d0        | appInfo->launchFlags
	btst #2,%d0              | sysAppLaunchFlagNewGlobals
	beq.w done
	lea (start,%pc),%a0
	move.l %a0,-20(%a5)      | __text__
	move.w #2,-(%sp)
	move.l #0x636F6465,-(%sp)
	trap #15
	.short 0xA060            | DmGet1Resource('code', 2)
	addq.l #6,%sp
	move.l %a0,%d3
	move.l %a0,-(%sp)
	trap #15
	.short 0xA021            | MemHandleLock
	addq.l #4,%sp
	move.l %a0,-16(%a5)      | __text__seg2
	clr.w -(%sp)
	move.l #0x726C6F63,-(%sp)
	trap #15
	.short 0xA060            | DmGet1Resource('rloc', 0)
	addq.l #6,%sp
	move.l %a0,%a3
	move.l %a0,-(%sp)
	trap #15
	.short 0xA021            | MemHandleLock
	addq.l #4,%sp
	move.l %a0,%a2           | the chain heads
	lea -20(%a5),%a1
	bsr.s reloc              | data chain: + data_start
	move.l -20(%a5),%a1
	bsr.s reloc              | code 1 chain: + code 1
	move.l -16(%a5),%a1
	bsr.s reloc              | code 2 chain: + code 2
	move.l %a3,-(%sp)
	trap #15
	.short 0xA022            | MemHandleUnlock(rloc)
	trap #15
	.short 0xA061            | DmReleaseResource(rloc)
	addq.l #4,%sp
	move.l -4(%a5),%a0       | gFn
	jsr (%a0)
	move.l %d0,%d4
	move.l %d3,-(%sp)
	trap #15
	.short 0xA022            | MemHandleUnlock(code 2)
	trap #15
	.short 0xA061            | DmReleaseResource(code 2)
	addq.l #4,%sp
done:
	move.l -12(%a6),-(%sp)
	move.l -8(%a6),-(%sp)
	move.l -4(%a6),-(%sp)
	trap #15
	.short 0xA090            | SysAppExit
	lea 12(%sp),%sp
	move.l %d4,%d0
	movem.l (%sp)+,%d3-%d4/%a2-%a3
	unlk %a6
	rts
reloc:                           | one chain: site = data_start + offset, {next, addend}
	move.w (%a2)+,%d0
1:	tst.w %d0
	bmi.s 2f
	lea -20(%a5),%a0
	add.w %d0,%a0
	move.w (%a0),%d0
	clr.w (%a0)
	move.l %a1,%d1
	add.l %d1,(%a0)
	bra.s 1b
2:	rts
";

/// At offset 2 (gFn's addend): `*gPtr + (gFn − __text__seg2)`.
const CODE2: &str = r"
	nop
	move.l -8(%a5),%a0       | gPtr
	move.l (%a0),%d0
	add.l -4(%a5),%d0
	sub.l -16(%a5),%d0
	rts
";

/// Assembles `source` (GNU as, `-m68000`) and returns its `.text` bytes.
fn assemble(name: &str, source: &str) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let (s, o, bin) = (
        dir.path().join(format!("{name}.s")),
        dir.path().join(format!("{name}.o")),
        dir.path().join(format!("{name}.bin")),
    );
    std::fs::write(&s, source).unwrap();
    let run = |cmd: &mut std::process::Command| {
        let out = cmd.output().expect("GNU binutils for m68k (ci/setup)");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    run(std::process::Command::new("m68k-linux-gnu-as")
        .args(["-m68000", "--pcrel", "-o"])
        .arg(&o)
        .arg(&s));
    run(std::process::Command::new("m68k-linux-gnu-objcopy")
        .args(["-O", "binary", "-j", ".text"])
        .arg(&o)
        .arg(&bin));
    std::fs::read(bin).unwrap()
}

/// `data` 0 as prc-tools' build-prc writes it with compression 0
/// (`prc-tools-2.3/tools/binres.cpp`; PALM_FACTS §1.6): the header long, block
/// 1 at −below with the 20 bytes of globals as literals, two empty blocks,
/// then six zero xref counts. gPtr and gFn hold their rloc chain entries
/// {next −1, addend}.
fn data0() -> Vec<u8> {
    let start = (-(BELOW_A5 as i32)).to_be_bytes();
    let mut d = Vec::new();
    d.extend_from_slice(&0u32.to_be_bytes());
    d.extend_from_slice(&start);
    d.push(0x80 | (BELOW_A5 as u8 - 1));
    d.extend_from_slice(&[0; 8]); // __text__, __text__seg2
    d.extend_from_slice(&0x0102_0304u32.to_be_bytes()); // gValue
    d.extend_from_slice(&[0xFF, 0xFF, 0x00, 0x08]); // gPtr: data chain, + 8
    d.extend_from_slice(&[0xFF, 0xFF, 0x00, 0x02]); // gFn: code 2 chain, + 2
    d.push(0);
    for _ in 0..2 {
        d.extend_from_slice(&start);
        d.push(0);
    }
    let xrefs = d.len() as u32 + 12;
    d[0..4].copy_from_slice(&xrefs.to_be_bytes());
    d.extend_from_slice(&[0; 24]);
    d
}

fn prc() -> Vec<u8> {
    let res = |kind: &[u8; 4], id, data| Resource {
        kind: FourCC::new(*kind),
        id,
        data,
    };
    Database::new_resources(
        Header::new("TwoSegs", app::APPL, FourCC::new(*b"PRts")),
        vec![
            res(b"code", 0, app::code0(app::CODE0_ABOVE_A5, BELOW_A5)),
            res(b"code", 1, assemble("code1", CODE1)),
            res(b"code", 2, assemble("code2", CODE2)),
            res(b"data", 0, data0()),
            // Chain heads: data chain at data_start + 12, none in code 1, code 2 at + 16.
            res(b"rloc", 0, vec![0x00, 0x0C, 0xFF, 0xFF, 0x00, 0x10]),
            res(b"pref", 0, app::pref0(30, 4096, 4096)),
        ],
    )
    .to_bytes()
    .unwrap()
}

/// The lock count of resource `kind` `id` of the database `name`.
fn lock_count(m: &Machine, name: &str, kind: &[u8; 4], id: u16) -> u8 {
    let db = m.os.dm.find(name.as_bytes()).unwrap().id;
    let h = palm_run::data_mgr::resource_handle(m, db, kind, id).unwrap();
    let body = m.mem.read_u32(h).unwrap();
    let c =
        m.os.mem
            .storage
            .chunk_at_body(&m.mem, body)
            .unwrap()
            .unwrap();
    c.header.lock_count
}

#[test]
fn crt0_loads_code_2_and_relocates_from_rloc_0() {
    let mut m = Machine::with_config(&Config::default()).unwrap();
    m.install(&prc()).unwrap();
    let out = m.launch("TwoSegs").unwrap();
    assert!(out.clean(), "{out:?} {:?}", m.output);
    // gPtr → gValue (data chain) and gFn → code 2 + 2 (code 2 chain).
    assert_eq!(out.result, Some(0x0102_0304 + 2));
    assert_eq!((m.os.sys.startups, m.os.sys.exits), (1, 1));
    assert_eq!(lock_count(&m, "TwoSegs", b"code", 2), 0);
    assert_eq!(lock_count(&m, "TwoSegs", b"rloc", 0), 0);
}

#[test]
fn without_new_globals_crt0_touches_neither_globals_nor_code_2() {
    let mut m = Machine::with_config(&Config::default()).unwrap();
    m.install(&prc()).unwrap();
    m.trace_traps = true;
    // sysAppLaunchCmdFind (1) with no launch flags: no A5 world.
    let out = m.launch_with("TwoSegs", 1, 0).unwrap();
    assert!(out.clean(), "{out:?} {:?}", m.output);
    assert_eq!(out.result, Some(0));
    let traps: Vec<&str> = m
        .output
        .iter()
        .filter_map(|l| l.strip_prefix("trap "))
        .map(|l| l.split('(').next().unwrap_or(""))
        .collect();
    assert_eq!(traps, ["SysAppStartup", "SysAppExit"]);
}

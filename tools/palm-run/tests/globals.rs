//! An app with globals: SysAppStartup builds the A5 world from `code` 0 (16
//! bytes below A5) and `data` 0 (a value and a pointer relocated by A5), and
//! SysAppExit restores A5 and frees the globals.

use palm_prc::{Database, FourCC, Header, Resource, app};
use palm_run::{Config, Machine};

/// Assembled with `m68k-linux-gnu-as -m68000 --pcrel`:
/// ```text
///     link.w %a6,#-12
///     pea -12(%a6)            ; globalsPtrP
///     pea -8(%a6)             ; prevGlobalsP
///     pea -4(%a6)             ; appInfoPP
///     trap #15
///     .short 0xA08F           ; SysAppStartup
///     lea 12(%sp),%sp
///     move.l -12(%a5),%d3     ; the relocated pointer (A5 - 8)
///     sub.l %a5,%d3           ; → -8
///     add.l -16(%a5),%d3      ; + 0x11223344
///     move.l -12(%a6),-(%sp)
///     move.l -8(%a6),-(%sp)
///     move.l -4(%a6),-(%sp)
///     trap #15
///     .short 0xA090           ; SysAppExit
///     lea 12(%sp),%sp
///     move.l %d3,%d0
///     unlk %a6
///     rts
/// ```
const CODE: [u8; 60] = [
    0x4e, 0x56, 0xff, 0xf4, 0x48, 0x6e, 0xff, 0xf4, 0x48, 0x6e, 0xff, 0xf8, 0x48, 0x6e, 0xff, 0xfc,
    0x4e, 0x4f, 0xa0, 0x8f, 0x4f, 0xef, 0x00, 0x0c, 0x26, 0x2d, 0xff, 0xf4, 0x96, 0x8d, 0xd6, 0xad,
    0xff, 0xf0, 0x2f, 0x2e, 0xff, 0xf4, 0x2f, 0x2e, 0xff, 0xf8, 0x2f, 0x2e, 0xff, 0xfc, 0x4e, 0x4f,
    0xa0, 0x90, 0x4f, 0xef, 0x00, 0x0c, 0x20, 0x03, 0x4e, 0x5e, 0x4e, 0x75,
];

fn data0() -> Vec<u8> {
    let mut d = vec![0, 0, 0, 0];
    // Block 1 at A5 - 16: 0x11223344, then A5-relative -8 (relocated below).
    d.extend_from_slice(&(-16i32).to_be_bytes());
    d.extend_from_slice(&[0x87, 0x11, 0x22, 0x33, 0x44, 0xFF, 0xFF, 0xFF, 0xF8, 0]);
    d.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    // Table 1 (base A5): one entry at A5 - 12 (-6 half-words); table 2 empty.
    d.extend_from_slice(&1u32.to_be_bytes());
    d.extend_from_slice(&[0x3F, 0xFF, 0xFF, 0xFA]);
    d.extend_from_slice(&0u32.to_be_bytes());
    d
}

#[test]
fn a5_world_from_code0_and_data0() {
    let prc = Database::new_resources(
        Header::new("Globals", app::APPL, FourCC::new(*b"PRgl")),
        vec![
            Resource {
                kind: FourCC::new(*b"code"),
                id: 0,
                data: app::code0(0x28, 16),
            },
            Resource {
                kind: FourCC::new(*b"code"),
                id: 1,
                data: CODE.to_vec(),
            },
            Resource {
                kind: FourCC::new(*b"data"),
                id: 0,
                data: data0(),
            },
        ],
    )
    .to_bytes()
    .unwrap();
    let mut m = Machine::with_config(&Config::default()).unwrap();
    m.install(&prc).unwrap();
    let (free_before, _) = m.os.mem.dynamic.free_bytes(&m.mem).unwrap();
    let out = m.launch("Globals").unwrap();
    assert!(out.clean(), "{out:?} {:?}", m.output);
    assert_eq!(out.result, Some(0x1122_3344 - 8));
    assert_eq!((m.os.sys.startups, m.os.sys.exits), (1, 1));
    // Globals, stack and app info are all freed again.
    assert_eq!(m.os.mem.dynamic.free_bytes(&m.mem).unwrap().0, free_before);
}

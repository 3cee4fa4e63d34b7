//! Property tests: the compiler and the binary parsers never panic, whatever
//! the input; compile errors always carry a position; encoded models parse
//! back to themselves.

use palm_rcp::alert::{Alert, AlertType};
use palm_rcp::form::{
    Control, ControlAttr, ControlStyle, Field, FieldAttr, Form, FormObject, FrameBits,
    GraffitiState, Label, Title,
};
use palm_rcp::menu::{MenuBar, MenuItem, Pulldown};
use palm_rcp::strings::{self, TextKind};
use palm_rcp::{MemoryIncludes, Point, Rect, compile_str};
use proptest::prelude::*;

const STARTER: &str = include_str!("../../../rsrc/StarterApp.rcp");
const STARTER_IDS: &str = include_str!("../../../rsrc/StarterAppRsc.h");

fn includes() -> MemoryIncludes {
    MemoryIncludes::new().with("StarterAppRsc.h", STARTER_IDS)
}

/// Compiles `src`; on error checks the position is a real one.
fn check_compile(src: &str) {
    let lines = src.lines().count().max(1) as u32 + 1;
    if let Err(e) = compile_str(src, "fuzz.rcp".as_ref(), &includes()) {
        assert!(e.line >= 1 && e.column >= 1, "{e}");
        if e.file == "fuzz.rcp" {
            assert!(e.line <= lines, "{e} is past the end ({lines} lines)");
        }
        assert!(!e.message.is_empty());
    }
}

/// Pieces of `.rcp` text, so random sequences reach deep into the grammar.
fn piece() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "FORM",
        "ID",
        "AT",
        "(",
        ")",
        "BEGIN",
        "END",
        "TITLE",
        "BUTTON",
        "LABEL",
        "FIELD",
        "MENU",
        "PULLDOWN",
        "MENUITEM",
        "SEPARATOR",
        "ALERT",
        "BUTTONS",
        "MESSAGE",
        "STRING",
        "VERSION",
        "APPLICATIONICONNAME",
        "APPLICATION",
        "\"OK\"",
        "\"...\"",
        "\"A\"",
        "0",
        "1",
        "160",
        "65536",
        "-",
        "+",
        "*",
        "/",
        "AUTO",
        "CENTER",
        "CENTER@",
        "RIGHT@",
        "@",
        "PREVRIGHT",
        "PREVBOTTOM",
        "MAXCHARS",
        "FONT",
        "3",
        "MODAL",
        "MENUID",
        "DEFAULTBUTTON",
        "#define X",
        "#define S \"s\"",
        "#ifdef X",
        "#else",
        "#endif",
        "#include \"StarterAppRsc.h\"",
        "#include \"none.h\"",
        "X",
        "S",
        "MainForm",
        "\n",
        "//",
        "/*",
        "*/",
        "GRAFFITISTATEINDICATOR",
        "CHECKBOX",
        "PUSHBUTTON",
        "GROUP",
        "ERROR",
        "\\",
        "'AB'",
        "0x10",
        "4294967295",
    ])
}

fn random_form() -> impl Strategy<Value = Form> {
    let rect = (any::<i16>(), any::<i16>(), any::<i16>(), any::<i16>())
        .prop_map(|(x, y, w, h)| Rect::new(x, y, w, h));
    let point = (any::<i16>(), any::<i16>()).prop_map(|(x, y)| Point { x, y });
    let text = prop::collection::vec(1u8..=255, 0..24);
    let control = (
        any::<u16>(),
        rect.clone(),
        text.clone(),
        prop::array::uniform8(any::<bool>()),
        0u8..8,
        0u8..6,
        any::<u8>(),
        any::<u8>(),
    )
        .prop_map(|(id, bounds, label, b, frame, style, font, group)| {
            FormObject::Control(Control {
                id,
                bounds,
                label,
                attr: ControlAttr {
                    usable: b[0],
                    enabled: b[1],
                    visible: b[2],
                    on: b[3],
                    left_anchor: b[4],
                    frame,
                    drawn_as_selected: b[5],
                    graphical: false,
                    vertical: b[6],
                },
                style: ControlStyle::from_byte(style).unwrap(),
                font,
                group,
            })
        });
    let field = (
        any::<u16>(),
        rect.clone(),
        any::<u16>(),
        0u8..4,
        0u8..4,
        any::<u16>(),
        any::<u8>(),
    )
        .prop_map(
            |(id, bounds, bits, underlined, justification, max_chars, font)| {
                let bit = |n: u16| bits & (1 << n) != 0;
                FormObject::Field(Field {
                    id,
                    bounds,
                    attr: FieldAttr {
                        usable: bit(0),
                        visible: bit(1),
                        editable: bit(2),
                        single_line: bit(3),
                        has_focus: bit(4),
                        dynamic_size: bit(5),
                        ins_pt_visible: bit(6),
                        dirty: bit(7),
                        underlined,
                        justification,
                        auto_shift: bit(8),
                        has_scroll_bar: bit(9),
                        numeric: bit(10),
                    },
                    max_chars,
                    font,
                })
            },
        );
    let label = (
        any::<u16>(),
        point.clone(),
        any::<bool>(),
        any::<u8>(),
        text.clone(),
    )
        .prop_map(|(id, pos, usable, font, text)| {
            FormObject::Label(Label {
                id,
                pos,
                usable,
                font,
                text,
            })
        });
    let title =
        (rect.clone(), text).prop_map(|(bounds, text)| FormObject::Title(Title { bounds, text }));
    let gsi = point.prop_map(|pos| FormObject::GraffitiState(GraffitiState { pos }));
    let object = prop_oneof![control, field, label, title, gsi];
    (
        any::<u16>(),
        rect,
        any::<(bool, bool, bool, bool)>(),
        (any::<u8>(), 0u8..4, 0u8..4),
        any::<(u16, u16, u16)>(),
        prop::collection::vec(object, 0..12),
    )
        .prop_map(|(id, bounds, flags, frame, ids, objects)| Form {
            id,
            bounds,
            modal: flags.0,
            frame: FrameBits {
                corner_diam: frame.0,
                three_d: flags.3,
                shadow_width: frame.1,
                width: frame.2,
            },
            usable: flags.1,
            save_behind: flags.2,
            default_button: ids.0,
            help_id: ids.1,
            menu_id: ids.2,
            objects,
        })
}

fn random_menu() -> impl Strategy<Value = MenuBar> {
    let rect = (any::<i16>(), any::<i16>(), any::<i16>(), any::<i16>())
        .prop_map(|(x, y, w, h)| Rect::new(x, y, w, h));
    let text = prop::collection::vec(1u8..=255, 0..16);
    let item = (any::<u16>(), any::<u8>(), any::<bool>(), text.clone()).prop_map(
        |(id, command, hidden, text)| MenuItem {
            id,
            command,
            hidden,
            text,
        },
    );
    let pulldown = (
        rect.clone(),
        rect,
        text,
        any::<bool>(),
        prop::collection::vec(item, 0..8),
    )
        .prop_map(|(bounds, title_bounds, title, hidden, items)| Pulldown {
            bounds,
            title_bounds,
            title,
            hidden,
            items,
        });
    prop::collection::vec(pulldown, 0..5).prop_map(|pulldowns| MenuBar { pulldowns })
}

fn random_alert() -> impl Strategy<Value = Alert> {
    let text = prop::collection::vec(1u8..=255, 0..40);
    (
        0u16..4,
        any::<u16>(),
        any::<u16>(),
        text.clone(),
        text.clone(),
        prop::collection::vec(text, 0..4),
    )
        .prop_map(
            |(ty, help_id, default_button, title, message, buttons)| Alert {
                alert_type: AlertType::from_u16(ty).unwrap(),
                help_id,
                default_button,
                title,
                message,
                buttons,
            },
        )
}

/// Byte-level edits applied to a valid input.
#[derive(Debug, Clone)]
enum Edit {
    Flip(usize, u8),
    Delete(usize),
    Insert(usize, u8),
    Truncate(usize),
}

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    let edit = prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Edit::Flip(i, b)),
        any::<usize>().prop_map(Edit::Delete),
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Edit::Insert(i, b)),
        any::<usize>().prop_map(Edit::Truncate),
    ];
    prop::collection::vec(edit, 1..6)
}

fn apply(mut data: Vec<u8>, edits: &[Edit]) -> Vec<u8> {
    for e in edits {
        let n = data.len();
        match *e {
            Edit::Flip(i, b) if n > 0 => data[i % n] ^= b,
            Edit::Delete(i) if n > 0 => {
                data.remove(i % n);
            }
            Edit::Insert(i, b) => data.insert(i % (n + 1), b),
            Edit::Truncate(i) => data.truncate(i % (n + 1)),
            _ => {}
        }
    }
    data
}

fn parse_everything(data: &[u8]) {
    if let Ok(form) = Form::parse(data) {
        // Re-encoding a parsed form never panics (unsupported objects are errors).
        let _ = form.to_bytes();
    }
    let _ = Form::directory(data);
    if let Ok(bar) = MenuBar::parse(data) {
        let _ = bar.to_bytes();
    }
    if let Ok(alert) = Alert::parse(data) {
        let _ = alert.to_bytes();
    }
    for kind in [TextKind::String, TextKind::Version, TextKind::IconName] {
        let _ = strings::parse_text(kind, data);
    }
    let _ = strings::parse_application(data);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn compiler_survives_arbitrary_text(src in "\\PC{0,200}") {
        check_compile(&src);
    }

    #[test]
    fn compiler_survives_token_soup(pieces in prop::collection::vec(piece(), 0..60)) {
        check_compile(&pieces.join(" "));
    }

    #[test]
    fn compiler_survives_mutated_starter_source(e in edits()) {
        let mutated = apply(STARTER.as_bytes().to_vec(), &e);
        check_compile(&String::from_utf8_lossy(&mutated));
    }

    #[test]
    fn parsers_survive_arbitrary_bytes(data in prop::collection::vec(any::<u8>(), 0..400)) {
        parse_everything(&data);
    }

    #[test]
    fn parsers_survive_mutated_resources(e in edits(), which in 0usize..3) {
        let all = compile_str(STARTER, "StarterApp.rcp".as_ref(), &includes()).unwrap();
        parse_everything(&apply(all[which].data.clone(), &e));
    }

    #[test]
    fn forms_round_trip(form in random_form()) {
        let bytes = form.to_bytes().unwrap();
        prop_assert_eq!(bytes.len() % 2, 0);
        prop_assert_eq!(Form::parse(&bytes).unwrap(), form);
    }

    #[test]
    fn menus_round_trip(bar in random_menu()) {
        prop_assert_eq!(MenuBar::parse(&bar.to_bytes().unwrap()).unwrap(), bar);
    }

    #[test]
    fn alerts_round_trip(alert in random_alert()) {
        prop_assert_eq!(Alert::parse(&alert.to_bytes().unwrap()).unwrap(), alert);
    }

    /// Well-formed fonts compile; each glyph's strike columns span its width,
    /// skipped codes are `fntMissingChar` (-1, -1) and take no columns.
    #[test]
    fn valid_fonts_have_consistent_tables((text, defined) in valid_font()) {
        let f = palm_rcp::font::compile(text.as_bytes()).unwrap().font;
        let first = defined[0].0;
        prop_assert_eq!(f.first_char as usize, first);
        prop_assert_eq!(f.last_char as usize, defined.last().unwrap().0);
        let mut at = 0;
        for code in first..=f.last_char as usize {
            let i = code - first;
            match defined.iter().find(|d| d.0 == code) {
                Some(&(_, width)) => {
                    prop_assert_eq!(f.locations[i] as usize, at);
                    prop_assert_eq!(f.char_info[i], (0, width as i8));
                    at += width;
                }
                None => {
                    prop_assert_eq!(f.locations[i] as usize, at);
                    prop_assert_eq!(f.char_info[i], (-1, -1));
                }
            }
        }
        prop_assert_eq!(f.row_words(), (at + if text.contains("GLYPH -1") { 3 } else { 0 }).div_ceil(16));
    }

    /// Font files of random keyword, value and glyph-row lines: the font
    /// compiler returns a font or an error with a line, never panics; a
    /// compiled font's tables have the sizes its header gives.
    #[test]
    fn font_compiler_survives_line_soup(lines in prop::collection::vec(font_line(), 0..40)) {
        let text = lines.join("\n");
        match palm_rcp::font::compile(text.as_bytes()) {
            Ok(c) => {
                let f = &c.font;
                let codes = (f.last_char - f.first_char) as usize;
                prop_assert_eq!(f.locations.len(), codes + 3);
                prop_assert_eq!(f.char_info.len(), codes + 2);
                prop_assert_eq!(f.strike.len(), f.f_rect_height as usize);
                let bytes = f.to_bytes().unwrap();
                prop_assert_eq!(bytes.len(), 26 + 2 * f.row_words() * f.strike.len() + 2 * (2 * codes + 5));
            }
            Err(e) => prop_assert!(e.line <= lines.len() && !e.message.is_empty()),
        }
    }
}

/// A well-formed font file: `height` rows a glyph, glyphs at increasing
/// codes (gaps between them) of random widths and pixels, maybe a missing
/// glyph; with the codes and widths it defines.
fn valid_font() -> impl Strategy<Value = (String, Vec<(usize, usize)>)> {
    (
        1usize..6,
        prop::collection::vec((1usize..4, 1usize..7, any::<u64>()), 1..30),
        any::<bool>(),
    )
        .prop_map(|(height, glyphs, missing)| {
            let mut text = String::from("ascent 4\n");
            let mut code = 0;
            let mut defined = Vec::new();
            let glyph = |text: &mut String, width: usize, bits: u64| {
                for r in 0..height {
                    let row: String = (0..width)
                        .map(|x| {
                            if bits >> ((r * width + x) % 64) & 1 == 1 {
                                '#'
                            } else {
                                '-'
                            }
                        })
                        .collect();
                    text.push_str(&row);
                    text.push('\n');
                }
            };
            for (gap, width, bits) in glyphs {
                code += gap;
                text.push_str(&format!("GLYPH {code}\n"));
                glyph(&mut text, width, bits);
                defined.push((code, width));
            }
            if missing {
                text.push_str("GLYPH -1\n");
                glyph(&mut text, 3, 0b101);
            }
            (text, defined)
        })
}

/// One line of a font file.
fn font_line() -> impl Strategy<Value = String> {
    prop_oneof![
        (
            prop::sample::select(vec![
                "GLYPH",
                "WIDTH",
                "OFFSET",
                "ascent",
                "MAXWIDTH",
                "FRECTHEIGHT",
                "firstChar"
            ]),
            -3i32..300
        )
            .prop_map(|(k, v)| format!("{k} {v}")),
        (0u8..128).prop_map(|c| format!("GLYPH '{}'", c as char)),
        Just("GLYPH -1".to_string()),
        "[-.#]{1,6}",
        "\\PC{0,12}",
    ]
}

//! Compiler tests: every construct compiled and parsed back to the objects
//! written in the source, exact bytes of a form, a menu bar and an alert
//! derived by hand from the layouts, and coordinate forms.

use palm_rcp::alert::{Alert, AlertType};
use palm_rcp::form::{
    Control, ControlAttr, ControlStyle, Field, FieldAttr, Form, FormObject, FrameBits,
    GraffitiState, Label, Title,
};
use palm_rcp::menu::{MenuBar, MenuItem, Pulldown};
use palm_rcp::strings::{self, TextKind};
use palm_rcp::{MemoryIncludes, NoIncludes, Point, Rect, Resource, compile_str};

fn compile(src: &str) -> Vec<Resource> {
    compile_str(src, "test.rcp".as_ref(), &NoIncludes).unwrap_or_else(|e| panic!("{e}"))
}

fn one(src: &str, kind: &[u8; 4]) -> Resource {
    let all = compile(src);
    assert_eq!(all.len(), 1, "one resource expected");
    assert_eq!(&all[0].kind, kind);
    all[0].clone()
}

fn form(src: &str) -> Form {
    Form::parse(&one(src, b"tFRM").data).unwrap()
}

/// Hex dump helper: "0000 03e8" -> bytes (spaces and newlines ignored).
fn hex(s: &str) -> Vec<u8> {
    let digits: Vec<u8> = s
        .bytes()
        .filter(|b| b.is_ascii_hexdigit())
        .map(|b| (b as char).to_digit(16).unwrap() as u8)
        .collect();
    assert_eq!(digits.len() % 2, 0);
    digits.chunks(2).map(|p| p[0] << 4 | p[1]).collect()
}

const STANDARD_BUTTON: ControlAttr = ControlAttr {
    usable: true,
    enabled: true,
    visible: false,
    on: false,
    left_anchor: true,
    frame: 1,
    drawn_as_selected: false,
    graphical: false,
    vertical: false,
};

#[test]
fn form_exact_bytes() {
    let res = one(
        r#"
        FORM ID 1000 AT (0 0 160 160) MENUID 1000
        BEGIN
          TITLE "Hi"
          BUTTON "OK" ID 1001 AT (10 140 40 12)
          LABEL "Name:" ID 1002 AT (2 20) FONT 1
          FIELD ID 1003 AT (40 20 100 12) MAXCHARS 32 UNDERLINED AUTOSHIFT
        END
        "#,
        b"tFRM",
    );
    assert_eq!(res.id, 1000);
    let expected = [
        // FormType.window (WindowType, 40 bytes):
        "0000 0000",           // displayWidthV20, displayHeightV20
        "0000 0000",           // displayAddrV20
        "1200",                // windowFlags: focusable (bit 12) + dialog (bit 9)
        "0000 0000 00a0 00a0", // windowBounds 0,0,160,160
        "0000 0000 0000 0000", // clippingBounds
        "0000 0000",           // bitmapP
        "0001",                // frameType: width 1 (PilRC default)
        "0000 0000 0000 0000", // drawStateP, nextWindow
        // The rest of FormType (28 bytes):
        "03e8",                     // formId 1000
        "8800",                     // attr: usable (bit 15) + saveBehind (bit 11)
        "0000",                     // reserved2
        "0000 0000 0000 0000 0000", // bitsBehindForm, handler, focus
        "0000 0000 03e8",           // defaultButton, helpRscId, menuRscId 1000
        "0004",                     // numObjects
        "0000 0000",                // objects (the list follows)
        // Object list at 68, 4 x 6 bytes; the objects start at 68 + 24 = 92.
        "09 00 0000005c", // title at 92 (0x5c): 12 + "Hi\0" = 15, padded to 16
        "01 00 0000006c", // control at 108: 20 + "OK\0" = 23, padded to 24
        "08 00 00000084", // label at 132: 14 + "Name:\0" = 20
        "00 00 00000098", // field at 152: 40
        // FormTitleType: rect 0 (PilRC leaves it to the OS), text pointer 0, text.
        "0000 0000 0000 0000 0000 0000 4869 00 00",
        // ControlType: id 1001, bounds 10,140,40,12, text 0,
        // attr usable|enabled|leftAnchor|frame=1 = 0xC900, style buttonCtl,
        // font 0, group 0, reserved; "OK\0" and a pad byte.
        "03e9 000a 008c 0028 000c 0000 0000 c900 00 00 00 00 4f4b 00 00",
        // FormLabelType: id 1002, pos 2,20, attr usable, font 1, reserved,
        // text 0; "Name:\0".
        "03ea 0002 0014 8000 01 00 0000 0000 4e61 6d65 3a 00",
        // FieldType: id 1003, rect 40,20,100,12, attr usable|editable|
        // singleLine|insPtVisible|underlined=1|autoShift = 0xB248, text,
        // textHandle, lines 0, textLen, textBlockSize 0, maxChars 32,
        // selFirstPos, selLastPos, insPtXPos, insPtYPos 0, font 0, reserved.
        "03eb 0028 0014 0064 000c b248 0000 0000 0000 0000 0000 0000 0000 0000",
        "0020 0000 0000 0000 0000 00 00",
    ]
    .concat();
    assert_eq!(res.data, hex(&expected));
    assert_eq!(res.data.len(), 192);
}

#[test]
fn menu_exact_bytes() {
    let res = one(
        r#"
        MENU ID 1000
        BEGIN
          PULLDOWN "Options"
          BEGIN
            MENUITEM "About" ID 2001 "a"
            MENUITEM SEPARATOR
          END
        END
        "#,
        b"MBAR",
    );
    // Bounds as PilRC's AssignMenuRects, with boldFont widths:
    //   "Options" = O 8 + p 6 + t 6 + i 3 + o 6 + n 6 + s 5 = 40 -> title 4,0,47,12.
    //   "About" = A 7 + b 6 + o 6 + u 6 + t 6 = 31, + 6 = 37, shortcut + 6 + 12
    //   + 'A' 7 = 62; separator '-' 5 + 6 = 11; widest 62.
    //   Height 11 + 5 = 16; x = min(4 + 2, 160 - 62 - 2) = 6 -> 6,14,62,16.
    let expected = [
        // MenuBarType: four window handles, attr, curMenu 0, curItem -1,
        // commandTick, numMenus 1, menus 0.
        "0000 0000 0000 0000 0000 0000 0000 0000",
        "0000 0000 ffff 0000 0000 0001 0000 0000",
        // MenuPullDownType at 32: menuWin, bounds, bitsBehind, titleBounds,
        // title offset 82 (after 32 + 34 + 2 * 8), hidden 0 | numItems 2,
        // items offset 66.
        "0000 0000 0006 000e 003e 0010 0000 0000",
        "0004 0000 002f 000c 0000 0052 0002 0000 0042",
        // MenuItemType at 66: id 2001, command 'A' (upper-cased), attr 0,
        // itemStr 90 (82 + "Options\0"); separator id 0, itemStr 96.
        "07d1 41 00 0000 005a",
        "0000 00 00 0000 0060",
        // Strings at 82.
        "4f70 7469 6f6e 7300", // "Options\0"
        "4162 6f75 7400",      // "About\0"
        "2d00",                // "-\0"
    ]
    .concat();
    assert_eq!(res.data, hex(&expected));
}

#[test]
fn alert_exact_bytes() {
    let res = one(
        r#"
        ALERT ID 1000 CONFIRMATION DEFAULTBUTTON 1
        BEGIN
          TITLE "Quit"
          MESSAGE "Sure?"
          BUTTONS "Yes" "No"
        END
        "#,
        b"Talt",
    );
    // AlertTemplateType: alertType confirmation (1), helpRscID 0, numButtons 2,
    // defaultButton 1; then title, message and buttons, NUL-terminated.
    let expected = "0001 0000 0002 0001 5175697400 537572653f00 59657300 4e6f00";
    assert_eq!(res.data, hex(expected));
}

#[test]
fn every_form_object_round_trips() {
    let f = form(
        r#"
        FORM ID 2000 AT (2 20 156 138) MODAL NOSAVEBEHIND HELPID 3000 DEFAULTBTNID 2001 MENUID 4000
        BEGIN
          TITLE "All objects"
          BUTTON "Go" ID 2001 AT (4 120 30 12) NOFRAME FONT 1 DISABLED
          REPEATBUTTON "Up" ID 2002 AT (40 120 20 12) BOLDFRAME RIGHTANCHOR
          PUSHBUTTON "P" ID 2003 AT (64 120 12 12) GROUP 1
          CHECKBOX "Check" ID 2004 AT (80 120 40 12) CHECKED GROUP 2
          SELECTORTRIGGER "Sel" ID 2005 AT (120 120 30 12) NONUSABLE
          LABEL "Text" ID 2006 AT (4 20) FONT 2 NONUSABLE
          FIELD ID 2007 AT (4 40 100 36) MULTIPLELINES NONEDITABLE DYNAMICSIZE
            MAXCHARS 200 RIGHTALIGN HASSCROLLBAR NUMERIC FONT 1
          GRAFFITISTATEINDICATOR AT (140 100)
          NOGRAFFITISTATEINDICATOR
        END
        "#,
    );
    let control = |id, bounds, label: &[u8], attr, style, font, group| {
        FormObject::Control(Control {
            id,
            bounds,
            label: label.to_vec(),
            attr,
            style,
            font,
            group,
        })
    };
    let expected = Form {
        id: 2000,
        bounds: Rect::new(2, 20, 156, 138),
        modal: true,
        // MODAL gives dialogFrame: corner diameter 3, width 2.
        frame: FrameBits {
            corner_diam: 3,
            three_d: false,
            shadow_width: 0,
            width: 2,
        },
        usable: true,
        save_behind: false,
        default_button: 2001,
        help_id: 3000,
        menu_id: 4000,
        objects: vec![
            FormObject::Title(Title {
                bounds: Rect::default(),
                text: b"All objects".to_vec(),
            }),
            control(
                2001,
                Rect::new(4, 120, 30, 12),
                b"Go",
                ControlAttr {
                    enabled: false,
                    frame: 0,
                    ..STANDARD_BUTTON
                },
                ControlStyle::Button,
                1,
                0,
            ),
            control(
                2002,
                Rect::new(40, 120, 20, 12),
                b"Up",
                ControlAttr {
                    left_anchor: false,
                    frame: 2,
                    ..STANDARD_BUTTON
                },
                ControlStyle::RepeatingButton,
                0,
                0,
            ),
            control(
                2003,
                Rect::new(64, 120, 12, 12),
                b"P",
                STANDARD_BUTTON,
                ControlStyle::PushButton,
                0,
                1,
            ),
            // A check box has no frame (PilRC: noButtonFrame).
            control(
                2004,
                Rect::new(80, 120, 40, 12),
                b"Check",
                ControlAttr {
                    on: true,
                    frame: 0,
                    ..STANDARD_BUTTON
                },
                ControlStyle::Checkbox,
                0,
                2,
            ),
            control(
                2005,
                Rect::new(120, 120, 30, 12),
                b"Sel",
                ControlAttr {
                    usable: false,
                    ..STANDARD_BUTTON
                },
                ControlStyle::SelectorTrigger,
                0,
                0,
            ),
            FormObject::Label(Label {
                id: 2006,
                pos: Point { x: 4, y: 20 },
                usable: false,
                font: 2,
                text: b"Text".to_vec(),
            }),
            FormObject::Field(Field {
                id: 2007,
                bounds: Rect::new(4, 40, 100, 36),
                attr: FieldAttr {
                    usable: true,
                    editable: false,
                    single_line: false,
                    dynamic_size: true,
                    ins_pt_visible: true,
                    justification: 2,
                    has_scroll_bar: true,
                    numeric: true,
                    ..FieldAttr::default()
                },
                max_chars: 200,
                font: 1,
            }),
            FormObject::GraffitiState(GraffitiState {
                pos: Point { x: 140, y: 100 },
            }),
        ],
    };
    assert_eq!(f, expected);
    assert_eq!(f.object_index(2007), Some(7));
    assert_eq!(f.objects[7].kind(), palm_rcp::form::kind::FIELD);
    assert_eq!(f.title(), Some(&b"All objects"[..]));
}

#[test]
fn field_defaults_are_pilrcs() {
    let f = form("FORM ID 1 AT (0 0 160 160) BEGIN FIELD ID 2 AT (0 20 50 12) END");
    let FormObject::Field(field) = &f.objects[0] else {
        panic!("field expected")
    };
    // usable, editable, single line, insertion point visible; no underline.
    assert_eq!(field.attr.to_word(), 0xB200);
    assert_eq!(field.max_chars, 0);
    assert!(f.usable && f.save_behind && !f.modal);
    assert_eq!(f.frame.to_word(), 0x0001);
}

#[test]
fn menu_round_trip() {
    let res = one(
        r#"
        MENU 1000
        BEGIN
          PULLDOWN "Edit"
          BEGIN
            MENUITEM "Undo" ID 10 "U"
            MENUITEM SEPARATOR ID 11
            MENUITEM "Keyboard..." 12
          END
          PULLDOWN "Options"
          BEGIN
            MENUITEM "About" ID 20
          END
        END
        "#,
        b"MBAR",
    );
    let bar = MenuBar::parse(&res.data).unwrap();
    // Title widths (boldFont): "Edit" = E 5 + d 6 + i 3 + t 6 = 20 -> 27 wide
    // at x 4; "Options" = 40 -> 47 wide at x 4 + 27 = 31.
    // Edit items: "Undo" = U 7 + n 6 + d 6 + o 6 = 25, + 6, + 18 + 'U' 7 = 56;
    // "Keyboard" + ellipsis 0x85 (bold 6) = K 7 e 6 y 6 b 6 o 6 a 6 r 5 d 6
    // + 6 = 54, + 6 = 60; height 11 + 5 + 11 = 27; x = min(6, 160 - 60 - 2).
    // Options: "About" 31 + 6 = 37 wide, 11 high, x = min(33, 121) = 33.
    let expected = MenuBar {
        pulldowns: vec![
            Pulldown {
                bounds: Rect::new(6, 14, 60, 27),
                title_bounds: Rect::new(4, 0, 27, 12),
                title: b"Edit".to_vec(),
                hidden: false,
                items: vec![
                    MenuItem {
                        id: 10,
                        command: b'U',
                        hidden: false,
                        text: b"Undo".to_vec(),
                    },
                    MenuItem {
                        id: 11,
                        command: 0,
                        hidden: false,
                        text: b"-".to_vec(),
                    },
                    MenuItem {
                        id: 12,
                        command: 0,
                        hidden: false,
                        text: b"Keyboard\x85".to_vec(),
                    },
                ],
            },
            Pulldown {
                bounds: Rect::new(33, 14, 37, 11),
                title_bounds: Rect::new(31, 0, 47, 12),
                title: b"Options".to_vec(),
                hidden: false,
                items: vec![MenuItem {
                    id: 20,
                    command: 0,
                    hidden: false,
                    text: b"About".to_vec(),
                }],
            },
        ],
    };
    assert_eq!(bar, expected);
    assert!(bar.pulldowns[0].items[1].is_separator());
}

#[test]
fn alert_round_trip_and_defaults() {
    let alert = Alert::parse(
        &one(
            r#"ALERT 1001 BEGIN MESSAGE "Done" BUTTONS "OK" END"#,
            b"Talt",
        )
        .data,
    )
    .unwrap();
    assert_eq!(
        alert,
        Alert {
            alert_type: AlertType::Information,
            help_id: 0,
            default_button: 0,
            title: Vec::new(),
            message: b"Done".to_vec(),
            buttons: vec![b"OK".to_vec()],
        }
    );
    for (word, ty) in [
        ("INFORMATION", AlertType::Information),
        ("CONFIRMATION", AlertType::Confirmation),
        ("WARNING", AlertType::Warning),
        ("ERROR", AlertType::Error),
    ] {
        let src =
            format!("ALERT ID 5 {word} HELPID 7 BEGIN TITLE \"T\" BUTTONS \"A\" \"B\" \"C\" END");
        let a = Alert::parse(&one(&src, b"Talt").data).unwrap();
        assert_eq!((a.alert_type, a.help_id, a.buttons.len()), (ty, 7, 3));
    }
}

#[test]
fn text_resources() {
    let all = compile(
        r#"
        STRING ID 1000 "Memory leak detector..."
        STRING 1001 \
            "Two" + " parts"
        VERSION "1.0"
        VERSION ID 2 "2.0b"
        APPLICATIONICONNAME ID 1000 "memdbg"
        APPLICATION ID 1 "MDBG"
        "#,
    );
    let kinds: Vec<(&[u8], u16)> = all.iter().map(|r| (&r.kind[..], r.id)).collect();
    assert_eq!(
        kinds,
        [
            (&b"tSTR"[..], 1000),
            (b"tSTR", 1001),
            (b"tver", 1),
            (b"tver", 2),
            (b"tAIN", 1000),
            (b"APPL", 1),
        ]
    );
    // A trailing "..." becomes the Palm ellipsis 0x85.
    assert_eq!(
        strings::parse_text(TextKind::String, &all[0].data).unwrap(),
        b"Memory leak detector\x85"
    );
    assert_eq!(all[1].data, b"Two parts\0");
    assert_eq!(all[2].data, b"1.0\0");
    assert_eq!(
        strings::parse_text(TextKind::Version, &all[3].data).unwrap(),
        b"2.0b"
    );
    // tAIN is padded to an even length: "memdbg\0" + 0.
    assert_eq!(all[4].data, b"memdbg\0\0");
    assert_eq!(
        strings::parse_text(TextKind::IconName, &all[4].data).unwrap(),
        b"memdbg"
    );
    assert_eq!(strings::parse_application(&all[5].data).unwrap(), *b"MDBG");
    assert_eq!(all[0].file_name(), "tSTR03e8.bin");
}

#[test]
fn auto_center_prev_and_at_coordinates() {
    let f = form(
        r#"
        #define W 40
        FORM ID 1 AT (0 0 160 160)
        BEGIN
          BUTTON "OK" ID 10 AT (CENTER 140 AUTO AUTO)
          BUTTON "Cancel" ID 11 AT (PREVRIGHT + 4 PREVTOP W PREVHEIGHT)
          BUTTON "X" ID 12 AT (RIGHT@158 BOTTOM@158 (W / 2) 12)
          LABEL "Hello" ID 13 AT (CENTER@80 PREVTOP - 14)
          FIELD ID 14 AT (PREVLEFT PREVBOTTOM + 2 60 AUTO) FONT 2
          CHECKBOX "On" ID 15 AT (0 0 AUTO AUTO)
          GRAFFITISTATEINDICATOR AT (RIGHT@160 BOTTOM@160)
        END
        "#,
    );
    let bounds: Vec<Option<Rect>> = f.objects.iter().map(FormObject::bounds).collect();
    // "OK" in stdFont: O 7 + K 6 = 13, + 12 button margin = 25; height 11 + 1.
    // CENTER: (160 - 25) / 2 = 67.
    assert_eq!(bounds[0], Some(Rect::new(67, 140, 25, 12)));
    // PREVRIGHT = 67 + 25 = 92, + 4.
    assert_eq!(bounds[1], Some(Rect::new(96, 140, 40, 12)));
    // RIGHT@158 with width 20 -> 138; BOTTOM@158 with height 12 -> 146.
    assert_eq!(bounds[2], Some(Rect::new(138, 146, 20, 12)));
    // "Hello" = H 6 + e 5 + l 2 + l 2 + o 5 = 20 wide: CENTER@80 -> (160 - 20) / 2
    // = 70; PREVTOP (146) - 14 = 132.
    let FormObject::Label(label) = &f.objects[3] else {
        panic!("label expected")
    };
    assert_eq!(label.pos, Point { x: 70, y: 132 });
    // PREVLEFT 70; PREVBOTTOM = 132 + (stdFont height 11 + 1) = 144, + 2;
    // AUTO height in largeFont: 14 + 1.
    assert_eq!(bounds[4], Some(Rect::new(70, 146, 60, 15)));
    // "On" = O 7 + n 5 = 12, + 18 check-box margin.
    assert_eq!(bounds[5], Some(Rect::new(0, 0, 30, 12)));
    // The indicator is 9 x 10 for RIGHT@/BOTTOM@.
    let FormObject::GraffitiState(gsi) = &f.objects[6] else {
        panic!("indicator expected")
    };
    assert_eq!(gsi.pos, Point { x: 151, y: 150 });
}

#[test]
fn header_and_rcp_includes() {
    let includes = MemoryIncludes::new()
        .with(
            "ids.h",
            "#ifndef IDS_H\n#define IDS_H\n#define MainForm 1000\n\
             #define MainOK (MainForm + 1)\n#define AppName \"memdbg\"\n\
             int unused_declaration(void);\n#endif\n",
        )
        .with("more.rcp", "STRING ID MainOK AppName + \" more\"\n");
    let all = compile_str(
        "#include \"ids.h\"\n#include \"ids.h\"\n\
         FORM ID MainForm AT (0 0 160 160) BEGIN BUTTON \"OK\" ID MainOK AT (1 1 20 12) END\n\
         #include \"more.rcp\"\nAPPLICATIONICONNAME 1000 AppName\n",
        "main.rcp".as_ref(),
        &includes,
    )
    .unwrap();
    assert_eq!(all.len(), 3);
    assert_eq!((all[0].kind, all[0].id), (*b"tFRM", 1000));
    assert_eq!(
        Form::parse(&all[0].data).unwrap().objects[0].id(),
        Some(1001)
    );
    assert_eq!((all[1].kind, all[1].id), (*b"tSTR", 1001));
    assert_eq!(all[1].data, b"memdbg more\0");
    assert_eq!(all[2].data, b"memdbg\0\0");
}

#[test]
fn conditional_compilation() {
    let src = "#define DEBUG\n#ifdef DEBUG\nSTRING 1 \"debug\"\n#else\nSTRING 1 \"release\"\n#endif\n\
               #ifndef DEBUG\nSTRING 2 \"x\"\n#endif\n";
    let all = compile(src);
    assert_eq!(all.len(), 1);
    assert_eq!(all[0].data, b"debug\0");
}

#[test]
fn keywords_are_case_insensitive_and_utf8_maps_to_palm() {
    let all = compile("string id 3 \"caf\u{e9} \u{2026}\"\nVersion \"1\"");
    assert_eq!(all[0].data, b"caf\xe9 \x85\0");
    assert_eq!(all[1].kind, *b"tver");
}

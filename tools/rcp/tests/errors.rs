//! Malformed `.rcp` inputs: each gives one error naming file, line and column.

use palm_rcp::{MemoryIncludes, NoIncludes, compile_file, compile_str};

fn error(src: &str) -> String {
    match compile_str(src, "StarterApp.rcp".as_ref(), &NoIncludes) {
        Ok(r) => panic!("expected an error, compiled {} resources", r.len()),
        Err(e) => e.to_string(),
    }
}

const FORM: &str = "FORM ID 1000 AT (0 0 160 160)\nBEGIN\n";

#[test]
fn malformed_forms() {
    let cases: &[(&str, &str)] = &[
        (
            "    BUTTON \"OK\" AT (1 1 20 12)\nEND",
            "StarterApp.rcp:3:17: expected ID after BUTTON \"OK\", found AT",
        ),
        (
            "    BUTTON \"OK\" ID 1 (1 1 20 12)\nEND",
            "StarterApp.rcp:3:22: expected AT before the bounds of BUTTON \"OK\"",
        ),
        (
            "    BUTTON \"OK\" ID 1 AT (1 1 20)\nEND",
            "StarterApp.rcp:3:32: expected the height in AT (left top width height), found ')'",
        ),
        (
            "    BUTTON \"OK\" ID 1 AT (1 1 20 12\nEND",
            "StarterApp.rcp:4:1: expected ')' after the height in AT (left top width height), \
             found END",
        ),
        (
            "  GRAFFITISTATEINDICATOR AT (1 1\nEND",
            "StarterApp.rcp:4:1: expected ')' after the top position in AT (left top), found END",
        ),
        (
            "    BUTTON ID 1 AT (1 1 20 12)\nEND",
            "StarterApp.rcp:3:12: expected the label after BUTTON, found ID",
        ),
        (
            "  TITLE \"x\"\n",
            "StarterApp.rcp:4:1: expected END of FORM 1000, found the end of the file",
        ),
        (
            "  LIST \"a\" ID 5 AT (0 0 10 10) MAXCHARS 3\nEND",
            "StarterApp.rcp:3:32: MAXCHARS is not allowed on LIST 5",
        ),
        (
            "  FIELD ID 5 AT (1 1 10 10) EDITABLE FRAME\nEND",
            "StarterApp.rcp:3:38: FRAME is not allowed on FIELD 5",
        ),
        (
            "  BUTTON \"b\" ID 5 AT (1 1 10 10) GRAPHICAL\nEND",
            "StarterApp.rcp:3:3: BUTTON \"b\" is GRAPHICAL and needs a non-zero BITMAPID",
        ),
        (
            "  FIELD ID 5 AT (1 1 10 10) MAXCHARS\nEND",
            "StarterApp.rcp:4:1: expected a value after MAXCHARS, found END",
        ),
        (
            "  FIELD ID 5 AT (1 1 10 10) MAXCHARS 70000\nEND",
            "StarterApp.rcp:3:38: MAXCHARS 70000 is out of range (0..=65535)",
        ),
        (
            "  hello\nEND",
            "StarterApp.rcp:3:3: expected a form object (TITLE, BUTTON, PUSHBUTTON, CHECKBOX, REPEATBUTTON, SELECTORTRIGGER, POPUPTRIGGER, POPUPLIST, LABEL, FIELD, LIST, TABLE, FORMBITMAP, GADGET, SCROLLBAR, SLIDER, GRAFFITISTATEINDICATOR) or END, found hello",
        ),
        (
            "  BUTTON \"b\" ID 5 AT (1 1 CENTER 10)\nEND",
            "StarterApp.rcp:3:27: CENTER, RIGHT@ and BOTTOM@ give a position, not a width or height",
        ),
        (
            "  BUTTON \"b\" ID 5 AT (AUTO 1 10 10)\nEND",
            "StarterApp.rcp:3:23: AUTO gives a width or height, not a position",
        ),
        (
            "  BUTTON \"b\" ID 5 AT (1 1 AUTO 10) FONT 200\nEND",
            "StarterApp.rcp:3:27: AUTO width needs the character widths of font 200, which is \
             neither built in (fonts 0-7) nor defined by a FONT statement",
        ),
        // Review findings: accepted, as PilRC 3.2 accepts them.
        (
            "  BUTTON \"b\" ID 5 AT (1 1 40 12) FONT 99\nEND",
            "StarterApp.rcp:3:39: FONT 99: no such font (the built-in fonts are 0-7, stdFont to \
             largeBoldFont; an app's own fonts are 128-255)",
        ),
        (
            "  LIST \"a\" \"b\" ID 5 AT (0 0 10 AUTO) VISIBLEITEMS -3\nEND",
            "StarterApp.rcp:3:51: VISIBLEITEMS -3: the number of rows cannot be negative",
        ),
        (
            "  POPUPTRIGGER \"x\" ID 5 AT (0 0 40 12)\n  POPUPLIST ID 5 77\nEND",
            "StarterApp.rcp:4:3: POPUPLIST names list 77, which is not a LIST of FORM 1000",
        ),
        (
            "  POPUPTRIGGER \"x\" ID 5 AT (0 0 40 12)\n  POPUPLIST ID 5 5\nEND",
            "StarterApp.rcp:4:3: POPUPLIST names list 5, which is not a LIST of FORM 1000 (ID 5 \
             is the POPUPTRIGGER at StarterApp.rcp:3:3)",
        ),
        (
            "  BUTTON \"b\" ID 5 AT (1 + 2 * 3 1 10 10)\nEND",
            "StarterApp.rcp:3:29: mixing + or - with * or / needs parentheses (PilRC evaluates \
             left to right)",
        ),
        (
            "  BUTTON \"b\" ID 5 AT (1 1 10 10 / 0)\nEND",
            "StarterApp.rcp:3:33: division by zero",
        ),
        (
            "  BUTTON \"b\" ID 5 AT (40000 1 10 10)\nEND",
            "StarterApp.rcp:3:23: coordinate 40000 is out of range (-32768..=32767)",
        ),
        (
            "  BUTTON \"b\" ID 5 AT (CENTER@4294967295 * 2147483648 1 10 10)\nEND",
            "StarterApp.rcp:3:23: arithmetic overflow",
        ),
        (
            "  BUTTON \"b\" ID 5 AT (1 1 10 10 + (((((((((((((((((((((((((((((((((((((((((((((((((((\
             ((((((((((((((((((((((((((((((((((((((((((((((((((((1)\nEND",
            "StarterApp.rcp:3:135: expression nested too deeply",
        ),
        (
            "  LABEL \"x\" ID 5 AT (RIGHT 1)\nEND",
            "StarterApp.rcp:3:28: expected '@' after RIGHT, found 1",
        ),
    ];
    for (body, expected) in cases {
        assert_eq!(
            &error(&format!("{FORM}{body}")),
            expected,
            "source:\n{body}"
        );
    }
}

#[test]
fn malformed_resources() {
    let cases: &[(&str, &str)] = &[
        (
            "FORM ID MainForm AT (0 0 160 160) BEGIN END",
            "StarterApp.rcp:1:9: undefined symbol MainForm",
        ),
        (
            "FORM ID 1 AT (CENTER 0 160 160) BEGIN END",
            "StarterApp.rcp:1:15: CENTER needs a form to center in; use CENTER@x",
        ),
        (
            "FORM ID 1 AT (0 0 AUTO 160) BEGIN END",
            "StarterApp.rcp:1:19: AUTO is not supported in FORM bounds",
        ),
        (
            "FORM ID 1 AT (0 0 160 160) MAXCHARS 3 BEGIN END",
            "StarterApp.rcp:1:28: MAXCHARS is not allowed on FORM 1",
        ),
        (
            "FORM ID 1 AT (0 0 160 160)\nTITLE \"x\"",
            "StarterApp.rcp:2:1: expected BEGIN after FORM 1, found TITLE",
        ),
        (
            "STRING ID 1 \"a\"\n\nSTRING ID 1 \"b\"",
            "StarterApp.rcp:3:1: duplicate tSTR resource ID 1 (first defined at StarterApp.rcp:1)",
        ),
        (
            "STRING ID 70000 \"x\"",
            "StarterApp.rcp:1:11: ID 70000 is out of range (0..=65535)",
        ),
        (
            "STRING ID 1 \"unterminated\n",
            "StarterApp.rcp:1:13: unterminated string",
        ),
        (
            "STRING ID 1 \"a\" + 5",
            "StarterApp.rcp:1:19: expected a string after '+', found 5",
        ),
        (
            "#define N 5\nSTRING ID 1 N",
            "StarterApp.rcp:2:13: symbol N is a number, the text of STRING 1 is needed here",
        ),
        (
            "STRING ID 1 FILE \"x.txt\"",
            "StarterApp.rcp:1:18: cannot read file \"x.txt\": no file can be read here (NoIncludes)",
        ),
        (
            "VERSION",
            "StarterApp.rcp:1:8: expected ID after VERSION, found the end of the input",
        ),
        (
            "APPLICATION ID 1 \"ABC\"",
            "StarterApp.rcp:1:18: the APPLICATION creator must be exactly 4 characters",
        ),
        (
            "MENU ID 1 BEGIN PULLDOWN \"a\" BEGIN MENUITEM \"b\" ID 2 \"xy\" END END",
            "StarterApp.rcp:1:54: a menu shortcut must be exactly 1 character",
        ),
        (
            "MENU ID 1 BEGIN MENUITEM \"b\" ID 2 END",
            "StarterApp.rcp:1:17: expected PULLDOWN or END in MENU 1, found MENUITEM",
        ),
        (
            "MENU ID 1 BEGIN PULLDOWN \"a\" BEGIN TITLE \"x\" END END",
            "StarterApp.rcp:1:36: expected MENUITEM or END in PULLDOWN \"a\", found TITLE",
        ),
        (
            "ALERT ID 1 BEGIN MESSAGE \"m\" END",
            "StarterApp.rcp:1:30: ALERT 1 needs at least one button (BUTTONS \"OK\")",
        ),
        (
            "ALERT ID 1 DEFAULTBUTTON 2 BEGIN BUTTONS \"OK\" \"No\" END",
            "StarterApp.rcp:1:26: DEFAULTBUTTON 2 is not a button index of ALERT 1 (0..=1)",
        ),
        (
            "ALERT ID 1 BEGIN TITLE \"a\" TITLE \"b\" BUTTONS \"OK\" END",
            "StarterApp.rcp:1:28: TITLE given twice in ALERT 1",
        ),
        (
            "ALERT ID 1 MODAL BEGIN END",
            "StarterApp.rcp:1:12: MODAL is not allowed on ALERT 1",
        ),
        (
            "FONTFAMILY ID 1 FONTID 128 BEGIN END",
            "StarterApp.rcp:1:1: FONTFAMILY resources are not supported by this compiler \
             (supported: FORM, MENU, ALERT, STRING, STRINGTABLE, CATEGORIES, VERSION, APPLICATIONICONNAME, APPLICATION, LAUNCHERCATEGORY, BITMAP*, ICON*, SMALLICON*, FONT, DATA, HEX, INTEGER, BYTELIST, WORDLIST, LONGWORDLIST, PALETTETABLE, TRAP; directives: TRANSLATION, GENERATEHEADER, RESETAUTOID)",
        ),
        (
            "FONT ID 1 \"x.txt\"",
            "StarterApp.rcp:1:11: FONT 1 needs FONTID n (128-255) before its file name",
        ),
        (
            "FONT ID 1 FONTID 7 \"x.txt\"",
            "StarterApp.rcp:1:18: font ID 7 is invalid: application fonts are 128-255",
        ),
        (
            "FONT ID 1 FONTID 128 \"x.txt\"",
            "StarterApp.rcp:1:22: cannot read file \"x.txt\": no file can be read here (NoIncludes)",
        ),
        (
            "TRAP ID 999 VALUE 367",
            "StarterApp.rcp:1:9: TRAP resource ID 999 is below 1000 (HackMaster needs 1000 and up)",
        ),
        (
            "BYTELIST ID 1 BEGIN 1 256 END",
            "StarterApp.rcp:1:23: byte 256 is out of range (-128..=255)",
        ),
        (
            "BYTELIST ID 1 DEFAULTITEM 2 BEGIN END",
            "StarterApp.rcp:1:15: expected BEGIN after BYTELIST 1, found DEFAULTITEM",
        ),
        (
            "PALETTETABLE ID 1 BEGIN 0 1 2 3 X END",
            "StarterApp.rcp:1:33: expected a number (0-255) or END in PALETTETABLE, found X",
        ),
        (
            "PALETTETABLE ID 1 BEGIN 0 1 2 END",
            "StarterApp.rcp:1:29: PALETTETABLE needs 4 numbers a color (index, red, green, blue)",
        ),
        (
            "CATEGORIES ID 1 BEGIN",
            "StarterApp.rcp:1:17: expected the names of CATEGORIES 1, found BEGIN",
        ),
        (
            "\n  hello",
            "StarterApp.rcp:2:3: expected a resource (FORM, MENU, ALERT, STRING, STRINGTABLE, CATEGORIES, VERSION, APPLICATIONICONNAME, APPLICATION, LAUNCHERCATEGORY, BITMAP*, ICON*, SMALLICON*, FONT, DATA, HEX, INTEGER, BYTELIST, WORDLIST, LONGWORDLIST, PALETTETABLE, TRAP) or a directive (TRANSLATION, GENERATEHEADER, RESETAUTOID), found hello",
        ),
        (
            "STRING 1 \"\u{3c0}\"",
            "StarterApp.rcp:1:11: character '\u{3c0}' (U+03C0) is not in the Palm character set \
             (Windows-1252)",
        ),
        (
            "/* comment\n never closed",
            "StarterApp.rcp:1:1: unterminated /* comment",
        ),
        (
            "#if DEBUG\n#endif",
            "StarterApp.rcp:1:1: #if is not supported; use #ifdef or #ifndef",
        ),
        (
            "#ifdef DEBUG\nSTRING 1 \"a\"\n",
            "StarterApp.rcp:1:1: #ifdef/#ifndef without #endif",
        ),
        (
            "STRING 1 \"a\" $",
            "StarterApp.rcp:1:14: expected a resource (FORM, MENU, ALERT, STRING, STRINGTABLE, CATEGORIES, VERSION, APPLICATIONICONNAME, APPLICATION, LAUNCHERCATEGORY, BITMAP*, ICON*, SMALLICON*, FONT, DATA, HEX, INTEGER, BYTELIST, WORDLIST, LONGWORDLIST, PALETTETABLE, TRAP) or a directive (TRANSLATION, GENERATEHEADER, RESETAUTOID), found '$'",
        ),
    ];
    for (src, expected) in cases {
        assert_eq!(&error(src), expected, "source:\n{src}");
    }
}

#[test]
fn errors_in_included_files_name_that_file() {
    let includes = MemoryIncludes::new()
        .with("ids.h", "#define Good 1\n#define Bad BadValue(3)\n")
        .with(
            "part.rcp",
            "\nSTRING ID Good \"ok\"\nSTRING ID Bad \"no\"\n",
        );
    let e = compile_str(
        "#include \"ids.h\"\n#include \"part.rcp\"\n",
        "main.rcp".as_ref(),
        &includes,
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "part.rcp:3:11: symbol Bad is #defined with a value this compiler cannot evaluate"
    );
    let e = compile_str("\n #include \"nope.h\"", "main.rcp".as_ref(), &includes).unwrap_err();
    assert_eq!(
        e.to_string(),
        "main.rcp:2:11: cannot read include file \"nope.h\": no such include file"
    );
}

#[test]
fn unreadable_file() {
    let e = compile_file("/nonexistent/dir/App.rcp").unwrap_err();
    assert_eq!(
        (e.file.as_str(), e.line, e.column),
        ("/nonexistent/dir/App.rcp", 0, 0)
    );
    assert!(e.message.starts_with("cannot read file: "), "{}", e.message);
    // A whole-file error has no line:column.
    assert!(
        e.to_string()
            .starts_with("/nonexistent/dir/App.rcp: cannot read file: "),
        "{e}"
    );
}

fn compiles(src: &str) -> Vec<palm_rcp::Resource> {
    compile_str(src, "StarterApp.rcp".as_ref(), &NoIncludes)
        .unwrap_or_else(|e| panic!("{e}\nsource:\n{src}"))
}

#[test]
fn resources_over_64_kb_are_refused() {
    let long = "a".repeat(70_000);
    assert_eq!(
        error(&format!("\n  STRING ID 1000 \"{long}\"\n")),
        "StarterApp.rcp:2:3: STRING 1000 is too large: its tSTR resource would be 70,001 bytes, \
         and a Palm resource is at most 65,505 bytes (one storage-heap chunk, \
         memMaxChunkAllocSize)"
    );
    let digits = "1".repeat(100_000);
    assert_eq!(
        error(&format!("VERSION ID 1 \"{digits}\"")),
        "StarterApp.rcp:1:1: VERSION 1 is too large: its tver resource would be 100,001 bytes, \
         and a Palm resource is at most 65,505 bytes (one storage-heap chunk, \
         memMaxChunkAllocSize)"
    );
    // Joined pieces count too; exactly 65,505 bytes (with the NUL) is accepted.
    let half = "b".repeat(40_000);
    assert!(error(&format!("STRING 5 \"{half}\" + \"{half}\"")).contains("80,001 bytes"));
    let max = "c".repeat(65_504);
    let r = compiles(&format!("STRING 5 \"{max}\""));
    assert_eq!(r[0].data.len(), palm_rcp::MAX_RESOURCE_SIZE);
    assert!(error(&format!("STRING 5 \"{max}c\"")).contains("65,506 bytes"));
    // A form made large by its labels.
    let label = "d".repeat(30_000);
    let form = format!(
        "{FORM}  LABEL \"{label}\" ID 1 AT (0 0)\n  LABEL \"{label}\" ID 2 AT (0 0)\n  \
         LABEL \"{label}\" ID 3 AT (0 0)\nEND\n"
    );
    assert!(
        error(&form).starts_with("StarterApp.rcp:1:1: FORM 1000 is too large: its tFRM resource"),
        "{}",
        error(&form)
    );
}

#[test]
fn a_byte_order_mark_is_skipped_or_named() {
    let r = compiles("\u{FEFF}STRING ID 1 \"x\"");
    assert_eq!((r[0].id, &r[0].data[..]), (1, &b"x\0"[..]));
    // Columns of the first line do not count it.
    assert_eq!(
        error("\u{FEFF}STRING ID 1 2"),
        "StarterApp.rcp:1:13: expected the text of STRING 1, found 2"
    );
    // Anywhere else it is named, not shown as an invisible character.
    assert_eq!(
        error("STRING ID 1 \"x\"\n\u{FEFF}STRING ID 2 \"y\""),
        "StarterApp.rcp:2:1: expected a resource (FORM, MENU, ALERT, STRING, STRINGTABLE, CATEGORIES, VERSION, APPLICATIONICONNAME, APPLICATION, LAUNCHERCATEGORY, BITMAP*, ICON*, SMALLICON*, FONT, DATA, HEX, INTEGER, BYTELIST, WORDLIST, LONGWORDLIST, PALETTETABLE, TRAP) or a directive (TRANSLATION, GENERATEHEADER, RESETAUTOID), found a byte order mark (U+FEFF)"
    );
    // In an included file too.
    let includes = MemoryIncludes::new().with("ids.h", "\u{FEFF}#define Greeting 7\n");
    let r = compile_str(
        "#include \"ids.h\"\nSTRING ID Greeting \"hi\"",
        "main.rcp".as_ref(),
        &includes,
    )
    .unwrap();
    assert_eq!(r[0].id, 7);
}

#[test]
fn unknown_escapes_are_errors() {
    assert_eq!(
        error("STRING ID 1 \"a\\qb\""),
        "StarterApp.rcp:1:15: unknown escape \\q: PilRC would keep the character; write it \
         without the backslash, or \\\\ for a backslash"
    );
    assert!(error("STRING ID 1 \"\\ \"").contains("unknown escape \\ followed by U+0020"));
    assert!(
        error("APPLICATION ID 1 \"\\Qabc\"").starts_with("StarterApp.rcp:1:19: unknown escape \\Q")
    );
    // The escapes of C and PilRC.
    let r = compiles("STRING ID 1 \"\\\"\\'\\\\\\?\\a\\b\\f\\n\\r\\t\\v\\e\\z\\_\\101\\x42\"");
    assert_eq!(r[0].data, b"\"'\\?\x07\x08\x0C\n\n\t\x0B\x1B\x1AAB\0");
}

#[test]
fn duplicate_object_ids_in_a_form() {
    assert_eq!(
        error(&format!(
            "{FORM}  BUTTON \"OK\" ID 1001 AT (1 1 20 12)\n  FIELD ID 1002 AT (1 20 50 12)\n  \
             CHECKBOX \"On\" ID 1001 AT (1 40 50 12)\nEND\n"
        )),
        "StarterApp.rcp:5:3: duplicate object ID 1001 in FORM 1000: this CHECKBOX and the \
         BUTTON at StarterApp.rcp:3:3"
    );
    assert_eq!(
        error(&format!(
            "{FORM}  LABEL \"a\" ID 7 AT (1 1)\n  FIELD ID 7 AT (1 20 50 12)\nEND\n"
        )),
        "StarterApp.rcp:4:3: duplicate object ID 7 in FORM 1000: this FIELD and the LABEL at \
         StarterApp.rcp:3:3"
    );
    // Labels may share an ID (PilRC's "dupe labels are ok"); other forms are apart.
    let r = compiles(&format!(
        "{FORM}  LABEL \"a\" ID 7 AT (1 1)\n  LABEL \"b\" ID 7 AT (1 20)\nEND\n\
         FORM ID 1001 AT (0 0 160 160)\nBEGIN\n  FIELD ID 7 AT (1 1 50 12)\nEND\n"
    ));
    assert_eq!(r.len(), 2);
}

/// A font file's problem names the FONT statement's file name and the line
/// in the font file; its warnings too.
#[test]
fn font_file_errors_name_the_line() {
    let includes = MemoryIncludes::new()
        .with("bad.txt", "GLYPH 65\n##\n#\n")
        .with("warn.txt", "MAXWIDTH 1\nGLYPH 65\n##\n");
    let e = compile_str(
        "FONT ID 1 FONTID 128 \"bad.txt\"",
        "main.rcp".as_ref(),
        &includes,
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "main.rcp:1:22: font file \"bad.txt\": line 3: a row of 1 pixels in a glyph whose first \
         row has 2"
    );
    let c = palm_rcp::compile_with(
        "FONT ID 1 FONTID 128 \"warn.txt\"\n\
         FORM ID 1 AT (0 0 160 160) BEGIN BUTTON \"AA\" ID 2 AT (0 0 AUTO AUTO) FONT 128 END",
        "main.rcp".as_ref(),
        &includes,
        &palm_rcp::Options::default(),
    )
    .unwrap();
    assert_eq!(
        c.warnings[0].to_string(),
        "main.rcp:1:22: font file \"warn.txt\": line 3: glyph width 2 exceeds the maxWidth \
         definition"
    );
    // AUTO: "AA" is 2 + 2 pixels plus the button's 12; the height is the
    // font's one row plus 1.
    let form = palm_rcp::form::Form::parse(&c.resources[1].data).unwrap();
    assert_eq!(
        form.objects[0].bounds().map(|b| (b.width, b.height)),
        Some((16, 2))
    );
}

/// A launcher icon of another size than Palm OS 3.x's warns, as in PilRC 3.2
/// (`BMP_CompressDumpBitmap`); `-allowBadSize` turns it off.
#[test]
fn icons_of_the_wrong_size_warn() {
    let pbm = |w: usize, h: usize| format!("P1 {w} {h}\n{}", "0 ".repeat(w * h));
    let includes = MemoryIncludes::new()
        .with("big.pbm", &pbm(64, 64))
        .with("ok.pbm", &pbm(32, 22))
        .with("small.pbm", &pbm(15, 9));
    let compile = |src: &str, allow_bad_size: bool| {
        let opts = palm_rcp::Options {
            allow_bad_size,
            ..Default::default()
        };
        palm_rcp::compile_with(src, "main.rcp".as_ref(), &includes, &opts)
            .unwrap()
            .warnings
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        compile("ICON \"big.pbm\"\nSMALLICON \"big.pbm\"", false),
        [
            "main.rcp:1:1: ICON 1000: icon resource is 64x64, not 32x32, 32x22 or 22x22 \
             (preferred) (-allowBadSize: no warning)",
            "main.rcp:2:1: SMALLICON 1001: small icon resource is 64x64, not 15x9 \
             (-allowBadSize: no warning)"
        ]
    );
    assert!(compile("ICON \"big.pbm\"", true).is_empty());
    assert!(compile("ICON \"ok.pbm\"\nSMALLICON \"small.pbm\"", false).is_empty());
    // Other IDs and bitmaps are not icons of the launcher.
    assert!(
        compile(
            "ICON ID 2000 \"big.pbm\"\nBITMAP ID 1000 \"big.pbm\"",
            false
        )
        .is_empty()
    );
}

//! The starter application's resources (`rsrc/StarterApp.rcp`) compile to the
//! form, menu, alert and launcher resources the app and `palm-run` expect.

use palm_rcp::alert::{Alert, AlertType};
use palm_rcp::form::{ControlStyle, Form, FormObject};
use palm_rcp::menu::MenuBar;
use palm_rcp::strings::{self, TextKind};
use palm_rcp::{NoIncludes, Rect, Resource, compile_file, compile_str};

const RCP: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../rsrc/StarterApp.rcp");

fn resources() -> Vec<Resource> {
    compile_file(RCP).unwrap_or_else(|e| panic!("{e}"))
}

fn find<'a>(all: &'a [Resource], kind: &[u8; 4], id: u16) -> &'a Resource {
    all.iter()
        .find(|r| &r.kind == kind && r.id == id)
        .unwrap_or_else(|| panic!("{} {id} missing", String::from_utf8_lossy(kind)))
}

/// Width of `label` in a button sized `AUTO`: the text in stdFont plus
/// PilRC's 12-pixel button margin.
fn auto_button_width(label: &[u8]) -> i16 {
    let mut src = b"FORM ID 1 AT (0 0 160 160) BEGIN BUTTON \"".to_vec();
    src.extend_from_slice(label);
    src.extend_from_slice(b"\" ID 2 AT (0 0 AUTO AUTO) END");
    let text: String = src.iter().map(|&b| char::from(b)).collect();
    let r = compile_str(&text, "probe.rcp".as_ref(), &NoIncludes).unwrap();
    Form::parse(&r[0].data).unwrap().objects[0]
        .bounds()
        .unwrap()
        .width
}

#[test]
fn resource_list() {
    let all = resources();
    let list: Vec<(String, u16)> = all
        .iter()
        .map(|r| (String::from_utf8_lossy(&r.kind).into_owned(), r.id))
        .collect();
    let expected = [
        ("tFRM", 1000),
        ("MBAR", 1000),
        ("Talt", 1000),
        ("tver", 1),
        ("tAIN", 1000),
        // The launcher icons (ICONFAMILY, SMALLICONFAMILY; tests/icons.rs
        // checks their bytes).
        ("tAIB", 1000),
        ("tAIB", 1001),
    ];
    assert_eq!(list, expected.map(|(k, id)| (k.to_owned(), id)).to_vec());
    assert_eq!(
        strings::parse_text(TextKind::Version, &find(&all, b"tver", 1).data).unwrap(),
        b"1.0"
    );
    assert_eq!(
        strings::parse_text(TextKind::IconName, &find(&all, b"tAIN", 1000).data).unwrap(),
        b"memdbg"
    );
}

#[test]
fn main_form() {
    let all = resources();
    let form = Form::parse(&find(&all, b"tFRM", 1000).data).unwrap();
    assert_eq!(form.id, 1000);
    assert_eq!(form.bounds, Rect::new(0, 0, 160, 160));
    assert_eq!(form.title(), Some(&b"memdbg Starter"[..]));
    assert_eq!(form.menu_id, 1000);
    assert!(form.usable && !form.modal);

    // One button per scenario, then Exit, with the IDs of StarterAppRsc.h.
    let buttons: Vec<(u16, &[u8])> = form
        .objects
        .iter()
        .filter_map(|o| match o {
            FormObject::Control(c) => {
                assert_eq!(c.style, ControlStyle::Button);
                assert!(c.attr.usable && c.attr.enabled);
                Some((c.id, c.label.as_slice()))
            }
            _ => None,
        })
        .collect();
    let expected: [(u16, &[u8]); 14] = [
        (1001, b"Leak pointer"),
        (1002, b"Leak handle"),
        (1003, b"Field handle"),
        (1004, b"Resize ptr"),
        (1005, b"Move handle"),
        (1006, b"Overrun"),
        (1007, b"Double free"),
        (1008, b"Fragment"),
        (1009, b"Leak Box"),
        (1010, b"Correct use"),
        (1012, b"Loop leak"),
        (1013, b"Lock handle"),
        (1014, b"Pin heap"),
        (1011, b"Exit"),
    ];
    assert_eq!(buttons, expected);

    // Two columns of 74-pixel buttons, 15 pixels apart, from y = 18.
    let FormObject::Control(first) = &form.objects[1] else {
        panic!("the first button follows the title")
    };
    assert_eq!(first.bounds, Rect::new(4, 18, 74, 12));
    let FormObject::Control(last) = &form.objects[10] else {
        panic!("ten scenario buttons")
    };
    assert_eq!(last.bounds, Rect::new(82, 78, 74, 12));
    // Lock handle beside Loop leak, in the sixth row's right column.
    let FormObject::Control(lock) = &form.objects[form.object_index(1013).unwrap()] else {
        panic!("Lock handle is a button")
    };
    assert_eq!(lock.bounds, Rect::new(82, 93, 74, 12));

    // Every object with bounds is on the screen, no two overlap, and every
    // label fits its button.
    let bounded: Vec<Rect> = form.objects.iter().filter_map(FormObject::bounds).collect();
    assert_eq!(bounded.len(), 15);
    for (i, a) in bounded.iter().enumerate() {
        assert!(a.fits_in(160, 160), "{a:?} is off the screen");
        for b in &bounded[i + 1..] {
            assert!(!a.intersects(b), "{a:?} overlaps {b:?}");
        }
    }
    for o in &form.objects {
        if let FormObject::Control(c) = o {
            assert!(
                auto_button_width(&c.label) <= c.bounds.width,
                "label {:?} does not fit",
                String::from_utf8_lossy(&c.label)
            );
        }
    }

    // The field of the field-handle scenario.
    let field = match &form.objects[form.object_index(1021).unwrap()] {
        FormObject::Field(f) => f.clone(),
        other => panic!("field expected, found {other:?}"),
    };
    assert_eq!(field.bounds, Rect::new(30, 123, 126, 12));
    assert_eq!(field.max_chars, 40);
    assert!(field.attr.editable && field.attr.single_line && field.attr.auto_shift);
    assert_eq!(field.attr.underlined, 1);
    assert!(form.object_index(1020).is_some() && form.object_index(1022).is_some());
    assert!(
        form.objects
            .iter()
            .any(|o| matches!(o, FormObject::GraffitiState(_)))
    );
}

#[test]
fn menu_and_about_alert() {
    let all = resources();
    let bar = MenuBar::parse(&find(&all, b"MBAR", 1000).data).unwrap();
    assert_eq!(bar.pulldowns.len(), 1);
    assert_eq!(bar.pulldowns[0].title, b"Options");
    let about = bar.item(2001).unwrap();
    // "About..." ends with the Palm ellipsis; the shortcut is Command-A.
    assert_eq!(
        (about.text.as_slice(), about.command),
        (&b"About\x85"[..], b'A')
    );

    let alert = Alert::parse(&find(&all, b"Talt", 1000).data).unwrap();
    assert_eq!(alert.alert_type, AlertType::Information);
    assert_eq!(alert.title, b"About memdbg");
    assert!(alert.message.starts_with(b"memdbg Starter 1.0\n"));
    assert_eq!(alert.buttons, vec![b"OK".to_vec()]);
}

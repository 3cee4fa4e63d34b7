//! `MBAR` menu-bar resources: the model, its parser and its encoder.
//!
//! # Layout (68k, big-endian)
//!
//! Structures from the Palm OS 3.5 SDK (`jichu4n/palm-os-sdk`,
//! `sdk-3.5/include/Core/UI/Menu.h`: `MenuBarType`, `MenuPullDownType`,
//! `MenuItemType`); arrangement as PilRC writes it for 68k
//! (`jichu4n/pilrc:pilrc.c` `DumpMenu`, pictures `szRCMenuBarBA16`,
//! `szRCMenuPullDownBA16`, `szRCMENUITEM` in `pilrc.h`):
//!
//! 1. `MenuBarType`, 32 bytes: four window handles (16 bytes of 0), `attr`
//!    (2 bytes, 0), `curMenu` (0), `curItem` (-1, i.e. 0xFFFF), `commandTick`
//!    (4 bytes, 0) at 22, `numMenus` at 26, `menus` (4 bytes, 0: the pull-downs
//!    follow) at 28.
//! 2. `numMenus` `MenuPullDownType`s, 34 bytes each: `menuWin` (0), `bounds`
//!    (8) at 4, `bitsBehind` (0) at 12, `titleBounds` (8) at 16, `title` at 24,
//!    `hidden:1`/`numItems:15` at 28, `items` at 30.
//! 3. All `MenuItemType`s, 8 bytes each, pull-down after pull-down: `id`,
//!    `command` (the shortcut character, 0 for none), `hidden:1`/reserved (1
//!    byte), `itemStr` (4).
//! 4. The strings, NUL-terminated, unpadded: each pull-down's title followed by
//!    its items' texts. A separator item's text is `-`.
//!
//! Unlike `tFRM`, the pointers `title`, `items` and `itemStr` hold **byte
//! offsets from the start of the resource** (only `menus` is 0).

use crate::bytes::{Reader, Writer, check_text, count_u16, offset_u32};
use crate::error::{EncodeError, ParseError};
use crate::geom::{Rect, read_rect, write_rect};

/// `MenuBarType` in bytes.
pub const MENU_BAR_SIZE: usize = 32;
/// `MenuPullDownType` in bytes.
pub const PULLDOWN_SIZE: usize = 34;
/// `MenuItemType` in bytes.
pub const MENU_ITEM_SIZE: usize = 8;

/// A menu bar (`MBAR`): its pull-down menus, left to right.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MenuBar {
    /// The pull-down menus in bar order.
    pub pulldowns: Vec<Pulldown>,
}

/// One pull-down menu (`MenuPullDownType`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pulldown {
    /// Screen bounds of the open pull-down, in pixels.
    pub bounds: Rect,
    /// Bounds of the title in the menu bar, in pixels.
    pub title_bounds: Rect,
    /// The title, in Palm characters, without its NUL.
    pub title: Vec<u8>,
    /// `hidden`.
    pub hidden: bool,
    /// The items, top to bottom.
    pub items: Vec<MenuItem>,
}

/// One menu item (`MenuItemType`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MenuItem {
    /// Item ID (the `menuEvent` carries it).
    pub id: u16,
    /// Command-stroke shortcut character (upper case), or 0 for none.
    pub command: u8,
    /// `hidden`.
    pub hidden: bool,
    /// The text, in Palm characters, without its NUL; `-` for a separator.
    pub text: Vec<u8>,
}

impl MenuItem {
    /// Whether the item is a separator line (its text is `-`).
    pub fn is_separator(&self) -> bool {
        self.text == b"-"
    }
}

const RES: &str = "MBAR";

impl MenuBar {
    /// Parses an `MBAR` resource (the layout in the [module docs](self)).
    /// Never panics; any truncation or out-of-range offset is a [`ParseError`].
    pub fn parse(data: &[u8]) -> Result<MenuBar, ParseError> {
        let r = Reader::new(data, RES);
        let count = r.i16(26, "menu bar truncated")?;
        let count = usize::try_from(count).map_err(|_| r.error(26, "negative menu count"))?;
        let end = MENU_BAR_SIZE + count * PULLDOWN_SIZE;
        if end > r.len() {
            return Err(r.error(r.len(), "pull-down list runs past the end of the resource"));
        }
        let pulldowns = (0..count)
            .map(|i| parse_pulldown(&r, MENU_BAR_SIZE + i * PULLDOWN_SIZE))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(MenuBar { pulldowns })
    }

    /// Encodes the menu bar in PilRC's 68k layout. Fails when a text contains a
    /// NUL byte, a pull-down has more than 32767 items, or offsets overflow.
    pub fn to_bytes(&self) -> Result<Vec<u8>, EncodeError> {
        let menus = count_u16(self.pulldowns.len(), "pull-down menus")?;
        let items_start = MENU_BAR_SIZE + self.pulldowns.len() * PULLDOWN_SIZE;
        let total_items: usize = self.pulldowns.iter().map(|p| p.items.len()).sum();
        let strings_start = items_start + total_items * MENU_ITEM_SIZE;

        let mut w = Writer::default();
        w.zeros(16); // barWin, bitsBehind, savedActiveWin, bitsBehindStatus
        w.u16(0); // attr
        w.u16(0); // curMenu
        w.u16(0xFFFF); // curItem: -1, as PilRC writes it
        w.zeros(4); // commandTick
        w.u16(menus);
        w.zeros(4); // menus

        // Pull-downs, with the offsets of their items and strings.
        let mut item_at = items_start;
        let mut string_at = strings_start;
        let mut item_strings = Vec::with_capacity(total_items);
        for p in &self.pulldowns {
            check_text(&p.title, "menu title")?;
            if p.items.len() > 0x7FFF {
                return Err(EncodeError {
                    message: format!("too many items in one pull-down: {}", p.items.len()),
                });
            }
            w.zeros(4); // menuWin
            write_rect(&mut w, p.bounds);
            w.zeros(4); // bitsBehind
            write_rect(&mut w, p.title_bounds);
            w.u32(offset_u32(string_at)?);
            string_at += p.title.len() + 1;
            w.u16((u16::from(p.hidden) << 15) | p.items.len() as u16);
            w.u32(offset_u32(item_at)?);
            item_at += p.items.len() * MENU_ITEM_SIZE;
            for item in &p.items {
                check_text(&item.text, "menu item text")?;
                item_strings.push(offset_u32(string_at)?);
                string_at += item.text.len() + 1;
            }
        }
        // Items.
        let items = self.pulldowns.iter().flat_map(|p| &p.items);
        for (item, offset) in items.zip(item_strings) {
            w.u16(item.id);
            w.u8(item.command);
            w.u8(u8::from(item.hidden) << 7);
            w.u32(offset);
        }
        // Strings.
        for p in &self.pulldowns {
            w.cstr(&p.title);
            for item in &p.items {
                w.cstr(&item.text);
            }
        }
        Ok(w.out)
    }

    /// The item with ID `id`, if any pull-down has one.
    pub fn item(&self, id: u16) -> Option<&MenuItem> {
        self.pulldowns
            .iter()
            .flat_map(|p| &p.items)
            .find(|i| i.id == id && !i.is_separator())
    }
}

fn parse_pulldown(r: &Reader<'_>, at: usize) -> Result<Pulldown, ParseError> {
    let title_at = r.u32(at + 24, "pull-down truncated")? as usize;
    let bits = r.u16(at + 28, "pull-down truncated")?;
    let items_at = r.u32(at + 30, "pull-down truncated")? as usize;
    let count = usize::from(bits & 0x7FFF);
    r.slice(
        items_at,
        count * MENU_ITEM_SIZE,
        "menu items run past the end of the resource",
    )?;
    let items = (0..count)
        .map(|j| {
            let it = items_at + j * MENU_ITEM_SIZE;
            let text_at = r.u32(it + 4, "menu item truncated")? as usize;
            Ok(MenuItem {
                id: r.u16(it, "menu item truncated")?,
                command: r.u8(it + 2, "menu item truncated")?,
                hidden: r.u8(it + 3, "menu item truncated")? & 0x80 != 0,
                text: r
                    .cstr(text_at, "menu item text has no NUL before the end")?
                    .to_vec(),
            })
        })
        .collect::<Result<Vec<_>, ParseError>>()?;
    Ok(Pulldown {
        bounds: read_rect(r, at + 4)?,
        title_bounds: read_rect(r, at + 16)?,
        title: r
            .cstr(title_at, "menu title has no NUL before the end")?
            .to_vec(),
        hidden: bits & 0x8000 != 0,
        items,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> MenuBar {
        MenuBar {
            pulldowns: vec![Pulldown {
                bounds: Rect::new(6, 14, 40, 27),
                title_bounds: Rect::new(4, 0, 30, 12),
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
                        id: 0,
                        command: 0,
                        hidden: false,
                        text: b"-".to_vec(),
                    },
                ],
            }],
        }
    }

    #[test]
    fn encode_then_parse_is_identity() {
        let bar = sample();
        let bytes = bar.to_bytes().unwrap();
        // 32 header + 34 pull-down + 2*8 items + "Edit\0Undo\0-\0" (12).
        assert_eq!(bytes.len(), 32 + 34 + 16 + 12);
        assert_eq!(MenuBar::parse(&bytes).unwrap(), bar);
        assert_eq!(bar.item(10).map(|i| i.text.as_slice()), Some(&b"Undo"[..]));
        assert!(bar.item(0).is_none());
    }

    #[test]
    fn truncations_are_errors() {
        let bytes = sample().to_bytes().unwrap();
        for len in 0..bytes.len() {
            assert!(MenuBar::parse(&bytes[..len]).is_err(), "length {len}");
        }
    }
}

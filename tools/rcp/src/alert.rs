//! `Talt` alert resources: the model, its parser and its encoder.
//!
//! # Layout (68k, big-endian)
//!
//! `AlertTemplateType` (`jichu4n/palm-os-sdk`, `sdk-3.5/include/Core/UI/Form.h`):
//! four `UInt16`s, `alertType` (`enum alertTypes`: information 0,
//! confirmation 1, warning 2, error 3), `helpRscID`, `numButtons`,
//! `defaultButton` (a button **index**). Then, as PilRC writes them
//! (`jichu4n/pilrc:pilrc.c` `ParseDumpAlert`, picture `szRCALERTTEMPLATE`), the
//! NUL-terminated title, the NUL-terminated message, and `numButtons`
//! NUL-terminated button labels, without padding.

use crate::bytes::{Reader, Writer, check_text, count_u16};
use crate::error::{EncodeError, ParseError};

/// `AlertType` (`Form.h` `enum alertTypes`): the icon and sound of the alert.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AlertType {
    /// `informationAlert` (0), `INFORMATION`.
    Information,
    /// `confirmationAlert` (1), `CONFIRMATION`.
    Confirmation,
    /// `warningAlert` (2), `WARNING`.
    Warning,
    /// `errorAlert` (3), `ERROR`.
    Error,
}

impl AlertType {
    /// The `alertType` value.
    pub fn to_u16(self) -> u16 {
        match self {
            AlertType::Information => 0,
            AlertType::Confirmation => 1,
            AlertType::Warning => 2,
            AlertType::Error => 3,
        }
    }

    /// The type of an `alertType` value, `None` when out of range.
    pub fn from_u16(v: u16) -> Option<AlertType> {
        Some(match v {
            0 => AlertType::Information,
            1 => AlertType::Confirmation,
            2 => AlertType::Warning,
            3 => AlertType::Error,
            _ => return None,
        })
    }
}

/// An alert (`Talt`), shown by `FrmAlert`/`FrmCustomAlert`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alert {
    /// The kind of alert.
    pub alert_type: AlertType,
    /// `helpRscID`: ID of a `tSTR` help text (0: none).
    pub help_id: u16,
    /// Index (from 0) of the button chosen when the alert is dismissed by
    /// the system.
    pub default_button: u16,
    /// The title, in Palm characters.
    pub title: Vec<u8>,
    /// The message, in Palm characters (`^1`..`^3` are `FrmCustomAlert` slots).
    pub message: Vec<u8>,
    /// Button labels, left to right; `FrmAlert` returns the index of the one tapped.
    pub buttons: Vec<Vec<u8>>,
}

const RES: &str = "Talt";

impl Alert {
    /// Parses a `Talt` resource. Never panics; a truncated header, a missing
    /// NUL, or an unknown alert type is a [`ParseError`].
    pub fn parse(data: &[u8]) -> Result<Alert, ParseError> {
        let r = Reader::new(data, RES);
        let alert_type = AlertType::from_u16(r.u16(0, "alert header truncated")?)
            .ok_or_else(|| r.error(0, "unknown alert type (0..=3 expected)"))?;
        let help_id = r.u16(2, "alert header truncated")?;
        let count = r.u16(4, "alert header truncated")?;
        let default_button = r.u16(6, "alert header truncated")?;
        let mut at = 8;
        let mut next = |what| -> Result<Vec<u8>, ParseError> {
            let s = r.cstr(at, what)?;
            at += s.len() + 1;
            Ok(s.to_vec())
        };
        let title = next("alert title has no NUL before the end")?;
        let message = next("alert message has no NUL before the end")?;
        let buttons = (0..count)
            .map(|_| next("alert button label has no NUL before the end"))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Alert {
            alert_type,
            help_id,
            default_button,
            title,
            message,
            buttons,
        })
    }

    /// Encodes the alert. Fails when a text contains a NUL byte or there are
    /// more than 65535 buttons.
    pub fn to_bytes(&self) -> Result<Vec<u8>, EncodeError> {
        let mut w = Writer::default();
        w.u16(self.alert_type.to_u16());
        w.u16(self.help_id);
        w.u16(count_u16(self.buttons.len(), "alert buttons")?);
        w.u16(self.default_button);
        check_text(&self.title, "alert title")?;
        check_text(&self.message, "alert message")?;
        w.cstr(&self.title);
        w.cstr(&self.message);
        for b in &self.buttons {
            check_text(b, "alert button label")?;
            w.cstr(b);
        }
        Ok(w.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_errors() {
        let alert = Alert {
            alert_type: AlertType::Confirmation,
            help_id: 0,
            default_button: 1,
            title: b"Delete?".to_vec(),
            message: b"Really?".to_vec(),
            buttons: vec![b"Yes".to_vec(), b"No".to_vec()],
        };
        let bytes = alert.to_bytes().unwrap();
        assert_eq!(bytes.len(), 8 + 8 + 8 + 4 + 3);
        assert_eq!(Alert::parse(&bytes).unwrap(), alert);
        for len in 0..bytes.len() {
            assert!(Alert::parse(&bytes[..len]).is_err(), "length {len}");
        }
        let mut bad = bytes.clone();
        bad[1] = 9;
        assert_eq!(
            Alert::parse(&bad).unwrap_err().message,
            "unknown alert type (0..=3 expected)"
        );
    }
}

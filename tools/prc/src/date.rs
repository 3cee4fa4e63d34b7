//! Palm dates: unsigned 32-bit seconds since 1904-01-01 00:00:00. Files carry
//! no time zone; these conversions treat both epochs alike (as UTC), as
//! Palm::PDB (libpalm-perl) does.
//!
//! Source: PALM_FACTS §1.3 (`prc-tools-remix:prc-tools-2.3/tools/pfdtime.c`:
//! "For Palm OS, this is 1904-01-01").

/// Seconds from the Palm epoch (1904-01-01) to the Unix epoch (1970-01-01):
/// 2 082 844 800 = 66 years of 365 days plus 17 leap days, × 86 400.
pub const PALM_TO_UNIX_OFFSET: i64 = 2_082_844_800;

/// Converts a Palm date (seconds since 1904-01-01) to Unix time (seconds since
/// 1970-01-01; negative before 1970). Every `u32` converts: 0 gives
/// −2 082 844 800.
pub const fn palm_to_unix(palm: u32) -> i64 {
    palm as i64 - PALM_TO_UNIX_OFFSET
}

/// Converts Unix time (seconds) to a Palm date, or `None` if it falls outside
/// the `u32` range, i.e. before 1904-01-01 or after 2040-02-06 06:28:15.
pub fn unix_to_palm(unix: i64) -> Option<u32> {
    u32::try_from(unix.checked_add(PALM_TO_UNIX_OFFSET)?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epochs() {
        assert_eq!(unix_to_palm(0), Some(2_082_844_800));
        assert_eq!(palm_to_unix(2_082_844_800), 0);
        assert_eq!(palm_to_unix(0), -2_082_844_800);
        // 2000-01-01 00:00:00 UTC is Unix 946 684 800.
        assert_eq!(unix_to_palm(946_684_800), Some(0xB492_F400));
        assert_eq!(palm_to_unix(u32::MAX), 2_212_122_495);
    }

    #[test]
    fn out_of_range() {
        assert_eq!(unix_to_palm(-2_082_844_801), None);
        assert_eq!(unix_to_palm(2_212_122_496), None);
        assert_eq!(unix_to_palm(i64::MAX), None);
        assert_eq!(unix_to_palm(i64::MIN), None);
    }
}

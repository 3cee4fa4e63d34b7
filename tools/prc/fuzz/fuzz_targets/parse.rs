//! Fuzzes `Database::parse`: it must never panic, and whatever it accepts
//! must be writable (unless the writer's own checks refuse it) and read back
//! to the same value.
#![no_main]

use libfuzzer_sys::fuzz_target;
use palm_prc::Database;

fuzz_target!(|data: &[u8]| {
    if let Ok(db) = Database::parse(data)
        && let Ok(bytes) = db.to_bytes()
    {
        assert_eq!(Database::parse(&bytes), Ok(db));
    }
});

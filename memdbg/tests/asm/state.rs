//! `asm/state.s`: `__memdbg_enter`, `__memdbg_heap_marks`.

use crate::machine::{Machine, Regs, STATE, k};

fn enter(m: &mut Machine) -> u32 {
    let r = m.call("__memdbg_enter", Regs::new(), &[]);
    assert_eq!(r.a[0], r.d[0], "the state in A0 and D0");
    r.d[0]
}

#[test]
fn enter_marks_a_running_state_busy() {
    let mut m = Machine::with_state(0, 16, 0, 16);
    assert_eq!(m.byte(STATE + k("ST_BUSY")), 0);
    assert_eq!(enter(&mut m), STATE);
    assert_ne!(m.byte(STATE + k("ST_BUSY")), 0, "busy");
    assert_eq!(m.os.traps, [0xA27B], "one FtrGet");
}

#[test]
fn enter_refuses_a_busy_or_missing_state() {
    let mut m = Machine::with_state(0, 16, 0, 16);
    m.set_byte(STATE + k("ST_BUSY"), 1);
    assert_eq!(enter(&mut m), 0, "busy: a call from inside memdbg");
    assert_eq!(m.byte(STATE + k("ST_BUSY")), 1);
    m.os.feature = None;
    m.set_byte(STATE + k("ST_BUSY"), 0);
    assert_eq!(enter(&mut m), 0, "not running");
    assert_eq!(m.byte(STATE + k("ST_BUSY")), 0);
    m.os.feature = Some(0);
    assert_eq!(enter(&mut m), 0, "a null state");
}

#[test]
fn heap_marks_sample_the_heap_and_lower_the_low_water_marks() {
    let mut m = Machine::with_state(0, 16, 0, 16);
    m.os.heap_free = (50_000, 40_000);
    m.call("__memdbg_heap_marks", Regs::new(), &[STATE]);
    assert_eq!(m.st_long("ST_HEAP_FREE"), 50_000);
    assert_eq!(m.st_long("ST_HEAP_MAX"), 40_000);
    assert_eq!(m.st_long("ST_LOW_FREE"), 50_000, "from never sampled");
    assert_eq!(m.st_long("ST_LOW_MAX"), 40_000);
    m.os.heap_free = (60_000, 30_000);
    m.call("__memdbg_heap_marks", Regs::new(), &[STATE]);
    assert_eq!(m.st_long("ST_HEAP_FREE"), 60_000);
    assert_eq!(m.st_long("ST_LOW_FREE"), 50_000, "not raised");
    assert_eq!(m.st_long("ST_LOW_MAX"), 30_000, "lowered");
}

//! The register conventions of memdbg's assembly routines, as their header comments
//! in `asm/*.s` state them: which registers each keeps. [`crate::machine::Machine`]
//! checks them after every call.

/// The registers a routine keeps: data registers D`n` and address registers A`n`
/// (A7, the stack pointer, is checked separately: it must come back balanced).
pub struct Keeps {
    pub d: &'static [usize],
    pub a: &'static [usize],
}

/// LLVM's C convention, and most register routines: D2–D7/A2–A6.
const C: Keeps = Keeps {
    d: &[2, 3, 4, 5, 6, 7],
    a: &[2, 3, 4, 5, 6],
};

/// Palm's convention for a patched trap's entry: D3–D7/A2–A6 (a trap may change D2).
const PALM: Keeps = Keeps {
    d: &[3, 4, 5, 6, 7],
    a: &[2, 3, 4, 5, 6],
};

/// `routine`'s convention (a symbol of `asm/*.s`; a trampoline runs an entry).
pub fn keeps(routine: &str) -> &'static Keeps {
    match routine {
        "__memdbg_index_find"
        | "__memdbg_index_insert"
        | "__memdbg_heap_marks"
        | "__memdbg_walk"
        | "__memdbg_guard"
        | "__memdbg_prepare"
        | "__memdbg_alloc"
        | "__memdbg_free_block" => &C,
        // Its callers, at the end of a free, keep nothing in D2-D7.
        "__memdbg_index_remove" => &Keeps {
            d: &[],
            a: &[2, 3, 4, 5, 6],
        },
        // Its trap may change D2, which it does not save: its callers keep
        // nothing there yet.
        "__memdbg_enter"
        | "__memdbg_free_entry"
        | "__memdbg_size_entry"
        | "__memdbg_resize_entry"
        | "__memdbg_unlock_entry" => &PALM,
        other => panic!("no register convention known for {other}"),
    }
}

/// Every routine of `asm/*.s` that code calls (the trampoline template is data).
pub const ROUTINES: [&str; 14] = [
    "__memdbg_index_find",
    "__memdbg_index_insert",
    "__memdbg_index_remove",
    "__memdbg_enter",
    "__memdbg_heap_marks",
    "__memdbg_walk",
    "__memdbg_guard",
    "__memdbg_prepare",
    "__memdbg_alloc",
    "__memdbg_free_block",
    "__memdbg_free_entry",
    "__memdbg_size_entry",
    "__memdbg_resize_entry",
    "__memdbg_unlock_entry",
];

//! The text form of a [`Report`] and of a [`Diff`](crate::diff::Diff).
//!
//! Every string that comes from an input (the ledger's app and file names, zip
//! member names, the ELF's function and file names, suppression patterns) is
//! written through [`Esc`], so that control characters in it cannot reach the
//! terminal as escape sequences.

use std::fmt;
use std::io::{self, Write};

use memdbg::record;

use crate::report::{Block, Contents, FastMap, Flag, FreeSite, Leak, Report, StackFrame};

/// A string from an input, displayed for a terminal: its control characters
/// (C0, DEL, C1: Unicode's `Cc`, `char::is_control`) as `\x1b`, everything
/// else as it is (letters of any script, U+FFFD for bytes that were not UTF-8).
/// A name from a ledger could otherwise set the terminal's title, colours or
/// clipboard, or rewrite lines already printed.
pub(crate) struct Esc<'a>(pub(crate) &'a str);

impl fmt::Display for Esc<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut rest = self.0;
        while let Some(at) = rest.find(char::is_control) {
            f.write_str(&rest[..at])?;
            let c = rest[at..].chars().next().unwrap_or_default();
            // Every `Cc` character is below U+0100: two hex digits.
            write!(f, "\\x{:02x}", u32::from(c))?;
            rest = &rest[at + c.len_utf8()..];
        }
        f.write_str(rest)
    }
}

/// `n` with thousands separators: 12,345.
pub(crate) fn num(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// "1 leak" / "3 leaks".
pub(crate) fn count(n: usize, one: &str, many: &str) -> String {
    format!("{} {}", num(n as u64), if n == 1 { one } else { many })
}

/// Writes call stacks, one line per function (inlined ones first), each
/// address rendered once (a ledger repeats few distinct frames).
#[derive(Default)]
pub(crate) struct StackWriter {
    /// Text after `    #N ` for each (address, in code 1).
    cache: FastMap<(u32, bool), String>,
}

/// Indentation of a stack's lines.
const INDENT: &str = "    ";

impl StackWriter {
    fn render(f: &StackFrame) -> String {
        let mut t = match f.segment {
            Some(at) => format!("segment {} + 0x{:04X}", at.resource, at.offset),
            None => format!("0x{:08X}", f.address),
        };
        if !f.in_code1 && f.segment.is_none() {
            t.push_str(" (68k address outside code 1)\n");
            return t;
        }
        if f.symbols.is_empty() {
            t.push('\n');
            return t;
        }
        // Continuation lines line up under the first " in": indent, "#N ", address.
        let pad = " ".repeat(INDENT.len() + 3 + t.len());
        for (j, s) in f.symbols.iter().enumerate() {
            if j > 0 {
                t.push_str(&pad);
            }
            t.push_str(&format!(" in {}", Esc(&s.function)));
            match (&s.file, s.line) {
                (Some(file), Some(line)) => t.push_str(&format!(" at {}:{line}", Esc(file))),
                (Some(file), None) => t.push_str(&format!(" at {}", Esc(file))),
                _ => {}
            }
            if s.inlined {
                t.push_str(" (inlined)");
            }
            t.push('\n');
        }
        t
    }

    /// Writes `stack` (at most 6 frames, so `#N` is one digit), without the
    /// OS's call of the entry function (the report's header names it once),
    /// then why it was cut, if it was (`truncated`).
    pub(crate) fn write(
        &mut self,
        out: &mut dyn Write,
        stack: &[StackFrame],
        truncated: Option<&str>,
    ) -> io::Result<()> {
        for (i, f) in stack.iter().enumerate().filter(|(_, f)| !f.os_launch) {
            let text = self
                .cache
                .entry((f.address, f.in_code1))
                .or_insert_with(|| Self::render(f));
            write!(out, "{INDENT}#{i} {text}")?;
        }
        if let Some(why) = truncated {
            writeln!(out, "{INDENT}(the stack was cut here: {why})")?;
        }
        Ok(())
    }
}

/// The POSE-style description of a block: "Relocatable chunk (handle)".
/// When a free was, as the report says it: "tick N", or "after allocation #N"
/// (a double free's first free: memdbg's free path reads no ticks).
fn free_when(f: &FreeSite) -> String {
    match f.ticks {
        Some(t) => format!("tick {t}"),
        None => format!("after allocation #{}", f.after_allocation.unwrap_or(0)),
    }
}

fn chunk_words(b: &Block) -> String {
    let what = if b.relocatable {
        "Relocatable"
    } else {
        "Non-relocatable"
    };
    format!("{what} chunk ({})", b.kind)
}

/// A block's flags in words, ` (guarded, resized)`, or nothing.
fn block_details(b: &Block) -> String {
    // HANDLE is said by "Relocatable"; the others in words.
    let d: Vec<String> = b
        .flags
        .iter()
        .filter_map(|f| match *f {
            "HANDLE" => None,
            "GUARDED" => Some("guarded".to_string()),
            "RESIZED" => Some("resized".to_string()),
            "FILE_TRUNCATED" => Some("file name truncated".to_string()),
            "OVERRUN" => Some("guard damaged".to_string()),
            "NOT_DYNAMIC" => Some("outside the dynamic heap".to_string()),
            "OTHER_OWNER" => Some("allocated for another owner".to_string()),
            "HANDED_OFF" => None,
            other => Some(other.to_lowercase()),
        })
        .collect();
    if d.is_empty() {
        String::new()
    } else {
        format!(" ({})", d.join(", "))
    }
}

/// The allocation site and stack of a block.
fn write_allocated(
    out: &mut dyn Write,
    sw: &mut StackWriter,
    b: &Block,
    why_none: &str,
) -> io::Result<()> {
    if let Some(file) = &b.file {
        let file = Esc(file);
        match b.line {
            Some(line) => writeln!(out, "  Allocated at {file}:{line}")?,
            None => writeln!(out, "  Allocated in {file}")?,
        }
    }
    write_allocated_by(out, sw, b, why_none)
}

/// The "Chunk allocated by:" lines of a block: its call stack, or why there is none.
fn write_allocated_by(
    out: &mut dyn Write,
    sw: &mut StackWriter,
    b: &Block,
    why_none: &str,
) -> io::Result<()> {
    if b.stack.is_empty() {
        writeln!(
            out,
            "  Chunk allocated by: (no call stack recorded{why_none})"
        )
    } else {
        writeln!(out, "  Chunk allocated by:")?;
        sw.write(out, &b.stack, b.stack_truncated)
    }
}

/// The "Locked handles at stop" section (nothing without locked records): one
/// finding per handle, "Locked #3 (1 of 2): handle 0x00012344 locked 2 times at
/// stop, 16 bytes allocated at FILE:LINE", then the allocation's call stack.
fn write_locked(
    out: &mut dyn Write,
    sw: &mut StackWriter,
    r: &Report,
    why_none: &str,
) -> io::Result<()> {
    if r.locked.is_empty() {
        return Ok(());
    }
    writeln!(out)?;
    writeln!(
        out,
        "Locked handles at stop: {} (locked with MemHandleLock and never unlocked: a locked \
         handle cannot move, so it pins the dynamic heap)",
        count(r.locked.len(), "handle", "handles")
    )?;
    for l in &r.locked {
        let b = &l.block;
        let site = allocated_where(b);
        writeln!(out)?;
        writeln!(
            out,
            "Locked #{} ({} of {}): handle 0x{:08X} locked {} at stop, {} {site}",
            b.seq,
            l.number,
            r.locked.len(),
            l.handle,
            count(l.lock_count.into(), "time", "times"),
            count(b.size as usize, "byte", "bytes"),
        )?;
        write_allocated_by(out, sw, b, why_none)?;
    }
    Ok(())
}

/// Where a block was allocated, in words: "allocated at FILE:LINE", "allocated
/// in FILE" (no line), or "allocated by" its site (no file: a Rust block's
/// innermost frame).
fn allocated_where(b: &Block) -> String {
    match (&b.file, b.line) {
        (Some(file), Some(line)) => format!("allocated at {}:{line}", Esc(file)),
        (Some(file), None) => format!("allocated in {}", Esc(file)),
        _ => format!("allocated by {}", Esc(&b.site)),
    }
}

/// The "Unlock underflows" section (nothing without unlock-underflow
/// records), in the style of the double frees: one finding per refused
/// unlock, "Unlock underflow 1 of 2: handle 0x00012344 unlocked while not
/// locked at FILE:LINE (MemHandleUnlock), 16 bytes allocated at FILE:LINE",
/// then the allocation's call stack and the unlock's.
fn write_unlock_underflows(
    out: &mut dyn Write,
    sw: &mut StackWriter,
    r: &Report,
    why_none: &str,
) -> io::Result<()> {
    if r.unlock_underflows.is_empty() {
        return Ok(());
    }
    writeln!(out)?;
    writeln!(
        out,
        "Unlock underflows: {} (MemHandleUnlock or MemPtrUnlock of a tracked handle that was \
         not locked: not passed to the OS, the handle's lock count is unchanged)",
        count(r.unlock_underflows.len(), "unlock", "unlocks")
    )?;
    for u in &r.unlock_underflows {
        let b = &u.block;
        let site = allocated_where(b);
        writeln!(out)?;
        writeln!(
            out,
            "Unlock underflow {} of {}: handle 0x{:08X} unlocked while not locked at {} ({}), \
             {} {site}",
            u.number,
            r.unlock_underflows.len(),
            u.handle,
            Esc(&u.site),
            u.trap,
            count(b.size as usize, "byte", "bytes"),
        )?;
        write_allocated_by(out, sw, b, why_none)?;
        let when = free_when(&u.unlock);
        if u.unlock.stack.is_empty() {
            writeln!(out, "  Unlocked ({when}): no call stack recorded")?;
        } else {
            writeln!(out, "  Unlocked ({when}) by:")?;
            sw.write(out, &u.unlock.stack, u.unlock.stack_truncated)?;
        }
    }
    Ok(())
}

/// Bytes per row of a leak's contents.
const CONTENTS_ROW: usize = 16;

/// A leak's first bytes under it (`size`: the block's), as POSE's leak dump
/// shows them: "Contents, first 32 of 100 bytes:" (or "all 16 bytes"), then
/// rows of [`CONTENTS_ROW`] bytes in hex and as text
/// (`memdbg::record::dump_row`).
fn write_contents(out: &mut dyn Write, c: &Contents, size: u32) -> io::Result<()> {
    if c.count as u64 == u64::from(size) {
        writeln!(out, "  Contents, all {}:", count(c.count, "byte", "bytes"))?;
    } else {
        writeln!(
            out,
            "  Contents, first {} of {}:",
            c.count,
            count(size as usize, "byte", "bytes")
        )?;
    }
    for row in c.bytes.chunks(CONTENTS_ROW) {
        let mut line = Vec::new();
        record::dump_row(row, CONTENTS_ROW, |b| line.push(b));
        writeln!(out, "    {}", String::from_utf8_lossy(&line).trim_end())?;
    }
    Ok(())
}

fn write_flags(out: &mut dyn Write, label: &str, flags: &[Flag]) -> io::Result<()> {
    if flags.is_empty() {
        return writeln!(out, "{label:<10}(none)");
    }
    let width = flags.iter().map(|f| f.name.len()).max().unwrap_or(0);
    for (i, f) in flags.iter().enumerate() {
        let lead = if i == 0 { label } else { "" };
        writeln!(out, "{lead:<10}{:<width$}  {}", f.name, f.meaning)?;
    }
    Ok(())
}

fn opt_bytes(v: Option<u32>) -> String {
    v.map_or_else(
        || "not sampled".to_string(),
        |v| format!("{} bytes", num(v.into())),
    )
}

/// "Leaks by generation": with checkpoints in the ledger, each generation from
/// `since` on with where it started (the start, or its checkpoint's tick and
/// the blocks live then) and the leaks listed that were made in it (by their
/// allocation numbers, `#seq`, as the leaks' headings name them).
fn write_generations(out: &mut dyn Write, r: &Report) -> io::Result<()> {
    if r.checkpoints.is_empty() {
        return Ok(());
    }
    writeln!(out)?;
    let since = if r.since == 0 {
        String::new()
    } else {
        format!("; --since {}: generations {} on", r.since, r.since)
    };
    writeln!(
        out,
        "Leaks by generation ({}{since}):",
        count(r.checkpoints.len(), "checkpoint", "checkpoints")
    )?;
    // The leaks by their allocation numbers, as their headings give them.
    let made = |leaks: &[usize], bytes: u64| {
        if leaks.is_empty() {
            "no leaks".to_string()
        } else {
            let seqs: Vec<String> = leaks
                .iter()
                .filter_map(|&n| r.leaks.get(n - 1))
                .map(|l| format!("#{}", l.block.seq))
                .collect();
            format!(
                "{}, {} bytes: {}",
                count(leaks.len(), "leak", "leaks"),
                num(bytes),
                seqs.join(", ")
            )
        }
    };
    if r.since == 0 {
        let zero: Vec<&Leak> = r.leaks.iter().filter(|l| l.block.generation == 0).collect();
        let numbers: Vec<usize> = zero.iter().map(|l| l.number).collect();
        let bytes = zero.iter().map(|l| u64::from(l.block.size)).sum();
        writeln!(
            out,
            "  generation 0 from the start (tick {}): {}",
            r.header.start_ticks,
            made(&numbers, bytes)
        )?;
    }
    for c in r.checkpoints.iter().filter(|c| c.generation >= r.since) {
        writeln!(
            out,
            "  generation {} from tick {} ({}, {} bytes live): {}",
            c.generation,
            c.ticks,
            count(c.live_count as usize, "block", "blocks"),
            num(c.live_bytes.into()),
            made(&c.leaks, c.leaked_bytes)
        )?;
    }
    Ok(())
}

/// Writes the text report.
pub(crate) fn write_report(out: &mut dyn Write, r: &Report) -> io::Result<()> {
    let h = &r.header;
    let c = &r.counters;
    let mut sw = StackWriter::default();
    let n = |v: u32| v as usize;
    // Rust allocations always have a stack; wrappers only with CALL_STACKS.
    let why_none = if h.options.iter().any(|f| f.name == "CALL_STACKS") {
        ""
    } else {
        ": the CALL_STACKS option was off"
    };
    writeln!(out, "memdbg report of {}", Esc(&r.source))?;
    writeln!(
        out,
        "App       {} (creator '{}')",
        Esc(&h.app_name),
        Esc(&h.app_creator)
    )?;
    writeln!(out, "Format    MemDbgDB version {}", h.format_version)?;
    let code = if h.code_size == 0 {
        "size unknown".to_string()
    } else {
        format!("{} bytes", num(h.code_size.into()))
    };
    let base = if h.code_base == 0 {
        "address unknown".to_string()
    } else {
        format!("at 0x{:08X}", h.code_base)
    };
    let crc = match h.code_crc {
        Some(crc) => format!(", CRC-32 0x{crc:08X}"),
        None => String::new(),
    };
    writeln!(out, "Code 1    {code}, {base}{crc}")?;
    for s in &r.segments {
        writeln!(
            out,
            "Code {:<4} {} bytes, at 0x{:08X}, CRC-32 0x{:08X}",
            s.resource,
            num(s.size.into()),
            s.base,
            s.crc
        )?;
    }
    match &r.symbols {
        Some(s) => writeln!(out, "Symbols   {}", Esc(s))?,
        None => writeln!(out, "Symbols   none")?,
    }
    if !r.launched_from.is_empty() {
        let at: Vec<String> = r
            .launched_from
            .iter()
            .map(|a| format!("0x{a:08X}"))
            .collect();
        writeln!(
            out,
            "Launch    the OS called {} from {} (outside code 1): call stacks that reach \
             it end there, and leave that frame out",
            Esc(r.entry_function.as_deref().unwrap_or("the entry point")),
            at.join(", ")
        )?;
    }
    let running = h.flags.iter().any(|f| f.name == "RUNNING");
    if running {
        writeln!(out, "Run       ticks {}, did not stop", h.start_ticks)?;
    } else {
        writeln!(
            out,
            "Run       ticks {} to {} ({})",
            h.start_ticks,
            h.stop_ticks,
            count(n(h.stop_ticks.wrapping_sub(h.start_ticks)), "tick", "ticks")
        )?;
    }
    let warn = if h.low_heap_threshold == 0 {
        "no low-heap warning".to_string()
    } else {
        format!(
            "low-heap warning below {} bytes",
            num(h.low_heap_threshold.into())
        )
    };
    writeln!(
        out,
        "Limits    {} live blocks tracked at most; {} alerts at stop; {warn}",
        num(h.capacity.into()),
        h.max_alerts
    )?;
    write_flags(out, "Options", &h.options)?;
    write_flags(out, "Flags", &h.flags)?;
    writeln!(
        out,
        "Activity  {} ({} failed, {} untracked), {} ({} by the OS), {}",
        count(n(c.allocations), "allocation", "allocations"),
        num(c.failed.into()),
        num(c.untracked.into()),
        count(n(c.frees), "free", "frees"),
        num(c.os_frees.into()),
        count(n(c.resizes), "resize", "resizes")
    )?;
    writeln!(
        out,
        "          {} of untracked chunks by the app, {} by the OS; {} shown",
        count(n(c.unknown_frees), "free", "frees"),
        num(c.os_unknown_frees.into()),
        count(n(c.alerts), "alert", "alerts")
    )?;
    for w in &r.warnings {
        writeln!(out, "warning: {}", Esc(w))?;
    }

    let s = &r.summary;
    writeln!(out)?;
    if r.leaks.is_empty() {
        writeln!(out, "Leaks: none")?;
    } else {
        writeln!(
            out,
            "Leaks: {}, {} bytes{}",
            count(r.leaks.len(), "block", "blocks"),
            num(s.bytes),
            if running {
                " (live when the ledger was written: the run did not stop)"
            } else {
                ""
            }
        )?;
    }
    let total = r.leaks.len();
    for l in &r.leaks {
        let b = &l.block;
        writeln!(out)?;
        let generation = if r.checkpoints.is_empty() {
            String::new()
        } else {
            format!(", generation {}", b.generation)
        };
        writeln!(
            out,
            "Leak #{} ({} of {total}): {} leaked at 0x{:08X}, size = {}{}{generation}",
            b.seq,
            l.number,
            chunk_words(b),
            b.address,
            b.size,
            block_details(b)
        )?;
        write_allocated(out, &mut sw, b, why_none)?;
        if let Some(c) = &l.contents {
            write_contents(out, c, b.size)?;
        }
    }
    if !r.handed_off.is_empty() {
        writeln!(out)?;
        writeln!(
            out,
            "Handed off: {}, {} bytes (given to another owner and kept, e.g. \
             MemPtrSetOwner(p, 0): not leaks; they outlive the app until freed or a reset)",
            count(r.handed_off.len(), "block", "blocks"),
            num(s.handed_off_bytes)
        )?;
        for h in &r.handed_off {
            let b = &h.block;
            writeln!(out)?;
            writeln!(
                out,
                "Handed off #{} ({} of {}): {} at 0x{:08X}, size = {}{}",
                b.seq,
                h.number,
                r.handed_off.len(),
                chunk_words(b),
                b.address,
                b.size,
                block_details(b)
            )?;
            write_allocated(out, &mut sw, b, why_none)?;
        }
    }
    if !r.sites.is_empty() {
        writeln!(out)?;
        writeln!(out, "Leaks by site:")?;
        for site in &r.sites {
            let sizes = if site.min_size == site.max_size {
                format!(" × {} bytes", num(site.min_size.into()))
            } else {
                format!(
                    ", {} bytes ({}–{} each)",
                    num(site.bytes),
                    num(site.min_size.into()),
                    num(site.max_size.into())
                )
            };
            writeln!(
                out,
                "  {}{sizes} from {} ({})",
                count(site.count, "leak", "leaks"),
                Esc(&site.site),
                site.kinds.join(", ")
            )?;
        }
    }
    write_generations(out, r)?;
    write_locked(out, &mut sw, r, why_none)?;

    for o in &r.overruns {
        writeln!(out)?;
        let b = &o.block;
        writeln!(
            out,
            "Overrun {} of {}: guard after the {}-byte {} at 0x{:08X} damaged, found {} \
             (tick {}): {} (intact: FD FD FD FD)",
            o.number,
            r.overruns.len(),
            b.size,
            b.kind,
            b.address,
            o.when,
            o.ticks,
            o.guard
        )?;
        write_allocated(out, &mut sw, b, why_none)?;
        if !o.found_by.is_empty() {
            writeln!(out, "  Found by:")?;
            sw.write(out, &o.found_by, o.found_by_truncated)?;
        }
    }
    for u in &r.underruns {
        writeln!(out)?;
        let b = &u.block;
        writeln!(
            out,
            "Underrun {} of {}: chunk header before the {}-byte {} at 0x{:08X} damaged, found {} \
             (tick {}): its last 4 bytes {} (expected: {}; repaired)",
            u.number,
            r.underruns.len(),
            b.size,
            b.kind,
            b.address,
            u.when,
            u.ticks,
            u.header,
            u.expected
        )?;
        write_allocated(out, &mut sw, b, why_none)?;
        if !u.found_by.is_empty() {
            writeln!(out, "  Found by:")?;
            sw.write(out, &u.found_by, u.found_by_truncated)?;
        }
    }
    for d in &r.double_frees {
        writeln!(out)?;
        let b = &d.block;
        writeln!(
            out,
            "Double free {} of {}: {} at 0x{:08X}, size = {}, freed twice \
             (the second free was not passed to the OS)",
            d.number,
            r.double_frees.len(),
            chunk_words(b),
            d.address,
            b.size
        )?;
        write_allocated(out, &mut sw, b, why_none)?;
        for (label, f) in [("First", &d.first_free), ("Second", &d.second_free)] {
            let when = free_when(f);
            if f.stack.is_empty() {
                writeln!(out, "  {label} free ({when}): no call stack recorded")?;
            } else {
                writeln!(out, "  {label} free ({when}) by:")?;
                sw.write(out, &f.stack, f.stack_truncated)?;
            }
        }
    }

    for f in &r.interior_frees {
        writeln!(out)?;
        let b = &f.block;
        writeln!(
            out,
            "Interior free {} of {}: free of an address {} bytes into the {}-byte block at \
             0x{:08X} ({}), not passed to the OS",
            f.number,
            r.interior_frees.len(),
            f.offset,
            b.size,
            b.address,
            chunk_words(b)
        )?;
        write_allocated(out, &mut sw, b, why_none)?;
        let when = free_when(&f.free);
        if f.free.stack.is_empty() {
            writeln!(out, "  Freed ({when}): no call stack recorded")?;
        } else {
            writeln!(out, "  Freed ({when}) by:")?;
            sw.write(out, &f.free.stack, f.free.stack_truncated)?;
        }
    }

    write_unlock_underflows(out, &mut sw, r, why_none)?;

    if !r.freed_unseen.is_empty() {
        writeln!(out)?;
        let why = if r.header.flags.iter().any(|f| f.name == "PATCHES_REFUSED") {
            "the OS refused memdbg's trap patches, so their frees went unseen"
        } else {
            "freed inside the Memory Manager without a free trap call (MemHeapFreeByOwnerID, \
             a ROM's own frees)"
        };
        writeln!(
            out,
            "Freed unseen: {} ({why}; each was no longer the chunk memdbg recorded when its \
             address was allocated again or at stop: not leaks)",
            count(r.freed_unseen.len(), "block", "blocks")
        )?;
        for f in &r.freed_unseen {
            let b = &f.block;
            writeln!(
                out,
                "  #{} {} at 0x{:08X}, size = {}, allocated at {}",
                b.seq,
                chunk_words(b),
                b.address,
                b.size,
                Esc(&b.site)
            )?;
        }
    }

    let hp = &r.heap;
    writeln!(out)?;
    writeln!(out, "Heap statistics:")?;
    writeln!(
        out,
        "  Peak live tracked        {} bytes in {}",
        num(hp.peak_live_bytes.into()),
        count(hp.peak_live_count as usize, "block", "blocks")
    )?;
    writeln!(out, "  Low-water free bytes     {}", opt_bytes(hp.low_free))?;
    writeln!(
        out,
        "  Low-water largest chunk  {}",
        opt_bytes(hp.low_largest_free)
    )?;
    writeln!(
        out,
        "  Small allocations        {} of 1–12 bytes ({} from sites beyond the per-site table)",
        num(hp.small_allocs.into()),
        num(hp.small_unsited.into())
    )?;
    for site in &hp.small_sites {
        writeln!(
            out,
            "    {}, {} bytes, from {}",
            count(site.count as usize, "allocation", "allocations"),
            num(site.bytes.into()),
            Esc(&site.first.site)
        )?;
    }
    for l in &hp.low_heap {
        writeln!(
            out,
            "  Low heap: largest free chunk {} bytes < {} (free {} bytes) after the {}-byte {} \
             from {} (allocation #{})",
            num(l.largest.into()),
            num(l.threshold.into()),
            num(l.free.into()),
            l.after.size,
            l.after.kind,
            Esc(&l.after.site),
            l.after.seq
        )?;
    }
    // After the heap statistics it belongs to (the low-water mark it was taken at).
    let pins = &r.heap.pinned_by;
    if !pins.is_empty() {
        writeln!(out)?;
        writeln!(
            out,
            "Heap pinned by: {} (non-movable or locked, between free space that \
             MemHeapCompact cannot merge while they stay; largest free chunk then {} bytes)",
            count(pins.len(), "block", "blocks"),
            num(pins[0].largest.into())
        )?;
        for (i, p) in pins.iter().enumerate() {
            let b = &p.block;
            let how = if p.lock_count == memdbg::record::PINNED_LOCK_COUNT {
                "non-movable".to_string()
            } else {
                format!("locked {}x", p.lock_count)
            };
            writeln!(out)?;
            writeln!(
                out,
                "Pin #{} ({} of {}): {} {how} at 0x{:08X}, size = {}: free {} bytes before, {} after",
                b.seq,
                i + 1,
                pins.len(),
                chunk_words(b),
                b.address,
                b.size,
                num(p.free_before.into()),
                num(p.free_after.into())
            )?;
            write_allocated(out, &mut sw, b, why_none)?;
        }
    }
    let used: Vec<_> = r.suppressions.iter().filter(|u| u.leaks > 0).collect();
    if !used.is_empty() {
        writeln!(out)?;
        writeln!(out, "Suppressions used:")?;
        for u in used {
            writeln!(
                out,
                "  {} ({} bytes): {}",
                count(u.leaks, "leak", "leaks"),
                num(u.bytes),
                Esc(&u.pattern)
            )?;
        }
    }
    writeln!(out)?;
    writeln!(out, "{}", s.line)
}

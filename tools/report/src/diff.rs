//! `memdbg diff OLD NEW`: which leak sites appeared, grew, shrank or
//! disappeared between two ledgers (the "generations" of Instruments: run,
//! repeat an action, run again, compare).
//!
//! Leaks are matched by site: the wrapper's file and line when recorded,
//! else the whole call stack: by function, file and line of every frame when
//! each is symbolized (so two builds match), else by code 1 offsets (the same
//! key as the report's "Leaks by site").
//! Addresses and sequence numbers differ from run to run and are not compared.
//! Suppressions and the minimum size apply to both ledgers.
//!
//! Both ledgers must be of the same app: [`check_same_app`] refuses two apps
//! (database name or creator differ; `memdbg diff` exits with status 2), as
//! their sites have nothing in common. Two builds of one app (code 1's size
//! or CRC-32 differ) are compared, with a warning ([`Diff::warnings`]): the
//! file:line sites of the wrappers still match (a before/after comparison of
//! a fix), and so do Rust allocations when both sides are symbolized (with
//! `--elf` and `--old-elf`); unsymbolized, they are keyed by code 1 offsets,
//! which move between builds.
//!
//! Each side is symbolized with the ELF of its own build: [`diff_with`] takes
//! OLD's symbolizer apart from NEW's (`opts.symbolizer`); [`diff`] uses one for
//! both (the same build). A side without symbols keeps code 1 offsets and
//! function-name suppressions cannot match its leaks; the diff warns then.
//!
//! A site *grew* when it has more leaks or more leaked bytes in NEW than in
//! OLD (after suppressions and the minimum size): a site whose one leak went
//! from 24 to 1,000 bytes grew; it *shrank* when it has fewer leaks or bytes
//! and neither grew; else it is unchanged (the same count and bytes).
//! Handles locked at stop (the report's "Locked handles at stop", the
//! ledgers' locked records) are compared the same way, by the site of each
//! handle's allocation: a site has *new* locked handles when NEW has more
//! handles locked there, or more locks in all (the sum of their lock counts);
//! *gone* ones when it has fewer handles or locks and neither more
//! ([`Diff::locked_new`], [`Diff::locked_gone`]). As in the report, every
//! locked handle counts: suppressions and the minimum size do not apply to
//! them, nor does `--since`. The text form shows the two "Locked at stop"
//! sections only when a ledger has a locked handle.
//!
//! The verdict ([`DiffSummary::exit_status`], `memdbg diff`'s exit status) is
//! 1 when a leak site appeared or grew or a site has new locked handles, else
//! 0, whatever disappeared or stayed. Overruns and double frees are not
//! compared.

use std::collections::BTreeMap;
use std::io::{self, Write};

use serde::Serialize;

use crate::report::{
    Analyzer, Hidden, Options, SiteKey, StackFrame, allocs_in_order, hidden, site_key,
};
use crate::symbolize::Symbolize;
use crate::text::{Esc, StackWriter, count, num};
use crate::{Format, InputError, Ledger};
use memdbg::record::AllocRecord;

/// The `schema` value of the diff's JSON document.
pub const DIFF_SCHEMA: &str = "memdbg-diff/1";

/// One site whose leaks changed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SiteChange {
    /// The site in words (as the report's `site`).
    pub site: String,
    /// The kinds of block leaked there.
    pub kinds: Vec<&'static str>,
    /// Leaks there in OLD.
    pub old_count: usize,
    /// Leaks there in NEW.
    pub new_count: usize,
    /// Their bytes in OLD.
    pub old_bytes: u64,
    /// Their bytes in NEW.
    pub new_bytes: u64,
    /// The call stack of one of the leaks (from NEW when there is one).
    pub stack: Vec<StackFrame>,
}

/// One site whose handles locked at stop changed (the handles allocated
/// there that were still locked at stop).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LockedChange {
    /// The allocation site in words (as the report's `site`).
    pub site: String,
    /// Handles locked at stop from there in OLD.
    pub old_count: usize,
    /// Handles locked at stop from there in NEW.
    pub new_count: usize,
    /// Their lock counts added up, in OLD (in locks: a handle locked twice
    /// counts 2).
    pub old_locks: u64,
    /// The same in NEW.
    pub new_locks: u64,
    /// The allocation call stack of one of the handles (from NEW when there
    /// is one).
    pub stack: Vec<StackFrame>,
}

/// Totals and verdict of a diff.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DiffSummary {
    /// Leaks added at sites that grew or appeared (0 for a site that grew in
    /// bytes only).
    pub appeared_leaks: usize,
    /// Bytes added there.
    pub appeared_bytes: u64,
    /// Leaks gone at sites that shrank or disappeared.
    pub disappeared_leaks: usize,
    /// Bytes gone there.
    pub disappeared_bytes: u64,
    /// Handles locked at stop added at sites with new locked handles, in
    /// handles (0 for a site that has more locks only).
    pub new_locked: usize,
    /// Handles locked at stop gone at sites with fewer, in handles.
    pub gone_locked: usize,
    /// Locks (the lock counts of handles locked at stop, added up) added at
    /// sites with new locked handles or more locks.
    pub new_locks: u64,
    /// Locks gone at sites with fewer.
    pub gone_locks: u64,
    /// 1 when a leak site appeared or grew (in leaks or bytes) or a site has
    /// new locked handles (in handles or locks), else 0 (the `memdbg diff`
    /// exit status).
    pub exit_status: u8,
    /// The one-line summary that ends the text form.
    pub line: String,
}

/// The comparison of two ledgers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Diff {
    /// [`DIFF_SCHEMA`].
    pub schema: &'static str,
    /// OLD's name.
    pub old: String,
    /// NEW's name.
    pub new: String,
    /// The symbol file used for NEW (and for OLD when it is of the same
    /// build), or `null`.
    pub symbols: Option<String>,
    /// The symbol file used for OLD (the same as `symbols` for one build), or
    /// `null` when OLD is not symbolized.
    pub old_symbols: Option<String>,
    /// Sites with more leaks or more leaked bytes in NEW, most added bytes
    /// first.
    pub appeared: Vec<SiteChange>,
    /// Sites with fewer leaks or fewer bytes in NEW (and neither more), most
    /// removed bytes first.
    pub disappeared: Vec<SiteChange>,
    /// Sites with the same number of leaks and bytes in both.
    pub unchanged_sites: usize,
    /// Leaks at those sites (in NEW).
    pub unchanged_leaks: usize,
    /// Sites with more handles locked at stop in NEW, or more locks, most
    /// added locks first.
    pub locked_new: Vec<LockedChange>,
    /// Sites with fewer handles locked at stop in NEW, or fewer locks (and
    /// neither more), most removed locks first.
    pub locked_gone: Vec<LockedChange>,
    /// Handles locked at stop at sites where nothing changed (in NEW).
    pub locked_unchanged: usize,
    /// Whether either ledger has a handle locked at stop (the text form then
    /// shows the "Locked at stop" sections).
    pub has_locked: bool,
    /// OLD and NEW are of different builds of the app (code 1's size or
    /// CRC-32 differ), so sites keyed by code offsets may not match; one side
    /// is symbolized and the other is not.
    pub warnings: Vec<String>,
    /// Totals.
    pub summary: DiffSummary,
}

/// The app of a ledger in words: `"StarterApp" (creator 'MDst')`.
fn app_of(l: &Ledger) -> String {
    let c = l.header.app_creator.get().to_be_bytes();
    let creator = if c.iter().all(u8::is_ascii_graphic) {
        format!("'{}'", String::from_utf8_lossy(&c))
    } else {
        format!("0x{:08X}", l.header.app_creator.get())
    };
    format!("\"{}\" (creator {creator})", l.app_name())
}

/// Checks that `old` and `new` are ledgers of the same app: the same database
/// name and creator in their headers. A diff of two apps would match
/// unrelated sites.
///
/// # Errors
/// The apps differ; the error names NEW and both apps.
pub fn check_same_app(old: &Ledger, new: &Ledger) -> Result<(), InputError> {
    let (o, n) = (&old.header, &new.header);
    if o.app_name_bytes() == n.app_name_bytes() && o.app_creator == n.app_creator {
        return Ok(());
    }
    Err(InputError::whole(
        &new.source,
        format!(
            "a ledger of app {} but {} is of app {}: memdbg diff compares two runs of one app",
            app_of(new),
            old.source,
            app_of(old)
        ),
    ))
}

/// Warnings when `old` and `new` were written by different builds of the app
/// and are not both symbolized (then Rust allocations match by offsets).
fn build_warnings(old: &Ledger, new: &Ledger, both_symbolized: bool) -> Vec<String> {
    if both_symbolized {
        return Vec::new();
    }
    let (o, n) = (&old.header, &new.header);
    let (os, ns) = (o.code_size.get(), n.code_size.get());
    let differs = if os != 0 && ns != 0 && os != ns {
        Some(format!(
            "code 1 is {} bytes in {} and {} bytes in {}",
            num(os.into()),
            old.source,
            num(ns.into()),
            new.source
        ))
    } else {
        match (o.code_checksum(), n.code_checksum()) {
            (Some(oc), Some(nc)) if oc != nc => Some(format!(
                "code 1 has CRC-32 0x{oc:08X} in {} and 0x{nc:08X} in {}",
                old.source, new.source
            )),
            _ => None,
        }
    };
    differs
        .map(|d| {
            format!(
                "the ledgers were written by different builds of the app ({d}): \
                 wrapper sites still match by file and line, but Rust allocations are \
                 matched by code 1 offsets, which move between builds"
            )
        })
        .into_iter()
        .collect()
}

#[derive(Default)]
struct Side {
    count: usize,
    bytes: u64,
}

/// How the diff matches a leak of OLD with one of NEW.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
enum DiffKey {
    /// The report's site key: a wrapper's file and line, or a call stack by
    /// code 1 offsets when a frame in code 1 has no symbols.
    Site(SiteKey),
    /// A call stack whose every code 1 frame is symbolized: function, file
    /// and line of each (inlined ones too); frames outside code 1 by address.
    /// Offsets move when code is added above a `Box::new`; these stay.
    Symbolic(Vec<(String, Option<String>, Option<u32>)>),
}

fn diff_key(a: &AllocRecord, stack: &[StackFrame]) -> DiffKey {
    let unsymbolized = |f: &StackFrame| f.in_code1 && f.symbols.is_empty();
    if !a.file.bytes().is_empty() || stack.is_empty() || stack.iter().any(unsymbolized) {
        return DiffKey::Site(site_key(a));
    }
    DiffKey::Symbolic(
        stack
            .iter()
            .flat_map(|f| -> Vec<(String, Option<String>, Option<u32>)> {
                if f.in_code1 {
                    f.symbols
                        .iter()
                        .map(|s| (s.function.clone(), s.file.clone(), s.line))
                        .collect()
                } else {
                    vec![(String::new(), None, Some(f.address))]
                }
            })
            .collect(),
    )
}

/// Compares the leaks of `old` and `new` (of the same app: see
/// [`check_same_app`]), both symbolized with `opts.symbolizer` (one build).
pub fn diff(old: &Ledger, new: &Ledger, opts: &Options<'_>) -> Diff {
    diff_with(old, new, opts, opts.symbolizer)
}

/// Warnings when one side is symbolized and the other is not.
fn symbol_warnings(
    old: &Ledger,
    new: &Ledger,
    old_symbols: Option<&dyn Symbolize>,
    new_symbols: Option<&dyn Symbolize>,
) -> Option<String> {
    let (unsymbolized, flag) = match (old_symbols, new_symbols) {
        (None, Some(_)) => (&old.source, "--old-elf"),
        (Some(_), None) => (&new.source, "--elf"),
        _ => return None,
    };
    Some(format!(
        "{unsymbolized} is not symbolized (no ELF of its build: {flag}): its frames stay code 1 \
         offsets and function-name suppressions do not apply to its leaks"
    ))
}

/// Compares the leaks of `old` and `new` (of the same app: see
/// [`check_same_app`]) when they may be of different builds: NEW is
/// symbolized with `opts.symbolizer` and OLD with `old_symbolizer`.
pub fn diff_with(
    old: &Ledger,
    new: &Ledger,
    opts: &Options<'_>,
    old_symbolizer: Option<&dyn Symbolize>,
) -> Diff {
    let mut old_an = Analyzer::new(old_symbolizer, old);
    let mut new_an = Analyzer::new(opts.symbolizer, new);
    // Per site: (OLD, NEW, description, kinds, stack of a representative).
    type Entry = (Side, Side, String, Vec<&'static str>, Vec<StackFrame>);
    let mut sites: BTreeMap<DiffKey, Entry> = BTreeMap::new();
    for (ledger, is_new) in [(old, false), (new, true)] {
        let an = if is_new { &mut new_an } else { &mut old_an };
        for a in allocs_in_order(ledger) {
            let block = an.block(a);
            if !matches!(hidden(&block, opts), Hidden::No) {
                continue;
            }
            let e = sites.entry(diff_key(a, &block.stack)).or_insert_with(|| {
                (
                    Side::default(),
                    Side::default(),
                    block.site.clone(),
                    Vec::new(),
                    Vec::new(),
                )
            });
            let side = if is_new { &mut e.1 } else { &mut e.0 };
            side.count += 1;
            side.bytes += u64::from(block.size);
            if !e.3.contains(&block.kind) {
                e.3.push(block.kind);
            }
            if (is_new && e.1.count == 1) || (!is_new && e.0.count == 1 && e.4.is_empty()) {
                e.4 = block.stack;
                e.2 = block.site;
            }
        }
    }
    let (mut appeared, mut disappeared) = (Vec::new(), Vec::new());
    let (mut unchanged_sites, mut unchanged_leaks) = (0, 0);
    for (o, n, site, kinds, stack) in sites.into_values() {
        let change = SiteChange {
            site,
            kinds,
            old_count: o.count,
            new_count: n.count,
            old_bytes: o.bytes,
            new_bytes: n.bytes,
            stack,
        };
        if n.count > o.count || n.bytes > o.bytes {
            appeared.push(change);
        } else if n.count < o.count || n.bytes < o.bytes {
            disappeared.push(change);
        } else {
            unchanged_sites += 1;
            unchanged_leaks += n.count;
        }
    }
    let added = |c: &SiteChange| c.new_bytes.saturating_sub(c.old_bytes);
    let removed = |c: &SiteChange| c.old_bytes.saturating_sub(c.new_bytes);
    appeared.sort_by(|a, b| added(b).cmp(&added(a)).then(a.site.cmp(&b.site)));
    disappeared.sort_by(|a, b| removed(b).cmp(&removed(a)).then(a.site.cmp(&b.site)));
    let appeared_leaks = appeared
        .iter()
        .map(|c| c.new_count.saturating_sub(c.old_count))
        .sum();
    let appeared_bytes = appeared.iter().map(added).sum();
    let disappeared_leaks = disappeared
        .iter()
        .map(|c| c.old_count.saturating_sub(c.new_count))
        .sum();
    let disappeared_bytes = disappeared.iter().map(removed).sum();
    let (locked_new, locked_gone, locked_unchanged) = locked_changes(old, new, old_an, new_an);
    let new_locked = locked_new
        .iter()
        .map(|c| c.new_count.saturating_sub(c.old_count))
        .sum();
    let gone_locked = locked_gone
        .iter()
        .map(|c| c.old_count.saturating_sub(c.new_count))
        .sum();
    let new_locks = locked_new
        .iter()
        .map(|c| delta('+', c.old_locks, c.new_locks))
        .sum();
    let gone_locks = locked_gone
        .iter()
        .map(|c| delta('-', c.old_locks, c.new_locks))
        .sum();
    let mut line = format!(
        "SUMMARY: memdbg diff: {appeared_bytes} byte(s) in {appeared_leaks} allocation(s) \
         appeared, {disappeared_bytes} byte(s) in {disappeared_leaks} allocation(s) disappeared"
    );
    if !locked_new.is_empty() || !locked_gone.is_empty() {
        line += &format!(
            "; {new_locked} locked handle(s) new, {gone_locked} gone ({new_locks} lock(s) \
             more, {gone_locks} fewer)"
        );
    }
    line.push('.');
    let has_locked = !old.locked.is_empty() || !new.locked.is_empty();
    Diff {
        schema: DIFF_SCHEMA,
        old: old.source.clone(),
        new: new.source.clone(),
        symbols: opts.symbolizer.map(|s| s.name().to_string()),
        old_symbols: old_symbolizer.map(|s| s.name().to_string()),
        summary: DiffSummary {
            appeared_leaks,
            appeared_bytes,
            disappeared_leaks,
            disappeared_bytes,
            new_locked,
            gone_locked,
            new_locks,
            gone_locks,
            exit_status: u8::from(!appeared.is_empty() || !locked_new.is_empty()),
            line,
        },
        appeared,
        disappeared,
        unchanged_sites,
        unchanged_leaks,
        locked_new,
        locked_gone,
        locked_unchanged,
        has_locked,
        warnings: build_warnings(
            old,
            new,
            old_symbolizer.is_some() && opts.symbolizer.is_some(),
        )
        .into_iter()
        .chain(symbol_warnings(old, new, old_symbolizer, opts.symbolizer))
        .collect(),
    }
}

/// The handles locked at stop of `old` and `new` by allocation site (the
/// leaks' [`diff_key`]): (sites with new ones, sites with fewer, handles at
/// unchanged sites).
fn locked_changes<'a>(
    old: &Ledger,
    new: &Ledger,
    mut old_an: Analyzer<'a>,
    mut new_an: Analyzer<'a>,
) -> (Vec<LockedChange>, Vec<LockedChange>, usize) {
    // Per site: (OLD handles and locks, NEW's, description, a stack).
    type Entry = ((usize, u64), (usize, u64), String, Vec<StackFrame>);
    let mut sites: BTreeMap<DiffKey, Entry> = BTreeMap::new();
    for (ledger, is_new) in [(old, false), (new, true)] {
        let an = if is_new { &mut new_an } else { &mut old_an };
        for l in &ledger.locked {
            let block = an.block(&l.alloc);
            let e = sites
                .entry(diff_key(&l.alloc, &block.stack))
                .or_insert_with(|| ((0, 0), (0, 0), block.site.clone(), Vec::new()));
            let side = if is_new { &mut e.1 } else { &mut e.0 };
            side.0 += 1;
            side.1 += u64::from(l.lock_count);
            if (is_new && e.1.0 == 1) || (!is_new && e.0.0 == 1 && e.3.is_empty()) {
                e.3 = block.stack;
                e.2 = block.site;
            }
        }
    }
    let (mut more, mut fewer, mut unchanged) = (Vec::new(), Vec::new(), 0);
    for (o, n, site, stack) in sites.into_values() {
        let change = LockedChange {
            site,
            old_count: o.0,
            new_count: n.0,
            old_locks: o.1,
            new_locks: n.1,
            stack,
        };
        if n.0 > o.0 || n.1 > o.1 {
            more.push(change);
        } else if n.0 < o.0 || n.1 < o.1 {
            fewer.push(change);
        } else {
            unchanged += n.0;
        }
    }
    let added = |c: &LockedChange| c.new_locks.saturating_sub(c.old_locks);
    let removed = |c: &LockedChange| c.old_locks.saturating_sub(c.new_locks);
    more.sort_by(|a, b| added(b).cmp(&added(a)).then(a.site.cmp(&b.site)));
    fewer.sort_by(|a, b| removed(b).cmp(&removed(a)).then(a.site.cmp(&b.site)));
    (more, fewer, unchanged)
}

/// How much a count grew from `old` to `new` (`sign` '+') or shrank (else); 0
/// when it went the other way.
fn delta<T: Ord + Default + std::ops::Sub<Output = T>>(sign: char, old: T, new: T) -> T {
    let (from, to) = if sign == '+' { (old, new) } else { (new, old) };
    if to > from { to - from } else { T::default() }
}

fn write_locked_changes(
    out: &mut dyn Write,
    title: &str,
    sign: char,
    changes: &[LockedChange],
    sw: &mut StackWriter,
) -> io::Result<()> {
    if changes.is_empty() {
        return writeln!(out, "{title}: none");
    }
    writeln!(out, "{title}:")?;
    for c in changes {
        let handles = delta(sign, c.old_count, c.new_count);
        let locks = delta(sign, c.old_locks, c.new_locks);
        writeln!(
            out,
            "  {sign}{} ({} → {}), {sign}{} ({} → {}), from {}",
            count(handles, "handle", "handles"),
            c.old_count,
            c.new_count,
            count(locks as usize, "lock", "locks"),
            c.old_locks,
            c.new_locks,
            Esc(&c.site)
        )?;
        sw.write(out, &c.stack, None)?;
    }
    Ok(())
}

fn write_changes(
    out: &mut dyn Write,
    title: &str,
    sign: char,
    changes: &[SiteChange],
    sw: &mut StackWriter,
) -> io::Result<()> {
    if changes.is_empty() {
        return writeln!(out, "{title}: none");
    }
    writeln!(out, "{title}:")?;
    for c in changes {
        let leaks = delta(sign, c.old_count, c.new_count);
        let bytes = delta(sign, c.old_bytes, c.new_bytes);
        writeln!(
            out,
            "  {sign}{} ({} → {}), {sign}{} bytes, from {} ({})",
            count(leaks, "leak", "leaks"),
            c.old_count,
            c.new_count,
            num(bytes),
            Esc(&c.site),
            c.kinds.join(", ")
        )?;
        sw.write(out, &c.stack, None)?;
    }
    Ok(())
}

/// Compares `old` and `new` ([`diff`]: one build) and writes the result in
/// `opts.format`; returns the summary (its `exit_status` is the `memdbg diff`
/// exit status).
///
/// # Errors
/// Writing to `out` failed.
pub fn print_diff(
    out: &mut dyn Write,
    old: &Ledger,
    new: &Ledger,
    opts: &Options<'_>,
) -> io::Result<DiffSummary> {
    print_diff_with(out, old, new, opts, opts.symbolizer)
}

/// [`print_diff`] with OLD symbolized by `old_symbolizer` ([`diff_with`]).
///
/// # Errors
/// Writing to `out` failed.
pub fn print_diff_with(
    out: &mut dyn Write,
    old: &Ledger,
    new: &Ledger,
    opts: &Options<'_>,
    old_symbolizer: Option<&dyn Symbolize>,
) -> io::Result<DiffSummary> {
    let d = diff_with(old, new, opts, old_symbolizer);
    match opts.format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut *out, &d)?;
            writeln!(out)?;
        }
        Format::Text => {
            writeln!(out, "memdbg diff of {} → {}", Esc(&d.old), Esc(&d.new))?;
            match (&d.symbols, &d.old_symbols) {
                (Some(n), Some(o)) if n == o => writeln!(out, "Symbols   {}", Esc(n))?,
                (None, None) => {}
                (n, o) => {
                    let name = |s: &Option<String>| Esc(s.as_deref().unwrap_or("none")).to_string();
                    writeln!(out, "Symbols   {} (NEW), {} (OLD)", name(n), name(o))?;
                }
            }
            for w in &d.warnings {
                writeln!(out, "warning: {}", Esc(w))?;
            }
            writeln!(out)?;
            let mut sw = StackWriter::default();
            write_changes(out, "Appeared or grew", '+', &d.appeared, &mut sw)?;
            writeln!(out)?;
            write_changes(out, "Disappeared or shrank", '-', &d.disappeared, &mut sw)?;
            writeln!(out)?;
            if d.has_locked {
                write_locked_changes(
                    out,
                    "Locked at stop, new or more",
                    '+',
                    &d.locked_new,
                    &mut sw,
                )?;
                writeln!(out)?;
                write_locked_changes(
                    out,
                    "Locked at stop, gone or fewer",
                    '-',
                    &d.locked_gone,
                    &mut sw,
                )?;
                writeln!(out)?;
            }
            write!(
                out,
                "Unchanged: {}, {}",
                count(d.unchanged_sites, "site", "sites"),
                count(d.unchanged_leaks, "leak", "leaks")
            )?;
            if d.has_locked {
                write!(
                    out,
                    "; {} locked at stop",
                    count(d.locked_unchanged, "handle", "handles")
                )?;
            }
            writeln!(out)?;
            writeln!(out)?;
            writeln!(out, "{}", d.summary.line)?;
        }
    }
    Ok(d.summary)
}

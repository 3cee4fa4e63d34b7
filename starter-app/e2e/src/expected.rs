//! What the starter app's demo run must leave in MemDbgDB, as the report tool
//! shows it: exactly nine leaks (a pointer, a handle, a Rust `Box` and Lock
//! handle's handle before the first checkpoint, then Loop leak's five, one in
//! each of generations 1 to 5), one overrun, one double free, the heap pinned
//! by Pin heap's 64-byte pointer, one handle locked at stop, Lock handle's,
//! locked 2 times, and one unlock underflow, Lock handle's other handle, each at the line
//! of `starter-app/src/scenarios.rs`
//! that carries its `// @mark NAME` comment. `ci/demo` checks its report with
//! [`check`]; the end-to-end tests use [`marks`] for their exact expectations.

use std::collections::HashMap;

use memdbg_report::Report;
use memdbg_report::report::{Block, StackFrame};

/// The scenario file, as a wrapper macro records it (`file!()` from the
/// workspace root).
pub const SCENARIOS: &str = "starter-app/src/scenarios.rs";

/// `// @mark NAME` comments of `source` → their 1-based line.
///
/// # Errors
/// A mark without a name, a duplicate mark, or a line number over 65,535.
pub fn marks(source: &str) -> Result<HashMap<String, u16>, String> {
    let mut marks = HashMap::new();
    for (i, l) in source.lines().enumerate() {
        let Some(at) = l.find("// @mark ") else {
            continue;
        };
        let name = l[at + 9..]
            .split_whitespace()
            .next()
            .ok_or_else(|| format!("{SCENARIOS}:{}: @mark without a name", i + 1))?;
        let line =
            u16::try_from(i + 1).map_err(|_| format!("{SCENARIOS}: line {} too far", i + 1))?;
        if marks.insert(name.to_string(), line).is_some() {
            return Err(format!("{SCENARIOS}:{}: duplicate @mark {name}", i + 1));
        }
    }
    Ok(marks)
}

/// `file:line` of `mark` in the scenario file.
fn site(marks: &HashMap<String, u16>, mark: &str) -> Result<(String, u16), String> {
    marks
        .get(mark)
        .map(|&l| (format!("{SCENARIOS}:{l}"), l))
        .ok_or_else(|| format!("no `// @mark {mark}` in {SCENARIOS}"))
}

/// Whether a symbolized frame of `stack` is `function` at `line` of the
/// scenario file.
fn stack_has(stack: &[StackFrame], function: &str, line: u16) -> bool {
    stack.iter().flat_map(|f| f.symbols.iter()).any(|s| {
        s.function == function
            && s.line == Some(u32::from(line))
            && s.file
                .as_deref()
                .is_some_and(|f| f.ends_with("src/scenarios.rs"))
    })
}

/// Checks a symbolized `report` of the demo run against the marks of the
/// scenario file's `source`. Returns one line per expectation met.
///
/// # Errors
/// One message per expectation not met.
pub fn check(report: &Report, source: &str) -> Result<Vec<String>, Vec<String>> {
    let marks = marks(source).map_err(|e| vec![e])?;
    let m = |mark: &str| site(&marks, mark);
    let leaks: Vec<&Block> = report.leaks.iter().map(|l| &l.block).collect();
    let leak = |kind: &str, size: u32, at: &(String, u16)| {
        leaks
            .iter()
            .any(|b| b.kind == kind && b.size == size && b.site == at.0)
    };
    let checks: Vec<(String, Result<bool, String>)> = vec![
        (
            format!("exactly 9 leaks (found {})", leaks.len()),
            Ok(leaks.len() == 9),
        ),
        (
            format!(
                "5 leaked pointers of 20 bytes at @loop-leak, in generations 1 to 5 (one \
                 each, after 5 checkpoints: found {}), the other 4 leaks in generation 0",
                report.checkpoints.len()
            ),
            m("loop-leak").map(|at| {
                let generations: Vec<u8> = leaks
                    .iter()
                    .filter(|b| b.kind == "pointer" && b.size == 20 && b.site == at.0)
                    .map(|b| b.generation)
                    .collect();
                let others = leaks.iter().filter(|b| b.site != at.0);
                let per_checkpoint: Vec<usize> =
                    report.checkpoints.iter().map(|c| c.leaks.len()).collect();
                generations == [1, 2, 3, 4, 5]
                    && others.clone().count() == 4
                    && others.into_iter().all(|b| b.generation == 0)
                    && report.checkpoints.iter().map(|c| c.generation).eq(1..=5)
                    && per_checkpoint == [1, 1, 1, 1, 1]
            }),
        ),
        (
            "a leaked pointer of 16 bytes at @leak-pointer".into(),
            m("leak-pointer").map(|at| leak("pointer", 16, &at)),
        ),
        (
            "a leaked handle of 32 bytes at @leak-handle".into(),
            m("leak-handle").map(|at| leak("handle", 32, &at)),
        ),
        (
            "a leaked Rust Box of 24 bytes from leak_box at @leak-box".into(),
            m("leak-box").map(|(_, line)| {
                leaks.iter().any(|b| {
                    b.kind == "Rust alloc"
                        && b.size == 24
                        && stack_has(&b.stack, "starter_app::scenarios::leak_box", line)
                })
            }),
        ),
        (
            "one overrun, of the block allocated at @overrun".into(),
            m("overrun")
                .map(|at| report.overruns.len() == 1 && report.overruns[0].block.site == at.0),
        ),
        (
            "one double free, of the block allocated at @double-free, freed at \
             @double-free-first and @double-free-second"
                .into(),
            m("double-free").and_then(|alloc| {
                let (first, second) = (m("double-free-first")?, m("double-free-second")?);
                let f = "starter_app::scenarios::double_free";
                Ok(report.double_frees.len() == 1 && {
                    let d = &report.double_frees[0];
                    d.block.site == alloc.0
                        && stack_has(&d.first_free.stack, f, first.1)
                        && stack_has(&d.second_free.stack, f, second.1)
                })
            }),
        ),
        (
            "the heap pinned by one block, the 64-byte pointer at @pin-heap, with the \
             20,004 free bytes of the freed hole before it"
                .into(),
            m("pin-heap").map(|at| {
                let pins = &report.heap.pinned_by;
                pins.len() == 1
                    && pins[0].block.site == at.0
                    && pins[0].block.kind == "pointer"
                    && pins[0].block.size == 64
                    && pins[0].free_before == 20_004
            }),
        ),
        (
            "one handle locked at stop, the 16-byte handle at @lock-handle, locked 2 times \
             (also a leak)"
                .into(),
            m("lock-handle").map(|at| {
                let l = &report.locked;
                l.len() == 1
                    && l[0].lock_count == 2
                    && l[0].block.site == at.0
                    && l[0].block.kind == "handle"
                    && l[0].block.size == 16
                    && leak("handle", 16, &at)
                    && report.summary.locked == 1
            }),
        ),
        (
            "one unlock underflow, MemHandleUnlock at @unlock-underflow of the 16-byte \
             handle allocated at @lock-balanced, refused"
                .into(),
            m("lock-balanced").and_then(|alloc| {
                let unlock = m("unlock-underflow")?;
                let u = &report.unlock_underflows;
                Ok(u.len() == 1
                    && u[0].trap == "MemHandleUnlock"
                    && u[0].site == unlock.0
                    && u[0].block.site == alloc.0
                    && u[0].block.size == 16
                    && stack_has(
                        &u[0].unlock.stack,
                        "starter_app::scenarios::lock_handle",
                        unlock.1,
                    )
                    && report.summary.unlock_underflows == 1)
            }),
        ),
    ];
    let mut met = Vec::new();
    let mut unmet = Vec::new();
    for (what, result) in checks {
        match result {
            Ok(true) => met.push(what),
            Ok(false) => unmet.push(format!("expected {what}")),
            Err(e) => unmet.push(e),
        }
    }
    if unmet.is_empty() {
        Ok(met)
    } else {
        Err(unmet)
    }
}

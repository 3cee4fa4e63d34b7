//! Who reaches whom in the program's assembly, so that a build error about a
//! routine of core, alloc or compiler_builtins names the program's function
//! that uses it ([`crate::ircheck::Finding::reached_from`]).
//!
//! The graph is read from the assembly palm-build links (the top crate's
//! whole-program `.s` and compiler_builtins' `.s`): a function reaches every
//! function its code names — a call (`jsr`, `bsr`, a tail `bra`/`jmp`) or an
//! address taken (`lea (f,%pc)`, how `core::fmt` is handed the formatting
//! function of each argument). Only code in `.text` sections counts, not the
//! DWARF that names every function too.

use std::collections::{HashMap, HashSet, VecDeque};

/// Crates whose functions are not the program's own: a finding in one of
/// them is reported with the program's function that reaches it.
const LIBRARY_CRATES: [&str; 3] = ["core", "alloc", "compiler_builtins"];

/// The reference graph of the functions in some assembly files.
#[derive(Debug, Default)]
pub struct CallGraph {
    /// Function symbol → the functions whose code names it.
    callers: HashMap<String, Vec<String>>,
    /// Functions defined in compiler_builtins' assembly (library code even
    /// when unmangled, like `__udivti3`).
    builtins: HashSet<String>,
}

impl CallGraph {
    /// Reads the functions (`.type f,@function` … `f:` … `.size f`) of the
    /// program's assembly `program` and compiler_builtins' `builtins`.
    pub fn from_assembly(program: &str, builtins: &str) -> CallGraph {
        let builtin_functions = functions(builtins);
        let mut all = functions(program);
        all.extend(&builtin_functions);
        let mut graph = CallGraph {
            builtins: builtin_functions.into_iter().map(str::to_string).collect(),
            ..CallGraph::default()
        };
        graph.add(program, &all);
        graph.add(builtins, &all);
        graph
    }

    /// Adds the references of one assembly file to the `functions` of all files.
    fn add(&mut self, asm: &str, functions: &HashSet<&str>) {
        let mut current: Option<&str> = None;
        let mut in_text = false;
        for line in asm.lines() {
            let trimmed = line.trim();
            if let Some(section) = trimmed
                .strip_prefix(".section")
                .map(|s| s.trim().trim_matches('"'))
            {
                in_text = section.starts_with(".text");
                continue;
            }
            if trimmed == ".text" {
                in_text = true;
                continue;
            }
            if let Some(label) = trimmed.strip_suffix(':') {
                let label = label.trim_matches('"');
                if functions.contains(label) {
                    current = Some(label);
                } else if label.starts_with(".Lfunc_end") {
                    current = None;
                }
                continue;
            }
            let (Some(function), true) = (current, in_text) else {
                continue;
            };
            if trimmed.starts_with('.') && !trimmed.starts_with(".long") {
                continue;
            }
            for name in trimmed
                .split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.')))
                .filter(|w| functions.contains(w) && *w != function)
            {
                let callers = self.callers.entry(name.to_string()).or_default();
                if !callers.iter().any(|c| c == function) {
                    callers.push(function.to_string());
                }
            }
        }
    }

    /// Whether `symbol` is one of the program's own functions (not core's,
    /// alloc's or compiler_builtins').
    pub fn is_program(&self, symbol: &str) -> bool {
        !self.builtins.contains(symbol) && !is_library_name(&crate::ircheck::demangle(symbol))
    }

    /// For a library function `symbol`: for each of the program's functions
    /// that reaches it, the shortest chain of references from that function
    /// to it, demangled, starting with the program's function and without
    /// `symbol` itself (`[app::f, core::fmt::write]`), nearest first. Only
    /// functions for which `linked` is true are followed, and not through the
    /// program's functions (the one that names a library function is the one
    /// to change). Empty when `symbol` is the program's own or nothing of the
    /// program reaches it.
    pub fn reached_from(&self, symbol: &str, linked: &dyn Fn(&str) -> bool) -> Vec<Vec<String>> {
        if self.is_program(symbol) {
            return Vec::new();
        }
        // Breadth-first over the callers; `next[f]` is the function `f` names
        // on the way to `symbol`.
        let mut next: HashMap<&str, &str> = HashMap::new();
        let mut queue = VecDeque::from([symbol]);
        let mut chains = Vec::new();
        while let Some(function) = queue.pop_front() {
            for caller in self.callers.get(function).into_iter().flatten() {
                let caller = caller.as_str();
                if caller == symbol || next.contains_key(caller) || !linked(caller) {
                    continue;
                }
                next.insert(caller, function);
                if !self.is_program(caller) {
                    queue.push_back(caller);
                    continue;
                }
                let mut chain = vec![crate::ircheck::demangle(caller)];
                let mut at = function;
                while at != symbol {
                    let name = crate::ircheck::demangle(at);
                    // compiler_builtins' `__udivti3` calls its mangled
                    // `compiler_builtins::int::udiv::__udivti3`: one step,
                    // named as the program's code names it.
                    let same = chain.len() > 1
                        && chain
                            .last()
                            .is_some_and(|last| name.rsplit("::").next() == Some(last.as_str()));
                    if !same {
                        chain.push(name);
                    }
                    at = next[at];
                }
                chains.push(chain);
            }
        }
        chains
    }
}

/// The functions an assembly file defines (`.type f,@function`).
pub fn functions(asm: &str) -> HashSet<&str> {
    asm.lines()
        .filter_map(|l| l.trim().strip_prefix(".type"))
        .filter_map(|rest| rest.trim().strip_suffix(",@function"))
        .map(|name| name.trim().trim_matches('"'))
        .collect()
}

/// Whether a demangled function name belongs to core, alloc or
/// compiler_builtins: its path starts with one of them (`core::fmt::write`),
/// or it is a trait method `<T as Trait>::f` (or inherent `<T>::f`) where
/// neither `T` nor `Trait` comes from another crate (`<u32 as
/// core::fmt::LowerHex>::fmt` does; `<app::Buf as core::fmt::Write>::write_str`
/// is the program's). A name without a path (an `extern "C"` function) is
/// the program's.
fn is_library_name(name: &str) -> bool {
    let Some(inner) = name.strip_prefix('<') else {
        return leading_crate(name).is_some_and(|c| LIBRARY_CRATES.contains(&c));
    };
    // `<T as Trait>::f`: the parts up to the matching `>`.
    let mut depth = 1usize;
    let end = inner
        .char_indices()
        .find(|&(_, c)| {
            match c {
                '<' => depth += 1,
                '>' => depth -= 1,
                _ => {}
            }
            depth == 0
        })
        .map_or(inner.len(), |(i, _)| i);
    let (self_type, trait_path) = match inner[..end].split_once(" as ") {
        Some((t, tr)) => (t, Some(tr)),
        None => (&inner[..end], None),
    };
    [Some(self_type), trait_path]
        .into_iter()
        .flatten()
        .filter_map(leading_crate)
        .all(|c| LIBRARY_CRATES.contains(&c))
}

/// The crate a path or type names first (`core` for `core::fmt::write` and
/// `&mut core::fmt::Formatter`), `None` for primitive types (`u32`, `[u8]`).
fn leading_crate(path: &str) -> Option<&str> {
    let path = path.trim_start_matches(['&', '*', '[', '(', ' ']);
    let path = ["mut ", "const ", "dyn "]
        .iter()
        .fold(path, |p, prefix| p.strip_prefix(prefix).unwrap_or(p));
    let (first, _) = path.split_once("::")?;
    first
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_')
        .then_some(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn library_and_program_names_are_told_apart() {
        for name in [
            "core::fmt::write",
            "<u32 as core::fmt::LowerHex>::fmt",
            "<&mut core::fmt::Formatter as core::fmt::Write>::write_str",
            "<[u8]>::copy_from_slice",
            "alloc::raw_vec::finish_grow",
            "compiler_builtins::int::specialized_div_rem::u128_div_rem",
        ] {
            assert!(is_library_name(name), "{name}");
        }
        for name in [
            "app::pilot_main",
            "<app::Buf as core::fmt::Write>::write_str",
            "<u32 as app::Digits>::digits",
            "m68k_palmos_sys::codegen::u128_div_rem",
            "c_udiv",
        ] {
            assert!(!is_library_name(name), "{name}");
        }
    }

    /// Assembly as rustc writes it (trimmed): `user` takes the address of
    /// `lib_fmt` (as `write!` hands core::fmt a formatting function) and calls
    /// `lib_write`; `lib_write` calls `helper`, a compiler_builtins routine;
    /// the DWARF at the end names every function again, which must not count.
    const PROGRAM: &str = "\t.section\t.text.user,\"ax\",@progbits\n\t.type\tuser,@function\nuser:\n\
        \tlea\t(_ZN4core3fmt3num9lower_fmt17h0000000000000000E,%pc), %a0\n\
        \tjsr\t(_ZN4core3fmt5write17h0000000000000000E,%pc)\n\trts\n.Lfunc_end0:\n\
        \t.size\tuser, .Lfunc_end0-user\n\
        \t.section\t.text._ZN4core3fmt5write17h0000000000000000E,\"ax\",@progbits\n\
        \t.type\t_ZN4core3fmt5write17h0000000000000000E,@function\n\
        _ZN4core3fmt5write17h0000000000000000E:\n\tjsr\t(__udivti3,%pc)\n\trts\n.Lfunc_end1:\n\
        \t.section\t.text._ZN4core3fmt3num9lower_fmt17h0000000000000000E,\"ax\",@progbits\n\
        \t.type\t_ZN4core3fmt3num9lower_fmt17h0000000000000000E,@function\n\
        _ZN4core3fmt3num9lower_fmt17h0000000000000000E:\n\trts\n.Lfunc_end2:\n\
        \t.section\t.debug_info,\"\",@progbits\n\t.long\tuser\n\
        \t.long\t_ZN4core3fmt3num9lower_fmt17h0000000000000000E\n";
    const BUILTINS: &str = "\t.section\t.text.__udivti3,\"ax\",@progbits\n\t.globl\t__udivti3\n\
        \t.type\t__udivti3,@function\n__udivti3:\n\tjsr\t(u128_div_rem,%pc)\n\trts\n.Lfunc_end0:\n\
        \t.type\tu128_div_rem,@function\nu128_div_rem:\n\trts\n.Lfunc_end1:\n";

    #[test]
    fn chains_lead_from_the_program_to_the_routine() {
        let graph = CallGraph::from_assembly(PROGRAM, BUILTINS);
        let all = |_: &str| true;
        assert_eq!(
            graph.reached_from("_ZN4core3fmt3num9lower_fmt17h0000000000000000E", &all),
            [["user"]]
        );
        assert_eq!(
            graph.reached_from("u128_div_rem", &all),
            [["user", "core::fmt::write", "__udivti3"]]
        );
        // The program's own functions need no chain; unlinked callers are
        // not followed.
        assert!(graph.reached_from("user", &all).is_empty());
        assert!(
            graph
                .reached_from("u128_div_rem", &|f| f != "user")
                .is_empty()
        );
        assert!(!graph.is_program("__udivti3"));
        assert!(graph.is_program("user"));
    }
}

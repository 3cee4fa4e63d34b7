//! memdbg's module graph has no cycle: every module of `src/` uses (through
//! `crate::` paths in its code, doc comments aside) only modules listed above it in
//! the crate docs' "Layers" (`src/lib.rs`); one of its own layer counts as a cycle
//! too. The crate root (`lib.rs`) only declares the modules and re-exports.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

const SRC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src");

/// The layers of `src/lib.rs`'s "Layers" list, bottom first: each line `//! N.`
/// names its modules in backticks before its ` — `.
fn layers() -> Vec<Vec<String>> {
    let lib = std::fs::read_to_string(Path::new(SRC).join("lib.rs")).unwrap();
    lib.lines()
        .filter_map(|l| {
            let item = l.strip_prefix("//! ")?;
            let (number, rest) = item.split_once(". ")?;
            number.parse::<u32>().ok()?;
            let names = rest.split(" — ").next()?;
            Some(
                names
                    .split('`')
                    .skip(1)
                    .step_by(2)
                    .map(str::to_string)
                    .collect(),
            )
        })
        .collect()
}

/// The code of `text` without comments (`//` to the end of a line).
fn code(text: &str) -> String {
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The modules a module's code names through `crate::` paths (`crate::x::…` and
/// the groups of `use crate::{x, y::…}`), among `modules`.
fn uses(code: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        rest = &rest[at + "crate::".len()..];
        let names: Vec<&str> = if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            group[..end].split(',').collect()
        } else {
            vec![rest]
        };
        for name in names {
            let first: String = name
                .trim()
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if modules.contains(&first) {
                found.insert(first);
            }
        }
    }
    found
}

#[test]
fn every_module_uses_only_the_layers_below_it() {
    let layers = layers();
    assert!(
        layers.len() > 5,
        "the Layers list of src/lib.rs: {layers:?}"
    );
    let layer: BTreeMap<String, usize> = layers
        .iter()
        .enumerate()
        .flat_map(|(i, names)| names.iter().map(move |n| (n.clone(), i)))
        .collect();
    let mut files = BTreeSet::new();
    for entry in std::fs::read_dir(SRC).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        if path.extension().is_some_and(|e| e == "rs") && name != "lib" {
            files.insert(name);
        }
    }
    let listed: BTreeSet<String> = layer.keys().cloned().collect();
    assert_eq!(files, listed, "the modules of src/ and the Layers list");
    let mut wrong = Vec::new();
    for module in &files {
        let text = std::fs::read_to_string(Path::new(SRC).join(format!("{module}.rs"))).unwrap();
        for used in uses(&code(&text), &files) {
            if used != *module && layer[&used] >= layer[module] {
                wrong.push(format!(
                    "{module} (layer {}) uses {used} (layer {})",
                    layer[module] + 1,
                    layer[&used] + 1
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "uses against the layers:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_check_sees_plain_and_grouped_uses() {
    let modules: BTreeSet<String> = ["state", "ledger", "text"].map(String::from).into();
    let text = "use crate::state::State;\nfn f() { crate::ledger::x(); }\n\
                use crate::{text::say, Settings};\n// crate::ledger in a comment";
    let found: Vec<String> = uses(&code(text), &modules).into_iter().collect();
    assert_eq!(found, ["ledger", "state", "text"]);
    let found = uses(&code("// use crate::state;\n/// [`crate::text`]"), &modules);
    assert!(found.is_empty());
}

//! The PilRC corpus: each `tests/corpus/*.rcp` (written for this test) is
//! compiled and every resource must be byte-identical with the `.bin` file
//! PilRC 3.2 wrote for it in `tests/corpus/golden/NAME/` (and no resource
//! more or less); for `07-autoid` (`GENERATEHEADER`) and `16-scripts` (`-H`)
//! the generated header too. A file's first
//! line `// args: ...` gives the PilRC options both compilers ran with, and
//! palm-rcp must warn as often as PilRC did (`golden/NAME.log`).
//! Two files are also compiled into one resource database, as `pilrc -ro`
//! writes it (`golden/NAME.ro`). How the golden files were made:
//! `tests/corpus/README.md`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus");

/// The options of a `// args:` line.
fn options(first_line: &str) -> palm_rcp::Options {
    let mut opts = palm_rcp::Options::default();
    let args = first_line
        .strip_prefix("// args:")
        .expect("first line is // args:");
    let mut words = args.split_whitespace();
    while let Some(w) = words.next() {
        match w {
            "-L" => opts.languages.push(words.next().unwrap().to_owned()),
            "-noEllipsis" => opts.no_ellipsis = true,
            "-allowEditID" => opts.allow_edit_id = true,
            "-Fh" => opts.script = palm_rcp::fonts::Script::Hebrew,
            "-Fc" => opts.script = palm_rcp::fonts::Script::Cyrillic,
            "-H" => opts.header = Some(words.next().unwrap().into()),
            other => panic!("option {other} not handled by the corpus test"),
        }
    }
    opts
}

fn golden(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "bin"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect()
}

#[test]
fn every_resource_is_byte_identical_with_pilrc() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(CORPUS)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "rcp"))
        .collect();
    files.sort();
    assert!(files.len() >= 10, "the corpus has {} files", files.len());
    let mut resources = 0;
    let mut warnings = 0;
    let mut failures = Vec::new();
    for path in &files {
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(path).unwrap();
        let opts = options(text.lines().next().unwrap());
        let compiled = palm_rcp::compile_file_opts(path, &palm_rcp::FsIncludes::default(), &opts)
            .unwrap_or_else(|e| panic!("{stem}: {e}"));
        let ours: BTreeMap<String, Vec<u8>> = compiled
            .resources
            .iter()
            .map(|r| (r.file_name(), r.data.clone()))
            .collect();
        let theirs = golden(&Path::new(CORPUS).join("golden").join(&stem));
        assert_eq!(
            ours.keys().collect::<Vec<_>>(),
            theirs.keys().collect::<Vec<_>>(),
            "{stem}: resources differ from PilRC's"
        );
        for (name, data) in &theirs {
            resources += 1;
            if &ours[name] != data {
                let at = data.iter().zip(&ours[name]).position(|(a, b)| a != b);
                failures.push(format!(
                    "{stem}/{name}: {} bytes vs PilRC's {}, first difference at {at:?}",
                    ours[name].len(),
                    data.len()
                ));
            }
        }
        // PilRC's warnings (`golden/NAME.log`, one line each, at the line
        // after the statement's, where its lexer is): as many from palm-rcp.
        let log =
            std::fs::read_to_string(Path::new(CORPUS).join("golden").join(format!("{stem}.log")))
                .unwrap();
        let theirs_warned = log.lines().filter(|l| l.contains(": warning: ")).count();
        assert_eq!(
            compiled.warnings.len(),
            theirs_warned,
            "{stem}: palm-rcp warned {:#?}, PilRC:\n{log}",
            compiled
                .warnings
                .iter()
                .map(|w| w.to_string())
                .collect::<Vec<_>>()
        );
        warnings += theirs_warned;
        let header = Path::new(CORPUS)
            .join("golden")
            .join(&stem)
            .join(format!("{stem}.h"));
        if header.exists() {
            assert_eq!(
                compiled.header_text(),
                std::fs::read_to_string(&header).unwrap(),
                "{stem}: header"
            );
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {resources} resources differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(resources >= 60, "only {resources} resources compared");
    println!(
        "{} files, {resources} resources, byte-identical with PilRC 3.2; {warnings} warnings \
         as PilRC's",
        files.len()
    );
}

/// The `-ro` golden files: (file, database name, type, creator), as
/// `pilrc -q -ro [-type T -creator C -name N] FILE.rcp FILE.ro` wrote them
/// (without `-name` the name is the output path, `FILE.ro`).
const RO: &[(&str, &str, [u8; 4], [u8; 4])] = &[
    ("06-data", "06-data.ro", *b"RESO", *b"pRES"),
    ("13-resources", "Corpus resources", *b"rsrc", *b"MDBG"),
];

#[test]
fn resource_databases_are_byte_identical_with_pilrc() {
    for &(stem, name, kind, creator) in RO {
        let path = Path::new(CORPUS).join(format!("{stem}.rcp"));
        let compiled = palm_rcp::compile_file_opts(
            &path,
            &palm_rcp::FsIncludes::default(),
            &palm_rcp::Options::default(),
        )
        .unwrap();
        let ours = palm_rcp::resource_database(&compiled.resources, name.as_bytes(), kind, creator)
            .unwrap();
        let theirs =
            std::fs::read(Path::new(CORPUS).join("golden").join(format!("{stem}.ro"))).unwrap();
        assert_eq!(ours.len(), theirs.len(), "{stem}.ro size");
        assert!(ours == theirs, "{stem}.ro differs from PilRC's");
        // The header names the database and the resources follow in order.
        assert_eq!(&ours[..name.len()], name.as_bytes());
        let db = palm_prc::Database::parse(&ours).unwrap();
        assert_eq!(db.resources().unwrap().len(), compiled.resources.len());
    }
}

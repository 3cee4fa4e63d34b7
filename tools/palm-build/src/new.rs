//! `palm-build new DIR [--c]`: a new Palm OS application with memdbg, in its
//! own directory (its own cargo workspace, with a `.gitignore`; not a git
//! repository until you `git init` it), that builds
//! and runs as generated.
//!
//! A Rust app (`Cargo.toml`, `Cargo.lock`, `rust-toolchain.toml`,
//! `src/lib.rs`, `rsrc/NAME.rcp`, `events.txt`, `README.md`, `.gitignore`):
//! the toolchain file, the `cargo-features` line and `[profile.palm]` are
//! this checkout's ([`crate::setup`]), the lock file too (the versions this
//! checkout is tested with), and `m68k-palmos-sys` and `memdbg` are path
//! dependencies on this checkout. `src/lib.rs` has PilotMain, the event
//! loop, the main form's handler, memdbg on for the app's run, and a menu
//! item that leaks on purpose; the resource IDs are the `.rcp`'s `#define`s,
//! which palm-build turns into the code's constants ([`crate::ids`]).
//!
//! A C app (`--c`: `Makefile`, `NAME.c`, `rsrc/NAME.rcp`, `events.txt`,
//! `README.md`, `.gitignore`): the same app in C with `palm-sys.h` and
//! `memdbg.h`; `make` runs `palm-build ids --c`, GNU C, `palm-build lib` and
//! `palm-build c-app`, `make run` palm-run and `memdbg report`.
//!
//! `events.txt`, for `palm-run --events`, opens the menu and chooses the
//! leaking item, then About.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow};

use crate::bail_input;
use crate::error::bad_input;
use crate::prc::{AppMeta, Settings};
use crate::setup;

/// The language of the new app.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Language {
    /// no_std Rust, built by `palm-build app`.
    Rust,
    /// GNU C, built by its Makefile (`palm-build c-app`).
    C,
}

/// What to create.
#[derive(Clone, Debug)]
pub struct NewApp {
    /// The directory to create (missing or empty). Its last component is the
    /// cargo package name (and the C file's name).
    pub dir: PathBuf,
    /// Rust or C.
    pub language: Language,
    /// The Palm database name (default: the directory's name in CamelCase,
    /// `hello-palm` → `HelloPalm`): letters, digits, `_` and `-`, ≤ 31.
    pub name: Option<String>,
    /// The creator ID (default: made from the name; choose your own).
    pub creator: Option<String>,
    /// The memdbg checkout the app depends on (default: the one this
    /// palm-build was built from).
    pub checkout: Option<PathBuf>,
}

/// What [`create`] made.
#[derive(Clone, Debug)]
pub struct Created {
    /// The new app's directory (absolute).
    pub dir: PathBuf,
    /// The files written, relative to `dir`.
    pub files: Vec<PathBuf>,
    /// The Palm database name.
    pub name: String,
    /// The creator ID, and whether it was made up from the name.
    pub creator: (String, bool),
    /// The memdbg checkout it depends on.
    pub checkout: PathBuf,
    /// The commands that build, run and report it, run in `dir` (tools by
    /// name: they are in `checkout/target/release`).
    pub next: Vec<String>,
}

/// This palm-build's own checkout (where it was compiled).
fn own_checkout() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// This checkout's lock file: a new Rust app starts with the versions this
/// checkout is tested with (cargo drops the entries it does not use).
const LOCK_FILE: &str = include_str!("../../../Cargo.lock");

const RUST_FILES: &[(&str, &str)] = &[
    ("Cargo.toml", include_str!("../template/rust/Cargo.toml.in")),
    ("src/lib.rs", include_str!("../template/rust/lib.rs.in")),
    (
        "rsrc/{{name}}.rcp",
        include_str!("../template/rust/App.rcp.in"),
    ),
    ("events.txt", include_str!("../template/rust/events.txt.in")),
    ("README.md", include_str!("../template/rust/README.md.in")),
    (".gitignore", include_str!("../template/rust/gitignore.in")),
];

const C_FILES: &[(&str, &str)] = &[
    ("Makefile", include_str!("../template/c/Makefile.in")),
    ("{{crate}}.c", include_str!("../template/c/app.c.in")),
    (
        "rsrc/{{name}}.rcp",
        include_str!("../template/c/App.rcp.in"),
    ),
    ("events.txt", include_str!("../template/c/events.txt.in")),
    ("README.md", include_str!("../template/c/README.md.in")),
    (".gitignore", include_str!("../template/c/gitignore.in")),
];

/// `text` with every `{{key}}` replaced.
///
/// # Errors
/// A `{{` left without a value (a template and this code disagree).
fn render(text: &str, values: &BTreeMap<&str, String>) -> Result<String> {
    let mut out = text.to_string();
    for (k, v) in values {
        out = out.replace(&format!("{{{{{k}}}}}"), v);
    }
    if let Some(at) = out.find("{{") {
        let rest: String = out[at..].chars().take(40).collect();
        return Err(anyhow!("template placeholder without a value: {rest}"));
    }
    Ok(out)
}

/// `s` as a TOML basic string's contents.
fn toml_escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The database name made from a package name: `hello-palm` → `HelloPalm`.
fn camel_case(crate_name: &str) -> String {
    let mut out: String = crate_name
        .split(['-', '_'])
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect();
    out.truncate(31);
    out
}

/// A creator ID made from the name: its first four letters and digits, the
/// first upper-case (Palm reserves all-lower-case creators), `x`-padded.
fn creator_from(name: &str) -> String {
    let mut c: Vec<char> = name
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .take(4)
        .collect();
    while c.len() < 4 {
        c.push('x');
    }
    c[0] = c[0].to_ascii_uppercase();
    c.into_iter().collect()
}

/// Creates the app `opts` describes.
///
/// # Errors
/// Bad input: the directory exists and is not empty, its name is not a cargo
/// package name, the name or creator is not valid, the checkout is not a
/// memdbg checkout; or a file cannot be written.
pub fn create(opts: &NewApp) -> Result<Created> {
    if opts.dir.exists()
        && (!opts.dir.is_dir()
            || std::fs::read_dir(&opts.dir)
                .map(|mut d| d.next().is_some())
                .unwrap_or(true))
    {
        bail_input!(
            "{} exists and is not an empty directory: palm-build new makes a new one",
            opts.dir.display()
        );
    }
    let crate_name = opts
        .dir
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("")
        .to_string();
    let valid_crate = crate_name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic())
        && crate_name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !valid_crate {
        bail_input!(
            "{}: the directory's name {crate_name:?} is the app's package name: a letter, \
             then letters, digits, `-` or `_`",
            opts.dir.display()
        );
    }
    let name = opts.name.clone().unwrap_or_else(|| camel_case(&crate_name));
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        bail_input!(
            "--name {name:?}: palm-build new takes letters, digits, `-` and `_` (the name \
             also names the .rcp and the PRC; rename the database later in Cargo.toml)"
        );
    }
    let made_up = opts.creator.is_none();
    let creator = opts.creator.clone().unwrap_or_else(|| creator_from(&name));
    AppMeta::from_settings(
        Settings {
            name: name.clone(),
            creator: creator.clone(),
            version: "1.0".into(),
            ..Settings::default()
        },
        &|key| format!("--{key}"),
    )
    .map_err(bad_input)?;
    let checkout = opts.checkout.clone().unwrap_or_else(own_checkout);
    let checkout = checkout
        .canonicalize()
        .ok()
        .filter(|c| {
            c.join("palm-sys/Cargo.toml").is_file() && c.join("memdbg/Cargo.toml").is_file()
        })
        .ok_or_else(|| {
            bad_input(anyhow!(
                "{}: not a memdbg checkout (no palm-sys/Cargo.toml and memdbg/Cargo.toml); \
                 give one with --memdbg PATH",
                checkout.display()
            ))
        })?;
    let mut values: BTreeMap<&str, String> = BTreeMap::new();
    values.insert("name", name.clone());
    values.insert("crate", crate_name.clone());
    values.insert("creator", creator.clone());
    values.insert("checkout", checkout.display().to_string());
    values.insert(
        "palm_sys",
        toml_escape(&checkout.join("palm-sys").display().to_string()),
    );
    values.insert(
        "memdbg",
        toml_escape(&checkout.join("memdbg").display().to_string()),
    );
    values.insert("cargo_features", setup::cargo_features_line());
    values.insert("cflags", crate::capp::GCC_FLAGS.join(" "));
    values.insert("profile", setup::profile_snippet().trim_end().to_string());

    let templates = match opts.language {
        Language::Rust => RUST_FILES,
        Language::C => C_FILES,
    };
    // The .rcp first: its IDs fill events.txt.
    let mut rendered: Vec<(PathBuf, String)> = Vec::new();
    for (path, text) in templates {
        rendered.push((PathBuf::from(render(path, &values)?), text.to_string()));
    }
    let rcp_name = format!("rsrc/{name}.rcp");
    let rcp_text = render(
        &rendered
            .iter()
            .find(|(p, _)| p == Path::new(&rcp_name))
            .map(|(_, t)| t.clone())
            .unwrap_or_default(),
        &values,
    )?;
    let ids = palm_rcp::ids::defines_str(&rcp_text, Path::new(&rcp_name), &palm_rcp::NoIncludes)
        .map_err(|e| anyhow!("the template's .rcp: {e}"))?;
    let id_values: Vec<(String, String)> = ids
        .iter()
        .map(|d| (d.name.clone(), d.value.to_string()))
        .collect();
    for (k, v) in &id_values {
        values.insert(k.as_str(), v.clone());
    }
    let mut files: Vec<(PathBuf, String)> = Vec::new();
    for (path, text) in &rendered {
        files.push((path.clone(), render(text, &values)?));
    }
    if opts.language == Language::Rust {
        files.push(("Cargo.lock".into(), LOCK_FILE.to_string()));
        files.push((
            "rust-toolchain.toml".into(),
            setup::TOOLCHAIN_FILE.to_string(),
        ));
    }
    for (path, text) in &files {
        let full = opts.dir.join(path);
        if let Some(parent) = full.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("creating {}", parent.display()))
                .map_err(bad_input)?;
        }
        std::fs::write(&full, text)
            .with_context(|| format!("writing {}", full.display()))
            .map_err(bad_input)?;
    }
    let dir = opts
        .dir
        .canonicalize()
        .with_context(|| format!("{}", opts.dir.display()))?;
    let next = match opts.language {
        Language::Rust => vec![
            "palm-build app".to_string(),
            format!(
                "palm-run target/palm/{name}.prc --events events.txt --allow-leaks --export \
                 MemDbgDB=target/palm/MemDbgDB.pdb"
            ),
            format!("memdbg report target/palm/MemDbgDB.pdb --elf target/palm/{name}.elf"),
        ],
        Language::C => vec!["make".to_string(), "make run".to_string()],
    };
    Ok(Created {
        dir,
        files: files.into_iter().map(|(p, _)| p).collect(),
        name,
        creator: (creator, made_up),
        checkout,
        next,
    })
}

/// A one-line description of `c` and the commands to try, for the terminal.
pub fn summary(c: &Created, language: Language) -> String {
    let files: Vec<String> = c.files.iter().map(|f| f.display().to_string()).collect();
    let mut s = format!(
        "palm-build: created {}, a Palm OS app in {} with memdbg ({})\n",
        c.dir.display(),
        match language {
            Language::Rust => "Rust",
            Language::C => "C",
        },
        files.join(", ")
    );
    if c.creator.1 {
        s += &format!(
            "palm-build: its creator ID {} is made up from the name: choose your own unique \
             one (--creator, or {})\n",
            c.creator.0,
            match language {
                Language::Rust => "creator in Cargo.toml",
                Language::C => "CREATOR in the Makefile",
            }
        );
    }
    s += &format!(
        "next (the tools are in {}/target/release):\n",
        c.checkout.display()
    );
    s += &format!("    cd {}\n", c.dir.display());
    for cmd in &c.next {
        s += &format!("    {cmd}\n");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_creators_from_the_directory() {
        assert_eq!(camel_case("hello-palm"), "HelloPalm");
        assert_eq!(camel_case("my_app2"), "MyApp2");
        assert_eq!(creator_from("HelloPalm"), "Hell");
        assert_eq!(creator_from("ab"), "Abxx");
        assert_eq!(creator_from("x9"), "X9xx");
    }

    #[test]
    fn every_placeholder_of_every_template_has_a_value() {
        for lang in [Language::Rust, Language::C] {
            let dir = tempfile::tempdir().unwrap();
            let created = create(&NewApp {
                dir: dir.path().join("hello-palm"),
                language: lang,
                name: None,
                creator: None,
                checkout: None,
            })
            .unwrap();
            assert_eq!(created.name, "HelloPalm");
            assert_eq!(created.creator, ("Hell".to_string(), true));
            for f in &created.files {
                let text = std::fs::read_to_string(created.dir.join(f)).unwrap();
                assert!(!text.contains("{{"), "{}: {text}", f.display());
            }
            let events = std::fs::read_to_string(created.dir.join("events.txt")).unwrap();
            assert!(events.contains("menu 2001 "), "{events}");
        }
    }

    #[test]
    fn bad_directories_names_and_creators_are_bad_input() {
        let dir = tempfile::tempdir().unwrap();
        let new = |name: &str, creator: Option<&str>| NewApp {
            dir: dir.path().join(name),
            language: Language::Rust,
            name: None,
            creator: creator.map(str::to_string),
            checkout: None,
        };
        std::fs::create_dir(dir.path().join("full")).unwrap();
        std::fs::write(dir.path().join("full/x"), "").unwrap();
        let e = create(&new("full", None)).unwrap_err();
        assert!(crate::error::is_bad_input(&e));
        assert!(
            e.to_string().ends_with(
                "full exists and is not an empty directory: palm-build new makes a new one"
            ),
            "{e}"
        );
        let e = create(&new("9lives", None)).unwrap_err();
        assert!(e.to_string().contains("is the app's package name"), "{e}");
        let e = create(&new("ok", Some("toolong"))).unwrap_err();
        assert!(crate::error::is_bad_input(&e));
        assert!(e.to_string().starts_with("--creator \"toolong\": "), "{e}");
    }
}

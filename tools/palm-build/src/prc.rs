//! Stage 7: package an application image and its resources as a PRC.
//!
//! The resources a 68k application needs, as prc-tools' build-prc emits them
//! (PALM_FACTS §1.6): `code` 0 (the A5-world descriptor), `code` 1 (the
//! image, entry at offset 0), `data` 0 (the empty form: no globals), `pref` 0
//! (priority, stack size, heap space), `tAIN` 1000 (launcher name) and
//! `tver` 1 (version string), plus the app's own UI resources (compiled from
//! `.rcp` by the caller). prc-tools' `rloc` 0 is not needed: there is
//! nothing to relocate.
//!
//! Settings come from the crate's Cargo.toml:
//!
//! ```toml
//! [package.metadata.palm]
//! name = "StarterApp"        # database name (≤ 31 bytes); default: the package name
//! creator = "MDst"           # creator ID: four ASCII characters (required)
//! launcher-name = "memdbg"   # tAIN 1000; default: `name` (a .rcp APPLICATIONICONNAME wins)
//! version = "1.0"            # tver 1; default: the package version (a .rcp VERSION wins)
//! stack-size = 4096          # pref 0 stack size in bytes (default 4096, as build-prc)
//! resources = ["../rsrc/StarterApp.rcp"]   # .rcp files, relative to the crate
//! macsbug-names = false      # no MacsBug names after the functions (default: true; crate::macsbug)
//! asm = ["asm/fast.s"]       # the crate's own 68000 assembly (see the crate docs)
//! ```

use std::path::PathBuf;

use anyhow::{Context, Result, anyhow, bail};
use palm_prc::{Database, FourCC, Header, Resource, app, hdr_attr};
use serde_json::Value;

use crate::Image;
use crate::cargo::Package;

/// Largest resource in bytes: one chunk, `memMaxChunkAllocSize` = 0xFFFF − 30
/// (MemoryPrv.h; PALM_FACTS §5.2).
pub const MAX_RESOURCE_BYTES: usize = 65_505;

/// Largest `stack-size`: the stack is one dynamic-heap chunk (at most
/// `memMaxChunkAllocSize`, 65,505 bytes), and palm-run, like the OS, wants
/// room to spare: 60 KB.
pub const MAX_STACK_BYTES: u32 = 61_440;

/// The application settings from `[package.metadata.palm]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AppMeta {
    /// Database name (what `DmFindDatabase` and emulators' "launch" use).
    pub name: String,
    /// Creator ID.
    pub creator: FourCC,
    /// Launcher name (`tAIN` 1000).
    pub launcher_name: String,
    /// Version string (`tver` 1).
    pub version: String,
    /// Stack size in bytes (`pref` 0).
    pub stack_size: u32,
    /// `.rcp` files to compile, as absolute paths.
    pub resources: Vec<PathBuf>,
}

impl AppMeta {
    /// Reads the settings of `pkg`.
    ///
    /// # Errors
    /// A missing or malformed `creator`, a name over 31 bytes, a field of the
    /// wrong type.
    pub fn from_package(pkg: &Package) -> Result<AppMeta> {
        let manifest = pkg.dir.join("Cargo.toml");
        AppMeta::read(pkg).with_context(|| format!("{}", manifest.display()))
    }

    fn read(pkg: &Package) -> Result<AppMeta> {
        let m = &pkg.palm_metadata;
        // (`asm` is read by the build, `cargo::asm_list`, for any crate.)
        const KEYS: [&str; 8] = [
            "name",
            "creator",
            "launcher-name",
            "version",
            "stack-size",
            "resources",
            crate::macsbug::METADATA_KEY,
            "asm",
        ];
        match m {
            Value::Null => {}
            Value::Object(fields) => {
                for key in fields.keys() {
                    if !KEYS.contains(&key.as_str()) {
                        bail!(
                            "[package.metadata.palm] has no setting `{key}`; the settings are: {}",
                            KEYS.join(", ")
                        );
                    }
                }
            }
            other => bail!("[package.metadata.palm] must be a table, not {other}"),
        }
        let text = |key: &str| -> Result<Option<String>> {
            match &m[key] {
                Value::Null => Ok(None),
                Value::String(s) => Ok(Some(s.clone())),
                other => bail!("[package.metadata.palm] {key} must be a string, not {other}"),
            }
        };
        let creator = text("creator")?.ok_or_else(|| {
            anyhow!(
                "[package.metadata.palm] needs creator = \"XXXX\" (the app's unique creator ID)"
            )
        })?;
        let stack_size = match &m["stack-size"] {
            Value::Null => None,
            v => Some(v.as_u64().unwrap_or(0)),
        };
        AppMeta::from_settings(
            Settings {
                name: text("name")?.unwrap_or_else(|| pkg.name.clone()),
                creator,
                launcher_name: text("launcher-name")?,
                version: text("version")?.unwrap_or_else(|| pkg.version.clone()),
                stack_size,
                resources: resource_files(pkg)?,
            },
            &|key| format!("[package.metadata.palm] {key}"),
        )
    }

    /// Checks `s` and makes the settings of it; `key` names a setting in
    /// messages (`[package.metadata.palm] creator`, `--creator`).
    ///
    /// # Errors
    /// A database name that is not 1–31 printable ASCII characters (or holds
    /// `/`, `\\` or starts with `.`), a creator that is not four characters
    /// (`FourCC`'s rules), a stack size that is odd or out of 1024–
    /// [`MAX_STACK_BYTES`].
    pub fn from_settings(s: Settings, key: &dyn Fn(&str) -> String) -> Result<AppMeta> {
        let name = s.name;
        if name.is_empty()
            || name.len() > 31
            || !name.bytes().all(|b| b.is_ascii_graphic() || b == b' ')
            || name.contains(['/', '\\'])
            || name.starts_with('.')
        {
            bail!(
                "{} {name:?}: a database name is 1–31 printable ASCII characters (not `/`, \
                 `\\` or a leading `.`: it also names target/palm/NAME.prc)",
                key("name")
            );
        }
        let creator: FourCC = s
            .creator
            .parse()
            .map_err(|e| anyhow!("{} {:?}: {e}", key("creator"), s.creator))?;
        let stack_size = match s.stack_size {
            None => app::PREF0_DEFAULT_STACK_SIZE,
            Some(n) => u32::try_from(n)
                .ok()
                .filter(|&n| (1024..=MAX_STACK_BYTES).contains(&n) && n % 2 == 0)
                .ok_or_else(|| {
                    anyhow!(
                        "{} must be an even number of bytes, 1024–{MAX_STACK_BYTES}",
                        key("stack-size")
                    )
                })?,
        };
        Ok(AppMeta {
            launcher_name: s.launcher_name.unwrap_or_else(|| name.clone()),
            version: s.version,
            name,
            creator,
            stack_size,
            resources: s.resources,
        })
    }
}

/// An application's settings as given, before [`AppMeta::from_settings`]
/// checks them.
#[derive(Clone, Debug, Default)]
pub struct Settings {
    /// Database name.
    pub name: String,
    /// Creator ID, as written.
    pub creator: String,
    /// Launcher name (`None`: the database name).
    pub launcher_name: Option<String>,
    /// Version string.
    pub version: String,
    /// Stack size in bytes (`None`: 4096).
    pub stack_size: Option<u64>,
    /// `.rcp` files.
    pub resources: Vec<PathBuf>,
}

/// The `.rcp` files `[package.metadata.palm] resources` lists, as paths
/// joined to the crate's directory.
///
/// # Errors
/// `resources` is not a list of strings.
pub fn resource_files(pkg: &Package) -> Result<Vec<PathBuf>> {
    match &pkg.palm_metadata["resources"] {
        Value::Null => Ok(Vec::new()),
        Value::Array(items) => items
            .iter()
            .map(|v| {
                v.as_str()
                    .map(|p| pkg.dir.join(p))
                    .ok_or_else(|| anyhow!("[package.metadata.palm] resources must be file names"))
            })
            .collect(),
        other => bail!("[package.metadata.palm] resources must be a list, not {other}"),
    }
}

/// Compiles the `.rcp` files of `meta` into resources (before any code is
/// built: `build_app` and `build_c_app` call it first).
///
/// # Errors
/// A resource compiler error (file, line and column), or a resource type and
/// ID that two of the files define (naming both files and lines; palm-rcp
/// finds one defined twice in one file).
pub fn compile_resources(meta: &AppMeta) -> Result<Vec<Resource>> {
    let mut out = Vec::new();
    // Where each resource of `out` is defined.
    let mut origins: Vec<(String, u32)> = Vec::new();
    for path in &meta.resources {
        let compiled = palm_rcp::compile_file_opts(
            path,
            &palm_rcp::FsIncludes::default(),
            &palm_rcp::Options::default(),
        )
        .map_err(|e| anyhow!("{e}"))?;
        for (r, (file, line)) in compiled.resources.into_iter().zip(compiled.origins) {
            let kind = FourCC::new(r.kind);
            if let Some(i) = out
                .iter()
                .position(|o: &Resource| o.kind == kind && o.id == r.id)
            {
                bail!(
                    "{file}:{line}: resource {kind} {} is defined here and at {}:{}: a resource \
                     type and ID can be defined only once in an app's .rcp files",
                    r.id,
                    origins[i].0,
                    origins[i].1
                );
            }
            out.push(Resource {
                kind,
                id: r.id,
                data: r.data,
            });
            origins.push((file, line));
        }
    }
    Ok(out)
}

/// Builds the PRC of an application `image` with its UI `resources`.
/// `creation_date` is in seconds since 1904-01-01 (Palm epoch). Returns the
/// file's bytes and the number of resources in it.
///
/// # Errors
/// The image is not an application (entry not at 0), two resources share a
/// type and ID, or the PRC writer refuses a field.
pub fn build_prc(
    image: &Image,
    meta: &AppMeta,
    resources: Vec<Resource>,
    creation_date: u32,
) -> Result<(Vec<u8>, usize)> {
    if image.entry != 0 {
        bail!("{}: the entry is not at offset 0", image.elf.display());
    }
    build_prc_from_code(&image.code, meta, resources, creation_date)
}

/// [`build_prc`] for code 1 bytes made some other way (a C application linked
/// by [`crate::link_objects`], whose verifier checked the entry at offset 0).
///
/// # Errors
/// Two resources share a type and ID, or the PRC writer refuses a field.
pub fn build_prc_from_code(
    code: &[u8],
    meta: &AppMeta,
    resources: Vec<Resource>,
    creation_date: u32,
) -> Result<(Vec<u8>, usize)> {
    build_prc_from_parts(&AppParts::no_globals(code), meta, resources, creation_date)
}

/// The resources an application's code makes: `code` 0 (its A5 world), the
/// code resources, `data` 0 and, in prc-tools' layout, `rloc` 0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AppParts {
    /// Bytes above A5 (`code` 0): at least the 40 of prc-tools' `code` 0
    /// ([`app::CODE0_ABOVE_A5`]).
    pub above_a5: u32,
    /// Bytes of globals below A5 (`code` 0).
    pub below_a5: u32,
    /// Code 1, 2, … in order.
    pub code: Vec<Vec<u8>>,
    /// `data` 0.
    pub data0: Vec<u8>,
    /// `rloc` 0, when the app relocates itself (prc-tools' layout).
    pub rloc0: Option<Vec<u8>>,
}

impl AppParts {
    /// An application of one code resource and no globals: 0 bytes below A5,
    /// the 40-byte reserved area above it, the empty `data` 0.
    pub fn no_globals(code1: &[u8]) -> AppParts {
        AppParts {
            above_a5: app::CODE0_ABOVE_A5,
            below_a5: 0,
            code: vec![code1.to_vec()],
            data0: app::data0_no_globals(),
            rloc0: None,
        }
    }
}

/// [`build_prc_from_code`] for an application of any [`AppParts`] (a C
/// application in prc-tools' layout, [`crate::segments`]).
///
/// # Errors
/// Two resources share a type and ID, a resource is over
/// [`MAX_RESOURCE_BYTES`], or the PRC writer refuses a field.
pub fn build_prc_from_parts(
    parts: &AppParts,
    meta: &AppMeta,
    resources: Vec<Resource>,
    creation_date: u32,
) -> Result<(Vec<u8>, usize)> {
    let has = |kind: FourCC, id: u16| resources.iter().any(|r| r.kind == kind && r.id == id);
    let mut all = vec![Resource {
        kind: app::CODE,
        id: 0,
        data: app::code0(parts.above_a5, parts.below_a5),
    }];
    for (code, id) in parts.code.iter().zip(1u16..) {
        all.push(Resource {
            kind: app::CODE,
            id,
            data: code.clone(),
        });
    }
    all.push(Resource {
        kind: app::DATA,
        id: 0,
        data: parts.data0.clone(),
    });
    if let Some(rloc) = &parts.rloc0 {
        all.push(Resource {
            kind: app::RLOC,
            id: 0,
            data: rloc.clone(),
        });
    }
    all.push(Resource {
        kind: app::PREF,
        id: 0,
        data: app::pref0(
            app::PREF0_DEFAULT_PRIORITY,
            meta.stack_size,
            app::PREF0_DEFAULT_MIN_HEAP,
        ),
    });
    if !has(app::TAIN, app::AIN_ID) {
        all.push(Resource {
            kind: app::TAIN,
            id: app::AIN_ID,
            data: app::tain(&meta.launcher_name)?,
        });
    }
    if !has(app::TVER, app::APP_VERSION_ID) {
        all.push(Resource {
            kind: app::TVER,
            id: app::APP_VERSION_ID,
            data: app::tver(&meta.version)?,
        });
    }
    for r in resources {
        if all.iter().any(|a| a.kind == r.kind && a.id == r.id) {
            bail!("resource {} {} is defined twice", r.kind, r.id);
        }
        all.push(r);
    }
    if let Some(r) = all.iter().find(|r| r.data.len() > MAX_RESOURCE_BYTES) {
        bail!(
            "resource {} {} is {} bytes; a Palm OS resource is one storage-heap chunk of at \
             most {MAX_RESOURCE_BYTES} bytes (memMaxChunkAllocSize, MemoryPrv.h)",
            r.kind,
            r.id,
            r.data.len()
        );
    }
    let mut header = Header::new(meta.name.as_bytes(), app::APPL, meta.creator);
    header.attributes = hdr_attr::BACKUP;
    header.version = 1;
    header.creation_date = creation_date;
    header.modification_date = creation_date;
    let count = all.len();
    let bytes = Database::new_resources(header, all)
        .to_bytes()
        .context("writing the PRC")?;
    Ok((bytes, count))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn package(meta: Value) -> Package {
        Package {
            name: "my-app".into(),
            version: "0.3.1".into(),
            lib_name: "my_app".into(),
            dir: PathBuf::from("/src/my-app"),
            workspace_root: PathBuf::from("/src"),
            target_dir: PathBuf::from("/src/target"),
            palm_metadata: meta,
            setup_warnings: Vec::new(),
        }
    }

    #[test]
    fn settings_and_defaults() {
        let meta = AppMeta::from_package(&package(json!({
            "name": "MyApp", "creator": "MyAp", "resources": ["rsrc/a.rcp"]
        })))
        .unwrap();
        assert_eq!(meta.name, "MyApp");
        assert_eq!(meta.launcher_name, "MyApp");
        assert_eq!(meta.version, "0.3.1");
        assert_eq!(meta.stack_size, 4096);
        assert_eq!(
            meta.resources,
            vec![PathBuf::from("/src/my-app/rsrc/a.rcp")]
        );
    }

    #[test]
    fn unknown_settings_and_bad_values_name_the_manifest() {
        let err = AppMeta::from_package(&package(json!({
            "creator": "MyAp", "resource": ["a.rcp"]
        })))
        .unwrap_err();
        let msg = format!("{err:#}");
        assert!(msg.starts_with("/src/my-app/Cargo.toml: "), "{msg}");
        assert!(
            msg.contains("no setting `resource`; the settings are: name, creator"),
            "{msg}"
        );
        let msg = format!(
            "{:#}",
            AppMeta::from_package(&package(json!({}))).unwrap_err()
        );
        assert!(msg.contains("needs creator"), "{msg}");
        let msg = format!(
            "{:#}",
            AppMeta::from_package(&package(json!({"creator": "MyAp", "stack-size": 3})))
                .unwrap_err()
        );
        assert!(msg.contains("stack-size must be an even number"), "{msg}");
    }

    /// Finding: a `VERSION ID 1` in two .rcp files was found only after the
    /// whole compile, as "resource 'tver' 1 is defined twice", naming neither
    /// file. compile_resources (run before any code is built) names both.
    #[test]
    fn a_resource_two_rcp_files_define_names_both() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.rcp");
        let b = dir.path().join("b.rcp");
        std::fs::write(&a, "VERSION ID 1 \"1.0\"\n").unwrap();
        std::fs::write(&b, "STRING ID 5 \"x\"\n\nVERSION ID 1 \"2.0\"\n").unwrap();
        let mut meta = AppMeta::from_package(&package(json!({"creator": "MyAp"}))).unwrap();
        meta.resources = vec![a.clone(), b.clone()];
        let msg = format!("{:#}", compile_resources(&meta).unwrap_err());
        assert_eq!(
            msg,
            format!(
                "{}:3: resource 'tver' 1 is defined here and at {}:1: a resource type and ID \
                 can be defined only once in an app's .rcp files",
                b.display(),
                a.display()
            )
        );
        meta.resources = vec![a];
        assert_eq!(compile_resources(&meta).unwrap().len(), 1);
    }

    #[test]
    fn resources_over_one_chunk_are_refused() {
        let meta = AppMeta::from_package(&package(json!({"creator": "MyAp"}))).unwrap();
        let image = Image {
            elf: PathBuf::from("app.elf"),
            code: vec![0x4E, 0x75],
            symbols: Default::default(),
            entry: 0,
            package: package(Value::Null),
            repairs: Vec::new(),
            verified: crate::verify::Verified {
                text_bytes: 2,
                rodata_bytes: 0,
                instructions: 1,
                ..Default::default()
            },
            asm_constants: Default::default(),
        };
        let big = Resource {
            kind: FourCC::new(*b"tSTR"),
            id: 1000,
            data: vec![b'a'; MAX_RESOURCE_BYTES + 1],
        };
        let msg = format!("{:#}", build_prc(&image, &meta, vec![big], 0).unwrap_err());
        assert!(msg.contains("resource 'tSTR' 1000 is 65506 bytes"), "{msg}");
        let (bytes, count) = build_prc(&image, &meta, Vec::new(), 0).unwrap();
        assert_eq!(count, 6);
        let db = Database::parse(&bytes).unwrap();
        assert_eq!(db.resource(app::CODE, 1).unwrap().data, vec![0x4E, 0x75]);
    }
}

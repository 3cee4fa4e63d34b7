//! The end-to-end harness of memdbg's test apps (`tests/app`, `tests/app2`): build an
//! app for the 68000 with palm-build, launch one of its scenarios in palm-run (the
//! scenario number in feature (creator, 0)), export the `MemDbgDB` it leaves and
//! decode it with `memdbg::record`. Lines the tests check carry a `@mark name`
//! comment in the app's source: [`TestApp::line`] finds their numbers, so an
//! expected ledger names exact files and lines.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::OnceLock;

use memdbg::record::{
    AllocFlags, AllocRecord, Counters, FORMAT_VERSION, FileName, Frame, HEADER_SIZE, Header,
    HeaderFlags, Record, crc32, kind,
};
use palm_prc::{Content, Database, FourCC};
use palm_run::{Config, Machine};

/// One of memdbg's test apps, built once per test binary on first use.
pub struct TestApp {
    /// The app's directory, relative to memdbg/ (`tests/app`).
    pub dir: &'static str,
    /// The database name of its PRC (`[package.metadata.palm] name`).
    pub name: &'static str,
    /// Its creator ID; feature (creator, 0) selects the scenario.
    pub creator: u32,
    built: OnceLock<Built>,
}

/// What building a [`TestApp`] produced.
pub struct Built {
    /// The PRC's bytes.
    pub prc: Vec<u8>,
    /// Code resource 1's bytes, as the linker produced them.
    pub code1: Vec<u8>,
    /// The linked ELF (DWARF for the report's sites).
    pub elf: PathBuf,
    /// `@mark` name → 1-based line in `src/lib.rs`.
    marks: HashMap<String, u16>,
}

impl TestApp {
    /// The app in `memdbg/<dir>` (its `src/lib.rs` holds the scenarios), named
    /// `name`, with creator `creator` (four ASCII bytes).
    pub const fn new(dir: &'static str, name: &'static str, creator: [u8; 4]) -> Self {
        Self {
            dir,
            name,
            creator: u32::from_be_bytes(creator),
            built: OnceLock::new(),
        }
    }

    /// The app, built (once) into `<target>/palm/<name>.prc`.
    ///
    /// # Panics
    /// The build fails, or a `@mark` name is used twice.
    pub fn built(&self) -> &Built {
        self.built.get_or_init(|| {
            let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
            let built = super::build_app(&format!("{}/Cargo.toml", self.dir));
            let source = std::fs::read_to_string(dir.join(self.dir).join("src/lib.rs")).unwrap();
            let mut marks = HashMap::new();
            for (i, l) in source.lines().enumerate() {
                if let Some(at) = l.find("// @mark ") {
                    let name = l[at + 9..].split_whitespace().next().unwrap().to_string();
                    assert!(
                        marks.insert(name, (i + 1) as u16).is_none(),
                        "duplicate mark"
                    );
                }
            }
            Built {
                prc: std::fs::read(&built.prc).unwrap(),
                code1: built.image.code.clone(),
                elf: built.elf.clone(),
                marks,
            }
        })
    }

    /// The app's source as `file!()` sees it: relative to the workspace root.
    pub fn source(&self) -> String {
        format!("memdbg/{}/src/lib.rs", self.dir)
    }

    /// The source file name as a ledger record stores it (its last 31 bytes).
    pub fn file_name(&self) -> String {
        String::from_utf8(FileName::new(self.source().as_bytes()).bytes().to_vec()).unwrap()
    }

    /// The line of `// @mark <mark>` in the app's source.
    ///
    /// # Panics
    /// No such mark.
    pub fn line(&self, mark: &str) -> u16 {
        *self
            .built()
            .marks
            .get(mark)
            .unwrap_or_else(|| panic!("no `@mark {mark}` in the app source"))
    }

    /// Every line of the app's source in the inline chain of code 1 frame `f`
    /// (innermost first), through the ELF's DWARF: the call just before the
    /// return address (`off - 2` lies inside the call instruction).
    pub fn inline_lines(&self, f: Frame) -> Vec<u16> {
        let Frame::Code(off) = f else {
            return Vec::new();
        };
        let file = format!("{}/src/lib.rs", self.dir);
        let dwarf = addr2line::Loader::new(&self.built().elf).unwrap();
        let mut frames = dwarf.find_frames(u64::from(off - 2)).unwrap();
        let mut out = Vec::new();
        while let Ok(Some(fr)) = frames.next() {
            if let Some(loc) = fr.location
                && loc.file.is_some_and(|f| f.ends_with(&file))
                && let Some(l) = loc.line
            {
                out.push(l as u16);
            }
        }
        out
    }

    /// The source line of a code 1 frame in the app's source: the innermost
    /// of [`Self::inline_lines`] (the trap glue is inlined from palm-sys).
    pub fn site_line(&self, f: Option<Frame>) -> Option<u16> {
        self.inline_lines(f?).first().copied()
    }

    /// A fresh machine with the app installed.
    pub fn machine(&self, config: &Config) -> Machine {
        let mut m = Machine::with_config(config).unwrap();
        m.install(&self.built().prc).unwrap();
        m
    }

    /// Launches `scenario` on a fresh machine (after `setup`); asserts that the app
    /// ran to its end and its own checks passed (result 0).
    pub fn launch_with(
        &self,
        scenario: u32,
        config: &Config,
        setup: impl FnOnce(&mut Machine),
    ) -> (Machine, palm_run::Outcome) {
        let mut m = self.machine(config);
        m.os.ftr.features.insert((self.creator, 0), scenario);
        // MEMDBG_TRACE=1: print every OS call and everything the run prints.
        if std::env::var_os("MEMDBG_TRACE").is_some() {
            m.trace_traps = true;
            m.echo = true;
        }
        setup(&mut m);
        let outcome = m.launch(self.name).unwrap();
        assert!(
            outcome.stop.is_none(),
            "scenario {scenario} stopped: {:?}\n{}",
            outcome.stop,
            m.output.join("\n")
        );
        assert_eq!(
            outcome.result,
            Some(0),
            "scenario {scenario}: in-app check failed\n{}",
            m.output.join("\n")
        );
        (m, outcome)
    }

    /// Launches `scenario` on a fresh machine (after `setup`) and decodes the ledger.
    pub fn run_with(
        &self,
        scenario: u32,
        config: &Config,
        setup: impl FnOnce(&mut Machine),
    ) -> Run {
        let (m, outcome) = self.launch_with(scenario, config, setup);
        let pdb = m.export("MemDbgDB").unwrap();
        let db = Database::parse(&pdb).unwrap();
        assert_eq!(db.header.name, b"MemDbgDB");
        assert_eq!(db.header.kind, FourCC::new(*b"LEAK"));
        assert_eq!(db.header.creator, FourCC::new(*b"MDbg"));
        let Content::Records(recs) = &db.content else {
            panic!("MemDbgDB is a resource database")
        };
        let header = Header::decode(&recs[0].data).unwrap();
        let records = recs[1..]
            .iter()
            .enumerate()
            .map(|(i, r)| {
                Record::decode(&r.data).unwrap_or_else(|e| panic!("record {}: {e}", i + 1))
            })
            .collect();
        Run {
            machine: m,
            outcome,
            header,
            records,
        }
    }

    /// [`TestApp::run_with`] with palm-run's default configuration.
    pub fn run(&self, scenario: u32) -> Run {
        self.run_with(scenario, &Config::default(), |_| {})
    }

    /// The comparable part of an allocation record made at `mark` in the app.
    pub fn alloc(&self, kind: u8, flags: AllocFlags, size: u32, mark: &str) -> Alloc {
        Alloc {
            kind,
            flags,
            size,
            file: FileName::new(self.source().as_bytes()).bytes().to_vec(),
            line: self.line(mark),
        }
    }

    /// The sequence number of the leak allocated at `mark` (its record in the
    /// ledger), which memdbg's leak alert names.
    ///
    /// # Panics
    /// Not exactly one such record.
    pub fn seq(&self, r: &Run, mark: &str) -> u32 {
        let l = self.line(mark);
        let found: Vec<u32> = r
            .records
            .iter()
            .filter_map(|x| match x {
                Record::Alloc(a)
                    if a.line.get() == l && !a.alloc_flags().contains(AllocFlags::FREED_UNSEEN) =>
                {
                    Some(a.seq.get())
                }
                _ => None,
            })
            .collect();
        assert_eq!(found.len(), 1, "{mark}: {found:?}");
        found[0]
    }

    /// Header checks every clean run of this app shares: its name, creator, code 1
    /// (base, size, CRC-32), a closed ledger, no patch left, and palm-run's
    /// debug-ROM sweep matching the leaks ([`assert_sweep_matches`]).
    pub fn assert_clean_header(&self, r: &Run) {
        let h = &r.header;
        let built = self.built();
        assert_eq!(h.app_name_bytes(), self.name.as_bytes());
        assert_eq!(h.app_creator.get(), self.creator);
        let base = r.machine.os.sys.code1_base.expect("code 1 base");
        assert_eq!(h.code_base.get(), base, "code 1 base");
        assert!(h.code_size.get() as usize >= built.prc.len() / 2);
        // Format version 2: code 1's size and CRC-32, so that the report can refuse
        // the ELF of another build.
        assert_eq!(
            (h.version, h.stored_bytes().len()),
            (FORMAT_VERSION, HEADER_SIZE)
        );
        assert_eq!(h.code_size.get() as usize, built.code1.len());
        assert_eq!(
            h.code_checksum(),
            Some(crc32(&built.code1)),
            "code 1 CRC-32 (header {:#010X})",
            h.code_crc.get()
        );
        assert!(h.stop_ticks.get() >= h.start_ticks.get());
        assert!(!r.flags().contains(HeaderFlags::RUNNING));
        assert!(
            r.outcome.patches_left.is_empty(),
            "{:?}",
            r.outcome.patches_left
        );
        assert_sweep_matches(r);
    }
}

/// What a scenario left behind.
pub struct Run {
    /// The machine after the app's exit.
    pub machine: Machine,
    /// palm-run's outcome of the launch.
    pub outcome: palm_run::Outcome,
    /// The ledger's header (record 0).
    pub header: Header,
    /// The other records, decoded, in the database's order.
    pub records: Vec<Record>,
}

impl Run {
    /// The allocation records.
    pub fn allocs(&self) -> Vec<AllocRecord> {
        self.records
            .iter()
            .filter_map(|r| match r {
                Record::Alloc(a) => Some(*a),
                _ => None,
            })
            .collect()
    }

    /// Event records other than small-allocation sites (and not the leaks'
    /// contents).
    pub fn events(&self) -> Vec<Record> {
        self.records
            .iter()
            .filter(|r| {
                !matches!(
                    r,
                    Record::Alloc(_) | Record::SmallSite(_) | Record::Contents(_)
                )
            })
            .copied()
            .collect()
    }

    /// The header's counters.
    pub fn counters(&self) -> &Counters {
        &self.header.counters
    }

    /// The header's flags.
    pub fn flags(&self) -> HeaderFlags {
        self.header.header_flags()
    }

    /// memdbg's alerts: the messages of the ROM's ErrOKAlert (10021) the run showed,
    /// its title ("Error: ") taken off.
    pub fn alerts(&self) -> Vec<String> {
        self.machine
            .os
            .ui
            .alerts
            .iter()
            .map(|(id, text)| {
                assert_eq!(*id, 10021, "{text}");
                text.strip_prefix("Error: ").unwrap_or(text).to_string()
            })
            .collect()
    }

    /// The run's `DbgMessage` lines.
    pub fn dbg_messages(&self) -> &[String] {
        &self.machine.os.sys.dbg_messages
    }
}

/// The comparable part of an allocation record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Alloc {
    /// Record kind.
    pub kind: u8,
    /// Allocation flags.
    pub flags: AllocFlags,
    /// Requested size, bytes.
    pub size: u32,
    /// File name as stored.
    pub file: Vec<u8>,
    /// Line.
    pub line: u16,
}

/// The comparable part of `a`.
pub fn seen(a: &AllocRecord) -> Alloc {
    Alloc {
        kind: a.kind,
        flags: a.alloc_flags(),
        size: a.size.get(),
        file: a.file.bytes().to_vec(),
        line: a.line.get(),
    }
}

/// The comparable part of every allocation record of `r`, in ledger order.
pub fn seen_all(r: &Run) -> Vec<Alloc> {
    r.allocs().iter().map(seen).collect()
}

/// palm-run's debug-ROM sweep at exit (chunks still owned by the app) finds exactly
/// the blocks the ledger lists as leaks: same addresses, and chunk sizes that are the
/// requested sizes plus the guard. `MemChunkNew` chunks are left out: their owner is
/// in `attr` (0, the system, in these tests), so no sweep sees them; so are blocks
/// handed off (their owner is no longer the app's) and blocks freed unseen.
pub fn assert_sweep_matches(r: &Run) {
    let mut swept: Vec<(u32, u32)> = r
        .outcome
        .leaks
        .iter()
        .map(|l| (l.handle.unwrap_or(l.address), l.size))
        .collect();
    let mut ours: Vec<(u32, u32)> = r
        .allocs()
        .iter()
        .filter(|a| {
            a.kind != kind::CHUNK
                && !a
                    .alloc_flags()
                    .intersects(AllocFlags::HANDED_OFF | AllocFlags::FREED_UNSEEN)
        })
        .map(|a| {
            let guard = if a.alloc_flags().contains(AllocFlags::GUARDED) {
                4
            } else {
                0
            };
            (a.address.get(), a.size.get() + guard)
        })
        .collect();
    swept.sort();
    ours.sort();
    assert_eq!(swept, ours, "OS sweep vs ledger leaks");
}

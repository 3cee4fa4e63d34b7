//! Generations in the report, from a real ledger: memdbg's second test app
//! (`memdbg/tests/app2`) is built for the 68000 by palm-build and its scenario 50
//! (a loop of 5 passes, each starting with `memdbg::checkpoint`, that opens and
//! closes a handle and leaks one 16-byte pointer) run in palm-run; the MemDbgDB
//! it leaves is reported by the `memdbg` binary with and without `--since`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use memdbg_report::Ledger;
use palm_run::{Config, Machine};

const CREATOR: u32 = u32::from_be_bytes(*b"MDtB");
const SRC: &str = "memdbg/tests/app2/src/lib.rs";

/// Scenario 50's ledger, exported once to `<target>/palm/generations/MemDbgDB.pdb`.
fn loop_ledger() -> &'static PathBuf {
    static LEDGER: OnceLock<PathBuf> = OnceLock::new();
    LEDGER.get_or_init(|| {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
        let target_dir = std::env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| root.join("target"));
        let built = palm_build::build_app(&palm_build::Options {
            manifest_path: root.join("memdbg/tests/app2/Cargo.toml"),
            target_dir: Some(target_dir.clone()),
            kind: palm_build::ImageKind::App,
            features: Vec::new(),
            quiet: true,
            raw_llvm: false,
            macsbug_names: true,
        })
        .unwrap_or_else(|e| panic!("building memdbg/tests/app2 failed: {e:#}"));
        let mut m = Machine::with_config(&Config::default()).unwrap();
        m.install(&std::fs::read(&built.prc).unwrap()).unwrap();
        m.os.ftr.features.insert((CREATOR, 0), 50);
        let out = m.launch("MemDbgTest2").unwrap();
        assert_eq!((out.stop, out.result), (None, Some(0)), "scenario 50");
        let dir = target_dir.join("palm").join("generations");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("MemDbgDB.pdb");
        std::fs::write(&path, m.export("MemDbgDB").unwrap()).unwrap();
        path
    })
}

fn memdbg(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_memdbg"))
        .arg("report")
        .arg(loop_ledger())
        .args(args)
        .output()
        .unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// The line of app2's source that carries `@mark name`.
fn mark(name: &str) -> usize {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let source = std::fs::read_to_string(root.join(SRC)).unwrap();
    source
        .lines()
        .position(|l| l.contains(&format!("// @mark {name}")))
        .unwrap_or_else(|| panic!("no @mark {name}"))
        + 1
}

/// The ledger's checkpoints as the report prints them, generation `from` on.
fn generation_lines(ledger: &Ledger, from: u8) -> Vec<String> {
    ledger
        .checkpoints
        .iter()
        .filter(|c| c.generation >= from)
        .map(|c| {
            let g = c.generation;
            let live = u32::from(g) - 1;
            format!(
                "  generation {g} from tick {} ({live} block{}, {} bytes live): 1 leak, 16 bytes: \
                 #{}",
                c.ticks.get(),
                if live == 1 { "" } else { "s" },
                16 * live,
                2 * u32::from(g)
            )
        })
        .collect()
}

#[test]
fn a_loop_leaking_once_per_pass_is_reported_per_generation() {
    let ledger = memdbg_report::read_ledger(loop_ledger()).unwrap();
    let o = memdbg(&[]);
    assert_eq!(o.status.code(), Some(1));
    let text = stdout(&o);
    let mut want = vec![
        "Leaks by generation (5 checkpoints):".to_string(),
        format!(
            "  generation 0 from the start (tick {}): no leaks",
            ledger.header.start_ticks.get()
        ),
    ];
    want.extend(generation_lines(&ledger, 1));
    let at = text.find("Leaks by generation").expect("the section");
    let got: Vec<&str> = text[at..].lines().take(want.len()).collect();
    assert_eq!(got, want, "{text}");
    assert_eq!(text.matches("leaked at 0x").count(), 5);
    assert!(text.contains(&format!(
        "5 leaks × 16 bytes from {SRC}:{}",
        mark("loop-leak")
    )));
    for g in 1..=5 {
        assert!(text.contains(&format!("size = 16 (guarded), generation {g}\n")));
    }
    assert!(text.contains("SUMMARY: memdbg: 80 byte(s) leaked in 5 allocation(s).\n"));
}

#[test]
fn since_3_lists_exactly_the_leaks_of_generations_3_to_5() {
    let ledger = memdbg_report::read_ledger(loop_ledger()).unwrap();
    let o = memdbg(&["--since", "3"]);
    assert_eq!(o.status.code(), Some(1));
    let text = stdout(&o);
    assert_eq!(text.matches("leaked at 0x").count(), 3, "{text}");
    for (i, g) in (3..=5).enumerate() {
        assert!(text.contains(&format!(
            "({} of 3): Non-relocatable chunk (pointer) leaked at",
            i + 1
        )));
        assert!(text.contains(&format!("size = 16 (guarded), generation {g}\n")));
    }
    assert!(!text.contains("generation 2\n") && !text.contains("generation 1\n"));
    let mut want =
        vec!["Leaks by generation (5 checkpoints; --since 3: generations 3 on):".to_string()];
    want.extend(generation_lines(&ledger, 3));
    let at = text.find("Leaks by generation").expect("the section");
    let got: Vec<&str> = text[at..].lines().take(want.len()).collect();
    assert_eq!(got, want, "{text}");
    assert!(text.contains(
        "SUMMARY: memdbg: 48 byte(s) leaked in 3 allocation(s); 32 byte(s) in 2 allocation(s) \
         before generation 3 (--since 3).\n"
    ));

    // The JSON: each block's generation, the checkpoints with their leaks.
    let o = memdbg(&["--since", "3", "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let generations: Vec<u64> = json["leaks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["generation"].as_u64().unwrap())
        .collect();
    assert_eq!(generations, [3, 4, 5]);
    assert_eq!(json["since"], 3);
    let checkpoints = json["checkpoints"].as_array().unwrap();
    let got: Vec<(u64, u64, u64, String)> = checkpoints
        .iter()
        .map(|c| {
            (
                c["generation"].as_u64().unwrap(),
                c["live_count"].as_u64().unwrap(),
                c["live_bytes"].as_u64().unwrap(),
                c["leaks"].to_string(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (1, 0, 0, "[]".to_string()),
            (2, 1, 16, "[]".to_string()),
            (3, 2, 32, "[1]".to_string()),
            (4, 3, 48, "[2]".to_string()),
            (5, 4, 64, "[3]".to_string()),
        ]
    );
    assert_eq!(checkpoints[4]["counters"]["allocations"], 8);
    assert_eq!(json["summary"]["before_since_leaks"], 2);
    assert_eq!(json["summary"]["before_since_bytes"], 32);
}

#[test]
fn a_bad_since_is_a_clear_error() {
    let o = memdbg(&["--since", "6"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(
        err.contains("--since 6: the ledger has generations 0 to 5 (5 checkpoints)"),
        "{err}"
    );
    for bad in ["256", "three"] {
        let o = memdbg(&["--since", bad]);
        assert_eq!(o.status.code(), Some(2), "--since {bad}");
        let err = String::from_utf8(o.stderr).unwrap();
        assert!(err.contains(&format!("invalid value '{bad}'")), "{err}");
    }
}

/// `memdbg diff --since N` checks N against both ledgers and names the side
/// that lacks generation N (OLD first).
#[test]
fn a_bad_since_in_a_diff_names_the_ledger() {
    let o = Command::new(env!("CARGO_BIN_EXE_memdbg"))
        .arg("diff")
        .arg(loop_ledger())
        .arg(loop_ledger())
        .args(["--since", "6"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(
        err.contains("OLD ledger: --since 6: the ledger has generations 0 to 5 (5 checkpoints)"),
        "{err}"
    );
    let o = Command::new(env!("CARGO_BIN_EXE_memdbg"))
        .arg("diff")
        .arg(loop_ledger())
        .arg(loop_ledger())
        .args(["--since", "5"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
}

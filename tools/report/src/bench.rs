//! The benchmark behind `memdbg bench`: a generated ledger of N records,
//! decoded and reported (text and JSON) with wall-clock timings.
//!
//! A `.pdb` holds at most 65,535 records (its entry count is 16 bits, and
//! memdbg's index capacity is a `u16` too), so the N-record run decodes the
//! records from memory with [`Ledger::from_records`] — the decoder a `.pdb` goes
//! through — and a separate step times reading a `.pdb` of the first 65,535.

use std::fmt;
use std::time::{Duration, Instant};

use memdbg::record::{
    self, AllocFlags, AllocRecord, AsBytes, Counters, DoubleFreeRecord, FileName, Header,
    OverrunRecord, SmallSiteRecord, Stack, U16Be, U32Be, detected, kind,
};

use crate::symbolize::{ElfSymbols, Symbolize};
use crate::{Format, Ledger, Options};

/// Timings of one benchmark run.
#[derive(Clone, Debug)]
pub struct BenchResult {
    /// Records in the generated ledger (header included).
    pub records: usize,
    /// Leak records among them.
    pub leaks: usize,
    /// Decoding all records.
    pub decode: Duration,
    /// Analysis (symbolization, suppressions, aggregation).
    pub analyze: Duration,
    /// Writing the text report.
    pub text: Duration,
    /// Size of the text report.
    pub text_bytes: usize,
    /// Writing the JSON report.
    pub json: Duration,
    /// Size of the JSON report.
    pub json_bytes: usize,
    /// Records in the `.pdb` step (at most 65,535).
    pub pdb_records: usize,
    /// Parsing and decoding that `.pdb`.
    pub pdb_read: Duration,
    /// Whether frames were symbolized (an ELF was given).
    pub symbolized: bool,
}

impl BenchResult {
    /// Decode, analysis and text report: the time `memdbg report` takes on
    /// the ledger (file reading aside).
    pub fn report_time(&self) -> Duration {
        self.decode + self.analyze + self.text
    }
}

impl fmt::Display for BenchResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        writeln!(
            f,
            "memdbg bench: {} records ({} leaks), frames {}",
            self.records,
            self.leaks,
            if self.symbolized {
                "symbolized from the ELF"
            } else {
                "not symbolized (no --elf)"
            }
        )?;
        writeln!(f, "  decode records        {:8.1} ms", ms(self.decode))?;
        writeln!(f, "  analyze               {:8.1} ms", ms(self.analyze))?;
        writeln!(
            f,
            "  write text            {:8.1} ms ({} bytes)",
            ms(self.text),
            self.text_bytes
        )?;
        writeln!(
            f,
            "  write JSON            {:8.1} ms ({} bytes)",
            ms(self.json),
            self.json_bytes
        )?;
        writeln!(
            f,
            "  read .pdb ({} recs) {:8.1} ms",
            self.pdb_records,
            ms(self.pdb_read)
        )?;
        write!(
            f,
            "report of {} records: {:.3} s (decode + analyze + text; target < 0.3 s)",
            self.records,
            self.report_time().as_secs_f64()
        )
    }
}

/// A writer that only counts bytes (the report's destination is not timed).
struct Counter(usize);

impl std::io::Write for Counter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A small deterministic generator (64-bit LCG, high bits).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: u32) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % u64::from(n.max(1))) as u32
    }
}

fn stack(rng: &mut Lcg, pool: &[u32]) -> Stack {
    let mut s = Stack {
        count: record::STACK_FRAMES as u8,
        ..Stack::default()
    };
    for f in s.frames.iter_mut() {
        f.set(pool[rng.next(pool.len() as u32) as usize]);
    }
    // The outermost frame is the OS's launch code (a raw address).
    s.raw_mask = 1 << (record::STACK_FRAMES - 1);
    s.frames[record::STACK_FRAMES - 1].set(0x1002_4680);
    s
}

fn alloc(rng: &mut Lcg, seq: u32, pool: &[u32]) -> AllocRecord {
    const KINDS: [u8; 4] = [kind::POINTER, kind::HANDLE, kind::CHUNK, kind::RUST];
    let k = KINDS[(seq % 4) as usize];
    let (file, line) = if k == kind::RUST {
        (FileName::default(), 0)
    } else {
        let f = format!("src/module{}.rs", rng.next(40));
        (FileName::new(f.as_bytes()), 10 + rng.next(200) as u16)
    };
    let mut flags = AllocFlags::GUARDED;
    if k == kind::HANDLE {
        flags |= AllocFlags::HANDLE;
    }
    AllocRecord {
        kind: k,
        version: record::FORMAT_VERSION,
        flags: U16Be::new(flags.bits()),
        size: U32Be::new(1 + rng.next(512)),
        address: U32Be::new(seq.wrapping_mul(16).wrapping_add(0x0001_0000)),
        seq: U32Be::new(seq),
        ticks: U32Be::new(seq.wrapping_add(1000)),
        line: U16Be::new(line),
        data_offset: U16Be::new(0),
        stack: stack(rng, pool),
        file,
        generation: 0,
        reserved: 0,
    }
}

/// The records (record 0 first) of a generated ledger of `records` records
/// whose frames are code 1 offsets below `code_size`: mostly leaks of all four
/// kinds from 40 files (Rust allocations with stacks only), one overrun and
/// one double free per 100 records, one small-allocation site per 250.
pub fn generate(records: usize, code_size: u32) -> Vec<Vec<u8>> {
    let mut rng = Lcg(0x6d65_6d64_6267);
    // 256 distinct even return addresses inside code 1.
    let pool: Vec<u32> = (0..256)
        .map(|_| (2 + rng.next(code_size.saturating_sub(2).max(2))) & !1)
        .collect();
    let mut out = Vec::with_capacity(records);
    let (mut leaks, mut leaked, mut overruns, mut double_frees) = (0u32, 0u32, 0u32, 0u32);
    for i in 1..records {
        let seq = i as u32;
        let a = alloc(&mut rng, seq, &pool);
        let bytes = match i % 250 {
            7 => SmallSiteRecord {
                kind: kind::SMALL_SITE,
                version: record::FORMAT_VERSION,
                reserved: U16Be::new(0),
                count: U32Be::new(1 + rng.next(30)),
                bytes: U32Be::new(100),
                first: a,
            }
            .as_bytes()
            .to_vec(),
            _ if i % 100 == 0 => {
                overruns += 1;
                OverrunRecord {
                    kind: kind::OVERRUN,
                    version: record::FORMAT_VERSION,
                    when: U16Be::new(detected::AT_FREE),
                    ticks: U32Be::new(seq.wrapping_add(5000)),
                    guard: [0, 0xFD, 0xFD, 0xFD],
                    site: stack(&mut rng, &pool),
                    alloc: a,
                }
                .as_bytes()
                .to_vec()
            }
            _ if i % 100 == 50 => {
                double_frees += 1;
                DoubleFreeRecord {
                    kind: kind::DOUBLE_FREE,
                    version: record::FORMAT_VERSION,
                    reserved: U16Be::new(0),
                    address: a.address,
                    first_after_seq: U32Be::new(seq),
                    second_ticks: U32Be::new(seq.wrapping_add(6001)),
                    first: stack(&mut rng, &pool),
                    second: stack(&mut rng, &pool),
                    alloc: a,
                }
                .as_bytes()
                .to_vec()
            }
            _ => {
                leaks += 1;
                leaked = leaked.wrapping_add(a.size.get());
                a.as_bytes().to_vec()
            }
        };
        out.push(bytes);
    }
    let mut counters = Counters::default();
    counters.allocations.set(records as u32);
    counters.leaks.set(leaks);
    counters.leaked_bytes.set(leaked);
    counters.overruns.set(overruns);
    counters.double_frees.set(double_frees);
    counters.low_free.set(record::NOT_SAMPLED);
    counters.low_largest_free.set(record::NOT_SAMPLED);
    let mut header = Header {
        kind: kind::HEADER,
        version: record::FORMAT_VERSION,
        header_size: U16Be::new(record::HEADER_SIZE as u16),
        magic: U32Be::new(record::HEADER_MAGIC),
        flags: U32Be::new(0),
        options: U32Be::new((record::Options::GUARDS | record::Options::CALL_STACKS).bits()),
        code_size: U32Be::new(code_size),
        code_base: U32Be::new(0x0002_0000),
        app_creator: U32Be::new(u32::from_be_bytes(*b"MDbn")),
        stop_ticks: U32Be::new((records as u32).wrapping_add(2000)),
        counters,
        ..Header::default()
    };
    header.app_name[..5].copy_from_slice(b"Bench");
    out.insert(0, header.as_bytes().to_vec());
    out
}

/// Generates a ledger of `records` records and times decoding and reporting
/// it, symbolizing with `elf` when given.
///
/// # Errors
/// A generated record does not decode or the `.pdb` cannot be written (a bug).
pub fn run(records: usize, elf: Option<&ElfSymbols>) -> Result<BenchResult, String> {
    let code_size = elf.map_or(0x8000, ElfSymbols::code_size);
    let raw = generate(records.max(1), code_size);

    // Best of `ROUNDS`: the machine may be busy with other work.
    const ROUNDS: usize = 3;
    let best = |f: &mut dyn FnMut() -> Result<(), String>| -> Result<Duration, String> {
        let mut best = Duration::MAX;
        for _ in 0..ROUNDS {
            let t = Instant::now();
            f()?;
            best = best.min(t.elapsed());
        }
        Ok(best)
    };
    let decode_once =
        || Ledger::from_records(raw.iter().map(|r| &r[..]), "bench").map_err(|e| e.to_string());
    let ledger = decode_once()?;
    let decode = best(&mut || decode_once().map(drop))?;

    let opts = Options {
        symbolizer: elf.map(|e| e as &dyn Symbolize),
        ..Options::default()
    };
    let analyze = best(&mut || {
        crate::analyze(&ledger, &opts);
        Ok(())
    })?;
    let report = crate::analyze(&ledger, &opts);
    let (mut text_bytes, mut json_bytes) = (0, 0);
    // Through a BufWriter, as the binary writes to standard output.
    let write = |format: Format| -> Result<usize, String> {
        let mut out = std::io::BufWriter::new(Counter(0));
        crate::write(&mut out, &report, format).map_err(|e| e.to_string())?;
        out.into_inner().map(|c| c.0).map_err(|e| e.to_string())
    };
    let text = best(&mut || write(Format::Text).map(|n| text_bytes = n))?;
    let json = best(&mut || write(Format::Json).map(|n| json_bytes = n))?;

    let pdb_records = raw.len().min(usize::from(u16::MAX));
    let small = Ledger::from_records(raw[..pdb_records].iter().map(|r| &r[..]), "bench")
        .map_err(|e| e.to_string())?;
    let pdb = small.to_pdb().map_err(|e| e.to_string())?;
    let pdb_read = best(&mut || {
        let back = Ledger::from_pdb(&pdb, "bench.pdb").map_err(|e| e.to_string())?;
        if back.allocs.len() == small.allocs.len() {
            Ok(())
        } else {
            Err("the .pdb read back differs".to_string())
        }
    })?;

    Ok(BenchResult {
        records: raw.len(),
        leaks: ledger.allocs.len(),
        decode,
        analyze,
        text,
        text_bytes,
        json,
        json_bytes,
        pdb_records,
        pdb_read,
        symbolized: elf.is_some(),
    })
}

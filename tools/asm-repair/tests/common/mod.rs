//! Shared test support: GNU binutils for m68k and a 68000 in the `m68k`
//! emulator crate.
// Each test binary uses a different part of this module.
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use m68k::{AddressBus, BatchExit, CpuCore, CpuType};
use object::{Object, ObjectSection, ObjectSymbol};

/// Runs a binutils tool, failing with a clear message when it is missing.
pub fn run_tool(name: &str, args: &[&str], dir: &Path) -> Result<String, String> {
    let out = Command::new(name)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run `{name}` ({e}): run ci/setup (installs binutils-m68k-linux-gnu)")
        });
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    if out.status.success() {
        Ok(stderr)
    } else {
        Err(format!(
            "{name} {}: {}\n{stderr}",
            args.join(" "),
            out.status
        ))
    }
}

/// Assembles `src` with `m68k-linux-gnu-as -m68000 --pcrel` (or another
/// `-m` CPU) into `dir/name.o`; returns the object path or gas' messages.
pub fn assemble(dir: &Path, name: &str, src: &str, cpu: &str) -> Result<PathBuf, String> {
    let s = dir.join(format!("{name}.s"));
    let o = dir.join(format!("{name}.o"));
    std::fs::write(&s, src).expect("write .s");
    let cpu_flag = format!("-m{cpu}");
    run_tool(
        "m68k-linux-gnu-as",
        &[
            &cpu_flag,
            "--pcrel",
            s.to_str().expect("utf-8 path"),
            "-o",
            o.to_str().expect("utf-8 path"),
        ],
        dir,
    )?;
    Ok(o)
}

/// A linked program: bytes to load at `base` and its symbols.
pub struct Image {
    pub base: u32,
    pub bytes: Vec<u8>,
    pub symbols: HashMap<String, u32>,
}

impl Image {
    pub fn sym(&self, name: &str) -> u32 {
        *self
            .symbols
            .get(name)
            .unwrap_or_else(|| panic!("symbol {name} not in the image"))
    }
}

/// Links objects at `base` (code, then read-only data) keeping what `roots`
/// reach (`--gc-sections`), and reads the result.
pub fn link(dir: &Path, objs: &[PathBuf], base: u32, roots: &[&str]) -> Result<Image, String> {
    let script = dir.join("test.ld");
    std::fs::write(
        &script,
        format!(
            "SECTIONS {{\n  . = {base:#x};\n  .text : {{ *(.text .text.*) }}\n  \
             .rodata : {{ *(.rodata .rodata.*) }}\n  .data : {{ *(.data .data.* .bss .bss.* COMMON) }}\n  \
             /DISCARD/ : {{ *(.note.GNU-stack) *(.comment) *(.llvmbc) *(.llvmcmd) }}\n}}\n"
        ),
    )
    .expect("write linker script");
    let elf = dir.join("test.elf");
    let mut args: Vec<String> = vec![
        "-T".into(),
        script.display().to_string(),
        "--gc-sections".into(),
        "-o".into(),
        elf.display().to_string(),
    ];
    if let Some(first) = roots.first() {
        args.push(format!("--entry={first}"));
    }
    for r in roots {
        args.push(format!("--undefined={r}"));
    }
    for o in objs {
        args.push(o.display().to_string());
    }
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    run_tool("m68k-linux-gnu-ld", &argv, dir)?;
    let data = std::fs::read(&elf).map_err(|e| e.to_string())?;
    let file = object::File::parse(&*data).map_err(|e| e.to_string())?;
    let mut bytes = Vec::new();
    for s in file.sections() {
        let (addr, size) = (s.address(), s.size());
        if addr == 0 || size == 0 {
            continue;
        }
        let d = s.data().map_err(|e| e.to_string())?;
        let off = (addr as u32).wrapping_sub(base) as usize;
        if d.is_empty() {
            continue;
        }
        if bytes.len() < off + d.len() {
            bytes.resize(off + d.len(), 0);
        }
        bytes[off..off + d.len()].copy_from_slice(d);
    }
    let symbols = file
        .symbols()
        .filter_map(|s| Some((s.name().ok()?.to_string(), s.address() as u32)))
        .collect();
    Ok(Image {
        base,
        bytes,
        symbols,
    })
}

pub const RAM_SIZE: u32 = 0x10_0000;
/// Exception vector n jumps to `VECTORS + 2 * n` (watched, never run).
const VECTORS: u32 = 0xF_F000;

/// 1 MiB of RAM at address 0; any access outside it is recorded.
#[derive(Clone)]
pub struct Ram {
    pub bytes: Vec<u8>,
    pub stray: Option<u32>,
}

impl Ram {
    fn idx(&mut self, a: u32) -> Option<usize> {
        if a < RAM_SIZE {
            Some(a as usize)
        } else {
            self.stray.get_or_insert(a);
            None
        }
    }
    pub fn set_long(&mut self, a: u32, v: u32) {
        self.bytes[a as usize..a as usize + 4].copy_from_slice(&v.to_be_bytes());
    }
}

impl AddressBus for Ram {
    fn read_byte(&mut self, a: u32) -> u8 {
        self.idx(a).map_or(0, |i| self.bytes[i])
    }
    fn read_word(&mut self, a: u32) -> u16 {
        u16::from_be_bytes([self.read_byte(a), self.read_byte(a.wrapping_add(1))])
    }
    fn read_long(&mut self, a: u32) -> u32 {
        (u32::from(self.read_word(a)) << 16) | u32::from(self.read_word(a.wrapping_add(2)))
    }
    fn write_byte(&mut self, a: u32, v: u8) {
        if let Some(i) = self.idx(a) {
            self.bytes[i] = v;
        }
    }
    fn write_word(&mut self, a: u32, v: u16) {
        let b = v.to_be_bytes();
        self.write_byte(a, b[0]);
        self.write_byte(a.wrapping_add(1), b[1]);
    }
    fn write_long(&mut self, a: u32, v: u32) {
        self.write_word(a, (v >> 16) as u16);
        self.write_word(a.wrapping_add(2), v as u16);
    }
}

/// A CPU and its RAM.
pub struct Machine {
    pub cpu: CpuCore,
    pub ram: Ram,
}

impl Machine {
    pub fn new(cpu_type: CpuType) -> Machine {
        let mut ram = Ram {
            bytes: vec![0; RAM_SIZE as usize],
            stray: None,
        };
        for v in 2..64u32 {
            ram.set_long(v * 4, VECTORS + 2 * v);
        }
        ram.set_long(0, RAM_SIZE - 0x100);
        ram.set_long(4, VECTORS);
        let mut cpu = CpuCore::new();
        cpu.set_cpu_type(cpu_type);
        cpu.address_mask = 0xFFFF_FFFF;
        cpu.reset(&mut ram);
        Machine { cpu, ram }
    }

    pub fn load(&mut self, addr: u32, bytes: &[u8]) {
        self.ram.bytes[addr as usize..addr as usize + bytes.len()].copy_from_slice(bytes);
    }

    /// Runs from `pc` until it reaches `stop` (or fails).
    pub fn run(&mut self, pc: u32, stop: u32, max: u32) -> Result<(), String> {
        self.cpu.pc = pc;
        self.cpu.invalidate_prefetch();
        let mut watch = vec![stop];
        watch.extend((2..64).map(|v| VECTORS + 2 * v));
        let r = self.cpu.run_batch(&mut self.ram, max, &watch);
        if let Some(a) = self.ram.stray {
            return Err(format!("access outside RAM at {a:#x}"));
        }
        match r.exit {
            BatchExit::WatchedPc { pc } if pc == stop => Ok(()),
            BatchExit::WatchedPc { pc } => Err(format!(
                "exception vector {} (from pc {:#x})",
                (pc - VECTORS) / 2,
                self.cpu.ppc
            )),
            other => Err(format!("stopped: {other:?} at {:#x}", self.cpu.ppc)),
        }
    }

    /// Calls a C function (arguments in 4-byte stack slots) with the stack
    /// at `sp`; returns (d0, d1).
    pub fn call(&mut self, addr: u32, args: &[u32], sp: u32) -> Result<(u32, u32), String> {
        const RET: u32 = VECTORS - 0x100;
        let mut sp = sp;
        for &a in args.iter().rev() {
            sp -= 4;
            self.ram.set_long(sp, a);
        }
        sp -= 4;
        self.ram.set_long(sp, RET);
        self.cpu.set_a(7, sp);
        self.run(addr, RET, 50_000_000)?;
        Ok((self.cpu.d(0), self.cpu.d(1)))
    }
}

/// xorshift64*: deterministic random numbers for the tests.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn u32(&mut self) -> u32 {
        (self.next() >> 32) as u32
    }
    /// A value biased towards edge cases.
    pub fn edgy(&mut self) -> u32 {
        const EDGES: [u32; 12] = [
            0,
            1,
            2,
            3,
            0xFFFF,
            0x1_0000,
            0x7FFF_FFFF,
            0x8000_0000,
            0xFFFF_FFFF,
            0xFFFF_FFFE,
            0x8000_0001,
            0x0001_FFFF,
        ];
        match self.next() % 4 {
            0 => EDGES[(self.next() % EDGES.len() as u64) as usize],
            1 => self.u32() >> (self.next() % 32),
            _ => self.u32(),
        }
    }
}

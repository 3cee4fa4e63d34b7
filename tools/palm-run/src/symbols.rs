//! Function symbols from the app's ELF (`--elf`), for reports: code 1 is the
//! ELF linked at address 0, so an ELF address is an offset from code 1's start.

use object::{Object, ObjectSection, ObjectSymbol, SymbolKind};

/// Sorted function symbols: (ELF address, size, demangled name).
#[derive(Debug, Clone, Default)]
pub struct Symbols {
    syms: Vec<(u32, u32, String)>,
}

/// The code 1 image an app's ELF holds: its allocated sections linked from
/// address 0, `.text` then `.rodata`, gaps zero-filled — the bytes palm-build
/// puts in code 1. Errors: not an ELF, not a 32-bit big-endian m68k ELF, no
/// `.text` at address 0.
pub fn elf_code1(data: &[u8]) -> Result<Vec<u8>, String> {
    let file = object::File::parse(data).map_err(|e| format!("not an ELF file: {e}"))?;
    if file.format() != object::BinaryFormat::Elf {
        return Err(format!("not an ELF file ({:?})", file.format()));
    }
    if file.architecture() != object::Architecture::M68k || file.is_64() || file.is_little_endian()
    {
        return Err(format!(
            "not an m68k ELF: {:?}, {}-bit, {} endian",
            file.architecture(),
            if file.is_64() { 64 } else { 32 },
            if file.is_little_endian() {
                "little"
            } else {
                "big"
            }
        ));
    }
    let text = file
        .section_by_name(".text")
        .ok_or("an m68k ELF without a .text section")?;
    if text.address() != 0 {
        return Err(format!(
            ".text is linked at 0x{:X}, not 0: not a Palm code 1 image",
            text.address()
        ));
    }
    let sections: Vec<_> = [".text", ".rodata"]
        .iter()
        .filter_map(|n| file.section_by_name(n))
        .collect();
    let end = sections
        .iter()
        .map(|s| s.address() + s.size())
        .max()
        .unwrap_or(0);
    if end > 0x0100_0000 {
        return Err(format!(
            ".text and .rodata end at 0x{end:X}: not a Palm code 1 image"
        ));
    }
    let mut code = vec![0u8; end as usize];
    for s in sections {
        let bytes = s
            .data()
            .map_err(|e| format!("section {}: {e}", s.name().unwrap_or("?")))?;
        let start = s.address() as usize;
        code[start..start + bytes.len()].copy_from_slice(bytes);
    }
    Ok(code)
}

/// Check that `data` is the ELF `code1` (an installed app's code 1 bytes)
/// was built from (see [`elf_code1`]); the error says what differs.
pub fn check_elf_matches(data: &[u8], code1: &[u8]) -> Result<(), String> {
    let image = elf_code1(data)?;
    if image.len() != code1.len() {
        return Err(format!(
            "its code 1 image (.text + .rodata) is {} bytes, the app's code 1 resource {} bytes",
            image.len(),
            code1.len()
        ));
    }
    match image.iter().zip(code1).position(|(a, b)| a != b) {
        None => Ok(()),
        Some(i) => Err(format!(
            "its code 1 image (.text + .rodata, {} bytes) differs from the app's code 1 \
             resource at offset 0x{i:X} (0x{:02X} in the ELF, 0x{:02X} in the app)",
            image.len(),
            image[i],
            code1[i]
        )),
    }
}

impl Symbols {
    /// Read the text symbols of an ELF file; errors name the problem.
    pub fn from_elf(data: &[u8]) -> Result<Symbols, String> {
        let file = object::File::parse(data).map_err(|e| format!("not an ELF file: {e}"))?;
        let mut syms: Vec<(u32, u32, String)> = file
            .symbols()
            .filter(|s| s.kind() == SymbolKind::Text && s.address() <= u64::from(u32::MAX))
            .filter_map(|s| {
                let name = s.name().ok()?;
                Some((
                    s.address() as u32,
                    s.size() as u32,
                    format!("{:#}", rustc_demangle::demangle(name)),
                ))
            })
            .collect();
        syms.sort();
        Ok(Symbols { syms })
    }

    /// The function containing ELF address `addr` and the offset into it.
    pub fn lookup(&self, addr: u32) -> Option<(&str, u32)> {
        let i = self.syms.partition_point(|s| s.0 <= addr).checked_sub(1)?;
        let (a, size, name) = &self.syms[i];
        (size == &0 || addr < a + size).then(|| (name.as_str(), addr - a))
    }

    /// The ELF address range `[start, end)` of the function named `name`
    /// (demangled, without the hash suffix, or exact).
    pub fn range(&self, name: &str) -> Option<(u32, u32)> {
        self.syms
            .iter()
            .find(|s| s.2 == name || strip_hash(&s.2) == name)
            .map(|s| (s.0, s.0 + s.1))
    }

    /// The ELF address ranges of every function whose demangled name starts
    /// with `prefix` (e.g. `"memdbg::"`), for [`crate::Machine::start_profile`]
    /// after adding the code 1 base.
    pub fn ranges_with_prefix(&self, prefix: &str) -> Vec<(u32, u32)> {
        self.syms
            .iter()
            .filter(|s| s.2.starts_with(prefix) && s.1 > 0)
            .map(|s| (s.0, s.0 + s.1))
            .collect()
    }

    /// All (ELF address, size, name) entries.
    pub fn iter(&self) -> impl Iterator<Item = &(u32, u32, String)> {
        self.syms.iter()
    }
}

fn strip_hash(s: &str) -> &str {
    match s.rfind("::h") {
        Some(i) if s.len() - i == 19 => &s[..i],
        _ => s,
    }
}

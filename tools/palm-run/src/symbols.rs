//! Function symbols from the app's ELF (`--elf`), for reports: code 1 is the
//! ELF linked at address 0, so an ELF address is an offset from code 1's start.

use object::{Object, ObjectSymbol, SymbolKind};

/// Sorted function symbols: (ELF address, size, demangled name).
#[derive(Debug, Clone, Default)]
pub struct Symbols {
    syms: Vec<(u32, u32, String)>,
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

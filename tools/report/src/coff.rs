//! Symbols of a prc-tools build: the linked coff-m68k file `m68k-palmos-gcc -o
//! APP` writes and build-prc turns into a PRC ([`CoffSymbols`]), for `memdbg
//! report --elf APP`.
//!
//! build-prc makes code 1 of the `.text` section and code 2…n of the sections
//! the `.def` file's `multiple code` list names, each linked at 0
//! (`prc-tools-remix:prc-tools-2.3/tools/binres.cpp`, `make_main_code`,
//! `make_code`; PALM_FACTS §1.6), so a code 1 offset or a `segment N + offset`
//! is an address in its section. Which section is code N is told by the
//! ledger: the code section whose bytes have the size and CRC-32 of the run's
//! segment record for N (the `.def` file, which numbers them, is not needed,
//! and another build's file is refused). Functions are named from the symbol
//! table; prc-tools' COFF line numbers are not read, so frames show no
//! file:line (the wrappers' own file and line are in the ledger).

use std::collections::BTreeMap;
use std::path::Path;

use m68k_coff::{C_EXT, C_STAT, Object, STYP_TEXT};
use memdbg::record;

use crate::symbolize::{Symbol, Symbolize};
use crate::{InputError, Ledger};

/// The first two bytes of a coff-m68k file (magic 0520, big-endian).
pub const COFF_MAGIC: [u8; 2] = [0x01, 0x50];

/// The function symbols and code sections of a linked coff-m68k file, bound to
/// the ledger whose build it is.
#[derive(Debug)]
pub struct CoffSymbols {
    name: String,
    /// Code sections: (name, bytes).
    code: Vec<(String, Vec<u8>)>,
    /// Index into `code` of code 1 (`.text`).
    code1: usize,
    /// Code resource N ≥ 2 → index into `code`.
    resources: BTreeMap<u16, usize>,
    /// Functions: (index into `code`, offset, name), sorted.
    functions: Vec<(usize, u32, String)>,
}

impl CoffSymbols {
    /// Reads the coff-m68k file at `path` and binds it to `ledger` ([`CoffSymbols::check`]).
    ///
    /// # Errors
    /// The file cannot be read or parsed (the error names the offset), it has no
    /// `.text`, or it is not the build that wrote `ledger`.
    pub fn load(path: &Path, ledger: &Ledger) -> Result<CoffSymbols, InputError> {
        let name = path.display().to_string();
        let data = crate::input::read_file(path, crate::MAX_ELF_FILE, "a coff-m68k file")?;
        CoffSymbols::from_bytes(&data, &name, ledger)
    }

    /// [`CoffSymbols::load`] for bytes; `name` names them in errors and reports.
    ///
    /// # Errors
    /// As [`CoffSymbols::load`].
    pub fn from_bytes(data: &[u8], name: &str, ledger: &Ledger) -> Result<CoffSymbols, InputError> {
        let object = Object::parse(data).map_err(|e| {
            InputError::at(
                name,
                e.offset as u64,
                format!("not a coff-m68k file: {}", e.what),
            )
        })?;
        let sections: Vec<usize> = (0..object.sections.len())
            .filter(|&i| {
                let s = &object.sections[i];
                s.flags & STYP_TEXT != 0 && !s.data.is_empty()
            })
            .collect();
        let code: Vec<(String, Vec<u8>)> = sections
            .iter()
            .map(|&i| {
                (
                    object.sections[i].name.clone(),
                    object.sections[i].data.clone(),
                )
            })
            .collect();
        let Some(code1) = code.iter().position(|(n, _)| n == ".text") else {
            return Err(InputError::whole(
                name,
                "a coff-m68k file without a .text section: not a linked prc-tools app",
            ));
        };
        let mut functions: Vec<(usize, u32, String)> = object
            .symbols
            .iter()
            .filter(|s| {
                s.is_defined() && (s.class == C_EXT || s.class == C_STAT) && (s.typ >> 4) & 3 == 2 // DT_FCN: a function
            })
            .filter_map(|s| {
                let at = sections.iter().position(|&i| i + 1 == s.section as usize)?;
                let base = object.sections[sections[at]].vaddr;
                Some((at, s.value.checked_sub(base)?, s.name.clone()))
            })
            .collect();
        functions.sort();
        let mut symbols = CoffSymbols {
            name: name.to_string(),
            code,
            code1,
            resources: BTreeMap::new(),
            functions,
        };
        symbols.resources = symbols.bind(ledger)?;
        Ok(symbols)
    }

    /// Which code section is code N for each of `ledger`'s segment records.
    fn bind(&self, ledger: &Ledger) -> Result<BTreeMap<u16, usize>, InputError> {
        let recorded = ledger.header.code_size.get();
        let code1 = &self.code[self.code1].1;
        if recorded != 0 && recorded as usize != code1.len() {
            return Err(InputError::whole(
                &self.name,
                format!(
                    "its .text (code 1) is {} bytes but {} records {recorded}: this file is not \
                     the build that wrote the ledger",
                    code1.len(),
                    ledger.source
                ),
            ));
        }
        if let Some(crc) = ledger.header.code_checksum()
            && crc != record::crc32(code1)
        {
            return Err(InputError::whole(
                &self.name,
                format!(
                    "its .text (code 1) has CRC-32 0x{:08X} but {} records 0x{crc:08X}: this \
                     file is not the build that wrote the ledger",
                    record::crc32(code1),
                    ledger.source
                ),
            ));
        }
        let mut resources = BTreeMap::new();
        for r in &ledger.segments {
            let n = r.resource.get();
            let found = self.code.iter().position(|(_, bytes)| {
                bytes.len() == r.size.get() as usize && record::crc32(bytes) == r.crc.get()
            });
            let Some(i) = found else {
                return Err(InputError::whole(
                    &self.name,
                    format!(
                        "no code section has the {} bytes and CRC-32 0x{:08X} that {} records for \
                         code {n}: this file is not the build that wrote the ledger",
                        r.size.get(),
                        r.crc.get(),
                        ledger.source
                    ),
                ));
            };
            resources.insert(n, i);
        }
        Ok(resources)
    }

    /// Checks that this file is the build that wrote `ledger` (code 1's size and
    /// CRC-32, and a code section with each segment record's size and CRC-32).
    ///
    /// # Errors
    /// The one-line error names the file, the ledger and what differs.
    pub fn check(&self, ledger: &Ledger) -> Result<(), InputError> {
        self.bind(ledger).map(|_| ())
    }

    /// The function containing `offset` of code section `at`.
    fn lookup(&self, at: usize, offset: u32) -> Vec<Symbol> {
        let i = self
            .functions
            .partition_point(|f| (f.0, f.1) <= (at, offset));
        match i.checked_sub(1).map(|i| &self.functions[i]) {
            Some((s, _, name)) if *s == at => vec![Symbol {
                function: name.clone(),
                file: None,
                line: None,
                inlined: false,
            }],
            _ => Vec::new(),
        }
    }
}

impl Symbolize for CoffSymbols {
    fn symbolize(&self, offset: u32) -> Vec<Symbol> {
        if offset == 0 || offset as usize > self.code[self.code1].1.len() {
            return Vec::new();
        }
        self.lookup(self.code1, offset - 1)
    }

    fn symbolize_segment(&self, resource: u16, offset: u32) -> Vec<Symbol> {
        match self.resources.get(&resource) {
            Some(&at) if offset != 0 && offset as usize <= self.code[at].1.len() => {
                self.lookup(at, offset - 1)
            }
            _ => Vec::new(),
        }
    }

    fn segment(&self, resource: u16) -> Option<(u32, u32)> {
        let bytes = &self.code[*self.resources.get(&resource)?].1;
        Some((bytes.len() as u32, record::crc32(bytes)))
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn is_return_address(&self, offset: u32) -> Option<bool> {
        Some(crate::symbolize::follows_call(
            &self.code[self.code1].1,
            offset,
        ))
    }

    fn missing(&self) -> Option<String> {
        Some(format!(
            "{} is a coff-m68k file (prc-tools): call stacks show function names from its \
             symbol table, without file:line (its line numbers are not read)",
            self.name
        ))
    }
}

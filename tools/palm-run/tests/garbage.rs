//! Robustness: random bytes as code 1 (and random trap words with random stack
//! contents as arguments) never panic or hang the runner: every run ends with an
//! outcome, most of them with a stop report.

use palm_prc::{Database, FourCC, Header, Resource, app};
use palm_run::{Config, Machine};

fn prc(code: Vec<u8>) -> Vec<u8> {
    Database::new_resources(
        Header::new("Garbage", app::APPL, FourCC::new(*b"PRgb")),
        vec![
            Resource {
                kind: FourCC::new(*b"code"),
                id: 0,
                data: app::code0(0x28, 0),
            },
            Resource {
                kind: FourCC::new(*b"code"),
                id: 1,
                data: code,
            },
            Resource {
                kind: FourCC::new(*b"data"),
                id: 0,
                data: app::data0_no_globals(),
            },
        ],
    )
    .to_bytes()
    .unwrap()
}

struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) as u32
    }
}

#[test]
fn random_code_and_random_traps_never_panic() {
    let implemented: Vec<u16> = palm_run::traps::HANDLERS
        .iter()
        .map(|(name, _)| palm_run::table::trap_by_name(name).unwrap().trap)
        .collect();
    let mut rng = Lcg(0x5EED);
    let mut stopped = 0;
    for round in 0..1500 {
        let mut code = Vec::new();
        for _ in 0..48 {
            let w = rng.next() as u16;
            // Often a call of an implemented trap (sometimes any system trap) with
            // random arguments: small numbers, heap-ish addresses or anything.
            if rng.next() % 3 == 0 {
                for _ in 0..4 {
                    let v = match rng.next() % 4 {
                        0 => rng.next() % 64,
                        1 => 0x1000 + rng.next() % 0x40000,
                        2 => 0x41000 + rng.next() % 0x3C0000,
                        _ => rng.next(),
                    };
                    code.extend_from_slice(&[0x2F, 0x3C]); // move.l #imm,-(sp)
                    code.extend_from_slice(&v.to_be_bytes());
                }
                let trap = if rng.next() % 8 == 0 {
                    0xA000 | (rng.next() as u16 & 0x3FF)
                } else {
                    implemented[rng.next() as usize % implemented.len()]
                };
                code.extend_from_slice(&[0x4E, 0x4F]); // trap #15
                code.extend_from_slice(&trap.to_be_bytes());
            } else if rng.next() % 3 == 0 {
                code.extend_from_slice(&w.to_be_bytes());
            }
        }
        code.extend_from_slice(&[0x4E, 0x75]); // rts
        let mut m = Machine::with_config(&Config {
            max_instructions: 200_000,
            ..Config::default()
        })
        .unwrap();
        m.fatal_mem_errors = round % 2 == 0;
        m.install(&prc(code)).unwrap();
        let out = m.launch("Garbage").unwrap();
        if let Some(s) = &out.stop {
            stopped += 1;
            if std::env::var_os("GARBAGE_DEBUG").is_some() {
                eprintln!(
                    "{} calls: {}",
                    m.stats.native_calls.values().sum::<u64>(),
                    s.kind
                );
            }
        }
    }
    assert!(stopped > 100, "{stopped}");
}

//! Writes a large synthetic `_metadata` file, deterministically from a seed, for benchmarks:
//!
//!     cargo run --release --example synth -- OUT --size-mb 1024 [--parallelism 32] [--version 6]
//!         [--seed 1] [--trailer-from REAL_METADATA]
//!
//! Operators hold inline, relative and absolute stream handles, canonical key-group handles, incremental
//! RocksDB handles with many shared files, and channel state. Operators are encoded and written one at a
//! time, so memory stays small whatever the size. `--trailer-from` copies the CheckpointProperties trailer
//! of a real file (formats 4+), so that Flink's own reader accepts the result too.

use sp_inspect::metadata::encode::{encode_header, encode_operator};
use sp_inspect::metadata::{decode, DecodeOptions};
use sp_inspect::synth::{self, Profile, Rng};
use std::io::Write;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let out = args
        .first()
        .ok_or("usage: synth OUT --size-mb N [--parallelism P] [--version V] [--seed S]")?;
    let size = flag("--size-mb").map_or(Ok(16.0), |s| s.parse::<f64>())? * 1024.0 * 1024.0;
    let parallelism: i32 = flag("--parallelism").map_or(Ok(32), |s| s.parse())?;
    let version: i32 = flag("--version").map_or(Ok(6), |s| s.parse())?;
    let seed: u64 = flag("--seed").map_or(Ok(1), |s| s.parse())?;
    let trailer = match flag("--trailer-from") {
        Some(p) => decode(&std::fs::read(p)?, DecodeOptions::default())?
            .tail
            .trailer
            .map(|t| t.bytes)
            .unwrap_or_default(),
        None if version >= 4 => synth::trailer_bytes(),
        None => Vec::new(),
    };
    let profile = Profile {
        max_inline: 2048,
        shared_files: 16,
        every_kind: false,
    };

    // Size one operator to choose how many make the requested size.
    let mut probe = Rng::new(seed);
    let one = encode_operator(
        &synth::operator(&mut probe, &profile, version, parallelism),
        version,
    )
    .len();
    let count = ((size / one as f64).ceil() as usize).max(1);

    let mut rng = Rng::new(seed);
    let mut w = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(out)?);
    w.write_all(&encode_header(&synth::header(&mut rng, version, count)))?;
    let mut written = 0usize;
    for i in 0..count {
        let mut op = synth::operator(&mut rng, &profile, version, parallelism);
        // Unique, stable IDs.
        op.id.0[..8].copy_from_slice(&(i as u64).to_be_bytes());
        let bytes = encode_operator(&op, version);
        written += bytes.len();
        w.write_all(&bytes)?;
    }
    w.write_all(&trailer)?;
    w.flush()?;
    eprintln!(
        "{out}: format {version}, {count} operators x parallelism {parallelism}, {:.1} MiB",
        written as f64 / 1048576.0
    );
    Ok(())
}

//! What each gzip and brotli level costs on given files: the median time of `ROUNDS`
//! compressions and the size, per level. `bench/compression.sh` feeds it the documents
//! Herald renders ahead (a large overview, a small JSON), to choose the levels Herald
//! compresses with once per change.
//!
//!   cargo run --release --example compression -- FILE... [--rounds N]

// A measuring tool: it prints its figures, and stops on what it cannot measure.
#![allow(clippy::print_stdout, clippy::expect_used)]

use std::io::Write;
use std::time::{Duration, Instant};

fn main() -> anyhow::Result<()> {
    let mut files = Vec::new();
    let mut rounds = 7;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--rounds" {
            rounds = args.next().unwrap_or_default().parse()?;
        } else {
            files.push(arg);
        }
    }
    anyhow::ensure!(!files.is_empty(), "usage: compression FILE... [--rounds N]");
    println!("file\tbytes\tcoding\tlevel\tms\tout_bytes");
    for file in files {
        let data = std::fs::read(&file)?;
        for level in [1, 4, 6, 9] {
            let (ms, size) = median(rounds, || gzip(&data, level));
            println!("{file}\t{}\tgzip\t{level}\t{ms:.2}\t{size}", data.len());
        }
        for level in [4, 5, 6, 7, 9, 11] {
            let (ms, size) = median(rounds, || brotli(&data, level));
            println!("{file}\t{}\tbr\t{level}\t{ms:.2}\t{size}", data.len());
        }
    }
    Ok(())
}

fn median(rounds: usize, mut f: impl FnMut() -> usize) -> (f64, usize) {
    let mut times: Vec<Duration> = Vec::new();
    let mut size = 0;
    for _ in 0..rounds.max(1) {
        let started = Instant::now();
        size = f();
        times.push(started.elapsed());
    }
    times.sort();
    (times[times.len() / 2].as_secs_f64() * 1000.0, size)
}

fn gzip(data: &[u8], level: u32) -> usize {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(level));
    encoder.write_all(data).expect("writing to a Vec");
    encoder.finish().expect("writing to a Vec").len()
}

fn brotli(data: &[u8], level: u32) -> usize {
    let mut out = Vec::new();
    {
        let mut writer = brotli::CompressorWriter::new(&mut out, 4096, level, 22);
        writer.write_all(data).expect("writing to a Vec");
    }
    out.len()
}

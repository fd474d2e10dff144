//! The support spool's reader, on a file of any bytes: the input framed as a well-formed
//! record (so its payload is read as a submission), followed by the input as it is (a disk that
//! filled up mid-record, a file that is not a spool). It reads what it can and never panics.
#![no_main]

use std::sync::OnceLock;

use herald::support::spool::{self, Spool};
use libfuzzer_sys::fuzz_target;

/// One directory for the whole run (each input overwrites the one file).
static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let dir = DIR.get_or_init(|| tempfile::tempdir().expect("a temporary directory"));
    let spool = Spool::open(dir.path().to_path_buf(), 1 << 30).expect("the spool opens");
    let path = spool.dir().join("replay-fuzz.spool");
    let mut file = spool::encode(data);
    file.extend_from_slice(data);
    std::fs::write(&path, file).expect("the file is written");
    let _ = spool.read_file(&path);
});

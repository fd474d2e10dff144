//! The append-only spool: submissions the database could not take, on local disk under the
//! data directory, flushed with fsync before the sender is told "received".
//!
//! A record is `HSP1` | payload length (u32, little endian) | first 8 bytes of the payload's
//! SHA-256 | the payload (the submission as JSON). One writer thread appends and fsyncs, in
//! groups: every record waiting when a write begins goes out with the same fsync (group
//! commit), so the disk's flush rate does not cap the submission rate.
//!
//! Replay rotates the live file aside (`support-spool.<n>.replay`), inserts its records, and
//! deletes it only once every record is in the database. A record that fails its checks (a
//! write cut short by a crash, a damaged disk block) ends the readable part of a file: it and
//! everything after it are appended to `support-spool.corrupt` for a person to look at, and
//! the file is truncated to its good part. Nothing is ever silently dropped. Replay reads a
//! file record by record ([`SpoolReader`]), a chunk at a time, never the whole file at once.
//!
//! The spool holds at most a set number of bytes (live and replay files together). An append
//! that would pass it is refused with [`io::ErrorKind::StorageFull`] before anything is
//! written, so a long outage fills the disk no further and what was accepted stays.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;

use sha2::{Digest, Sha256};
use tokio::sync::oneshot;

use super::Submission;

const MAGIC: &[u8; 4] = b"HSP1";
const HEADER_LEN: usize = 4 + 4 + 8;
/// The largest payload a record may have (a submission at every limit is far smaller).
const MAX_PAYLOAD: usize = 1 << 20;
const LIVE: &str = "support-spool.log";
const REPLAY_SUFFIX: &str = ".replay";
const CORRUPT: &str = "support-spool.corrupt";

enum Command {
    Append(Vec<u8>, oneshot::Sender<io::Result<()>>),
    Rotate(oneshot::Sender<io::Result<()>>),
}

/// The spool of one Herald process.
pub struct Spool {
    dir: PathBuf,
    commands: std::sync::Mutex<mpsc::Sender<Command>>,
    /// Bytes in the live and replay files, and appends under way.
    bytes: AtomicU64,
    max_bytes: u64,
}

impl Spool {
    /// A spool in `dir` (created when the first record is written) holding at most
    /// `max_bytes`, with its writer thread.
    pub fn open(dir: PathBuf, max_bytes: u64) -> anyhow::Result<Self> {
        let (tx, rx) = mpsc::channel();
        let writer_dir = dir.clone();
        std::thread::Builder::new()
            .name("support-spool".into())
            .spawn(move || writer(writer_dir, rx))?;
        let spool = Self {
            dir,
            commands: std::sync::Mutex::new(tx),
            bytes: AtomicU64::new(0),
            max_bytes,
        };
        spool.recount()?;
        Ok(spool)
    }

    /// Bytes the spool holds now (`/metrics` reads it when scraped).
    pub fn size(&self) -> u64 {
        self.bytes.load(Ordering::Acquire)
    }

    /// Counts the bytes of the live and replay files again (after a file went or shrank).
    fn recount(&self) -> io::Result<()> {
        let mut total = fs::metadata(self.live_path()).map_or(0, |m| m.len());
        for file in self.pending_files()? {
            total += fs::metadata(&file).map_or(0, |m| m.len());
        }
        self.bytes.store(total, Ordering::Release);
        Ok(())
    }

    /// The spool's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Appends `submission` and returns once it is on disk (fsync); refused with
    /// [`io::ErrorKind::StorageFull`] when it would not fit under the spool's bound.
    pub async fn append(&self, submission: &Submission) -> io::Result<()> {
        let record = encode(&serde_json::to_vec(submission)?);
        let len = record.len() as u64;
        let before = self.bytes.fetch_add(len, Ordering::AcqRel);
        if before + len > self.max_bytes {
            self.bytes.fetch_sub(len, Ordering::AcqRel);
            return Err(io::Error::new(
                io::ErrorKind::StorageFull,
                format!("the support spool is full ({} bytes)", self.max_bytes),
            ));
        }
        let (tx, rx) = oneshot::channel();
        let written = match self.send(Command::Append(record, tx)) {
            Ok(()) => rx
                .await
                .unwrap_or_else(|_| Err(io::Error::other("spool writer stopped"))),
            Err(e) => Err(e),
        };
        if written.is_err() {
            self.bytes.fetch_sub(len, Ordering::AcqRel);
        }
        written
    }

    /// Moves the live file aside for replay (nothing happens when it is empty or absent).
    pub async fn rotate(&self) -> io::Result<()> {
        let (tx, rx) = oneshot::channel();
        self.send(Command::Rotate(tx))?;
        rx.await
            .map_err(|_| io::Error::other("spool writer stopped"))?
    }

    /// Files waiting for replay, oldest first.
    pub fn pending_files(&self) -> io::Result<Vec<PathBuf>> {
        let entries = match fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("support-spool.") && n.ends_with(REPLAY_SUFFIX))
            })
            .collect();
        files.sort();
        Ok(files)
    }

    /// Reads a whole replay file (see [`Spool::reader`] for the chunked way). Blocking.
    pub fn read_file(&self, path: &Path) -> io::Result<Vec<Submission>> {
        let mut reader = self.reader(path)?;
        let mut all = Vec::new();
        loop {
            let chunk = self.read_chunk(&mut reader, 1024)?;
            if chunk.is_empty() {
                return Ok(all);
            }
            all.extend(chunk);
        }
    }

    /// A reader of a replay file from its start. Blocking.
    pub fn reader(&self, path: &Path) -> io::Result<SpoolReader> {
        Ok(SpoolReader {
            path: path.to_owned(),
            file: BufReader::new(File::open(path)?),
            offset: 0,
            done: false,
        })
    }

    /// Up to `n` submissions from `reader`, in file order; empty once the file is read. A
    /// damaged record ends the file: it and the rest are set aside (see the module docs).
    /// Blocking: call it off the async threads.
    pub fn read_chunk(&self, reader: &mut SpoolReader, n: usize) -> io::Result<Vec<Submission>> {
        let mut out = Vec::new();
        while out.len() < n && !reader.done {
            match reader.next_record()? {
                Record::End => reader.done = true,
                Record::Damaged => {
                    self.set_aside_tail(&reader.path, reader.offset)?;
                    reader.done = true;
                }
                Record::Payload(payload) => match serde_json::from_slice::<Submission>(&payload) {
                    Ok(s) => out.push(s),
                    Err(e) => {
                        tracing::error!(error = %e, "unreadable support spool record set aside");
                        self.set_aside(&encode(&payload))?;
                    }
                },
            }
        }
        Ok(out)
    }

    /// Moves everything of `path` from `offset` on into the corrupt file, and truncates.
    fn set_aside_tail(&self, path: &Path, offset: u64) -> io::Result<()> {
        let mut file = OpenOptions::new().read(true).write(true).open(path)?;
        let len = file.metadata()?.len();
        file.seek(SeekFrom::Start(offset))?;
        let mut corrupt = OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.corrupt_path())?;
        io::copy(&mut file, &mut corrupt)?;
        corrupt.sync_all()?;
        file.set_len(offset)?;
        file.sync_all()?;
        tracing::error!(file = %path.display(), bytes = len - offset,
            "damaged support spool tail set aside in {CORRUPT}");
        self.recount()
    }

    /// Deletes a replayed file.
    pub fn remove(&self, path: &Path) -> io::Result<()> {
        fs::remove_file(path)?;
        sync_dir(&self.dir)?;
        self.recount()
    }

    /// Where damaged records are kept.
    pub fn corrupt_path(&self) -> PathBuf {
        self.dir.join(CORRUPT)
    }

    /// The live file's path.
    pub fn live_path(&self) -> PathBuf {
        self.dir.join(LIVE)
    }

    fn set_aside(&self, bytes: &[u8]) -> io::Result<()> {
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.corrupt_path())?;
        file.write_all(bytes)?;
        file.sync_all()
    }

    fn send(&self, command: Command) -> io::Result<()> {
        self.commands
            .lock()
            .map_err(|_| io::Error::other("spool lock poisoned"))?
            .send(command)
            .map_err(|_| io::Error::other("spool writer stopped"))
    }
}

/// A replay file being read record by record.
pub struct SpoolReader {
    path: PathBuf,
    file: BufReader<File>,
    /// Where the next record starts.
    offset: u64,
    done: bool,
}

enum Record {
    Payload(Vec<u8>),
    /// The file ends cleanly here.
    End,
    /// What follows is not a whole, well-formed record.
    Damaged,
}

impl SpoolReader {
    fn next_record(&mut self) -> io::Result<Record> {
        let record = read_record(&mut self.file)?;
        if let Record::Payload(payload) = &record {
            self.offset += (HEADER_LEN + payload.len()) as u64;
        }
        Ok(record)
    }
}

/// The next record of `input`: its payload, the clean end, or damage (see the module docs).
fn read_record(input: &mut impl Read) -> io::Result<Record> {
    let mut header = [0u8; HEADER_LEN];
    match read_full(input, &mut header)? {
        0 => return Ok(Record::End),
        n if n < HEADER_LEN => return Ok(Record::Damaged),
        _ => {}
    }
    if &header[..4] != MAGIC {
        return Ok(Record::Damaged);
    }
    let mut len = [0u8; 4];
    len.copy_from_slice(&header[4..8]);
    let len = u32::from_le_bytes(len) as usize;
    if len > MAX_PAYLOAD {
        return Ok(Record::Damaged);
    }
    let mut payload = vec![0u8; len];
    if read_full(input, &mut payload)? < len || Sha256::digest(&payload)[..8] != header[8..16] {
        return Ok(Record::Damaged);
    }
    Ok(Record::Payload(payload))
}

/// Reads until `buf` is full or the file ends; how many bytes were read.
fn read_full(file: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match file.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// The writer thread: appends waiting records together, one fsync per group.
fn writer(dir: PathBuf, commands: mpsc::Receiver<Command>) {
    let mut live: Option<File> = None;
    let mut rotations: u64 = 0;
    while let Ok(first) = commands.recv() {
        let mut batch = vec![first];
        while let Ok(more) = commands.try_recv() {
            batch.push(more);
        }
        let mut appends = Vec::new();
        for command in batch {
            match command {
                Command::Append(record, reply) => appends.push((record, reply)),
                Command::Rotate(reply) => {
                    let written = write_group(&dir, &mut live, &mut appends);
                    reply_all(&mut appends, &written);
                    live = None;
                    rotations += 1;
                    let _ = reply.send(rotate(&dir, rotations));
                }
            }
        }
        let written = write_group(&dir, &mut live, &mut appends);
        reply_all(&mut appends, &written);
    }
}

type Pending = Vec<(Vec<u8>, oneshot::Sender<io::Result<()>>)>;

fn write_group(dir: &Path, live: &mut Option<File>, appends: &mut Pending) -> io::Result<()> {
    if appends.is_empty() {
        return Ok(());
    }
    if live.is_none() {
        fs::create_dir_all(dir)?;
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join(LIVE))?;
        sync_dir(dir)?;
        *live = Some(file);
    }
    let result = (|| {
        let file = live
            .as_mut()
            .ok_or_else(|| io::Error::other("no spool file"))?;
        let mut buffer = Vec::with_capacity(appends.iter().map(|(r, _)| r.len()).sum());
        for (record, _) in appends.iter() {
            buffer.extend_from_slice(record);
        }
        file.write_all(&buffer)?;
        file.sync_data()
    })();
    if result.is_err() {
        // Reopen next time: the file may be gone or its end unknown.
        *live = None;
    }
    result
}

fn reply_all(appends: &mut Pending, result: &io::Result<()>) {
    for (_, reply) in appends.drain(..) {
        let answer = match result {
            Ok(()) => Ok(()),
            Err(e) => Err(io::Error::new(e.kind(), e.to_string())),
        };
        let _ = reply.send(answer);
    }
}

fn rotate(dir: &Path, n: u64) -> io::Result<()> {
    let live = dir.join(LIVE);
    match fs::metadata(&live) {
        Ok(meta) if meta.len() > 0 => {}
        Ok(_) | Err(_) => return Ok(()),
    }
    let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%S%.6f");
    let target = dir.join(format!("support-spool.{stamp}-{n:06}{REPLAY_SUFFIX}"));
    fs::rename(&live, &target)?;
    sync_dir(dir)
}

fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// One record around `payload`.
pub fn encode(payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_LEN + payload.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    out.extend_from_slice(&Sha256::digest(payload)[..8]);
    out.extend_from_slice(payload);
    out
}

#[cfg(test)]
mod tests;

//! The backup file around the archive: gzip, and with a passphrase, age's encryption (scrypt
//! for the key, ChaCha20-Poly1305 in 64 KiB chunks, each authenticated) around that. The file is
//! made with mode 0600 under a temporary name and takes its own name only once complete, so an
//! interrupted backup never leaves a file that looks whole.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use age::secrecy::SecretString;
use flate2::Compression;
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;

/// The first bytes of an age file.
const AGE_MAGIC: &[u8] = b"age-encryption.org/v1";
/// The first bytes of a gzip stream.
const GZIP_MAGIC: &[u8] = &[0x1f, 0x8b];
/// How hard gzip works: the fastest level, since a backup runs beside a serving Herald and its
/// rows are text that compresses well at any level.
const LEVEL: u32 = 1;

/// Why a backup file could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{0} is encrypted: give its passphrase with --passphrase-file")]
    NeedsPassphrase(String),
    #[error("{0} cannot be decrypted: the passphrase is wrong, or the file is damaged")]
    WrongPassphrase(String),
    #[error("{0} is not a Herald backup (neither gzip nor age)")]
    Unknown(String),
}

/// The file a backup is written to; [`Output::finish`] makes it whole.
pub struct Output {
    gzip: GzEncoder<Inner>,
    partial: PathBuf,
    path: PathBuf,
}

enum Inner {
    Plain(BufWriter<File>),
    Sealed(age::stream::StreamWriter<BufWriter<File>>),
}

impl Write for Inner {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Self::Plain(w) => w.write(buf),
            Self::Sealed(w) => w.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Self::Plain(w) => w.flush(),
            Self::Sealed(w) => w.flush(),
        }
    }
}

impl Output {
    /// Starts the file at `path` (written as `path.partial` until finished); encrypted when a
    /// passphrase is given. An existing file at `path` is not overwritten.
    pub fn create(path: &Path, passphrase: Option<SecretString>) -> std::io::Result<Self> {
        if path.exists() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::AlreadyExists,
                format!("{} already exists", path.display()),
            ));
        }
        let mut partial = path.as_os_str().to_owned();
        partial.push(".partial");
        let partial = PathBuf::from(partial);
        let file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&partial)?;
        let file = BufWriter::with_capacity(256 * 1024, file);
        let inner = match passphrase {
            None => Inner::Plain(file),
            Some(passphrase) => {
                Inner::Sealed(age::Encryptor::with_user_passphrase(passphrase).wrap_output(file)?)
            }
        };
        Ok(Self {
            gzip: GzEncoder::new(inner, Compression::new(LEVEL)),
            partial,
            path: path.to_owned(),
        })
    }

    /// Ends the compression and the encryption, syncs the file to disk and gives it its name.
    pub fn finish(self) -> std::io::Result<()> {
        let file = match self.gzip.finish()? {
            Inner::Plain(w) => w,
            Inner::Sealed(w) => w.finish()?,
        };
        let file = file.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        std::fs::rename(&self.partial, &self.path)
    }

    /// Where the file is written until it is finished.
    pub fn partial(&self) -> &Path {
        &self.partial
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.gzip.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.gzip.flush()
    }
}

/// Opens a backup file for reading: the archive's bytes, decompressed (and decrypted).
pub fn open(path: &Path, passphrase: Option<SecretString>) -> Result<Box<dyn BufRead>, OpenError> {
    let name = path.display().to_string();
    let io = |source| OpenError::Io {
        path: name.clone(),
        source,
    };
    let mut file = BufReader::with_capacity(256 * 1024, File::open(path).map_err(io)?);
    let head = file.fill_buf().map_err(io)?;
    let gzipped: Box<dyn Read> = if head.starts_with(AGE_MAGIC) {
        let Some(passphrase) = passphrase else {
            return Err(OpenError::NeedsPassphrase(name));
        };
        let decryptor = age::Decryptor::new_buffered(file)
            .map_err(|_| OpenError::WrongPassphrase(name.clone()))?;
        let identity = age::scrypt::Identity::new(passphrase);
        let reader = decryptor
            .decrypt(std::iter::once(&identity as &dyn age::Identity))
            .map_err(|_| OpenError::WrongPassphrase(name.clone()))?;
        Box::new(reader)
    } else if head.starts_with(GZIP_MAGIC) {
        Box::new(file)
    } else {
        return Err(OpenError::Unknown(name));
    };
    Ok(Box::new(BufReader::with_capacity(
        256 * 1024,
        GzDecoder::new(gzipped),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn write(path: &Path, passphrase: Option<&str>, text: &[u8]) {
        let mut out = Output::create(path, passphrase.map(|p| SecretString::from(p.to_owned())))
            .expect("created");
        out.write_all(text).unwrap();
        out.finish().unwrap();
    }

    fn read(path: &Path, passphrase: Option<&str>) -> Result<Vec<u8>, String> {
        let mut input = open(path, passphrase.map(|p| SecretString::from(p.to_owned())))
            .map_err(|e| e.to_string())?;
        let mut bytes = Vec::new();
        input
            .read_to_end(&mut bytes)
            .map_err(|e| format!("{:?}: {e}", e.kind()))?;
        Ok(bytes)
    }

    #[test]
    fn plain_and_sealed_files_read_back_and_are_private() {
        let dir = tempfile::tempdir().unwrap();
        let text = b"{\"format\":\"herald-backup\"}\n".repeat(1000);
        for passphrase in [None, Some("correct horse")] {
            let path = dir.path().join(format!("b-{}", passphrase.is_some()));
            write(&path, passphrase, &text);
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
            assert_eq!(read(&path, passphrase).unwrap(), text);
        }
        let sealed = dir.path().join("b-true");
        let bytes = std::fs::read(&sealed).unwrap();
        assert!(bytes.starts_with(AGE_MAGIC));
        assert!(!bytes.windows(13).any(|w| w == b"herald-backup"));
    }

    #[test]
    fn a_sealed_file_wants_its_own_passphrase() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b");
        write(&path, Some("correct horse"), b"rows\n");
        let err = read(&path, None).unwrap_err();
        assert!(err.contains("give its passphrase"), "{err}");
        let err = read(&path, Some("wrong horse")).unwrap_err();
        assert!(err.contains("passphrase is wrong"), "{err}");
    }

    #[test]
    fn an_existing_file_is_not_overwritten_and_other_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("taken");
        std::fs::write(&path, b"id,email\n").unwrap();
        assert!(Output::create(&path, None).is_err());
        assert_eq!(std::fs::read(&path).unwrap(), b"id,email\n");
        let err = read(&path, None).unwrap_err();
        assert!(err.contains("not a Herald backup"), "{err}");
    }

    #[test]
    fn a_file_cut_short_fails_to_read() {
        let dir = tempfile::tempdir().unwrap();
        for passphrase in [None, Some("correct horse")] {
            let path = dir.path().join(format!("b-{}", passphrase.is_some()));
            write(&path, passphrase, &b"row of text\n".repeat(50_000));
            let bytes = std::fs::read(&path).unwrap();
            std::fs::write(&path, &bytes[..bytes.len() * 2 / 3]).unwrap();
            assert!(read(&path, passphrase).is_err(), "{passphrase:?}");
        }
    }
}

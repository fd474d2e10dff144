use super::*;
use crate::support::Topic;

fn submission(n: u32) -> Submission {
    Submission {
        id: format!("id-{n}"),
        page_id: "p".into(),
        reference: format!("SUP-0000000{}", n % 10),
        name: "Ada".into(),
        email: "ada@example.com".into(),
        topic: Topic::SignIn,
        component_id: None,
        account: None,
        message: format!("message number {n}, with \"quotes\" and\nlines"),
        wants_copy: false,
        client_ip: Some("192.0.2.1".into()),
        submitted_at: chrono::Utc::now(),
        language: None,
    }
}

#[tokio::test]
async fn appended_records_are_replayed_in_order_from_a_rotated_file() {
    let dir = tempfile::tempdir().unwrap();
    let spool = Spool::open(dir.path().join("data"), u64::MAX).unwrap();
    assert!(
        spool.pending_files().unwrap().is_empty(),
        "nothing before the first write"
    );
    let sent: Vec<Submission> = (0..50).map(submission).collect();
    let writes = sent.iter().map(|s| spool.append(s));
    for result in futures_util::future::join_all(writes).await {
        result.unwrap();
    }
    spool.rotate().await.unwrap();
    let files = spool.pending_files().unwrap();
    assert_eq!(files.len(), 1);
    let mut read = spool.read_file(&files[0]).unwrap();
    read.sort_by(|a, b| a.id.cmp(&b.id));
    let mut expected = sent.clone();
    expected.sort_by(|a, b| a.id.cmp(&b.id));
    assert_eq!(read, expected);
    spool.remove(&files[0]).unwrap();
    spool.rotate().await.unwrap();
    assert!(
        spool.pending_files().unwrap().is_empty(),
        "an empty live file is not rotated"
    );
    spool.append(&submission(99)).await.unwrap();
    assert!(spool.live_path().exists(), "a new live file after rotation");
}

#[tokio::test]
async fn a_truncated_or_damaged_tail_is_set_aside_and_the_rest_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let spool = Spool::open(dir.path().to_owned(), u64::MAX).unwrap();
    for n in 0..3 {
        spool.append(&submission(n)).await.unwrap();
    }
    let live = spool.live_path();
    let mut bytes = fs::read(&live).unwrap();
    let good = bytes.len();
    let partial = encode(&serde_json::to_vec(&submission(3)).unwrap());
    bytes.extend_from_slice(&partial[..partial.len() / 2]); // a write cut short
    fs::write(&live, &bytes).unwrap();
    spool.rotate().await.unwrap();
    let file = spool.pending_files().unwrap().remove(0);
    let read = spool.read_file(&file).unwrap();
    assert_eq!(read.len(), 3);
    assert_eq!(fs::metadata(&file).unwrap().len() as usize, good);
    assert_eq!(
        fs::read(spool.corrupt_path()).unwrap(),
        &partial[..partial.len() / 2]
    );

    // A flipped bit in the last record: its checksum fails, the first two survive.
    let mut bytes = fs::read(&file).unwrap();
    let last = bytes.len() - 5;
    bytes[last] ^= 0x20;
    fs::write(&file, &bytes).unwrap();
    assert_eq!(spool.read_file(&file).unwrap().len(), 2);
    assert!(fs::metadata(spool.corrupt_path()).unwrap().len() as usize > partial.len() / 2);
}

#[tokio::test]
async fn a_full_spool_refuses_the_next_record_and_keeps_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    // Each record's own size (a submission's time is written with as many digits as it has).
    let kept: Vec<Submission> = (0..3).map(submission).collect();
    let size = |s: &Submission| encode(&serde_json::to_vec(s).unwrap()).len() as u64;
    let three: u64 = kept.iter().map(size).sum();
    let one = size(&kept[0]);
    let spool = Spool::open(dir.path().to_owned(), three + one / 2).unwrap();
    for s in &kept {
        spool.append(s).await.unwrap();
    }
    let full = spool.append(&submission(3)).await.unwrap_err();
    assert_eq!(full.kind(), io::ErrorKind::StorageFull);
    assert_eq!(spool.size(), fs::metadata(spool.live_path()).unwrap().len());
    spool.rotate().await.unwrap();
    let file = spool.pending_files().unwrap().remove(0);
    assert_eq!(
        spool.read_file(&file).unwrap().len(),
        3,
        "nothing accepted was lost"
    );
    // The cap counts across a restart, and room comes back once a file is replayed.
    let reopened = Spool::open(dir.path().to_owned(), three + one / 2).unwrap();
    assert_eq!(reopened.size(), three);
    assert!(reopened.append(&submission(4)).await.is_err());
    reopened.remove(&file).unwrap();
    assert_eq!(reopened.size(), 0);
    reopened.append(&submission(5)).await.unwrap();
}

#[tokio::test]
async fn a_file_is_read_a_chunk_at_a_time_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let spool = Spool::open(dir.path().to_owned(), u64::MAX).unwrap();
    for n in 0..7 {
        spool.append(&submission(n)).await.unwrap();
    }
    spool.rotate().await.unwrap();
    let file = spool.pending_files().unwrap().remove(0);
    let mut reader = spool.reader(&file).unwrap();
    let sizes: Vec<usize> = std::iter::from_fn(|| {
        let chunk = spool.read_chunk(&mut reader, 3).unwrap();
        (!chunk.is_empty()).then_some(chunk.len())
    })
    .collect();
    assert_eq!(sizes, [3, 3, 1]);
}

/// The payloads of the well-formed records at the start of `bytes`, and how many bytes they
/// span (everything after is damaged or cut short).
fn decode_all(bytes: &[u8]) -> (Vec<Vec<u8>>, usize) {
    let mut input = bytes;
    let mut records = Vec::new();
    let mut at = 0;
    while let Ok(Record::Payload(payload)) = read_record(&mut input) {
        at += HEADER_LEN + payload.len();
        records.push(payload);
    }
    (records, at)
}

#[test]
fn decoding_stops_at_the_first_bad_record() {
    let a = encode(b"first");
    let b = encode(b"second");
    let mut bytes = [a.clone(), b.clone()].concat();
    assert_eq!(
        decode_all(&bytes),
        (vec![b"first".to_vec(), b"second".to_vec()], bytes.len())
    );
    bytes[a.len()] = b'X'; // the second record's magic
    assert_eq!(decode_all(&bytes), (vec![b"first".to_vec()], a.len()));
    let huge = [MAGIC.as_slice(), &u32::MAX.to_le_bytes(), &[0u8; 8]].concat();
    assert_eq!(
        decode_all(&huge).1,
        0,
        "an absurd length is damage, not a reason to wait"
    );
}

//! HEAD's side of each changed file, read from git's object store with
//! `cat-file --batch` (raw bytes: no filter, textconv or driver runs).
//! Sizes are asked first, so a huge blob is never loaded.

use super::changes::Change;
use crate::child::git::{self, Read};
use std::{collections::HashMap, path::Path};

/// What HEAD holds for one object id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Blob {
    Bytes(Vec<u8>),
    /// Larger than the limit: not read.
    TooLarge,
    /// Not in the repository (a partial clone fetches nothing), or git
    /// could not read it.
    Unreadable,
}

/// The regular files' blobs among `changes`, by object id, each read only
/// when at most `max_bytes` long.
pub async fn read(root: &Path, changes: &[Change], max_bytes: u64) -> HashMap<String, Blob> {
    let mut oids: Vec<&str> = changes
        .iter()
        .filter_map(|c| c.old.as_ref())
        .filter(|(mode, _)| mode.starts_with("100"))
        .map(|(_, oid)| oid.as_str())
        .collect();
    oids.sort_unstable();
    oids.dedup();
    let mut blobs: HashMap<String, Blob> = oids
        .iter()
        .map(|oid| (oid.to_string(), Blob::Unreadable))
        .collect();
    if oids.is_empty() {
        return blobs;
    }
    let sizes = batch(root, "--batch-check", &oids)
        .await
        .unwrap_or_default();
    let mut small = Vec::new();
    for line in String::from_utf8_lossy(&sizes).lines() {
        let fields: Vec<&str> = line.split(' ').collect();
        if let [oid, "blob", size] = fields[..] {
            match size.parse::<u64>() {
                Ok(size) if size <= max_bytes => small.push(oid.to_string()),
                Ok(_) => {
                    blobs.insert(oid.to_string(), Blob::TooLarge);
                }
                Err(_) => {}
            }
        }
    }
    if small.is_empty() {
        return blobs;
    }
    let small: Vec<&str> = small.iter().map(String::as_str).collect();
    let contents = batch(root, "--batch", &small).await.unwrap_or_default();
    blobs.extend(parse_batch(&contents));
    blobs
}

async fn batch(root: &Path, mode: &str, oids: &[&str]) -> Option<Vec<u8>> {
    let input: String = oids.iter().map(|oid| format!("{oid}\n")).collect();
    let output = git::output_with_input(root, Read::CatFile, &[mode], input.as_bytes())
        .await
        .ok()?;
    output.status.success().then_some(output.stdout)
}

/// `<oid> blob <size>\n<bytes>\n` repeated (`<oid> missing\n` for none).
fn parse_batch(mut out: &[u8]) -> Vec<(String, Blob)> {
    let mut blobs = Vec::new();
    while let Some(end) = out.iter().position(|b| *b == b'\n') {
        let header = String::from_utf8_lossy(&out[..end]).into_owned();
        out = &out[end + 1..];
        let fields: Vec<&str> = header.split(' ').collect();
        let [oid, "blob", size] = fields[..] else {
            continue;
        };
        let Some(size) = size.parse::<usize>().ok().filter(|s| *s <= out.len()) else {
            break;
        };
        blobs.push((oid.to_string(), Blob::Bytes(out[..size].to_vec())));
        out = out.get(size + 1..).unwrap_or_default();
    }
    blobs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_batch_output() {
        let out = b"aaa blob 3\nhi\n\nbbb missing\nccc blob 0\n\n";
        assert_eq!(
            parse_batch(out),
            [
                ("aaa".to_string(), Blob::Bytes(b"hi\n".to_vec())),
                ("ccc".to_string(), Blob::Bytes(vec![])),
            ]
        );
    }
}

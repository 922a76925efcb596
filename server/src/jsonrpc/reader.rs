//! Newline-delimited input with a bound: a line longer than the limit is
//! skipped up to its newline (and reported), never buffered whole.

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};

pub enum Line {
    Text(Vec<u8>),
    TooLong,
    End,
    Failed(std::io::Error),
}

pub struct LineReader<R> {
    input: BufReader<R>,
    limit: usize,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    pub fn new(input: R, limit: usize) -> Self {
        Self {
            input: BufReader::with_capacity(64 * 1024, input),
            limit,
        }
    }

    /// The next line without its newline. Not cancel-safe (a partly read
    /// line would be lost): call it from a task that only reads.
    pub async fn next(&mut self) -> Line {
        let mut line = Vec::new();
        let mut too_long = false;
        loop {
            let chunk = match self.input.fill_buf().await {
                Ok(chunk) => chunk,
                Err(error) => return Line::Failed(error),
            };
            if chunk.is_empty() {
                // End of input: a last line without a newline still counts.
                return match (too_long, line.is_empty()) {
                    (true, _) => Line::TooLong,
                    (false, true) => Line::End,
                    (false, false) => Line::Text(line),
                };
            }
            let (taken, done) = match chunk.iter().position(|&b| b == b'\n') {
                Some(at) => (at, true),
                None => (chunk.len(), false),
            };
            if !too_long {
                if line.len() + taken > self.limit {
                    too_long = true;
                    line = Vec::new();
                } else {
                    line.extend_from_slice(&chunk[..taken]);
                }
            }
            self.input.consume(taken + usize::from(done));
            if done {
                return if too_long {
                    Line::TooLong
                } else {
                    Line::Text(line)
                };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn long_lines_are_skipped_and_the_rest_read() {
        let input = format!("{}\nshort\n\nlast", "x".repeat(100));
        let mut reader = LineReader::new(input.as_bytes(), 10);
        assert!(matches!(reader.next().await, Line::TooLong));
        assert!(matches!(reader.next().await, Line::Text(t) if t == b"short"));
        assert!(matches!(reader.next().await, Line::Text(t) if t.is_empty()));
        assert!(matches!(reader.next().await, Line::Text(t) if t == b"last"));
        assert!(matches!(reader.next().await, Line::End));
    }
}

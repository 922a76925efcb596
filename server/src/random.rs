//! Unguessable strings: secrets (tokens, sessions, capabilities) and ids.

/// `prefix` followed by `bytes` random bytes from the OS, hex-encoded.
pub fn random_secret(prefix: &str, bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    // The OS RNG failing is not recoverable: refusing to start beats a guessable secret.
    getrandom::fill(&mut buf).expect("the operating system's random number generator failed");
    format!("{prefix}{}", hex::encode(buf))
}

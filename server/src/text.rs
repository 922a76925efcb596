//! Bounding text that reaches the model, the transcript or a user.

/// Cuts `text` to at most `max` bytes at a character boundary, then adds
/// `marker`; returns whether it cut.
pub fn clip(text: &mut String, max: usize, marker: &str) -> bool {
    if text.len() <= max {
        return false;
    }
    let mut cut = max;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    text.truncate(cut);
    text.push_str(marker);
    true
}

#[cfg(test)]
mod tests {
    #[test]
    fn clips_at_a_character_boundary() {
        let mut text = "aé".repeat(3);
        assert!(super::clip(&mut text, 4, "…"));
        assert_eq!(text, "aéa…");
        let mut short = "abc".to_string();
        assert!(!super::clip(&mut short, 3, "…"));
        assert_eq!(short, "abc");
    }
}

/// "3 min ago" style text for an RFC 3339 time, coarse enough (minutes)
/// that the server's render and the browser's agree.
pub fn relative_time(rfc3339: &str) -> String {
    let Some(then) = parse_epoch_secs(rfc3339) else {
        return rfc3339.to_string();
    };
    let minutes = (now_secs() - then).max(0) / 60;
    match minutes {
        0 => "just now".into(),
        1..=59 => format!("{minutes} min ago"),
        60..=1439 => format!("{} h ago", minutes / 60),
        _ => rfc3339.get(..10).unwrap_or(rfc3339).to_string(),
    }
}

/// Whole minutes from now until an RFC 3339 time (rounded up; negative
/// once it has passed).
pub fn minutes_until(rfc3339: &str) -> Option<i64> {
    let seconds = parse_epoch_secs(rfc3339)? - now_secs();
    Some((seconds + 59).div_euclid(60))
}

/// Seconds since the epoch of `YYYY-MM-DDTHH:MM:SS…Z` (UTC, as the runtime writes).
fn parse_epoch_secs(text: &str) -> Option<i64> {
    let num = |range: std::ops::Range<usize>| text.get(range)?.parse::<i64>().ok();
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hh, mm, ss) = (num(11..13)?, num(14..16)?, num(17..19)?);
    // Days from civil (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + hh * 3_600 + mm * 60 + ss)
}

#[cfg(feature = "hydrate")]
fn now_secs() -> i64 {
    (leptos::web_sys::js_sys::Date::now() / 1000.0) as i64
}

#[cfg(not(feature = "hydrate"))]
fn now_secs() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    #[test]
    fn parses_runtime_timestamps() {
        assert_eq!(
            super::parse_epoch_secs("1970-01-02T00:00:01.000Z"),
            Some(86_401)
        );
        assert_eq!(
            super::parse_epoch_secs("2026-11-30T00:00:00Z"),
            Some(1_795_996_800)
        );
        assert_eq!(super::parse_epoch_secs("garbage"), None);
    }
}

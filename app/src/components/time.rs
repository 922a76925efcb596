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

/// `relative_time` for Unix seconds (a session's times), days beyond one.
pub fn relative_unix(then: i64) -> String {
    let minutes = (now_secs() - then).max(0) / 60;
    match minutes {
        0 => "just now".into(),
        1..=59 => format!("{minutes} min ago"),
        60..=1439 => format!("{} h ago", minutes / 60),
        1440..=2879 => "yesterday".into(),
        _ => format!("{} days ago", minutes / 1440),
    }
}

/// Whole minutes from now until an RFC 3339 time (rounded up; negative
/// once it has passed).
pub fn minutes_until(rfc3339: &str) -> Option<i64> {
    let seconds = parse_epoch_secs(rfc3339)? - now_secs();
    Some((seconds + 59).div_euclid(60))
}

/// Seconds since the epoch of `YYYY-MM-DDTHH:MM:SS[.fff](Z|±HH:MM)`.
fn parse_epoch_secs(text: &str) -> Option<i64> {
    let num = |range: std::ops::Range<usize>| text.get(range)?.parse::<i64>().ok();
    let (hh, mm, ss) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let days = civil_days(text)?;
    Some(days * 86_400 + hh * 3_600 + mm * 60 + ss - offset_secs(text))
}

/// Days since 1970-01-01 of the text's own (local) date.
fn civil_days(text: &str) -> Option<i64> {
    let num = |range: std::ops::Range<usize>| text.get(range)?.parse::<i64>().ok();
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    // Howard Hinnant's days-from-civil.
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Some(era * 146_097 + doe - 719_468)
}

/// The `±HH:MM` suffix in seconds (0 for `Z` or none).
fn offset_secs(text: &str) -> i64 {
    let Some(at) = text.get(19..).and_then(|rest| rest.find(['+', '-'])) else {
        return 0;
    };
    let sign = &text[19 + at..];
    let num = |range: std::ops::Range<usize>| sign.get(range)?.parse::<i64>().ok();
    let (Some(h), Some(m)) = (num(1..3), num(4..6)) else {
        return 0;
    };
    let secs = h * 3_600 + m * 60;
    if sign.starts_with('-') {
        -secs
    } else {
        secs
    }
}

/// A scheduled time in words, in its own offset: "Thu 3 Dec, 09:00 (in 22 h)".
pub fn run_in_words(rfc3339: &str) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let (Some(days), Some(month), Some(day), Some(clock)) = (
        civil_days(rfc3339),
        rfc3339.get(5..7).and_then(|m| m.parse::<usize>().ok()),
        rfc3339.get(8..10).and_then(|d| d.parse::<u32>().ok()),
        rfc3339.get(11..16),
    ) else {
        return rfc3339.to_string();
    };
    let weekday = DAYS[days.rem_euclid(7) as usize];
    let month = MONTHS.get(month.wrapping_sub(1)).copied().unwrap_or("?");
    let until = match minutes_until(rfc3339) {
        Some(m) if m <= 0 => "due now".to_string(),
        Some(m) if m < 60 => format!("in {m} min"),
        Some(m) if m < 48 * 60 => format!("in {} h", m / 60),
        Some(m) => format!("in {} days", m / (24 * 60)),
        None => String::new(),
    };
    format!("{weekday} {day} {month}, {clock} ({until})")
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
        assert_eq!(
            super::parse_epoch_secs("1970-01-02T01:00:01+01:00"),
            Some(86_401)
        );
        assert_eq!(
            super::parse_epoch_secs("1970-01-01T19:00:01-05:00"),
            Some(86_401)
        );
        assert!(super::run_in_words("2026-12-03T09:00:00+01:00").starts_with("Thu 3 Dec, 09:00 ("));
    }
}

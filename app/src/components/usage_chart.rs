//! Tokens per day as stacked bars (input below, output above), drawn as SVG
//! by Leptos so the chart is in the server-rendered page too. Colours come
//! from CSS classes (style/usage.css): the CSP allows no inline styles, and
//! the classes follow the light and dark themes.

use crate::protocol::{UsageBucket, UsageTotals};
use leptos::prelude::*;

// Geometry in viewBox units; the SVG scales to its container.
const WIDTH: f64 = 640.0;
const HEIGHT: f64 = 220.0;
/// Room for the token labels.
const LEFT: f64 = 44.0;
/// Room for half of the last day label.
const RIGHT: f64 = 20.0;
const TOP: f64 = 10.0;
/// Room for the day labels.
const BOTTOM: f64 = 22.0;
/// Share of a day's slot the bar fills; the rest is the gap.
const BAR_FILL: f64 = 0.72;
/// At most this many day labels, so they never overlap.
const DAY_LABELS: usize = 7;

/// Tokens per day for the days given (oldest first), with a summary of
/// `totals` as the accessible name.
#[component]
pub fn UsageChart(daily: Vec<UsageBucket>, totals: UsageTotals) -> impl IntoView {
    let scale = Scale::new(&daily);
    let label = summary(&daily, &totals);
    let title = label.clone();
    let bars = daily
        .iter()
        .enumerate()
        .map(|(index, day)| view! { <DayBar index day=day.clone() scale /> })
        .collect_view();
    view! {
        <figure class="usage-chart" data-test="usage-chart">
            // It scrolls sideways on a narrow screen: focusable and named so
            // keyboard users can scroll it too.
            <div class="usage-chart-frame" tabindex="0" role="group" aria-label="Tokens per day">
                <svg
                    viewBox=format!("0 0 {WIDTH} {HEIGHT}")
                    role="img"
                    aria-label=label
                    preserveAspectRatio="xMidYMid meet"
                >
                    <SvgTitle text=title />
                    <TokenAxis scale />
                    <g class="usage-bars">{bars}</g>
                    <DayLabels daily scale />
                </svg>
            </div>
            <figcaption class="usage-legend">
                <span class="usage-swatch input" aria-hidden="true"></span>"Input tokens"
                <span class="usage-swatch output" aria-hidden="true"></span>"Output tokens"
                <span class="usage-note">"Days are UTC."</span>
            </figcaption>
        </figure>
    }
}

/// One day: output stacked on input, with a tooltip.
#[component]
fn DayBar(index: usize, day: UsageBucket, scale: Scale) -> impl IntoView {
    let tokens = day.totals.tokens();
    let input = scale.height(day.totals.input_tokens);
    let output = scale.height(day.totals.output_tokens);
    let width = round(scale.step() * BAR_FILL);
    let x = round(scale.x(index) + scale.step() * (1.0 - BAR_FILL) / 2.0);
    let base = scale.baseline();
    let tooltip = format!(
        "{}: {} tokens ({} input, {} output), {} over {} turns",
        day.key,
        format_tokens(tokens),
        format_tokens(day.totals.input_tokens),
        format_tokens(day.totals.output_tokens),
        format_usd(day.totals.cost_usd),
        day.totals.turns,
    );
    view! {
        <g class="usage-bar" data-test="usage-bar" data-day=day.key data-tokens=tokens>
            <SvgTitle text=tooltip />
            <rect class="input" x=x width=width y=round(base - input) height=round(input) />
            <rect class="output" x=x width=width y=round(base - input - output) height=round(output) />
        </g>
    }
}

/// Grid lines and round-number labels up the left side.
#[component]
fn TokenAxis(scale: Scale) -> impl IntoView {
    let lines = (0..=scale.ticks)
        .map(|tick| {
            let tokens = tick.saturating_mul(scale.step_tokens);
            let y = round(scale.baseline() - scale.height(tokens));
            view! {
                <line class="usage-grid" x1=LEFT x2={WIDTH - RIGHT} y1=y y2=y />
                <text class="usage-axis" x={LEFT - 6.0} y={y + 4.0} text-anchor="end">
                    {compact(tokens)}
                </text>
            }
        })
        .collect_view();
    view! { <g aria-hidden="true">{lines}</g> }
}

/// Day labels under the bars, spaced so today is always labelled.
#[component]
fn DayLabels(daily: Vec<UsageBucket>, scale: Scale) -> impl IntoView {
    let every = daily.len().div_ceil(DAY_LABELS).max(1);
    let last = daily.len().saturating_sub(1);
    let labels = daily
        .iter()
        .enumerate()
        .filter(|(index, _)| (last - index).is_multiple_of(every))
        .map(|(index, day)| {
            let x = round(scale.x(index) + scale.step() / 2.0);
            view! {
                <text class="usage-axis" x=x y={HEIGHT - 6.0} text-anchor="middle">
                    {short_day(&day.key)}
                </text>
            }
        })
        .collect_view();
    view! { <g aria-hidden="true">{labels}</g> }
}

/// An SVG `<title>`. The `view!` macro would make `<title>` an HTML element,
/// which is fine in server-rendered markup but wrong when the client renders.
#[component]
fn SvgTitle(text: String) -> impl IntoView {
    leptos::svg::title().child(text)
}

/// Maps days and token counts to viewBox coordinates. The token axis runs to
/// `ticks × step_tokens`, a round number at or above the busiest day.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Scale {
    days: usize,
    step_tokens: u64,
    ticks: u64,
}

impl Scale {
    fn new(daily: &[UsageBucket]) -> Scale {
        let busiest = daily
            .iter()
            .map(|day| day.totals.tokens())
            .max()
            .unwrap_or(0);
        let step_tokens = round_up(busiest.div_ceil(4));
        Scale {
            days: daily.len().max(1),
            step_tokens,
            ticks: busiest.div_ceil(step_tokens).max(1),
        }
    }

    fn step(self) -> f64 {
        (WIDTH - LEFT - RIGHT) / self.days as f64
    }

    fn x(self, index: usize) -> f64 {
        LEFT + self.step() * index as f64
    }

    fn baseline(self) -> f64 {
        HEIGHT - BOTTOM
    }

    fn height(self, tokens: u64) -> f64 {
        let top = self.ticks.saturating_mul(self.step_tokens) as f64;
        (HEIGHT - TOP - BOTTOM) * tokens as f64 / top
    }
}

/// The smallest 1, 2 or 5 × 10ⁿ at or above `value` (at least 1).
fn round_up(value: u64) -> u64 {
    let mut magnitude: u64 = 1;
    loop {
        for factor in [1, 2, 5] {
            let candidate = magnitude.saturating_mul(factor);
            if candidate >= value {
                return candidate;
            }
        }
        match magnitude.checked_mul(10) {
            Some(next) => magnitude = next,
            None => return u64::MAX,
        }
    }
}

fn summary(daily: &[UsageBucket], totals: &UsageTotals) -> String {
    let busiest = daily
        .iter()
        .max_by_key(|day| day.totals.tokens())
        .filter(|day| day.totals.tokens() > 0)
        .map(|day| {
            let tokens = format_tokens(day.totals.tokens());
            format!(" Busiest day: {} with {tokens} tokens.", day.key)
        })
        .unwrap_or_default();
    format!(
        "Tokens per day over the last {} days: {} tokens ({} input, {} output), {} over {} turns.{busiest}",
        daily.len(),
        format_tokens(totals.tokens()),
        format_tokens(totals.input_tokens),
        format_tokens(totals.output_tokens),
        format_usd(totals.cost_usd),
        totals.turns,
    )
}

/// `1234567` → `1,234,567`.
pub fn format_tokens(tokens: u64) -> String {
    let digits = tokens.to_string();
    let mut grouped = String::with_capacity(digits.len() + digits.len() / 3);
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    grouped
}

/// US dollars to four decimals: small local models cost fractions of a cent.
pub fn format_usd(cost: f64) -> String {
    format!("${cost:.4}")
}

/// Axis labels: `1500` → `1.5k`, `2000000` → `2M`.
fn compact(tokens: u64) -> String {
    let (value, unit) = match tokens {
        0..=999 => return tokens.to_string(),
        1_000..=999_999 => (tokens as f64 / 1e3, "k"),
        _ => (tokens as f64 / 1e6, "M"),
    };
    let text = format!("{value:.1}");
    format!("{}{unit}", text.trim_end_matches(".0"))
}

/// `2026-11-30` → `Nov 30`; anything else unchanged.
fn short_day(key: &str) -> String {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let month = key.get(5..7).and_then(|m| m.parse::<usize>().ok());
    let day = key.get(8..10).and_then(|d| d.parse::<u32>().ok());
    match (month.and_then(|m| MONTHS.get(m.wrapping_sub(1))), day) {
        (Some(month), Some(day)) => format!("{month} {day}"),
        _ => key.to_string(),
    }
}

/// Coordinates to a tenth of a unit: shorter markup, no visible difference.
fn round(value: f64) -> f64 {
    (value * 10.0).round() / 10.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(key: &str, input_tokens: u64, output_tokens: u64) -> UsageBucket {
        UsageBucket {
            key: key.into(),
            totals: UsageTotals {
                input_tokens,
                output_tokens,
                ..Default::default()
            },
        }
    }

    #[test]
    fn the_axis_is_round_and_covers_the_busiest_day() {
        let scale = Scale::new(&[day("a", 200, 40), day("b", 0, 0)]);
        assert_eq!((scale.step_tokens, scale.ticks), (100, 3));
        assert!(scale.height(240) <= HEIGHT - TOP - BOTTOM);
        let empty = Scale::new(&[]);
        assert_eq!((empty.step_tokens, empty.ticks, empty.days), (1, 1, 1));
        assert_eq!(empty.height(0), 0.0);
        let huge = Scale::new(&[day("a", u64::MAX, 0)]);
        assert!(huge.height(u64::MAX).is_finite());
    }

    #[test]
    fn numbers_read_well() {
        assert_eq!(format_tokens(0), "0");
        assert_eq!(format_tokens(999), "999");
        assert_eq!(format_tokens(1_234_567), "1,234,567");
        assert_eq!(format_usd(0.00042), "$0.0004");
        assert_eq!(compact(950), "950");
        assert_eq!(compact(1_500), "1.5k");
        assert_eq!(compact(2_000_000), "2M");
        assert_eq!(short_day("2026-11-30"), "Nov 30");
        assert_eq!(short_day("2026-13-01"), "2026-13-01");
        assert_eq!(short_day("x"), "x");
    }

    #[test]
    fn renders_on_the_server_with_test_hooks() {
        let daily = vec![day("2026-11-29", 0, 0), day("2026-11-30", 200, 40)];
        let totals = daily[1].totals.clone();
        let html = Owner::new().with(|| view! { <UsageChart daily totals /> }.to_html());
        assert!(
            html.contains(r#"data-day="2026-11-30" data-tokens="240""#),
            "{html}"
        );
        assert!(
            html.contains(r#"role="img""#) && html.contains("<title>"),
            "{html}"
        );
        assert_eq!(html.matches(r#"data-test="usage-bar""#).count(), 2);
    }

    #[test]
    fn the_summary_names_totals_and_the_busiest_day() {
        let totals = UsageTotals {
            input_tokens: 200,
            output_tokens: 40,
            cost_usd: 0.00028,
            turns: 2,
            ..Default::default()
        };
        let text = summary(
            &[day("2026-11-29", 0, 0), day("2026-11-30", 200, 40)],
            &totals,
        );
        assert!(text.contains("240 tokens (200 input, 40 output), $0.0003 over 2 turns"));
        assert!(text.contains("Busiest day: 2026-11-30"));
    }
}

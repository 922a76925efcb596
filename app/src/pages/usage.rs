//! `/usage`: tokens and cost over time, by model and by thread. The range
//! is a query parameter (`?days=7`), so the choices are plain links and the
//! page is complete without JavaScript.

use crate::{
    api::{load_usage, UsageOverview, DEFAULT_USAGE_DAYS, USAGE_RANGES},
    components::{format_tokens, format_usd, ErrorNotice, UsageChart},
    error::ServiceError,
    protocol::UsageTotals,
};
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

/// The page body; the layout around it supplies navigation.
#[component]
pub fn Usage() -> impl IntoView {
    let query = use_query_map();
    let days = Memo::new(move |_| chosen_days(query.read().get("days").as_deref()));
    let overview = Resource::new(move || days.get(), load_usage);
    view! {
        <Title text="Usage · codewhale" />
        <section class="usage-page" aria-labelledby="usage-title">
            <header class="usage-head">
                <h1 id="usage-title">"Usage"</h1>
                <RangePicker days />
            </header>
            // Transition: switching ranges keeps the old report until the new one is in.
            <Transition fallback=|| view! { <p class="loading">"Loading usage…"</p> }>
                {move || Suspend::new(async move {
                    match overview.await {
                        Ok(overview) => view! { <UsageReport overview /> }.into_any(),
                        Err(error) => view! { <ErrorNotice message=failure(error) /> }.into_any(),
                    }
                })}
            </Transition>
        </section>
    }
}

/// `?days=` if it is one of the offered ranges, else the default.
fn chosen_days(value: Option<&str>) -> u32 {
    value
        .and_then(|v| v.trim().parse().ok())
        .filter(|days| USAGE_RANGES.contains(days))
        .unwrap_or(DEFAULT_USAGE_DAYS)
}

fn failure(error: ServiceError) -> String {
    format!("Could not load usage: {error}")
}

#[component]
fn RangePicker(days: Memo<u32>) -> impl IntoView {
    let links = USAGE_RANGES
        .into_iter()
        .map(|choice| {
            let current = move || (days.get() == choice).then_some("page");
            view! {
                <a href=format!("/usage?days={choice}") aria-current=current data-test="usage-range">
                    {format!("{choice} days")}
                </a>
            }
        })
        .collect_view();
    view! { <nav class="usage-ranges" aria-label="Usage range">{links}</nav> }
}

#[component]
fn UsageReport(overview: UsageOverview) -> impl IntoView {
    if overview.totals.turns == 0 {
        return view! {
            <div class="usage-empty" data-test="usage-empty">
                <p>"No usage yet: run a turn and it shows up here."</p>
                <p class="usage-note">{format!("Showing the last {} days (UTC).", overview.days)}</p>
            </div>
        }
        .into_any();
    }
    let UsageOverview {
        days,
        totals,
        daily,
        by_model,
        by_thread,
    } = overview;
    let all_tokens = totals.tokens();
    let models = by_model
        .into_iter()
        .map(|bucket| {
            Share::new(
                bucket.key.clone(),
                bucket.key,
                None,
                bucket.totals,
                all_tokens,
            )
        })
        .collect();
    let threads = by_thread
        .into_iter()
        .map(|thread| {
            let href = format!("/threads/{}", thread.id);
            let label = thread.label.unwrap_or_else(|| thread.id.clone());
            Share::new(thread.id, label, Some(href), thread.totals, all_tokens)
        })
        .collect();
    view! {
        <UsageSummary totals=totals.clone() days />
        <UsageChart daily totals />
        <div class="usage-breakdowns">
            <Breakdown title="By model" heading="Model" test="usage-by-model" rows=models />
            <Breakdown title="By thread" heading="Thread" test="usage-by-thread" rows=threads />
        </div>
    }
    .into_any()
}

/// The range's totals as a row of figures.
#[component]
fn UsageSummary(totals: UsageTotals, days: u32) -> impl IntoView {
    view! {
        <dl class="usage-totals" aria-label=format!("Totals of the last {days} days")>
            <div>
                <dt>"Tokens"</dt>
                <dd data-test="usage-total-tokens">{format_tokens(totals.tokens())}</dd>
            </div>
            <div>
                <dt>"Input"</dt>
                <dd>{format_tokens(totals.input_tokens)}</dd>
            </div>
            <div>
                <dt>"Output"</dt>
                <dd>{format_tokens(totals.output_tokens)}</dd>
            </div>
            <div>
                <dt>"Cost"</dt>
                <dd data-test="usage-cost">{format_usd(totals.cost_usd)}</dd>
            </div>
            <div>
                <dt>"Turns"</dt>
                <dd>{totals.turns}</dd>
            </div>
        </dl>
    }
}

/// One row of a breakdown: a name (linked if it has a page) and its part
/// of the range's tokens.
#[derive(Clone, Debug, PartialEq)]
struct Share {
    /// The model name or thread id.
    key: String,
    label: String,
    href: Option<String>,
    totals: UsageTotals,
    /// 0–100.
    percent: f64,
}

impl Share {
    fn new(
        key: String,
        label: String,
        href: Option<String>,
        totals: UsageTotals,
        all: u64,
    ) -> Share {
        let percent = match all {
            0 => 0.0,
            all => 100.0 * totals.tokens() as f64 / all as f64,
        };
        Share {
            key,
            label,
            href,
            totals,
            percent,
        }
    }
}

#[component]
fn Breakdown(
    title: &'static str,
    heading: &'static str,
    test: &'static str,
    rows: Vec<Share>,
) -> impl IntoView {
    let rows = rows
        .into_iter()
        .map(|share| view! { <ShareRow share /> })
        .collect_view();
    view! {
        <table class="usage-breakdown" data-test=test>
            <caption>{title}</caption>
            <thead>
                <tr>
                    <th scope="col">{heading}</th>
                    <th scope="col" class="num">"Tokens"</th>
                    <th scope="col">"Share"</th>
                    <th scope="col" class="num">"Cost"</th>
                    <th scope="col" class="num">"Turns"</th>
                </tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
    }
}

#[component]
fn ShareRow(share: Share) -> impl IntoView {
    let name = match share.href {
        Some(href) => view! { <a href=href>{share.label}</a> }.into_any(),
        None => view! { <span>{share.label}</span> }.into_any(),
    };
    // A bar drawn in SVG: the CSP forbids the inline style a CSS width needs.
    let width = format!("{:.1}", share.percent);
    view! {
        <tr data-test="usage-row" data-key=share.key>
            <th scope="row">{name}</th>
            <td class="num">{format_tokens(share.totals.tokens())}</td>
            <td>
                <span class="usage-share">
                    <svg viewBox="0 0 100 8" preserveAspectRatio="none" aria-hidden="true">
                        <rect class="track" width="100" height="8" />
                        <rect class="fill" width=width height="8" />
                    </svg>
                    <span>{format!("{:.0}%", share.percent)}</span>
                </span>
            </td>
            <td class="num">{format_usd(share.totals.cost_usd)}</td>
            <td class="num">{share.totals.turns}</td>
        </tr>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_offered_ranges_are_taken_from_the_url() {
        assert_eq!(chosen_days(Some("7")), 7);
        assert_eq!(chosen_days(Some(" 90 ")), 90);
        assert_eq!(chosen_days(Some("8")), DEFAULT_USAGE_DAYS);
        assert_eq!(chosen_days(Some("-1")), DEFAULT_USAGE_DAYS);
        assert_eq!(chosen_days(None), DEFAULT_USAGE_DAYS);
    }

    #[test]
    fn shares_never_divide_by_zero() {
        let totals = UsageTotals {
            input_tokens: 30,
            output_tokens: 10,
            ..Default::default()
        };
        assert_eq!(
            Share::new("m".into(), "m".into(), None, totals.clone(), 160).percent,
            25.0
        );
        assert_eq!(
            Share::new("m".into(), "m".into(), None, totals, 0).percent,
            0.0
        );
    }
}

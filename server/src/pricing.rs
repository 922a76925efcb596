//! Token prices (USD per million tokens) by model and time: a built-in
//! table for the built-in providers' models, overridden and extended by
//! `[pricing]` in config.toml. A model may have several prices, each in
//! force from its `since`; a turn costs what was in force when it started.
//! Unknown models cost 0.0 (their tokens still count).

use crate::config::{Config, Price, Prices};
use chrono::{DateTime, Utc};
use protocol::Usage;
use std::collections::BTreeMap;

#[derive(Clone, Debug)]
pub struct Pricing {
    /// Each model's prices, oldest first (undated entries first of all).
    prices: BTreeMap<String, Vec<Price>>,
}

/// (model, since, input, output, cached). List prices when this table was
/// written (2026-11); config.toml wins. A price change is a second row with
/// a later `since`.
type BuiltIn = (&'static str, Option<&'static str>, f64, f64, f64);
const BUILT_IN: [BuiltIn; 4] = [
    ("deepseek-chat", None, 0.27, 1.10, 0.07),
    ("deepseek-reasoner", None, 0.55, 2.19, 0.14),
    ("gpt-4.1-mini", None, 0.40, 1.60, 0.10),
    ("gpt-4.1", None, 2.00, 8.00, 0.50),
];

impl Default for Pricing {
    fn default() -> Self {
        let mut prices: BTreeMap<String, Vec<Price>> = BTreeMap::new();
        for (model, since, input, output, cached) in BUILT_IN {
            prices.entry(model.to_string()).or_default().push(Price {
                input,
                output,
                cached: Some(cached),
                since: since.and_then(parse_time),
            });
        }
        let mut pricing = Self { prices };
        pricing.sort();
        pricing
    }
}

impl Pricing {
    /// The built-in table with config.toml's models replacing it entry by
    /// model: a configured model's prices are all its prices.
    pub fn from_config(config: &Config) -> Self {
        let mut pricing = Self::default();
        pricing.prices.extend(
            config
                .pricing
                .iter()
                .map(|(model, Prices(list))| (model.clone(), list.clone())),
        );
        pricing.sort();
        pricing
    }

    /// Cost in USD of `usage` on `model` for a turn at `at` (RFC 3339). An
    /// unreadable `at` is priced now.
    pub fn cost(&self, model: Option<&str>, usage: &Usage, at: &str) -> f64 {
        let at = parse_time(at).unwrap_or_else(Utc::now);
        let Some(price) = model.and_then(|m| self.price_at(m, at)) else {
            return 0.0;
        };
        let cached = usage.cached_tokens.min(usage.input_tokens) as f64;
        let fresh = usage.input_tokens as f64 - cached;
        (fresh * price.input
            + cached * price.cached.unwrap_or(price.input)
            + usage.output_tokens as f64 * price.output)
            / 1_000_000.0
    }

    /// The latest price that took effect at or before `at`; none if every
    /// price of the model is newer than the turn.
    fn price_at(&self, model: &str, at: DateTime<Utc>) -> Option<&Price> {
        self.prices
            .get(model)?
            .iter()
            .rev()
            .find(|p| p.since.is_none_or(|since| since <= at))
    }

    fn sort(&mut self) {
        // `None` sorts before any time: undated prices are the oldest.
        for list in self.prices.values_mut() {
            list.sort_by_key(|p| p.since);
        }
    }
}

fn parse_time(text: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: &str = "2026-11-30T12:00:00.000Z";

    fn usage(input: u64, output: u64, cached: u64) -> Usage {
        Usage {
            input_tokens: input,
            output_tokens: output,
            cached_tokens: cached,
            reasoning_tokens: 0,
        }
    }

    #[test]
    fn cost_by_hand() {
        let usage = usage(1_000_000, 500_000, 400_000);
        // 600k fresh × 0.27 + 400k cached × 0.07 + 500k out × 1.10, per million
        let expected = 0.6 * 0.27 + 0.4 * 0.07 + 0.5 * 1.10;
        let pricing = Pricing::default();
        assert!((pricing.cost(Some("deepseek-chat"), &usage, NOW) - expected).abs() < 1e-12);
        assert_eq!(pricing.cost(Some("mystery-model"), &usage, NOW), 0.0);
        assert_eq!(pricing.cost(None, &usage, NOW), 0.0);
    }

    #[test]
    fn config_overrides_and_extends() {
        let config: Config = toml::from_str("[pricing.local-llama]\ninput = 1.0\noutput = 2.0\n[pricing.deepseek-chat]\ninput = 0.0\noutput = 0.0\n").unwrap();
        let pricing = Pricing::from_config(&config);
        let usage = usage(1_000_000, 1_000_000, 0);
        assert_eq!(pricing.cost(Some("local-llama"), &usage, NOW), 3.0);
        assert_eq!(pricing.cost(Some("deepseek-chat"), &usage, NOW), 0.0);
    }

    #[test]
    fn both_config_forms_parse() {
        let config: Config = toml::from_str(
            r#"
[pricing.single]
input = 1.0
output = 2.0
cached = 0.5

[[pricing.dated]]
input = 4.0
output = 8.0
since = "2026-06-01T00:00:00+02:00"

[[pricing.dated]]
input = 3.0
output = 6.0
"#,
        )
        .unwrap();
        let single = &config.pricing["single"].0;
        assert_eq!(single.len(), 1);
        assert_eq!(single[0].cached, Some(0.5));
        assert_eq!(single[0].since, None);
        let dated = &config.pricing["dated"].0;
        assert_eq!(dated.len(), 2);
        assert_eq!(dated[0].since, parse_time("2026-05-31T22:00:00Z"));
        assert_eq!(dated[1].since, None);
    }

    #[test]
    fn bad_config_says_what_is_wrong() {
        let bad_time = toml::from_str::<Config>(
            "[pricing.m]\ninput = 1.0\noutput = 1.0\nsince = \"last tuesday\"\n",
        )
        .unwrap_err()
        .to_string();
        assert!(bad_time.contains("RFC 3339"), "{bad_time}");
        let typo = toml::from_str::<Config>("[[pricing.m]]\ninput = 1.0\nouptut = 1.0\n")
            .unwrap_err()
            .to_string();
        assert!(typo.contains("ouptut"), "{typo}");
    }

    #[test]
    fn a_turn_pays_the_price_in_force_when_it_ran() {
        // Out of order on purpose: entries are sorted by `since`.
        let config: Config = toml::from_str(
            r#"
[[pricing.m]]
input = 2.0
output = 4.0
cached = 1.0
since = "2026-03-01T00:00:00Z"

[[pricing.m]]
input = 1.0
output = 3.0

[[pricing.later-only]]
input = 5.0
output = 5.0
since = "2026-03-01T00:00:00Z"
"#,
        )
        .unwrap();
        let pricing = Pricing::from_config(&config);
        let usage = usage(500_000, 250_000, 100_000);
        // Before: 400k × 1.0 + 100k × 1.0 (cached defaults to input) + 250k × 3.0
        let before = (400_000.0 * 1.0 + 100_000.0 * 1.0 + 250_000.0 * 3.0) / 1e6;
        // After: 400k × 2.0 + 100k × 1.0 + 250k × 4.0
        let after = (400_000.0 * 2.0 + 100_000.0 * 1.0 + 250_000.0 * 4.0) / 1e6;
        assert_eq!(before, 1.25);
        assert_eq!(after, 1.9);
        let cost = |at: &str| pricing.cost(Some("m"), &usage, at);
        assert!((cost("2026-02-28T23:59:59.999Z") - before).abs() < 1e-12);
        assert!((cost("2026-03-01T00:00:00.000Z") - after).abs() < 1e-12);
        assert!((cost("2026-03-01T01:00:00+01:00") - after).abs() < 1e-12);
        assert!((cost(NOW) - after).abs() < 1e-12);
        // No price was in force yet.
        assert_eq!(
            pricing.cost(Some("later-only"), &usage, "2026-01-01T00:00:00Z"),
            0.0
        );
        assert_eq!(
            pricing.cost(Some("later-only"), &usage, NOW),
            (500_000.0 * 5.0 + 250_000.0 * 5.0) / 1e6
        );
    }
}

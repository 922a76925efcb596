//! Token prices (USD per million tokens) by model: a built-in table for the
//! built-in providers' models, overridden and extended by `[pricing]` in
//! config.toml. Unknown models cost 0.0 (their tokens still count).

use crate::config::{Config, Price};
use app::protocol::Usage;
use std::collections::BTreeMap;

#[derive(Clone, Debug)]
pub struct Pricing {
    prices: BTreeMap<String, Price>,
}

/// List prices when this table was written (2026-11); config.toml wins.
const BUILT_IN: [(&str, f64, f64, f64); 4] = [
    ("deepseek-chat", 0.27, 1.10, 0.07),
    ("deepseek-reasoner", 0.55, 2.19, 0.14),
    ("gpt-4.1-mini", 0.40, 1.60, 0.10),
    ("gpt-4.1", 2.00, 8.00, 0.50),
];

impl Default for Pricing {
    fn default() -> Self {
        let prices = BUILT_IN
            .iter()
            .map(|(model, input, output, cached)| {
                (
                    model.to_string(),
                    Price {
                        input: *input,
                        output: *output,
                        cached: Some(*cached),
                    },
                )
            })
            .collect();
        Self { prices }
    }
}

impl Pricing {
    pub fn from_config(config: &Config) -> Self {
        let mut pricing = Self::default();
        pricing.prices.extend(config.pricing.clone());
        pricing
    }

    /// Cost in USD of `usage` on `model`.
    pub fn cost(&self, model: Option<&str>, usage: &Usage) -> f64 {
        let Some(price) = model.and_then(|m| self.prices.get(m)) else {
            return 0.0;
        };
        let cached = usage.cached_tokens.min(usage.input_tokens) as f64;
        let fresh = usage.input_tokens as f64 - cached;
        (fresh * price.input
            + cached * price.cached.unwrap_or(price.input)
            + usage.output_tokens as f64 * price.output)
            / 1_000_000.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cost_by_hand() {
        let usage = Usage {
            input_tokens: 1_000_000,
            output_tokens: 500_000,
            cached_tokens: 400_000,
            reasoning_tokens: 0,
        };
        // 600k fresh × 0.27 + 400k cached × 0.07 + 500k out × 1.10, per million
        let expected = 0.6 * 0.27 + 0.4 * 0.07 + 0.5 * 1.10;
        assert!((Pricing::default().cost(Some("deepseek-chat"), &usage) - expected).abs() < 1e-12);
        assert_eq!(Pricing::default().cost(Some("mystery-model"), &usage), 0.0);
        assert_eq!(Pricing::default().cost(None, &usage), 0.0);
    }

    #[test]
    fn config_overrides_and_extends() {
        let config: Config = toml::from_str("[pricing.local-llama]\ninput = 1.0\noutput = 2.0\n[pricing.deepseek-chat]\ninput = 0.0\noutput = 0.0\n").unwrap();
        let pricing = Pricing::from_config(&config);
        let usage = Usage {
            input_tokens: 1_000_000,
            output_tokens: 1_000_000,
            cached_tokens: 0,
            reasoning_tokens: 0,
        };
        assert_eq!(pricing.cost(Some("local-llama"), &usage), 3.0);
        assert_eq!(pricing.cost(Some("deepseek-chat"), &usage), 0.0);
    }
}

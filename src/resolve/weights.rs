//! Every tuned number of the resolver, read once from resolver/weights.toml (embedded at build
//! time; written by bench/fit-weights.py): the hand-chosen rules and the fitted confidence
//! combiner that decides whether `cmpx do` may act.

use super::Features;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::OnceLock;

const SOURCE: &str = include_str!("../../resolver/weights.toml");

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Weights {
    pub rules: Rules,
    pub confidence: Confidence,
}

/// The hand-chosen numbers; resolver/weights.toml says what each weighs and how it was chosen.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Rules {
    pub min_score: f64,
    pub ambiguity_gap: f64,
    pub unknown: f64,
    pub fuzzy: f64,
    pub regex: f64,
    pub weak: f64,
    pub unmatched: f64,
    pub learned: f64,
    pub opposite: f64,
    pub maker: f64,
    pub reversed: f64,
    pub undirected: f64,
    pub best: f64,
    pub other: f64,
    pub breadth: f64,
    pub agreement: f64,
    pub order: f64,
    pub fit: f64,
    pub mode_min: f64,
    pub mode_lead: f64,
    pub telling_lead: f64,
    pub direction: f64,
    pub opposed: f64,
    pub whole: f64,
    pub remakes: f64,
    pub sample_form: f64,
    pub value: f64,
}

/// Whether `cmpx do` may act: the combiner bench/fit-weights.py found better out of fold, with
/// both fits recorded.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Confidence {
    combiner: Combiner,
    thresholds: Thresholds,
    logistic: Logistic,
}

#[derive(Deserialize, Clone, Copy, PartialEq, Debug)]
#[serde(rename_all = "lowercase")]
enum Combiner {
    Thresholds,
    Logistic,
}

/// Act when every feature reaches its threshold, and `unserved` is at most its value.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Thresholds {
    top: f64,
    lead: f64,
    coverage: f64,
    mode_gap: f64,
    unserved: f64,
}

/// A logistic regression over `Features::vector`, and the probability at which to act.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Logistic {
    threshold: f64,
    intercept: f64,
    coefficients: BTreeMap<String, f64>,
}

impl Logistic {
    /// The probability that the first candidate is the right one.
    fn probability(&self, f: &Features) -> f64 {
        let z = Features::NAMES
            .iter()
            .zip(f.vector())
            .map(|(name, x)| self.coefficients.get(*name).copied().unwrap_or(0.0) * x)
            .sum::<f64>()
            + self.intercept;
        1.0 / (1.0 + (-z).exp())
    }
}

impl Confidence {
    /// Whether `cmpx do` may act on the first candidate.
    pub(super) fn accepts(&self, f: &Features) -> bool {
        if f.veto || f.top <= 0.0 {
            return false;
        }
        match self.combiner {
            Combiner::Thresholds => {
                let t = &self.thresholds;
                f.top >= t.top
                    && f.lead >= t.lead
                    && f.coverage >= t.coverage
                    && f.mode_gap >= t.mode_gap
                    && f.unserved <= t.unserved
            }
            Combiner::Logistic => self.logistic.probability(f) >= self.logistic.threshold,
        }
    }
}

/// The weights; the embedded file is checked by this module's tests and the accuracy test, so
/// a parse failure is a build that never passed them.
pub(super) fn get() -> &'static Weights {
    static WEIGHTS: OnceLock<Weights> = OnceLock::new();
    WEIGHTS.get_or_init(|| toml::from_str(SOURCE).expect("resolver/weights.toml parses"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_parses_and_names_every_feature() {
        let w: Weights = toml::from_str(SOURCE).unwrap();
        let l = &w.confidence.logistic;
        let names: Vec<&str> = l.coefficients.keys().map(String::as_str).collect();
        let mut want = Features::NAMES.to_vec();
        want.sort_unstable();
        assert_eq!(names, want);
        assert!((0.0..1.0).contains(&l.threshold));
        // The combiner in use acts on a clear answer and not on a weak one.
        let clear = Features {
            top: 0.95,
            lead: 0.5,
            coverage: 1.0,
            mode_gap: 0.5,
            own: 0.95,
            declared_margin: 0.5,
            learned_margin: 0.5,
            ..Features::default()
        };
        assert!(w.confidence.accepts(&clear));
        let weak = Features {
            top: 0.3,
            lead: 0.01,
            coverage: 0.2,
            ..clear.clone()
        };
        assert!(!w.confidence.accepts(&weak));
        assert!(!w.confidence.accepts(&Features {
            veto: true,
            ..clear
        }));
    }
}

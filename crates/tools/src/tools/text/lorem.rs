//! Placeholder text: lorem ipsum words, sentences and paragraphs from lipsum's Markov chain.

use crate::ctp::ToolOutcome;
use crate::tools::kit::args::Args;
use crate::tools::kit::tool::Tool;
use lipsum::MarkovChain;
use rand::RngExt;
use rand_chacha::ChaCha20Rng;
use rand_chacha::rand_core::{RngCore, SeedableRng};
use serde_json::json;
use std::sync::OnceLock;

pub(crate) const TOOLS: &[Tool] = &[Tool::new("lorem-ipsum-generator", lorem_ipsum)];

const SENTENCE_WORDS: (u32, u32) = (6, 14);
const CLASSIC_WORDS: usize = 8;
const PARAGRAPH_SENTENCES: (u32, u32) = (4, 7);

/// The chain lipsum itself uses: the classic passage plus Cicero's Liber Primus.
fn chain() -> &'static MarkovChain<'static> {
    static CHAIN: OnceLock<MarkovChain<'static>> = OnceLock::new();
    CHAIN.get_or_init(|| {
        let mut chain = MarkovChain::new();
        chain.learn(lipsum::LOREM_IPSUM);
        chain.learn(lipsum::LIBER_PRIMUS);
        chain
    })
}

fn lorem_ipsum(args: &Args) -> ToolOutcome {
    let units = args.str("units")?;
    let count = args.usize("count")?;
    let classic = args.flag("startWithLorem");
    let html = args.flag("asHtml");
    let seed = match args.opt_i64("seed") {
        Some(s) => s as u64,
        None => rand::rng().random(),
    };
    // lipsum is built on rand 0.8, so its generator comes from rand_chacha 0.3. Two streams:
    // one walks the chain, the other picks sentence and paragraph lengths.
    let word_rng = ChaCha20Rng::seed_from_u64(seed);
    let mut shape = ChaCha20Rng::seed_from_u64(seed ^ 0x9e37_79b9_7f4a_7c15);
    let mut words = Words::new(word_rng, classic);
    // The classic opening is one full sentence: "Lorem ipsum dolor sit amet, consectetur
    // adipiscing elit."
    let mut classic_pending = classic;
    let mut sentence_len = |shape: &mut ChaCha20Rng| {
        if std::mem::take(&mut classic_pending) {
            CLASSIC_WORDS
        } else {
            between(shape, SENTENCE_WORDS)
        }
    };
    let mut paragraphs: Vec<Vec<String>> = Vec::new();
    match units {
        "words" => {
            let mut left = count;
            let mut sentences = Vec::new();
            while left > 0 {
                let n = sentence_len(&mut shape).min(left);
                sentences.push(words.sentence(n));
                left -= n;
            }
            paragraphs.push(sentences);
        }
        "sentences" => {
            let sentences = (0..count)
                .map(|_| {
                    let n = sentence_len(&mut shape);
                    words.sentence(n)
                })
                .collect();
            paragraphs.push(sentences);
        }
        _ => {
            for _ in 0..count {
                let k = between(&mut shape, PARAGRAPH_SENTENCES);
                let sentences = (0..k)
                    .map(|_| {
                        let n = sentence_len(&mut shape);
                        words.sentence(n)
                    })
                    .collect();
                paragraphs.push(sentences);
            }
        }
    }
    let texts: Vec<String> = paragraphs.iter().map(|p| p.join(" ")).collect();
    let output = if html {
        texts
            .iter()
            .map(|p| format!("<p>{p}</p>"))
            .collect::<Vec<_>>()
            .join("\n")
    } else {
        texts.join("\n\n")
    };
    let word_count: usize = texts.iter().map(|p| p.split_whitespace().count()).sum();
    let sentence_count: usize = paragraphs.iter().map(Vec::len).sum();
    Ok(json!({
        "output": output,
        "paragraphs": paragraphs.len(),
        "sentences": sentence_count,
        "words": word_count,
        "seed": seed,
    }))
}

fn between(rng: &mut ChaCha20Rng, (lo, hi): (u32, u32)) -> usize {
    (lo + rng.next_u32() % (hi - lo + 1)) as usize
}

/// Words from the chain, cleaned of the corpus's own punctuation so sentences are ours.
struct Words {
    iter: lipsum::Words<'static, ChaCha20Rng>,
    after_stop: bool,
}

impl Words {
    fn new(rng: ChaCha20Rng, classic: bool) -> Self {
        let iter = if classic {
            chain().iter_with_rng_from(rng, ("Lorem", "ipsum"))
        } else {
            chain().iter_with_rng(rng)
        };
        Words {
            iter,
            after_stop: false,
        }
    }

    /// The next word and whether the corpus put a comma after it.
    fn next_word(&mut self) -> (String, bool) {
        loop {
            let raw = self.iter.next().unwrap_or("lorem");
            let word = raw.trim_matches(|c: char| !c.is_alphabetic());
            let after_stop = std::mem::replace(
                &mut self.after_stop,
                raw.ends_with(['.', '!', '?', ';', ':']),
            );
            if word.is_empty() {
                continue;
            }
            // Capitals that only marked the start of a corpus sentence would look stray mid-sentence.
            let word = if after_stop {
                word.to_lowercase()
            } else {
                word.to_string()
            };
            return (word, raw.ends_with(','));
        }
    }

    fn sentence(&mut self, n: usize) -> String {
        let mut out = String::new();
        for i in 0..n {
            let (word, comma) = self.next_word();
            if i == 0 {
                let mut chars = word.chars();
                if let Some(first) = chars.next() {
                    out.extend(first.to_uppercase());
                    out.push_str(chars.as_str());
                }
            } else {
                out.push(' ');
                out.push_str(&word);
            }
            if comma && i + 1 < n {
                out.push(',');
            }
        }
        out.push('.');
        out
    }
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::json;

    #[test]
    fn starts_with_the_classic_opening() {
        let data = run_ok(
            "lorem-ipsum-generator",
            json!({"units": "words", "count": 5, "seed": 1}),
        );
        assert_eq!(data["output"], "Lorem ipsum dolor sit amet.");
        // The opening sentence of the classic passage (lipsum's LOREM_IPSUM, Wikipedia).
        for seed in [1, 7, 42] {
            let data = run_ok(
                "lorem-ipsum-generator",
                json!({"units": "sentences", "count": 2, "seed": seed}),
            );
            assert!(
                data["output"]
                    .as_str()
                    .unwrap()
                    .starts_with("Lorem ipsum dolor sit amet, consectetur adipiscing elit. "),
                "{}",
                data["output"]
            );
        }
    }

    #[test]
    fn counts_are_exact() {
        let words = run_ok(
            "lorem-ipsum-generator",
            json!({"units": "words", "count": 250, "startWithLorem": false}),
        );
        assert_eq!(words["words"], 250);
        assert_eq!(
            words["output"].as_str().unwrap().split_whitespace().count(),
            250
        );
        let sentences = run_ok(
            "lorem-ipsum-generator",
            json!({"units": "sentences", "count": 9}),
        );
        assert_eq!(sentences["sentences"], 9);
        assert_eq!(
            sentences["output"].as_str().unwrap().matches('.').count(),
            9
        );
        let paragraphs = run_ok(
            "lorem-ipsum-generator",
            json!({"units": "paragraphs", "count": 4}),
        );
        assert_eq!(paragraphs["paragraphs"], 4);
        assert_eq!(
            paragraphs["output"].as_str().unwrap().split("\n\n").count(),
            4
        );
    }

    #[test]
    fn seed_reproduces_and_html_wraps() {
        let args = json!({"units": "paragraphs", "count": 2, "seed": 42, "startWithLorem": false});
        let a = run_ok("lorem-ipsum-generator", args.clone());
        let b = run_ok("lorem-ipsum-generator", args);
        assert_eq!(a, b);
        assert!(!a["output"].as_str().unwrap().starts_with("Lorem ipsum"));
        let html = run_ok(
            "lorem-ipsum-generator",
            json!({"units": "paragraphs", "count": 2, "seed": 42, "asHtml": true}),
        );
        let text = html["output"].as_str().unwrap();
        assert_eq!(text.matches("<p>").count(), 2);
        assert!(text.starts_with("<p>Lorem ipsum"));
    }

    #[test]
    fn count_out_of_range_is_rejected() {
        let (code, _) = run_err("lorem-ipsum-generator", json!({"count": 0}));
        assert_eq!(code, ErrorCode::ConstraintViolation);
        let (code, _) = run_err("lorem-ipsum-generator", json!({"units": "lines"}));
        assert_eq!(code, ErrorCode::ConstraintViolation);
    }
}

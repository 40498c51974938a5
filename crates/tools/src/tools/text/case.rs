//! Case conversion of identifiers and text (heck word splitting) and URL slugs (slug / deunicode).

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::kit::args::Args;
use crate::tools::kit::line_breaks;
use crate::tools::kit::tool::Tool;
use heck::{
    ToKebabCase, ToLowerCamelCase, ToShoutyKebabCase, ToShoutySnakeCase, ToSnakeCase, ToTitleCase,
    ToTrainCase, ToUpperCamelCase,
};
use serde_json::{Map, Value, json};

pub(crate) const TOOLS: &[Tool] = &[
    Tool::new("case-converter", case_converter),
    Tool::new("slugify", slugify),
];

/// Every target case, in the order `all` reports them.
const CASES: &[&str] = &[
    "camel",
    "pascal",
    "snake",
    "constant",
    "kebab",
    "train",
    "cobol",
    "title",
    "sentence",
    "lower",
    "upper",
    "dot",
    "path",
    "swap",
    "alternating",
];

fn case_converter(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    let target = args.str("target")?;
    let per_line = args.flag("perLine");
    let apply = |case: &str| {
        if per_line {
            map_lines(input, |line| convert(case, line))
        } else {
            convert(case, input)
        }
    };
    if target == "all" {
        let cases: Map<String, Value> = CASES
            .iter()
            .map(|c| (c.to_string(), Value::String(apply(c))))
            .collect();
        return Ok(json!({ "output": cases, "target": target }));
    }
    Ok(json!({ "output": apply(target), "target": target }))
}

/// Applies `f` to each line, keeping the line endings (`\n` or `\r\n`) as they were.
fn map_lines(text: &str, f: impl Fn(&str) -> String) -> String {
    line_breaks::lines_with_endings(text)
        .into_iter()
        .map(|(line, ending)| f(line) + ending)
        .collect()
}

fn convert(case: &str, s: &str) -> String {
    match case {
        "camel" => s.to_lower_camel_case(),
        "pascal" => s.to_upper_camel_case(),
        "snake" => s.to_snake_case(),
        "constant" => s.to_shouty_snake_case(),
        "kebab" => s.to_kebab_case(),
        "train" => s.to_train_case(),
        "cobol" => s.to_shouty_kebab_case(),
        "title" => s.to_title_case(),
        // heck's words never contain '_' (it splits on every non-alphanumeric), so joining the
        // snake_case words with another separator gives the same word split for every case.
        "sentence" => capitalize_first(&s.to_snake_case().replace('_', " ")),
        "dot" => s.to_snake_case().replace('_', "."),
        "path" => s.to_snake_case().replace('_', "/"),
        "lower" => s.to_lowercase(),
        "upper" => s.to_uppercase(),
        "swap" => s
            .chars()
            .map(|c| {
                if c.is_lowercase() {
                    c.to_uppercase().collect::<String>()
                } else if c.is_uppercase() {
                    c.to_lowercase().collect()
                } else {
                    c.to_string()
                }
            })
            .collect(),
        "alternating" | "inverse-alternating" => {
            // Only letters advance the alternation, so "a b" becomes "a B" rather than "a b".
            let mut upper = case == "inverse-alternating";
            s.chars()
                .map(|c| {
                    if !c.is_alphabetic() {
                        return c.to_string();
                    }
                    let out: String = if upper {
                        c.to_uppercase().collect()
                    } else {
                        c.to_lowercase().collect()
                    };
                    upper = !upper;
                    out
                })
                .collect()
        }
        _ => s.to_string(),
    }
}

fn capitalize_first(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

fn slugify(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    let separator = args.str("separator")?;
    let lowercase = args.flag("lowercase");
    let max_len = args.usize("maxLength")?;
    // The slug crate always lowercases; to keep case, transliterate with the same deunicode
    // table and split on the same boundaries (anything but an ASCII letter or digit).
    let words: Vec<String> = if lowercase {
        slug::slugify(input)
            .split('-')
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect()
    } else {
        deunicode::deunicode_with_tofu(input, "-")
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect()
    };
    if words.is_empty() {
        return Err(ToolError::invalid(
            "the input has no letters or digits to build a slug from",
        ));
    }
    let full = words.join(separator);
    let output = if max_len > 0 && full.len() > max_len {
        truncate_at_word(&words, separator, max_len)
    } else {
        full
    };
    Ok(json!({ "output": output, "length": output.chars().count() }))
}

/// Keeps whole words while they fit in `max` characters; a first word longer than `max` is cut
/// (the behaviour of python-slugify's `word_boundary`).
fn truncate_at_word(words: &[String], sep: &str, max: usize) -> String {
    let mut out = String::new();
    for word in words {
        let extra = if out.is_empty() {
            word.len()
        } else {
            sep.chars().count() + word.len()
        };
        if out.chars().count() + extra > max {
            break;
        }
        if !out.is_empty() {
            out.push_str(sep);
        }
        out.push_str(word);
    }
    if out.is_empty() {
        // Slug words are ASCII, so byte slicing is char slicing.
        out = words[0][..max.min(words[0].len())].to_string();
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::json;

    fn case(input: &str, target: &str) -> String {
        run_ok("case-converter", json!({"input": input, "target": target}))["output"]
            .as_str()
            .unwrap()
            .to_string()
    }

    // Word splitting as documented by heck: "XMLHttpRequest" is XML|Http|Request.
    #[test]
    fn case_splits_acronyms_and_digits() {
        assert_eq!(case("XMLHttpRequest", "snake"), "xml_http_request");
        assert_eq!(case("XMLHttpRequest", "camel"), "xmlHttpRequest");
        assert_eq!(
            case("getHTTPResponse2Code", "snake"),
            "get_http_response2_code"
        );
        assert_eq!(
            case("getHTTPResponse2Code", "pascal"),
            "GetHttpResponse2Code"
        );
        assert_eq!(case("foo_bar-baz qux", "camel"), "fooBarBazQux");
        assert_eq!(case("foo_bar-baz qux", "constant"), "FOO_BAR_BAZ_QUX");
    }

    #[test]
    fn case_every_target() {
        let expect = [
            ("camel", "helloWorldFoo"),
            ("pascal", "HelloWorldFoo"),
            ("snake", "hello_world_foo"),
            ("constant", "HELLO_WORLD_FOO"),
            ("kebab", "hello-world-foo"),
            ("train", "Hello-World-Foo"),
            ("cobol", "HELLO-WORLD-FOO"),
            ("title", "Hello World Foo"),
            ("sentence", "Hello world foo"),
            ("lower", "hello world_foo"),
            ("upper", "HELLO WORLD_FOO"),
            ("dot", "hello.world.foo"),
            ("path", "hello/world/foo"),
            ("swap", "hELLO wORLD_FOO"),
            ("alternating", "hElLo WoRlD_fOo"),
            ("inverse-alternating", "HeLlO wOrLd_FoO"),
        ];
        for (target, out) in expect {
            assert_eq!(case("Hello World_foo", target), out, "{target}");
        }
        let all = run_ok(
            "case-converter",
            json!({"input": "Hello World_foo", "target": "all"}),
        );
        assert_eq!(all["output"]["kebab"], "hello-world-foo");
        assert_eq!(all["output"].as_object().unwrap().len(), 15);
    }

    #[test]
    fn case_unicode_and_per_line() {
        assert_eq!(
            case("ÉcoleNormale supérieure", "snake"),
            "école_normale_supérieure"
        );
        assert_eq!(case("ΣΊΣΥΦΟΣ", "lower"), "σίσυφος");
        assert_eq!(
            case("userId\r\nHTTPServer\n", "kebab"),
            "user-id\r\nhttp-server\n"
        );
        let joined = run_ok(
            "case-converter",
            json!({"input": "one\ntwo", "target": "camel", "perLine": false}),
        );
        assert_eq!(joined["output"], "oneTwo");
    }

    #[test]
    fn case_rejects_unknown_target() {
        let (code, msg) = run_err("case-converter", json!({"input": "x", "target": "camelot"}));
        assert_eq!(code, ErrorCode::ConstraintViolation);
        assert!(msg.contains("camel"), "{msg}");
    }

    // Examples from the slug crate's documentation.
    #[test]
    fn slug_crate_doc_examples() {
        let vectors = [
            ("My Test String!!!1!1", "my-test-string-1-1"),
            ("test\nit   now!", "test-it-now"),
            ("  --test_-_cool", "test-cool"),
            ("Æúű--cool?", "aeuu-cool"),
            ("You & Me", "you-me"),
            ("user@example.com", "user-example-com"),
        ];
        for (input, slug) in vectors {
            assert_eq!(run_ok("slugify", json!({"input": input}))["output"], slug);
        }
        assert_eq!(
            run_ok("slugify", json!({"input": "Ünïcödé"}))["output"],
            "unicode"
        );
    }

    #[test]
    fn slug_separator_and_case() {
        let data = run_ok(
            "slugify",
            json!({"input": "Æúű--cool Straße", "separator": "_", "lowercase": false}),
        );
        assert_eq!(data["output"], "AEuu_cool_Strasse");
    }

    #[test]
    fn slug_truncates_at_word_boundary() {
        let data = run_ok(
            "slugify",
            json!({"input": "The quick brown fox", "maxLength": 12}),
        );
        assert_eq!(data["output"], "the-quick");
        assert_eq!(data["length"], 9);
        let cut = run_ok(
            "slugify",
            json!({"input": "Supercalifragilistic day", "maxLength": 5}),
        );
        assert_eq!(cut["output"], "super");
    }

    #[test]
    fn slug_rejects_input_without_letters() {
        let (code, msg) = run_err("slugify", json!({"input": "!!! ???"}));
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.contains("no letters or digits"), "{msg}");
    }
}

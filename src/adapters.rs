//! The bundled adapter folders (`adapters/<name>/cmp/*.json`), embedded at build time, and
//! which of them can run on this machine.

use crate::cmp::export::{Bundle, one_per_line};
use crate::cmp::{Capability, Examples, Manifest};

/// The generated table of embedded adapter files, and their digest with the learned phrasings.
mod embedded {
    include!(concat!(env!("OUT_DIR"), "/adapter_files.rs"));
}

pub(crate) use embedded::DIGEST;

/// One embedded adapter: its name and files (relative to the adapter folder).
pub struct Adapter {
    pub name: &'static str,
    pub files: Vec<(&'static str, &'static str)>,
}

impl Adapter {
    fn file(&self, rel: &str) -> Option<&'static str> {
        self.files.iter().find(|(r, _)| *r == rel).map(|(_, t)| *t)
    }

    pub fn manifest(&self) -> Result<Manifest, String> {
        let text = self.file("cmp/manifest.json").ok_or("no manifest.json")?;
        serde_json::from_str(text)
            .map_err(|e| format!("adapters/{}/cmp/manifest.json: {e}", self.name))
    }

    pub fn capability(&self) -> Result<Capability, String> {
        let text = self
            .file("cmp/capability.json")
            .ok_or("no capability.json")?;
        serde_json::from_str(text)
            .map_err(|e| format!("adapters/{}/cmp/capability.json: {e}", self.name))
    }

    /// The programs this adapter runs that are not on PATH (empty when it can run here). Each
    /// intent's program is its command's first word; the manifest's aliases stand in for it.
    pub fn missing_programs(&self) -> Vec<String> {
        let (Ok(manifest), Ok(cap)) = (self.manifest(), self.capability()) else {
            return vec![format!("adapters/{} is not valid", self.name)];
        };
        let mut missing = Vec::new();
        for intent in &cap.intents {
            let Some(program) = shell_words::split(intent.template())
                .ok()
                .and_then(|w| w.into_iter().next())
            else {
                continue;
            };
            if crate::exec::external::locate(&program, &manifest.aliases).is_err()
                && !missing.contains(&program)
            {
                missing.push(program);
            }
        }
        missing
    }

    /// The folder's files in write order, manifest last. The capability is the one cmpx
    /// presents (each `command` a `cmpx run <adapter> --intent <n> …` line, the program's own
    /// template in `program`), and each example carries that command filled from its context,
    /// as an exported catalogue tool's does; the manifest is written as it is.
    pub fn bundle(&self) -> Bundle {
        let presented = self.capability().ok().map(|cap| cap.presented(self.name));
        let mut files: Vec<(&'static str, Vec<u8>)> = self
            .files
            .iter()
            .map(|(rel, text)| {
                let bytes = match (*rel, &presented) {
                    ("cmp/capability.json", Some(cap)) => {
                        one_per_line("intents", cap.intents.iter())
                    }
                    ("cmp/examples.json", Some(cap)) => {
                        examples(text, cap).unwrap_or_else(|| text.as_bytes().to_vec())
                    }
                    _ => text.as_bytes().to_vec(),
                };
                (*rel, bytes)
            })
            .collect();
        files.sort_by_key(|(rel, _)| rel.ends_with("manifest.json"));
        Bundle {
            id: self.name.to_string(),
            files,
        }
    }
}

/// An adapter's examples with each one's `command`: its intent's presented command filled from
/// its context (`None` when the file does not parse; it is then written as it is).
fn examples(text: &str, cap: &Capability) -> Option<Vec<u8>> {
    let mut examples: Examples = serde_json::from_str(text).ok()?;
    for e in &mut examples.examples {
        let intent = cap
            .intents
            .iter()
            .find(|i| i.patterns.first() == Some(&e.intent));
        e.command = intent.map(|i| crate::cmp::mapping::fill(&i.command, &e.invocation.context));
    }
    Some(one_per_line("examples", examples.examples.iter()))
}

/// Every bundled adapter, by name.
pub fn all() -> Vec<Adapter> {
    let mut out: Vec<Adapter> = Vec::new();
    for (path, text) in embedded::ADAPTER_FILES {
        let Some((name, rel)) = path.split_once('/') else {
            continue;
        };
        match out.iter_mut().find(|a| a.name == name) {
            Some(a) => a.files.push((rel, text)),
            None => out.push(Adapter {
                name,
                files: vec![(rel, text)],
            }),
        }
    }
    out
}

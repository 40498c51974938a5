#!/usr/bin/env python3
"""Writes src/resolve/learned.json: the train split of tests/data/resolve-requests*.json, the
labelled requests cmpx's resolver learns phrasing from (tests/resolve_accuracy.rs holds the
split rule and checks that this file holds exactly the train split's tool requests, so the test
split stays unseen).

    bench/learn-phrasings.py
"""

import glob
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def fnv1a(text):
    h = 0xCBF29CE484222325
    for b in text.encode():
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def main():
    out = []
    for path in sorted(glob.glob(os.path.join(ROOT, "tests/data/resolve-requests*.json"))):
        doc = json.load(open(path))
        for section in ("requests", "adapter_requests"):
            for r in doc.get(section, []):
                if fnv1a(r["text"]) % 4 == 0:
                    continue  # the test split: never learned from
                item = {"tool": r["tool"], "text": r["text"]}
                if r.get("intent"):
                    item["intent"] = r["intent"]
                out.append(item)
    doc = {
        "about": "Phrasings the resolver learns from: the train split of "
                 "tests/data/resolve-requests*.json, written by bench/learn-phrasings.py. "
                 "Never edit by hand; the test split is never included.",
        "phrasings": out,
    }
    with open(os.path.join(ROOT, "src/resolve/learned.json"), "w") as f:
        json.dump(doc, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(f"{len(out)} phrasings")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Fit the confidence rule of `cmpx do` on the TRAIN split only.

Input: the stderr of
  CMPX_RESOLVE_FEATURES=1 cargo test --locked --test resolve_accuracy -- --nocapture
which holds a `features` line for every request resolved and a `result` line (whether the
first candidate was right) for train requests only; test requests have no result line, so
they cannot enter the fit. Prints the constants for src/resolve/mod.rs.

Model: logistic regression of "the first candidate is right" on top score, lead, coverage,
unknown words and mode gap (negatives count as wrong); a request is confident when the
probability reaches a threshold chosen so that a wrong action costs as much as COST right ones.
"""
import json, math, sys

COST = 25.0

def load(path):
    feats, results = {}, {}
    for line in open(path, encoding="utf-8"):
        parts = line.rstrip("\n").split("\t")
        if parts[0] == "features" and len(parts) >= 8:
            top, lead, cov, unk, gap = map(float, parts[1:6])
            feats[json.loads(parts[7])] = ([top, lead, cov, min(unk, 4.0), gap], parts[6] == "true")
        elif parts[0] == "result" and len(parts) >= 3:
            results[json.loads(parts[2])] = parts[1] == "true"
    rows = []
    for text, right in results.items():
        if text in feats:
            x, lone = feats[text]
            rows.append((x, right, lone))
    return rows

def fit(rows, l2=0.01, steps=4000, rate=0.5):
    n = len(rows[0][0])
    w = [0.0] * (n + 1)
    for _ in range(steps):
        g = [0.0] * (n + 1)
        for x, y, _ in rows:
            z = w[0] + sum(a * b for a, b in zip(w[1:], x))
            p = 1.0 / (1.0 + math.exp(-z))
            e = p - (1.0 if y else 0.0)
            g[0] += e
            for i, v in enumerate(x):
                g[i + 1] += e * v
        for i in range(n + 1):
            w[i] -= rate * (g[i] / len(rows) + (l2 * w[i] if i else 0.0))
    return w

def prob(w, x):
    return 1.0 / (1.0 + math.exp(-(w[0] + sum(a * b for a, b in zip(w[1:], x)))))

def main():
    rows = load(sys.argv[1])
    w = fit(rows)
    best = None
    for t in [i / 200 for i in range(40, 200)]:
        acted = [(y) for x, y, lone in rows if prob(w, x) >= t and not lone]
        right = sum(acted)
        wrong = len(acted) - right
        gain = right - COST * wrong
        if best is None or gain > best[0]:
            best = (gain, t, right, wrong)
    _, t, right, wrong = best
    n = len(rows)
    print(f"train rows {n}: right first {sum(y for _, y, _ in rows)}")
    print(f"weights (bias, top, lead, coverage, unknown, mode_gap): {[round(v, 3) for v in w]}")
    print(f"threshold {t:.3f}: acts on {right + wrong} ({right} right, {wrong} wrong)")

if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The size of `cmpx resolve`'s answer, in o200k_base tokens, on the project's labelled requests
(tests/data/resolve-requests*.json), with top-1 / top-3 accuracy from the same answers.

    bench/resolve_tokens.py                          # the default answer (top 5), target/release or debug
    bench/resolve_tokens.py --bin /tmp/cmpx-old      # another binary (e.g. the one before a change)
    bench/resolve_tokens.py --args=--full            # extra arguments to resolve
    bench/resolve_tokens.py --json out.json          # every request's count and tools, for diffs

Each request is resolved as an agent calls it (one process, CMP_AGENT=1, compact JSON, the
catalogue and the bundled adapters exported into a temporary CMP_HOME, index warm). Tokens are
counted by bench/tokens.mjs with the gpt-tokenizer npm package, which bundles the o200k_base
ranks (pip's tiktoken downloads them at first use, which this machine cannot do); it is
installed into bench/node_modules on first use, as bench/run does.
"""
import argparse
import concurrent.futures
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)


def labelled():
    data_dir = os.path.join(ROOT, "tests", "data")
    items = []
    for name in sorted(os.listdir(data_dir)):
        if name.startswith("resolve-requests") and name.endswith(".json"):
            d = json.load(open(os.path.join(data_dir, name)))
            for r in d.get("requests", []) + d.get("adapter_requests", []):
                items.append(dict(r, set=name))
            for r in d.get("negatives", []):
                r = {"text": r} if isinstance(r, str) else r
                items.append(dict(r, tool=None, set=name))
    return items


def count_tokens(texts):
    if not os.path.isdir(os.path.join(BENCH, "node_modules", "gpt-tokenizer")):
        print("installing gpt-tokenizer (npm) into bench/node_modules", file=sys.stderr)
        subprocess.run(["npm", "install", "--prefix", BENCH, "--no-save", "--no-package-lock",
                        "--silent", "gpt-tokenizer"], check=True)
    r = subprocess.run(["node", os.path.join(BENCH, "tokens.mjs")], input=json.dumps(texts),
                       capture_output=True, text=True, check=True)
    return json.loads(r.stdout)


def pick_binary():
    for p in ("target/release/cmpx", "target/debug/cmpx"):
        if os.path.exists(os.path.join(ROOT, p)):
            return os.path.join(ROOT, p)
    sys.exit("no cmpx binary: cargo build --release, or pass --bin")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=None)
    ap.add_argument("--args", default="", help="extra resolve arguments, space-separated")
    ap.add_argument("--json", default=None, help="write every request's figures here")
    ap.add_argument("--jobs", type=int, default=2)
    opts = ap.parse_args()
    binary = opts.bin or pick_binary()
    extra = opts.args.split()
    home = tempfile.mkdtemp(prefix="cmpx-resolve-tokens-")
    env = dict(os.environ, CMP_HOME=home, CMP_AGENT="1")
    env.pop("CMP_TOOL_PATH", None)
    subprocess.run([binary, "export"], env=env, stdout=subprocess.DEVNULL, check=True)
    subprocess.run([binary, "resolve", "warm up the index"], env=env, capture_output=True)
    items = labelled()

    def resolve(r):
        out = subprocess.run([binary, "resolve", *extra, "--", r["text"]], env=env,
                             capture_output=True, text=True)
        return out.stdout.rstrip("\n")

    with concurrent.futures.ThreadPoolExecutor(opts.jobs) as pool:
        answers = list(pool.map(resolve, items))
    shutil.rmtree(home, ignore_errors=True)
    counts = count_tokens({str(i): a for i, a in enumerate(answers)})
    rows, top1, top3, n = [], 0, 0, 0
    for i, (r, a) in enumerate(zip(items, answers)):
        try:
            tools = [c["tool"] for c in json.loads(a).get("candidates", [])]
        except json.JSONDecodeError:
            tools = []
        if r["tool"] is not None:
            n += 1
            top1 += bool(tools) and tools[0] == r["tool"]
            top3 += r["tool"] in tools[:3]
        rows.append({"text": r["text"], "tool": r["tool"], "tokens": counts[str(i)],
                     "chars": len(a), "got": tools[:3]})
    tokens = sorted(row["tokens"] for row in rows)
    with_candidates = sorted(row["tokens"] for row in rows if row["got"])
    summary = {
        "binary": binary, "args": opts.args, "requests": len(rows), "tool_requests": n,
        "tokens_median": statistics.median(tokens),
        "tokens_median_with_candidates": statistics.median(with_candidates) if with_candidates else 0,
        "tokens_p90": tokens[int(len(tokens) * 0.9)], "tokens_max": tokens[-1],
        "chars_median": statistics.median(row["chars"] for row in rows),
        "top1": round(top1 * 100 / n, 1), "top3": round(top3 * 100 / n, 1),
    }
    print(json.dumps(summary, indent=1))
    if opts.json:
        with open(opts.json, "w") as f:
            json.dump({"summary": summary, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()

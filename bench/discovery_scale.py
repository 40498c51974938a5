#!/usr/bin/env python3
"""Discovery at scale: time `cmpx list`, `cmpx resolve` and `cmpx do --dry-run` with 100, 1,000
and 10,000 generated tool folders installed, with the resolution index absent (cold) and present
(warm). Usage: bench/discovery_scale.py [--bin target/release/cmpx] [--sizes 100,1000,10000]
Prints a Markdown table; pass --json FILE to also write the raw numbers."""

import argparse, json, os, random, shutil, statistics, subprocess, tempfile, time

WORDS = """archive audit backup batch bucket build cache cert channel chart check cipher cluster
commit config container cookie crawl cron csv dashboard database deploy device diff disk dns
docker domain download email encode endpoint env event export feed file filter firewall font
form git graph grpc hash header host html http image index invoice issue job json kafka key
lambda layout lint log mail map markdown metric migrate monitor mount network node note oauth
order package page parse patch pdf permission photo pipeline plot pod policy port printer
profile proxy queue quota record redis release render report repo request resize route rule
s3 scan schema screen script search secret sensor server service session shell sitemap slack
snapshot socket sql ssh ssl stack stream subnet sync table tag task template tenant test
thread ticket token topic trace translate tunnel upload user video volume vpn webhook wiki
worker yaml zone""".split()
VERBS = "list show create delete update fetch sync export import render convert check scan upload download rotate restart tail inspect validate summarise".split()


def make_tool(root, i, rng):
    noun = rng.choice(WORDS)
    other = rng.choice(WORDS)
    name = f"{noun}-{other}-{i}"
    d = os.path.join(root, name, "cmp")
    os.makedirs(d)
    manifest = {"domain": rng.choice(["devops", "data", "web", "files", "security"]), "name": name,
                "summary": f"{rng.choice(VERBS).title()} {noun} {other} records", "version": "1.0.0",
                "tags": [noun, other]}
    intents = []
    for _ in range(rng.randint(1, 4)):
        verb = rng.choice(VERBS)
        pats = [f"{verb} {noun} {other}", f"{verb} the {other} of a {noun}", f"{noun} {other} {verb}"]
        intents.append({"patterns": pats, "command": f"{name} {verb} --id {{id}}",
                        "params": {"id": {"type": "string", "required": True, "description": f"{noun} id"}},
                        "confirm": verb == "delete", "destructive": verb == "delete", "idempotent": verb != "delete"})
    with open(os.path.join(d, "manifest.json"), "w") as f:
        json.dump(manifest, f)
    with open(os.path.join(d, "capability.json"), "w") as f:
        json.dump({"intents": intents}, f)


def timed(cmd, env, runs):
    samples = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        samples.append((time.perf_counter() - t) * 1000)
    return statistics.median(samples)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/release/cmpx")
    ap.add_argument("--sizes", default="100,1000,10000")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--json")
    args = ap.parse_args()
    binary = os.path.abspath(args.bin)
    rows = []
    for n in [int(s) for s in args.sizes.split(",")]:
        home = tempfile.mkdtemp(prefix=f"cmpx-scale-{n}-")
        env = dict(os.environ, CMP_HOME=home, CMP_AGENT="1")
        env.pop("CMP_TOOL_PATH", None)
        subprocess.run([binary, "export"], env=env, stdout=subprocess.DEVNULL, check=True)
        rng = random.Random(n)
        for i in range(n):
            make_tool(os.path.join(home, "tools"), i, rng)
        query = [binary, "resolve", "pretty", "print", "this", "json"]
        cache = os.path.join(home, "cache")
        cold = []
        for _ in range(args.runs):
            shutil.rmtree(cache, ignore_errors=True)
            cold.append(timed(query, env, 1))
        row = {
            "tools": n,
            "resolve_cold_ms": statistics.median(cold),
            "resolve_warm_ms": timed(query, env, args.runs),
            "do_dry_run_warm_ms": timed([binary, "do", "base64", "encode", "--input", "hi", "--dry-run"], env, args.runs),
            "list_ms": timed([binary, "list"], env, args.runs),
        }
        rows.append(row)
        shutil.rmtree(home, ignore_errors=True)
    print("| tools installed | resolve, cold (ms) | resolve, warm (ms) | do --dry-run, warm (ms) | list (ms) |")
    print("|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['tools']:,} | {r['resolve_cold_ms']:.1f} | {r['resolve_warm_ms']:.1f} | {r['do_dry_run_warm_ms']:.1f} | {r['list_ms']:.1f} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()

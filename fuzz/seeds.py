#!/usr/bin/env python3
"""Writes the seed corpora in fuzz/corpus/<target>/ from the catalogue examples, the bundled
adapters and a few hand-written inputs. Run from anywhere: python3 fuzz/seeds.py

The encodings mirror the fuzz targets (see the doc comment at the top of each target and
`args_for` in fuzz/src/lib.rs). Files are named by content hash, as libFuzzer names them.
"""

import glob
import hashlib
import json
import os

FUZZ = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(FUZZ)
CORPUS = os.path.join(FUZZ, "corpus")

TOOLS = [
    "json-formatter", "json-minifier", "yaml-to-json", "xml-formatter", "xml-to-json",
    "csv-to-json", "sql-formatter", "jwt-decoder", "cron-parser", "toml-to-json",
    "number-base-converter",
    # Tools that parse nested input (see DEEP below for their deep-input seeds).
    "json-to-yaml",
    "yaml-formatter",
    "json-to-toml",
    "toml-to-yaml",
    "json-to-csv",
    "json-to-xml",
    "xml-validator",
    "xpath-tester",
    "jsonpath-tester",
    "json-diff",
    "css-formatter",
    "css-selector-tester",
    "html-to-text",
    "markdown-to-html",
    "math-evaluator",
    "messagepack-converter",
    "cbor-converter",
    "plist-converter",
    "protobuf-decoder",
    "asn1-parser",
    "regex-tester",
    "find-replace",
    "template-renderer",
    "jq-processor",
    "format-detector",
    "modular-arithmetic",
]

STRINGLY_NOT = {"number", "boolean", "json"}


def put(target, data):
    if isinstance(data, str):
        data = data.encode()
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)


def definitions():
    defs = [json.load(open(p)) for p in glob.glob(os.path.join(REPO, "catalogue/*/*.json"))]
    return sorted(defs, key=lambda d: d["id"])


def primary(d):
    ps = d["parameters"]
    ok = [i for i, p in enumerate(ps) if p["type"] not in STRINGLY_NOT and p["type"] != "select"]
    req = [i for i in ok if ps[i]["required"]]
    return (req or ok or [None])[0]


def encode_tool(d, args):
    """Bytes that `cmpx_fuzz::args_for` turns back into `args`."""
    prim = primary(d)
    ctl, texts = bytearray(), []
    for i, p in enumerate(d["parameters"]):
        if i == prim:
            continue
        v = args.get(p["name"])
        if p["type"] == "select":
            opts = [o["value"] for o in p.get("options", [])]
            ctl.append(opts.index(str(v)) if v is not None and str(v) in opts else len(opts))
        elif p["type"] == "boolean":
            ctl.append(2 if v is None else int(bool(v)))
        elif p["type"] == "number":
            ctl.append(int(v) & 0xFF if isinstance(v, int) and -128 <= v <= 126 else 0xFF)
        else:
            texts.append("" if v is None else v if isinstance(v, str) else json.dumps(v))
    first = args.get(d["parameters"][prim]["name"], "") if prim is not None else ""
    pieces = [first] + texts
    while len(pieces) > 1 and pieces[-1] == "":
        pieces.pop()
    return bytes(ctl) + "\0".join(pieces).encode()


EXTRA = {
    "json-formatter": ['{"a":[1,2.50,1e400,-0,{"b":null}],"\\u00e9":"\\ud83d\\ude00"}', "[1,", '{"a":1,"a":2}'],
    "json-minifier": ['[ 1 , 2 , { "x" : "y" } ]', '"\\u0000"'],
    "yaml-to-json": ["a: &x [1, 2]\nb: *x\nc: !!binary aGk=\n", "- ? [a, b]\n  : c\n", "x: 0o17\ny: .inf\nz: ~\n"],
    "xml-formatter": ['<a x="1"><!-- c --><b><![CDATA[<x>]]></b><?pi d?></a>', "<a><b></a>"],
    "xml-to-json": ['<r xmlns:p="u"><p:a id="1">t<b/>u</p:a><a>2</a></r>', '<!DOCTYPE r [<!ENTITY e "x">]><r>&e;</r>'],
    "csv-to-json": ['a,b\n1,"x,""y"""\n2,\n', "a;b\n1;2;3\n"],
    "sql-formatter": ["select a, b from t where x in (select y from u) order by 1; insert into t values (1,'a')", "SELECT $1::int, [x] FROM \"q\" -- c\n/* d */"],
    "jwt-decoder": ["eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.", "a.b.c"],
    "cron-parser": ["*/15 9-17 * * MON-FRI", "0 0 L * ?", "@hourly", "0 0 29 2 *"],
    "toml-to-json": ['a = 1979-05-27T07:32:00Z\n[[b]]\nc = """x\ny"""\nd = { e = [1, 2.5, inf] }\n', "a.b.c = 1\n"],
    "number-base-converter": ["0xff", "-0b1010", "zz", "18446744073709551616", "1_000"],
}


def nest(open_, inner, close, n):
    return open_ * n + inner + close * n


# cmpx's nesting limits (crates/tools/src/tools/kit/depth.rs and the tools' own): every format gets a seed just
# under its limit and one just over it, so the fuzzer starts at both sides of every check.
JSON, MARKUP, YAML, TOML, TEMPLATE, REGEX, FANCY, ASN1 = 128, 512, 128, 80, 100, 250, 64, 49


def both(limit, make):
    return [make(limit - 1), make(limit + 8)]


def der(n):
    """n nested SEQUENCEs with definite lengths, as hex."""
    out, inner = "", b""
    for _ in range(n):
        length = len(inner)
        head = bytes([length]) if length < 0x80 else bytes([0x80 | ((length.bit_length() + 7) // 8)]) + length.to_bytes((length.bit_length() + 7) // 8, "big")
        inner = b"\x30" + head + inner
    return inner.hex()


def protobuf(n):
    """n nested length-delimited fields 1, as hex."""
    inner = b""
    for _ in range(n):
        length, varint = len(inner), b""
        while True:
            b = length & 0x7F
            length >>= 7
            varint += bytes([b | (0x80 if length else 0)])
            if not length:
                break
        inner = b"\x0a" + varint + inner
    return inner.hex()


def plist(n):
    return '<?xml version="1.0"?><plist version="1.0">' + nest("<array>", "<true/>", "</array>", n) + "</plist>"


# Deep inputs per tool: (parameter, text) pairs, parameter None for the primary one.
DEEP = {
    "json-formatter": [(None, t) for t in both(JSON, lambda n: nest("[", "1", "]", n))],
    "json-minifier": [(None, t) for t in both(JSON, lambda n: nest('{"a":', "1", "}", n))],
    "json-to-yaml": [(None, t) for t in both(JSON, lambda n: nest("[", "1", "]", n))],
    "json-to-toml": [(None, t) for t in both(JSON, lambda n: '{"a":' + nest("[", "1", "]", n) + "}")],
    "json-to-csv": [(None, t) for t in both(JSON, lambda n: '[{"a":' + nest("[", "1", "]", n) + "}]")],
    "json-to-xml": [(None, t) for t in both(JSON, lambda n: '{"r":' + nest('{"a":', "1", "}", n) + "}")],
    "jsonpath-tester": [(None, t) for t in both(JSON, lambda n: nest("[", "1", "]", n))]
    + [("path", "$[?" + t + "]") for t in both(MARKUP, lambda n: nest("(", "@.a", ")", n))],
    "json-diff": [(None, t) for t in both(JSON, lambda n: nest("[", "1", "]", n))],
    "jq-processor": [(None, t) for t in both(MARKUP, lambda n: nest("(", ".", ")", n))]
    + [(None, nest('"\\(', "1", ')"', MARKUP + 8))],
    "yaml-to-json": [(None, t) for t in both(YAML, lambda n: "- " * n + "x\n")]
    + [(None, t) for t in both(YAML, lambda n: nest("[", "1", "]", n))],
    "yaml-formatter": [(None, t) for t in both(YAML, lambda n: "- " * n + "x\n")],
    "toml-to-json": [(None, t) for t in both(TOML, lambda n: "a = " + nest("[", "1", "]", n) + "\n")]
    + [(None, t) for t in both(TOML, lambda n: ".".join(["a"] * n) + " = 1\n")],
    "toml-to-yaml": [(None, t) for t in both(TOML, lambda n: "a = " + nest("{b = ", "1", "}", n) + "\n")],
    "xml-formatter": [(None, t) for t in both(MARKUP, lambda n: nest("<a>", "x", "</a>", n))],
    "xml-to-json": [(None, t) for t in both(MARKUP, lambda n: nest("<a>", "x", "</a>", n))],
    "xml-validator": [(None, t) for t in both(MARKUP, lambda n: nest("<a>", "x", "</a>", n))]
    + [(None, "<r" + "".join(' xmlns:p%d="u%d"' % (i, i) for i in range(1030)) + "/>")],
    "xpath-tester": [(None, t) for t in both(MARKUP, lambda n: nest("<a>", "x", "</a>", n))]
    + [("expression", t) for t in both(MARKUP, lambda n: nest("(", "1", ")", n))]
    + [("expression", "+".join(["1"] * (MARKUP + 8)))],
    "css-formatter": [(None, t) for t in both(MARKUP, lambda n: nest("a{", "b:c", "}", n))]
    + [(None, t) for t in both(MARKUP, lambda n: "a{width:" + nest("calc(", "1px", ")", n) + "}")],
    "css-selector-tester": [(None, t) for t in both(MARKUP, lambda n: nest("<div>", "x", "</div>", n))]
    + [("selector", t) for t in both(MARKUP, lambda n: nest(":not(", "a", ")", n))],
    "html-to-text": [(None, t) for t in both(MARKUP, lambda n: nest("<div>", "x", "</div>", n))]
    + [(None, nest("<b>", "x", "", MARKUP + 8)), (None, "<ul>" + "<li>x" * 600 + "</ul>")],
    "markdown-to-html": [(None, ">" * 2000 + " x\n"), (None, nest("[", "x", "]", 2000)),
                         (None, "[a]: http://e/" + "x" * 2000 + "\n\n" + "[a]" * 500)],
    "math-evaluator": [(None, t) for t in both(MARKUP, lambda n: nest("(", "1", ")", n))]
    + [(None, "-" * 600 + "1"), (None, "^".join(["2"] * 600)), (None, "+".join(["1"] * 600))],
    "messagepack-converter": [(None, t) for t in both(JSON, lambda n: "91" * n + "c0")],
    "cbor-converter": [(None, t) for t in both(JSON, lambda n: "81" * n + "f6")]
    + [(None, "c6" * (JSON + 8) + "f6")],
    "plist-converter": [(None, t) for t in both(JSON, plist)],
    "protobuf-decoder": [(None, protobuf(70)), (None, "0b" * 70 + "0c" * 70), (None, "0b" * 63 + "0801" + "0c" * 63)],
    "asn1-parser": [(None, t) for t in both(ASN1, der)] + [(None, "3080" * (ASN1 + 8) + "0000" * (ASN1 + 8))],
    "regex-tester": [(None, t) for t in both(REGEX, lambda n: nest("(", "a", ")", n))]
    + [(None, nest("(?:", "a", ")", FANCY + 8))],
    "find-replace": [("find", t) for t in both(REGEX, lambda n: nest("(", "a", ")", n))],
    "template-renderer": [(None, t) for t in both(TEMPLATE, lambda n: nest("{{#if a}}", "x", "{{/if}}", n))]
    + [(None, t) for t in both(TEMPLATE, lambda n: nest("{% if a %}", "x", "{% endif %}", n))],
    "format-detector": [(None, nest("[", "", "]", 2000)), (None, nest("<a>", "", "</a>", 2000)),
                        (None, "- " * 200 + "x\n")],
    "modular-arithmetic": [(None, "9" * 10001), (None, ",".join(["7" * 9000] * 12))],
    "number-base-converter": [(None, "9" * 80000)],
}


def tool_seeds(defs):
    by_id = {d["id"]: d for d in defs}
    for t in TOOLS:
        d = by_id[t]
        target = "tool_" + t.replace("-", "_")
        put(target, encode_tool(d, d["example"]["input"]))
        prim = primary(d)
        ph = d["parameters"][prim].get("placeholder")
        if ph:
            put(target, encode_tool(d, {d["parameters"][prim]["name"]: ph}))
        for text in EXTRA.get(t, []):
            put(target, encode_tool(d, {d["parameters"][prim]["name"]: text}))
        for param, text in DEEP.get(t, []):
            args = dict(d["example"]["input"])
            args[param or d["parameters"][prim]["name"]] = text
            put(target, encode_tool(d, args))


def param_seeds(defs):
    for i, d in enumerate(defs):
        put("ctp_params", bytes([i % 256]) + json.dumps(d["example"]["input"]).encode())
    put("ctp_params", b"\x00" + b'{"input": null, "x": 1}')


def adapter_files():
    for cmp in sorted(glob.glob(os.path.join(REPO, "adapters/*/cmp"))):
        files = {}
        for name in ["manifest.json", "capability.json", "examples.json"]:
            p = os.path.join(cmp, name)
            files[name] = open(p, "rb").read() if os.path.exists(p) else b""
        yield os.path.basename(os.path.dirname(cmp)), files


def cmp_seeds():
    for name, files in adapter_files():
        for data in files.values():
            if data:
                put("cmp_parse", data)
        f = files
        put("registry_scan", (b"\x40" if name in ("git", "files") else b"\x00") + name.encode() + b"\0" + f["manifest.json"] + b"\0"
            + f["capability.json"] + b"\0" + f["examples.json"])
    # Two folders with the same name in the manifest (shadowing), one in .cmp/.
    _, g = next(adapter_files())
    put("registry_scan", b"\x44a\0" + g["manifest.json"] + b"\0" + g["capability.json"] + b"\0\0b\0"
        + g["manifest.json"] + b"\0{}\0")
    put("registry_scan", b"\x83x\0{\"domain\":\"d\",\"name\":\"n\",\"summary\":\"s\",\"version\":\"1.0.0\"}\0"
        b"{\"intents\":[]}\0")


def template_seeds():
    for _, files in adapter_files():
        cap = json.loads(files["capability.json"])
        examples = json.loads(files["examples.json"] or b'{"examples": []}')["examples"]
        for intent in cap["intents"]:
            ctx = next((e["invocation"]["context"] for e in examples
                        if e["intent"] == intent["patterns"][0]), {})
            put("exec_template", intent["command"] + "\0" + json.dumps(intent.get("params", {}))
                + "\0" + json.dumps(ctx))
    put("exec_template", 'echo {a} "x {b}" --f{flag?} {list}\0'
        '{"a":{"type":"string"},"b":{"type":"integer","default":3},"flag":{"type":"boolean"},'
        '"list":{"type":"array<string>"}}\0{"a":"{b}","flag":"true","list":["1","2"]}')


def mcp_seeds():
    init = '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}}}}'
    notif = '{"jsonrpc":"2.0","method":"notifications/initialized"}'
    lst = '{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"3"}}'
    call = '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"json-formatter","arguments":{"input":"[1,2]"}}}'
    call2 = '{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"base64-encoder","arguments":{"input":"hi","mode":"decode"}}}'
    bad = '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"nope"}}'
    batch = '[{"jsonrpc":"2.0","id":5,"method":"ping"},{"jsonrpc":"2.0","method":"x"},3]'
    put("mcp_loop", b"\x14" + "\n".join([init, notif, lst, call, call2, bad, batch, "{oops"]).encode())
    search = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"query":"format json","limit":2}}}'
    describe = '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"describe","arguments":{"name":"cron-parser"}}}'
    run = '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"run","arguments":{"name":"cron-parser","arguments":{"expression":"0 * * * *"}}}}'
    put("mcp_loop", b"\x05" + "\n".join([init, lst, search, describe, run]).encode())


def main():
    defs = definitions()
    tool_seeds(defs)
    param_seeds(defs)
    cmp_seeds()
    template_seeds()
    mcp_seeds()


if __name__ == "__main__":
    main()

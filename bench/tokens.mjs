// Counts o200k_base tokens (the GPT-4o / o-series tokenizer) for named texts, offline.
// Reads {"name": "text", ...} on stdin, prints {"name": count, ...}.
import { encode } from "gpt-tokenizer/encoding/o200k_base";

let raw = "";
for await (const chunk of process.stdin) raw += chunk;
const texts = JSON.parse(raw);
const counts = {};
for (const [name, text] of Object.entries(texts)) counts[name] = encode(text).length;
process.stdout.write(JSON.stringify(counts));

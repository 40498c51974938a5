// The alternative cmpx serve is measured against: Node's own http server answering the same
// POST with a CTP-shaped Base64 result, in-process (no worker per call).
import http from "node:http";
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    let body;
    try { body = JSON.parse(Buffer.concat(chunks).toString("utf8")); } catch { body = null; }
    const ok = body && typeof body.input === "string";
    const result = ok
      ? { success: true, data: { output: Buffer.from(body.input, "utf8").toString("base64"), mode: "encode", variant: "standard" } }
      : { success: false, error: "input must be a string", errorCode: "TYPE_ERROR" };
    const text = JSON.stringify(result);
    res.writeHead(ok ? 200 : 400, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
    res.end(text);
  });
});
server.listen(0, "127.0.0.1", () => console.log(`http://127.0.0.1:${server.address().port}/`));

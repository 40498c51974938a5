// WebSocket checks for tests/btcp.rs, with the `ws` package the reference client depends on.
// usage: node socket.mjs <btcp-client dist dir> <ws URL of /btcp/ws> <session id>
// Prints one JSON line of what it saw, then "waiting" and, once the server stops, the close
// code of its socket.
import { createRequire } from 'node:module';

const [dist, url, sessionId] = process.argv.slice(2);
const WebSocket = createRequire(`${dist}/index.js`)('ws');
const seen = {};

function open(id, type = 'browser') {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${url}?sessionId=${id}&clientType=${type}`);
    const inbox = [];
    let waiter = null;
    ws.on('message', (d) => { inbox.push(JSON.parse(d.toString())); if (waiter) { waiter(); waiter = null; } });
    ws.next = () => new Promise((r) => { if (inbox.length) r(inbox.shift()); else waiter = () => r(inbox.shift()); });
    ws.on('open', () => resolve(ws));
    ws.on('unexpected-response', (_req, res) => resolve({ status: res.statusCode }));
    ws.on('error', () => {});
  });
}

const owner = await open(sessionId);
seen.welcome = (await owner.next()).result.sessionId;
owner.send(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'ping' }));
seen.pong = (await owner.next()).result;
owner.send('not json');
seen.garbage = (await owner.next()).error.code;
seen.second = (await open(sessionId)).status;
seen.agent = (await open(`${sessionId}x`, 'agent')).status;
// Too large: the server drops the socket; whether its 1009 close frame gets out before the
// connection fails (1006 here) depends on timing.
const big = await open(`${sessionId}big`);
await big.next();
seen.tooLarge = await new Promise((r) => { big.on('close', (code) => r([1006, 1009].includes(code) ? 'dropped' : code)); big.send('x'.repeat(17 << 20)); });
console.log(JSON.stringify(seen));
console.log('waiting');
owner.on('close', (code, reason) => { console.log(JSON.stringify({ closed: code, reason: reason.toString() })); process.exit(0); });

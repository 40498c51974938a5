// A BTCP agent for tests/btcp.rs, speaking the agents-join wire protocol to `cmpx serve`:
// HTTP streaming the way the reference agent example does (an event stream under a name of
// its own, session/join, then requests with X-Session-ID), and WebSocket; refusals first.
// usage: node join.mjs <btcp-client dist dir> <server URL> <session A> <owner key of A>
//        <session B> <owner key of B> <cmpx binary>
// Session A's browser has greet (dom:read) and paint (dom:write; after painting it registers
// greet alone). Prints one JSON line of what it saw.
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';

const [dist, base, A, keyA, B, keyB, cmpx] = process.argv.slice(2);
const require = createRequire(`${dist}/index.js`);
const EventSource = require('eventsource');
const WebSocket = require('ws');
const seen = {};
const rpc = (id, method, params = {}) => ({ jsonrpc: '2.0', id, method, params });

async function post(key, sid, body) {
  const r = await fetch(`${base}/btcp/a/${key}/message`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(sid ? { 'X-Session-ID': sid } : {}) },
    body: JSON.stringify(body),
  });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : null };
}

async function until(ok) {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 50));
}

function socket(url) {
  return new Promise((resolve) => {
    const ws = new WebSocket(url);
    const inbox = [];
    let waiter = null;
    ws.on('message', (d) => { inbox.push(JSON.parse(d.toString())); if (waiter) { waiter(); waiter = null; } });
    ws.next = () => new Promise((r) => { if (inbox.length) r(inbox.shift()); else waiter = () => r(inbox.shift()); });
    ws.ask = (msg) => { ws.send(JSON.stringify(msg)); return ws.next(); };
    ws.on('open', () => resolve(ws));
    ws.on('unexpected-response', (_req, res) => resolve({ status: res.statusCode }));
    ws.on('error', () => {});
  });
}

// Refusals: no agents on the browsers' paths; no key, another session's key, or the session
// id itself as the key do not let an agent in.
seen.browserPath = (await fetch(`${base}/btcp/events?sessionId=${A}&clientType=agent`)).status;
seen.wrongKey = (await post('not-the-key-0123456789', 'agent-x-0123456789', rpc(1, 'session/join', { sessionId: A }))).status;
seen.otherKey = (await post(keyB, A, rpc(2, 'tools/list'))).status;
seen.idAsKey = (await post(A, A, rpc(3, 'tools/list'))).status;

// HTTP streaming: a stream under the agent's own name, then session/join.
const me = `agent-${Date.now()}`;
const events = [];
const es = new EventSource(`${base}/btcp/a/${keyA}/events?sessionId=${me}&clientType=agent`);
es.onmessage = (e) => events.push(JSON.parse(e.data));
await until(() => events.length > 0);
seen.welcome = events[0].result;
const joined = await post(keyA, me, rpc(4, 'session/join', { sessionId: A }));
seen.joined = joined.body.result.tools.map((t) => t.name);
const call = async (id, name, args) => (await post(keyA, A, rpc(id, 'tools/call', { name, arguments: args }))).body.result;
seen.list = (await post(keyA, A, rpc(5, 'tools/list'))).body.result.tools.map((t) => t.name);
seen.greet = (await call(6, 'greet', { name: 'agent' })).content[0].text;
const refused = await call(7, 'paint', { color: 'red' });
seen.paintRefused = refused.isError === true && refused.content[0].text.includes('`cmpx policy grant dom:write --tool paint`');
seen.register = (await post(keyA, A, rpc(8, 'tools/register', { tools: [{ name: 'evil', inputSchema: { type: 'object' } }] }))).body.error.code;
seen.stillTwo = (await post(keyA, A, rpc(9, 'tools/list'))).body.result.tools.map((t) => t.name);
execFileSync(cmpx, ['policy', 'grant', 'dom:write']);
seen.paint = (await call(10, 'paint', { color: 'red' })).content[0].text;
await until(() => events.some((e) => e.method === 'tools/updated'));
seen.updated = events.find((e) => e.method === 'tools/updated')?.params.tools.map((t) => t.name);
es.close();

// WebSocket: joined by the sessionId of its URL; another session stays closed to this key.
const wsBase = base.replace('http://', 'ws://');
const ws = await socket(`${wsBase}/btcp/a/${keyA}/ws?clientType=agent&sessionId=${A}`);
seen.wsWelcome = (await ws.next()).result.sessionId;
seen.wsList = (await ws.ask(rpc(11, 'tools/list'))).result.tools.map((t) => t.name);
seen.wsGreet = (await ws.ask(rpc(12, 'tools/call', { name: 'greet', arguments: { name: 'socket' } }))).result.content[0].text;
seen.wsJoinOther = (await ws.ask(rpc(13, 'session/join', { sessionId: B }))).error.code;
ws.close();
const stranger = await socket(`${wsBase}/btcp/a/${keyB}/ws?clientType=agent&sessionId=${A}`);
seen.strangerWelcome = (await stranger.next()).result.sessionId;
seen.strangerList = (await stranger.ask(rpc(14, 'tools/list'))).error.code;
stranger.close();
console.log(JSON.stringify(seen));
process.exit(0);

// A browser-side BTCP provider for tests/btcp.rs: the reference BTCPClient (built into
// target/btcp-client) against `cmpx serve`, over HTTP streaming or WebSocket.
// usage: node browser.mjs <btcp-client dist dir> <base URL of /btcp> <session id> <tools|none> <http|ws>
// Prints "ready" once connected and registered; stays until stdin closes. After it has
// painted once, it registers greet alone (a page that navigated), so agents see a change.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const [dist, url, sessionId, which, transport] = process.argv.slice(2);
// A browser has EventSource and WebSocket; node 20 has neither, and the client reads the
// globals, so give it the packages the client itself depends on (`eventsource`, `ws`).
const require = createRequire(`${dist}/index.js`);
globalThis.EventSource = require('eventsource');
globalThis.WebSocket = require('ws');
const { BTCPClient, HttpStreamingTransport, WebSocketTransport } = await import(pathToFileURL(`${dist}/index.js`).href);

const Transport = transport === 'ws' ? WebSocketTransport : HttpStreamingTransport;
const client = new BTCPClient({
  transport: new Transport({ url, sessionId }),
  autoReconnect: false,
});
const greet = {
  name: 'greet',
  description: 'Greets a person by name',
  inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  capabilities: ['dom:read'],
};
client.registerHandler('greet', async (args) => `Hello, ${args.name}!`);
client.registerHandler('paint', async (args) => {
  setTimeout(() => client.registerTools([greet]).catch((e) => console.error('register again:', e)), 300);
  return `painted the page ${args.color}`;
});
await client.connect();
if (which === 'tools') {
  await client.registerTools([
    greet,
    {
      name: 'paint',
      description: 'Paints the page background in a colour',
      inputSchema: { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] },
      capabilities: ['dom:write'],
    },
  ]);
}
console.log('ready');
process.stdin.resume();
process.stdin.on('end', () => {
  client.disconnect();
  process.exit(0);
});

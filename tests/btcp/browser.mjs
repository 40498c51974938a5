// A browser-side BTCP provider for tests/btcp.rs: the reference BTCPClient (built into
// target/btcp-client) over HTTP streaming against `cmpx serve`.
// usage: node browser.mjs <btcp-client dist dir> <base URL of /btcp> <session id> <tools|none>
// Prints "ready" once connected and registered; stays until stdin closes.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const [dist, url, sessionId, which] = process.argv.slice(2);
// A browser has EventSource; node does not, and the client reads the global one, so give it
// the polyfill the client itself depends on (its `eventsource` package).
globalThis.EventSource = createRequire(`${dist}/index.js`)('eventsource');
const { BTCPClient, HttpStreamingTransport } = await import(pathToFileURL(`${dist}/index.js`).href);

const client = new BTCPClient({
  transport: new HttpStreamingTransport({ url, sessionId }),
  autoReconnect: false,
});
client.registerHandler('greet', async (args) => `Hello, ${args.name}!`);
client.registerHandler('paint', async (args) => `painted the page ${args.color}`);
await client.connect();
if (which === 'tools') {
  await client.registerTools([
    {
      name: 'greet',
      description: 'Greets a person by name',
      inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      capabilities: ['dom:read'],
    },
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

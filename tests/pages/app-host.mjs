// A minimal MCP Apps host for the browser test, built on the official AppBridge
// (@modelcontextprotocol/ext-apps). Bundled with esbuild into the host pages' folder; it
// talks to `cmpx serve`'s /mcp (2026-07-28, declaring the UI extension), reads the tool's
// view with resources/read, renders it in a sandboxed iframe and forwards the view's
// tools/call to the server.
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {
    extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } },
  },
};

window.calls = [];
window.startHost = async function (mcpUrl, toolId, args) {
  let n = 0;
  async function rpc(method, params) {
    // The 2026-07-28 transport repeats the version, the method and the name in headers.
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json',
      'mcp-protocol-version': META['io.modelcontextprotocol/protocolVersion'],
      'mcp-method': method,
    };
    const name = method === 'tools/call' ? params.name : method === 'resources/read' ? params.uri : null;
    if (name) headers['mcp-name'] = name;
    const r = await fetch(mcpUrl, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: ++n, method, params: { ...params, _meta: META } }),
    });
    const body = await r.json();
    if (body.error) throw new Error(method + ': ' + body.error.message);
    return body.result;
  }
  const list = await rpc('tools/list', {});
  let tools = list.tools;
  let cursor = list.nextCursor;
  while (cursor) {
    const next = await rpc('tools/list', { cursor });
    tools = tools.concat(next.tools);
    cursor = next.nextCursor;
  }
  const tool = tools.find((t) => t.name === toolId);
  const uri = tool._meta.ui.resourceUri;
  const read = await rpc('resources/read', { uri });
  const content = read.contents[0];
  window.viewMime = content.mimeType;
  const iframe = document.createElement('iframe');
  iframe.id = 'view';
  iframe.setAttribute('sandbox', 'allow-scripts');
  iframe.style.width = '100%';
  iframe.style.height = '600px';
  document.body.appendChild(iframe);
  const bridge = new AppBridge(null, { name: 'cmpx-test-host', version: '1.0.0' }, { serverTools: {} }, {
    hostContext: { theme: 'dark' },
  });
  bridge.oncalltool = async (params) => {
    window.calls.push(params);
    const { name, arguments: a } = params;
    return rpc('tools/call', { name, arguments: a });
  };
  bridge.oninitialized = () => {
    window.initialized = true;
    bridge.sendToolInput({ arguments: args });
  };
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  iframe.srcdoc = content.text;
  window.bridge = bridge;
  return uri;
};

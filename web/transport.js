// How the page runs a tool. Served by cmpx: an HTTP POST to /api/tools/{id}. Inside an MCP
// Apps host (<html data-transport="mcp-app">): JSON-RPC 2.0 over postMessage with the host
// (ui/initialize, then tools/call), which runs the tool on the MCP server. Either way the
// form gets a CTP ToolResult.
(function () {
  'use strict';
  var cmpx = (window.cmpx = window.cmpx || {});
  var root = document.documentElement;

  function httpCall(tool, args) {
    return fetch(tool.api + '/api/tools/' + encodeURIComponent(tool.id), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(args)
    }).then(function (r) {
      return r.json().catch(function () {
        return { success: false, error: 'the server answered ' + r.status + ' without a result', errorCode: 'EXECUTION_ERROR' };
      });
    }, function (e) {
      return { success: false, error: 'cmpx could not be reached: ' + e.message, errorCode: 'EXECUTION_ERROR' };
    });
  }

  // An MCP CallToolResult as the CTP ToolResult the form shows.
  function toolResult(r) {
    var text = r && r.content && r.content[0] && r.content[0].text;
    if (r && r.isError) {
      try { return JSON.parse(text); } catch (e) { return { success: false, error: text || 'the tool failed', errorCode: 'EXECUTION_ERROR' }; }
    }
    if (r && r.structuredContent !== undefined) return { success: true, data: r.structuredContent };
    try { return { success: true, data: JSON.parse(text) }; } catch (e) { return { success: true, data: { output: text || '' } }; }
  }

  function appBridge() {
    var pending = {};
    var nextId = 1;
    var host = window.parent;
    // The view cannot know the host's origin (it runs in a sandbox the host chose), so it
    // talks only to its parent window and accepts only what that window sends.
    function send(msg) { host.postMessage(msg, '*'); }
    function request(method, params) {
      var id = nextId++;
      send({ jsonrpc: '2.0', id: id, method: method, params: params });
      return new Promise(function (resolve, reject) { pending[id] = { resolve: resolve, reject: reject }; });
    }
    function notify(method, params) { send({ jsonrpc: '2.0', method: method, params: params || {} }); }

    function applyContext(ctx) {
      if (!ctx || !cmpx.applyStyle) return;
      var v = (ctx.styles && ctx.styles.variables) || {};
      cmpx.applyStyle({
        theme: ctx.theme,
        backgroundColor: v['--color-background-primary'],
        textColor: v['--color-text-primary'],
        secondaryTextColor: v['--color-text-secondary'],
        borderColor: v['--color-border-primary'],
        fontFamily: v['--font-sans']
      });
    }

    window.addEventListener('message', function (e) {
      if (e.source !== host) return;
      var m = e.data;
      if (!m || m.jsonrpc !== '2.0') return;
      if (m.id !== undefined && !m.method) {
        var p = pending[m.id];
        if (!p) return;
        delete pending[m.id];
        if (m.error) p.reject(new Error(m.error.message || 'the host refused the request'));
        else p.resolve(m.result);
        return;
      }
      if (m.id !== undefined) {
        // Requests from the host (teardown, ping): nothing to clean up, answer at once.
        send({ jsonrpc: '2.0', id: m.id, result: {} });
        return;
      }
      var params = m.params || {};
      if (m.method === 'ui/notifications/tool-input' && cmpx.form) cmpx.form.fill(params.arguments || {});
      else if (m.method === 'ui/notifications/tool-result' && cmpx.form) cmpx.form.show(toolResult(params));
      else if (m.method === 'ui/notifications/host-context-changed') applyContext(params);
    });

    var ready = request('ui/initialize', {
      appInfo: { name: 'cmpx', version: '1' },
      appCapabilities: {},
      protocolVersion: '2026-01-26'
    }).then(function (result) {
      applyContext(result && result.hostContext);
      notify('ui/notifications/initialized', {});
      var lastHeight = 0;
      new ResizeObserver(function () {
        var h = document.documentElement.scrollHeight;
        if (h !== lastHeight) {
          lastHeight = h;
          notify('ui/notifications/size-changed', { height: h });
        }
      }).observe(document.body);
    });

    return function (tool, args) {
      return ready.then(function () {
        return request('tools/call', { name: tool.id, arguments: args });
      }).then(toolResult, function (e) {
        return { success: false, error: e.message, errorCode: 'EXECUTION_ERROR' };
      });
    };
  }

  var call = root.getAttribute('data-transport') === 'mcp-app' && window.parent !== window ? appBridge() : httpCall;
  cmpx.transport = { call: call };
})();

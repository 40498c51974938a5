// Inside an embed (CTP §10): tells the host page `ready`, `resize`, `result` and `error`, and
// takes `updateStyles` from it. Messages go only to the host page's origin (from the embed
// URL's `origin=`, else the referrer) and are accepted only from the parent window on that
// origin; with neither known the embed stays silent rather than post to '*'.
(function () {
  'use strict';
  var cmpx = window.cmpx;
  if (window.parent === window || !cmpx || !cmpx.form) return;
  var root = document.documentElement;
  var hostOrigin = root.getAttribute('data-parent-origin');
  if (!hostOrigin && document.referrer) {
    try { hostOrigin = new URL(document.referrer).origin; } catch (e) { hostOrigin = null; }
  }
  if (!hostOrigin || hostOrigin === 'null') return;
  var toolId = cmpx.form.tool.id;

  function post(type, payload) {
    window.parent.postMessage({ type: type, toolId: toolId, payload: payload }, hostOrigin);
  }

  window.addEventListener('message', function (e) {
    if (e.source !== window.parent || e.origin !== hostOrigin) return;
    var m = e.data;
    if (!m || typeof m.type !== 'string') return;
    if (m.type === 'updateStyles') cmpx.applyStyle(m.payload);
    else if (m.type === 'fill') cmpx.form.fill(m.payload);
    else if (m.type === 'run') cmpx.form.run();
  });

  document.addEventListener('cmpx:ran', function (e) {
    var r = e.detail || {};
    if (r.success) post('result', r);
    else post('error', { message: r.error, code: r.errorCode });
  });

  var lastHeight = 0;
  function height() { return Math.ceil(document.documentElement.getBoundingClientRect().height); }
  new ResizeObserver(function () {
    var h = height();
    if (h !== lastHeight) {
      lastHeight = h;
      post('resize', { height: h });
    }
  }).observe(document.body);
  post('ready', { toolId: toolId, height: height() });
})();

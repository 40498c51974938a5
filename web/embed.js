// cmpx embed script for host pages (CTP §10). Put <div data-ctp-tool="json-formatter"></div>
// (or data-ctp-embed) on a page and load this script from a cmpx server: each element gets the
// tool as an iframe styled like the page (autosense). Or call ConveniencePro.embed(el, id, opts).
// Unlike the reference SDK: style updates go only to the embed's own origin, each embed takes
// only messages from its own iframe, the page's own theme wins over the OS setting, and
// frameworks are told apart by their own variables.
(function () {
  'use strict';
  if (window.ConveniencePro && window.ConveniencePro.cmpx) return;
  var script = document.currentScript;
  var defaultBase = script && script.src ? new URL(script.src).origin : location.origin;
  var embeds = [];
  var counter = 0;

  // ---- autosense -------------------------------------------------------------------------
  function cssVar(el, name) {
    return getComputedStyle(el).getPropertyValue(name).trim();
  }
  function rootVar(name) {
    return cssVar(document.documentElement, name) || (document.body ? cssVar(document.body, name) : '');
  }
  var canvas = null;
  // Any CSS colour as sRGB bytes: rgb() is read directly, others (oklch, lab, names) through a
  // one-pixel canvas, which always stores sRGB.
  function rgba(colour) {
    var m = String(colour).match(/^rgba?\(([^)]+)\)$/);
    if (m) {
      var p = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
      return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 };
    }
    if (!colour || !CSS.supports('color', colour)) return null;
    canvas = canvas || document.createElement('canvas');
    canvas.width = canvas.height = 1;
    var ctx = canvas.getContext('2d', { willReadFrequently: true });
    ctx.clearRect(0, 0, 1, 1);
    ctx.fillStyle = colour;
    ctx.fillRect(0, 0, 1, 1);
    var d = ctx.getImageData(0, 0, 1, 1).data;
    return { r: d[0], g: d[1], b: d[2], a: d[3] / 255 };
  }
  function luminance(c) {
    function ch(v) { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); }
    return 0.2126 * ch(c.r) + 0.7152 * ch(c.g) + 0.0722 * ch(c.b);
  }
  // The colour actually behind an element: the first ancestor with an opaque-ish background.
  function backgroundBehind(el) {
    for (var n = el; n && n.nodeType === 1; n = n.parentElement) {
      var bg = getComputedStyle(n).backgroundColor;
      var c = rgba(bg);
      if (c && c.a > 0.5) return bg;
    }
    return null;
  }
  function themeWord(v) {
    v = String(v || '').toLowerCase();
    if (/\bdark\b|dark$|^dark/.test(v)) return 'dark';
    if (/\blight\b|light$|^light/.test(v)) return 'light';
    return null;
  }
  // The page's theme: a dark/light class, a theme attribute, the background colour, the
  // page's declared color-scheme, and only then the OS preference.
  function detectTheme(el) {
    var nodes = [document.documentElement, document.body].filter(Boolean);
    var i, t;
    for (i = 0; i < nodes.length; i++) {
      if (nodes[i].classList.contains('dark')) return 'dark';
      if (nodes[i].classList.contains('light')) return 'light';
    }
    var attrs = ['data-theme', 'data-bs-theme', 'data-mode', 'data-color-mode', 'data-color-scheme', 'data-mui-color-scheme'];
    for (i = 0; i < nodes.length; i++) {
      for (var a = 0; a < attrs.length; a++) {
        t = themeWord(nodes[i].getAttribute(attrs[a]));
        if (t) return t;
      }
    }
    var bg = backgroundBehind(el);
    if (bg) return luminance(rgba(bg)) < 0.2 ? 'dark' : 'light';
    var scheme = getComputedStyle(document.documentElement).colorScheme || '';
    if (/dark/.test(scheme) && !/light/.test(scheme)) return 'dark';
    if (/dark/.test(scheme) && window.matchMedia && matchMedia('(prefers-color-scheme: dark)').matches) return 'dark';
    // No background and no declared scheme: the browser paints the page white.
    return 'light';
  }
  function detectFramework() {
    if (rootVar('--bs-primary') || rootVar('--bs-body-bg')) return 'bootstrap';
    if (rootVar('--chakra-colors-blue-500') || rootVar('--chakra-ring-color')) return 'chakra';
    if (rootVar('--mui-palette-primary-main')) return 'mui';
    if (rootVar('--ant-color-primary')) return 'antd';
    if (rootVar('--primary') && rootVar('--background') && rootVar('--radius')) return 'shadcn';
    if (rootVar('--tw-ring-color') || rootVar('--tw-border-spacing-x') ||
        (rootVar('--font-sans') && (rootVar('--spacing') || rootVar('--color-blue-500')))) return 'tailwind';
    return null;
  }
  // A shadcn-style variable holds "222 47% 11%" (hsl parts) or a whole colour.
  function asColour(v) {
    if (!v) return null;
    if (/^[\d.]+(deg)?\s+[\d.]+%\s+[\d.]+%/.test(v)) v = 'hsl(' + v + ')';
    return CSS.supports('color', v) ? v : null;
  }
  var accentVars = {
    bootstrap: ['--bs-primary'], chakra: ['--chakra-colors-blue-500'], mui: ['--mui-palette-primary-main'],
    antd: ['--ant-color-primary'], shadcn: ['--primary'], tailwind: ['--color-primary', '--color-accent']
  };
  function saturated(colour) {
    var c = rgba(colour);
    if (!c || c.a < 0.5) return false;
    var max = Math.max(c.r, c.g, c.b), min = Math.min(c.r, c.g, c.b);
    return max - min > 40;
  }
  function detectAccent(framework) {
    var names = accentVars[framework] || [];
    for (var i = 0; i < names.length; i++) {
      var v = asColour(rootVar(names[i]));
      if (v) return v;
    }
    var buttons = document.querySelectorAll('.btn-primary, [class*="primary"], button, [role="button"], input[type="submit"]');
    for (var b = 0; b < buttons.length && b < 50; b++) {
      var bg = getComputedStyle(buttons[b]).backgroundColor;
      if (saturated(bg)) return bg;
    }
    var links = document.querySelectorAll('a[href]');
    for (var l = 0; l < links.length && l < 50; l++) {
      var c = getComputedStyle(links[l]).color;
      if (saturated(c)) return c;
    }
    return null;
  }
  function px(v) {
    v = String(v || '').trim();
    var n = parseFloat(v);
    if (!isFinite(n)) return null;
    if (/rem$/.test(v)) return n * parseFloat(getComputedStyle(document.documentElement).fontSize);
    return n;
  }
  function detectRadius(framework) {
    var v = framework === 'bootstrap' ? rootVar('--bs-border-radius') : (rootVar('--radius') || rootVar('--radius-md'));
    var r = px(v);
    if (r === null) {
      var control = document.querySelector('button, input, select, textarea, .btn, .card');
      r = control ? px(getComputedStyle(control).borderTopLeftRadius) : null;
    }
    return r === null ? undefined : Math.max(0, Math.min(32, Math.round(r)));
  }
  function detectStyles(el) {
    el = el || document.body;
    var framework = detectFramework();
    var cs = getComputedStyle(el);
    var styles = {
      framework: framework,
      theme: detectTheme(el),
      accentColor: detectAccent(framework) || undefined,
      backgroundColor: backgroundBehind(el) || undefined,
      textColor: cs.color,
      fontFamily: cs.fontFamily,
      baseFontSize: Math.round(parseFloat(cs.fontSize)) || undefined,
      borderRadius: detectRadius(framework)
    };
    if (styles.baseFontSize && (styles.baseFontSize < 8 || styles.baseFontSize > 32)) styles.baseFontSize = undefined;
    return styles;
  }

  // ---- embedding -------------------------------------------------------------------------
  var urlParams = [['theme', 'theme'], ['accent', 'accentColor'], ['bg', 'backgroundColor'], ['text', 'textColor'],
    ['font', 'fontFamily'], ['fontSize', 'baseFontSize'], ['radius', 'borderRadius'], ['shadow', 'shadow'], ['density', 'density']];
  function embedUrl(toolId, config) {
    var url = new URL((config.embedPath || '/embed') + '/' + encodeURIComponent(toolId), config.baseUrl);
    urlParams.forEach(function (p) {
      var v = config[p[1]];
      if (v !== undefined && v !== null && v !== '') url.searchParams.set(p[0], String(v));
    });
    if (location.origin && location.origin !== 'null') url.searchParams.set('origin', location.origin);
    return url.toString();
  }
  function size(v) { return typeof v === 'number' ? v + 'px' : v; }

  function embed(container, toolId, options) {
    var el = typeof container === 'string' ? document.getElementById(container) : container;
    if (!el) throw new Error('ConveniencePro.embed: no element "' + container + '"');
    if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(toolId || '')) throw new Error('ConveniencePro.embed: "' + toolId + '" is not a tool id');
    var explicit = options || {};
    var config = { baseUrl: defaultBase, width: '100%', height: 'auto', minHeight: 240, autosense: true, watchTheme: true, loading: 'lazy', allowClipboard: true };
    Object.keys(explicit).forEach(function (k) { if (explicit[k] !== undefined) config[k] = explicit[k]; });
    config.toolId = toolId;
    var sensed = config.autosense ? detectStyles(el) : {};
    Object.keys(sensed).forEach(function (k) {
      if (explicit[k] === undefined && sensed[k] !== undefined && k !== 'framework') config[k] = sensed[k];
    });
    var origin = new URL(config.baseUrl).origin;
    var id = 'ctp-embed-' + (++counter);
    var iframe = document.createElement('iframe');
    iframe.id = id;
    iframe.title = toolId + ' (cmpx)';
    iframe.src = embedUrl(toolId, config);
    iframe.setAttribute('loading', config.loading === 'eager' ? 'eager' : 'lazy');
    if (config.allowClipboard) iframe.setAttribute('allow', 'clipboard-write');
    iframe.style.width = size(config.width);
    iframe.style.minHeight = size(config.minHeight);
    iframe.style.height = config.height === 'auto' ? size(config.minHeight) : size(config.height);
    iframe.style.border = '0';
    iframe.style.display = 'block';
    iframe.style.colorScheme = 'normal';
    if (config.className) el.classList.add.apply(el.classList, String(config.className).split(/\s+/).filter(Boolean));

    var themeCleanup = null;
    var controller = {
      id: id, toolId: toolId, container: el, iframe: iframe, config: config, ready: false, detected: sensed,
      updateStyles: function (styles) {
        Object.keys(styles || {}).forEach(function (k) { config[k] = styles[k]; });
        if (iframe.contentWindow) iframe.contentWindow.postMessage({ type: 'updateStyles', payload: styles }, origin);
      },
      reload: function () { controller.ready = false; iframe.src = embedUrl(toolId, config); },
      destroy: function () {
        window.removeEventListener('message', onMessage);
        if (themeCleanup) themeCleanup();
        iframe.remove();
        embeds.splice(embeds.indexOf(controller), 1);
      }
    };
    function emit(name, detail) { el.dispatchEvent(new CustomEvent('ctp:' + name, { detail: detail, bubbles: true })); }
    function onMessage(e) {
      // Only this embed's own iframe, on the cmpx server's origin.
      if (e.source !== iframe.contentWindow || e.origin !== origin) return;
      var m = e.data;
      if (!m || typeof m.type !== 'string') return;
      if (m.type === 'ready') {
        controller.ready = true;
        if (m.payload && m.payload.height && config.height === 'auto') iframe.style.height = m.payload.height + 'px';
        if (config.onReady) config.onReady(controller);
        emit('ready', controller);
      } else if (m.type === 'resize') {
        if (config.height === 'auto' && m.payload && m.payload.height > 0) iframe.style.height = Math.ceil(m.payload.height) + 'px';
      } else if (m.type === 'result') {
        if (config.onResult) config.onResult(m.payload);
        emit('result', m.payload);
      } else if (m.type === 'error') {
        var err = new Error((m.payload && m.payload.message) || 'the tool failed');
        err.code = m.payload && m.payload.code;
        if (config.onError) config.onError(err);
        emit('error', err);
      }
    }
    window.addEventListener('message', onMessage);
    if (config.watchTheme) themeCleanup = watchTheme(el, controller);
    el.appendChild(iframe);
    embeds.push(controller);
    return controller;
  }

  // Follows the page's theme: class and theme attributes on <html>/<body>, and the OS setting.
  function watchTheme(el, controller) {
    var last = detectTheme(el);
    function check() {
      var now = detectTheme(el);
      if (now === last) return;
      last = now;
      var s = detectStyles(el);
      controller.updateStyles({ theme: now, backgroundColor: s.backgroundColor, textColor: s.textColor, accentColor: s.accentColor });
    }
    var observer = new MutationObserver(check);
    [document.documentElement, document.body].forEach(function (n) {
      if (n) observer.observe(n, { attributes: true, attributeFilter: ['class', 'style', 'data-theme', 'data-bs-theme', 'data-mode', 'data-color-mode', 'data-color-scheme'] });
    });
    var media = window.matchMedia ? matchMedia('(prefers-color-scheme: dark)') : null;
    if (media) media.addEventListener('change', check);
    return function () { observer.disconnect(); if (media) media.removeEventListener('change', check); };
  }

  var attributeOptions = {
    'base-url': 'baseUrl', 'embed-path': 'embedPath', theme: 'theme', accent: 'accentColor', bg: 'backgroundColor', text: 'textColor',
    font: 'fontFamily', 'font-size': 'baseFontSize', radius: 'borderRadius', shadow: 'shadow', density: 'density',
    width: 'width', height: 'height', 'min-height': 'minHeight', autosense: 'autosense', 'watch-theme': 'watchTheme',
    loading: 'loading', 'allow-clipboard': 'allowClipboard', 'class-name': 'className'
  };
  function autoDiscover() {
    var found = [];
    document.querySelectorAll('[data-ctp-tool], [data-ctp-embed]').forEach(function (el) {
      if (el.getAttribute('data-ctp-initialised')) return;
      el.setAttribute('data-ctp-initialised', 'true');
      var toolId = el.getAttribute('data-ctp-tool') || el.getAttribute('data-ctp-embed');
      var opts = {};
      Object.keys(attributeOptions).forEach(function (a) {
        var v = el.getAttribute('data-ctp-' + a);
        if (v === null) return;
        var key = attributeOptions[a];
        if (key === 'autosense' || key === 'watchTheme' || key === 'allowClipboard') opts[key] = v !== 'false';
        else if (key === 'baseFontSize' || key === 'borderRadius') opts[key] = Number(v);
        else opts[key] = v;
      });
      try {
        found.push(embed(el, toolId, opts));
      } catch (e) {
        if (window.console) console.error('[cmpx embed] ' + e.message);
      }
    });
    return found;
  }
  function init() {
    if (document.readyState === 'loading') {
      document.addEventListener('DOMContentLoaded', autoDiscover);
      return [];
    }
    return autoDiscover();
  }

  window.ConveniencePro = {
    cmpx: true,
    embed: embed,
    init: init,
    autoDiscover: autoDiscover,
    detectStyles: detectStyles,
    getEmbed: function (id) { return embeds.filter(function (e) { return e.id === id; })[0]; },
    getAllEmbeds: function () { return embeds.slice(); },
    destroyAll: function () { embeds.slice().forEach(function (e) { e.destroy(); }); }
  };
  init();
})();

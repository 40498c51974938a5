// The tool form: shows and hides fields by their dependsOn rules, checks values, fills worked
// examples, runs the tool through cmpx.transport and shows the result (copy, download).
// It also owns the page's style variables (cmpx.applyStyle), which the embed bridge and the
// MCP Apps transport set from outside.
(function () {
  'use strict';
  var cmpx = (window.cmpx = window.cmpx || {});
  var root = document.documentElement;
  var tool = JSON.parse(document.getElementById('cmpx-tool').textContent);
  var form = document.getElementById('tool-form');
  var out = document.getElementById('output');
  var resultBox = document.getElementById('result');
  var errorBox = document.getElementById('error');
  var status = form.querySelector('.status');
  var runButton = form.querySelector('button.run');
  var last = null;

  function fieldOf(name) {
    return form.querySelector('.field[data-name="' + CSS.escape(name) + '"]');
  }
  function control(name) {
    return document.getElementById('f-' + name);
  }

  // dependsOn: a field shows when all its rules hold; a hidden field is neither checked nor sent.
  function valueOf(name) {
    var el = control(name);
    var f = fieldOf(name);
    if (!el || (f && f.hidden)) return undefined;
    return el.type === 'checkbox' ? el.checked : el.value;
  }
  function holds(rule) {
    var v = valueOf(rule.field);
    var want = rule.value;
    switch (rule.condition) {
      case 'equals': return v !== undefined && String(v) === String(want);
      case 'notEquals': return v === undefined || String(v) !== String(want);
      case 'contains': return v !== undefined && String(v).indexOf(String(want)) >= 0;
      case 'exists': return v !== undefined && v !== '' && v !== false;
      default: return true;
    }
  }
  function applyDepends() {
    var dependent = form.querySelectorAll('.field[data-depends]');
    // Twice, so a rule on a field that itself depends on another settles.
    for (var pass = 0; pass < 2; pass++) {
      dependent.forEach(function (f) {
        var rules = JSON.parse(f.getAttribute('data-depends'));
        f.hidden = !rules.every(holds);
        var el = control(f.getAttribute('data-name'));
        if (el) el.disabled = f.hidden;
      });
    }
  }

  function setError(name, message) {
    var el = control(name);
    var slot = document.getElementById('e-' + name);
    if (slot) slot.textContent = message || '';
    if (el) el.setAttribute('aria-invalid', message ? 'true' : 'false');
  }

  function base64Of(file) {
    return new Promise(function (resolve, reject) {
      var r = new FileReader();
      r.onload = function () { resolve(String(r.result).replace(/^data:[^,]*,/, '')); };
      r.onerror = function () { reject(new Error('could not read ' + file.name)); };
      r.readAsDataURL(file);
    });
  }

  // The arguments the form holds, checked: {args, errors: [[name, message]]}.
  function collect() {
    var args = {};
    var errors = [];
    var reads = [];
    tool.params.forEach(function (p) {
      var f = fieldOf(p.name);
      var el = control(p.name);
      if (!f || !el || f.hidden) return;
      setError(p.name, '');
      var required = el.required;
      if (p.type === 'boolean') {
        // Unchecked and not checked by default: absent, so the tool's own default applies.
        if (el.checked || el.defaultChecked) args[p.name] = el.checked;
        return;
      }
      if (p.type === 'file') {
        var file = el.files && el.files[0];
        if (!file) {
          if (required) errors.push([p.name, 'Choose a file.']);
          return;
        }
        var max = Number(el.getAttribute('data-max-size') || 0);
        if (max && file.size > max) {
          errors.push([p.name, 'The file is ' + file.size + ' bytes; at most ' + max + ' are allowed.']);
          return;
        }
        reads.push(base64Of(file).then(function (b64) { args[p.name] = b64; }));
        return;
      }
      var text = el.value;
      if (text === '') {
        if (required) errors.push([p.name, 'This field is required.']);
        return;
      }
      if (!el.checkValidity()) {
        errors.push([p.name, el.validationMessage]);
        return;
      }
      if (p.type === 'number') {
        args[p.name] = Number(text);
      } else if (p.type === 'json') {
        try {
          args[p.name] = JSON.parse(text);
        } catch (e) {
          errors.push([p.name, 'Not valid JSON: ' + e.message]);
        }
      } else {
        args[p.name] = text;
      }
    });
    return Promise.all(reads).then(function () {
      return { args: args, errors: errors };
    });
  }

  function bytesOf(b64) {
    var bin = atob(String(b64).replace(/\s+/g, ''));
    var bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    return bytes;
  }

  // Puts values into the form: the rest go back to their defaults.
  function fill(input) {
    form.reset();
    Object.keys(input || {}).forEach(function (name) {
      var el = control(name);
      var v = input[name];
      var p = tool.params.filter(function (q) { return q.name === name; })[0];
      if (!el || !p) return;
      if (p.type === 'boolean') {
        el.checked = v === true || v === 'true';
      } else if (p.type === 'file') {
        try {
          var dt = new DataTransfer();
          dt.items.add(new File([bytesOf(v)], 'example.bin'));
          el.files = dt.files;
        } catch (e) {
          setError(name, 'This example needs a file: ' + e.message);
        }
      } else if (p.type === 'json') {
        el.value = typeof v === 'string' ? v : JSON.stringify(v, null, 2);
      } else if (p.type === 'datetime') {
        el.value = String(v).replace(/(Z|[+-]\d\d:\d\d)$/, '').slice(0, 19);
      } else {
        el.value = v === null || v === undefined ? '' : String(v);
      }
      syncPicker(el);
    });
    applyDepends();
  }

  function rendered(data) {
    if (data && typeof data === 'object' && typeof data.output === 'string') return data.output;
    return JSON.stringify(data, null, 2);
  }

  function show(result) {
    last = result;
    if (result && result.success) {
      out.textContent = rendered(result.data);
      resultBox.hidden = false;
      errorBox.hidden = true;
    } else {
      var r = result || {};
      errorBox.textContent = '';
      var code = document.createElement('code');
      code.textContent = r.errorCode || 'ERROR';
      errorBox.appendChild(code);
      errorBox.appendChild(document.createTextNode(' ' + (r.error || 'The tool failed.')));
      if (r.suggestion) {
        var hint = document.createElement('p');
        hint.textContent = r.suggestion;
        errorBox.appendChild(hint);
      }
      errorBox.hidden = false;
      resultBox.hidden = true;
    }
    document.dispatchEvent(new CustomEvent('cmpx:ran', { detail: result }));
  }

  function run() {
    return collect().then(function (c) {
      if (c.errors.length) {
        c.errors.forEach(function (e) { setError(e[0], e[1]); });
        var first = control(c.errors[0][0]);
        if (first) first.focus();
        status.textContent = 'Please correct the marked field.';
        return null;
      }
      runButton.disabled = true;
      status.textContent = 'Running…';
      var started = performance.now();
      return cmpx.transport.call(tool, c.args).then(function (result) {
        cmpx.lastRunMs = performance.now() - started;
        if (cmpx.firstResultAt === undefined) cmpx.firstResultAt = performance.now();
        status.textContent = '';
        runButton.disabled = false;
        show(result);
        return result;
      });
    });
  }

  // Colour fields: the picker fills the text box, a #rrggbb text moves the picker.
  function syncPicker(el) {
    var pair = el.closest && el.closest('.color-pair');
    if (!pair) return;
    var picker = pair.querySelector('.picker');
    if (/^#[0-9a-f]{6}$/i.test(el.value)) picker.value = el.value.toLowerCase();
  }
  form.querySelectorAll('.color-pair').forEach(function (pair) {
    var text = pair.querySelector('input[type="text"]');
    var picker = pair.querySelector('.picker');
    syncPicker(text);
    picker.addEventListener('input', function () { text.value = picker.value; });
    text.addEventListener('input', function () { syncPicker(text); });
  });

  form.addEventListener('input', applyDepends);
  form.addEventListener('change', applyDepends);
  form.addEventListener('reset', function () { setTimeout(applyDepends, 0); });
  form.addEventListener('submit', function (e) {
    e.preventDefault();
    run();
  });
  // A sandboxed frame without allow-forms (MCP Apps hosts) never fires submit: Run clicks
  // run the tool themselves.
  runButton.addEventListener('click', function (e) {
    e.preventDefault();
    run();
  });
  form.querySelectorAll('button.example').forEach(function (b) {
    b.addEventListener('click', function () {
      var ex = tool.examples[Number(b.getAttribute('data-example'))];
      if (ex) fill(ex.input);
    });
  });
  document.getElementById('copy').addEventListener('click', function () {
    var text = out.textContent;
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(text).then(function () { status.textContent = 'Copied.'; }, function () { status.textContent = 'Copy was refused; select the text instead.'; });
    }
  });
  document.getElementById('download').addEventListener('click', function () {
    if (!last || !last.success) return;
    var plain = typeof (last.data && last.data.output) === 'string';
    var blob = new Blob([out.textContent], { type: plain ? 'text/plain' : 'application/json' });
    var a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = tool.id + (plain ? '-output.txt' : '-result.json');
    document.body.appendChild(a);
    a.click();
    setTimeout(function () { URL.revokeObjectURL(a.href); a.remove(); }, 0);
  });

  // Style: values arrive from the URL (data-* on <html>), from the host page (updateStyles)
  // or from an MCP host; each is checked before it becomes a CSS variable.
  var colourVars = { accentColor: '--accent', backgroundColor: '--bg', textColor: '--fg', borderColor: '--border', secondaryTextColor: '--muted', inputBackground: '--input-bg' };
  function applyStyle(s) {
    if (!s || typeof s !== 'object') return;
    if (s.theme === 'light' || s.theme === 'dark' || s.theme === 'auto') root.setAttribute('data-theme', s.theme);
    Object.keys(colourVars).forEach(function (k) {
      if (typeof s[k] === 'string' && CSS.supports('color', s[k])) root.style.setProperty(colourVars[k], s[k]);
    });
    if (typeof s.backgroundColor === 'string' && CSS.supports('color', s.backgroundColor)) root.style.setProperty('--input-bg', s.backgroundColor);
    if (typeof s.fontFamily === 'string' && CSS.supports('font-family', s.fontFamily) && !/[;{}]/.test(s.fontFamily)) root.style.setProperty('--font', s.fontFamily);
    var size = Number(s.baseFontSize);
    if (size >= 8 && size <= 32) root.style.setProperty('--font-size', size + 'px');
    var radius = Number(s.borderRadius);
    if (s.borderRadius !== undefined && s.borderRadius !== null && radius >= 0 && radius <= 32) root.style.setProperty('--radius', radius + 'px');
    if (['none', 'subtle', 'medium', 'large'].indexOf(s.shadow) >= 0) root.setAttribute('data-shadow', s.shadow);
    if (['compact', 'normal', 'comfortable'].indexOf(s.density) >= 0) root.setAttribute('data-density', s.density);
    if (s.accentColor) root.style.setProperty('--accent-fg', isLight(getComputedStyle(runButton).backgroundColor) ? '#111111' : '#ffffff');
  }
  function isLight(rgb) {
    var m = String(rgb).match(/[\d.]+/g);
    if (!m || m.length < 3) return false;
    var l = 0.2126 * m[0] + 0.7152 * m[1] + 0.0722 * m[2];
    return l > 160;
  }
  var d = root.dataset;
  applyStyle({ accentColor: d.accent, backgroundColor: d.bg, textColor: d.text, fontFamily: d.font, baseFontSize: d.fontSize, borderRadius: d.radius });

  var themeSwitch = document.querySelector('.theme-switch');
  if (themeSwitch) {
    var saved = null;
    try { saved = localStorage.getItem('cmpx-theme'); } catch (e) { saved = null; }
    if (saved === 'light' || saved === 'dark') root.setAttribute('data-theme', saved);
    themeSwitch.addEventListener('click', function () {
      var dark = root.getAttribute('data-theme') === 'dark' || (root.getAttribute('data-theme') === 'auto' && matchMedia('(prefers-color-scheme: dark)').matches);
      var next = dark ? 'light' : 'dark';
      root.setAttribute('data-theme', next);
      try { localStorage.setItem('cmpx-theme', next); } catch (e) { /* private mode: the switch lasts for this page */ }
    });
  }

  applyDepends();
  cmpx.applyStyle = applyStyle;
  cmpx.form = { tool: tool, fill: fill, show: show, run: run, collect: collect, last: function () { return last; } };
})();

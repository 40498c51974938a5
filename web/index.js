// The web UI's index: search as you type through the resolver (/api/resolve), the best match
// first; Enter opens it. The theme switch is remembered in this browser.
(function () {
  'use strict';
  var root = document.documentElement;
  var input = document.getElementById('q');
  var list = document.getElementById('results');
  var timer = null;
  var asked = 0;

  function show(results) {
    list.textContent = '';
    results.forEach(function (r) {
      var li = document.createElement('li');
      li.setAttribute('data-id', r.id);
      var a = document.createElement('a');
      a.href = r.page;
      var name = document.createElement('strong');
      name.textContent = r.name;
      var summary = document.createElement('span');
      summary.textContent = r.summary;
      a.appendChild(name);
      a.appendChild(summary);
      li.appendChild(a);
      list.appendChild(li);
    });
  }

  function search() {
    var q = input.value.trim();
    var mine = ++asked;
    if (!q) {
      show([]);
      root.removeAttribute('data-filtering');
      return;
    }
    fetch('/api/resolve?q=' + encodeURIComponent(q) + '&top=8').then(function (r) { return r.json(); }).then(function (body) {
      if (mine !== asked) return; // a later keystroke already asked again
      show(body.results || []);
      root.setAttribute('data-filtering', '');
    }, function () { /* the server went away: keep the full list */ });
  }

  input.addEventListener('input', function () {
    clearTimeout(timer);
    timer = setTimeout(search, 120);
  });
  input.form.addEventListener('submit', function (e) {
    e.preventDefault();
    var first = list.querySelector('a');
    if (first) location.href = first.href;
  });
  if (input.value) search();

  var saved = null;
  try { saved = localStorage.getItem('cmpx-theme'); } catch (e) { saved = null; }
  if (saved === 'light' || saved === 'dark') root.setAttribute('data-theme', saved);
  document.querySelector('.theme-switch').addEventListener('click', function () {
    var t = root.getAttribute('data-theme');
    var dark = t === 'dark' || (t === 'auto' && matchMedia('(prefers-color-scheme: dark)').matches);
    var next = dark ? 'light' : 'dark';
    root.setAttribute('data-theme', next);
    try { localStorage.setItem('cmpx-theme', next); } catch (e) { /* this page only */ }
  });
})();

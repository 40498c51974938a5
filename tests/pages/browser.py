"""Drives headless Chromium (Debian's chromium + chromium-driver, through Selenium) over cmpx's
tool pages. Run by tests/pages.rs, which starts `cmpx serve`, a static server for the host pages
(another origin) and passes their addresses. One browser session runs every check; each check
records what it saw, and any mismatch is a failure listed at the end (exit 1). The last line of
stdout is a JSON summary (timings, screenshots)."""

import argparse
import glob
import json
import os
import shutil
import sys
import time

# Never reach the network: no Selenium Manager statistics, and the system chromedriver named
# explicitly below, so Selenium never looks a driver up online.
os.environ["SE_AVOID_STATS"] = "true"
os.environ["SE_OFFLINE"] = "true"

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

ap = argparse.ArgumentParser()
ap.add_argument("--cmpx", required=True)  # http://127.0.0.1:PORT
ap.add_argument("--host-port", required=True, type=int)
ap.add_argument("--dir", required=True)  # the host pages' folder (served on --host-port)
ap.add_argument("--out", required=True)  # screenshots
ap.add_argument("--catalogue", required=True)
ap.add_argument("--app-host", action="store_true")  # app-host.js was bundled into --dir
args = ap.parse_args()

CMPX = args.cmpx.rstrip("/")
HOST = "http://127.0.0.1:%d" % args.host_port
OTHER = "http://localhost:%d" % args.host_port  # same server, another origin
failures = []
summary = {"tools": [], "screenshots": []}


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, flush=True)
    return cond


def definitions():
    out = {}
    for f in glob.glob(os.path.join(args.catalogue, "*", "*.json")):
        if f.endswith(".cmpx.json"):
            continue
        with open(f) as fh:
            d = json.load(fh)
        out[d["id"]] = d
    return out


DEFS = definitions()

# 22 deterministic tools; between them every field type the catalogue uses (textarea, text,
# select, boolean, number, json, file, url, color) and dependsOn rules.
TOOLS = [
    "json-formatter", "base64-encoder", "file-type-detector", "base64-file-encoder",
    "jwt-encoder", "template-renderer", "meta-tag-generator", "svg-placeholder-generator",
    "csv-to-json", "list-converter", "case-converter", "text-statistics",
    "entropy-calculator", "hash-generator", "caesar-cipher", "xor-cipher",
    "regex-tester", "url-parser", "qr-code-generator", "unit-converter",
    "percentage-calculator", "html-entity-encoder",
]


def write(name, text):
    with open(os.path.join(args.dir, name), "w") as fh:
        fh.write(text)


def host_page(name, head, body):
    write(name, "<!doctype html><html%s><head><meta charset=utf-8><title>%s</title>%s</head><body>%s"
          "<script src=\"%s/embed.js\"></script></body></html>" % (
              body[0], name, head, body[1], CMPX))


options = webdriver.ChromeOptions()
options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
for a in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1100,900",
          "--disable-gpu", "--no-first-run", "--disable-extensions", "--lang=en-US"]:
    options.add_argument(a)
# Chromium's own background traffic (component updates, sync, field trials) is off too.
for a in ["--disable-background-networking", "--disable-component-update", "--disable-sync",
          "--disable-quic", "--no-pings", "--disable-domain-reliability"]:
    options.add_argument(a)
DRIVER = os.environ.get("CHROMEDRIVER") or shutil.which("chromedriver") or "/usr/bin/chromedriver"
driver = webdriver.Chrome(service=Service(executable_path=DRIVER), options=options)
driver.set_script_timeout(30)
wait = WebDriverWait(driver, 20, poll_frequency=0.05)


def js(script, *a):
    return driver.execute_script(script, *a)


def expected_text(output):
    if isinstance(output, dict) and isinstance(output.get("output"), str):
        return output["output"]
    return None


def same_result(page_text, output):
    want = expected_text(output)
    if want is not None:
        return page_text == want
    try:
        return json.loads(page_text) == output
    except ValueError:
        return False


def shot(name):
    path = os.path.join(args.out, name + ".png")
    driver.save_screenshot(path)
    summary["screenshots"].append(path)


try:
    # ---- 1. every tool in an embed on another origin: fill from the example, run, read the
    #         result from the page and from the `result` message --------------------------
    host_page("results.html", "", ("", "<div id=slot></div>"))
    driver.get(HOST + "/results.html")
    wait.until(lambda d: js("return !!window.ConveniencePro"))
    types_seen = set()
    for tool in TOOLS:
        d = DEFS[tool]
        js("""window.results = []; window.errors = []; ConveniencePro.destroyAll();
              window.current = ConveniencePro.embed('slot', arguments[0], {loading: 'eager', autosense: false,
                onResult: function (r) { window.results.push(r); }, onError: function (e) { window.errors.push(e.message); }});""", tool)
        wait.until(lambda d: js("return window.current.ready"))
        frame = driver.find_element(By.CSS_SELECTOR, "#slot iframe")
        check(frame.get_attribute("src").startswith(CMPX + "/embed/" + tool + "?"), "%s: iframe src %s" % (tool, frame.get_attribute("src")))
        driver.switch_to.frame(frame)
        for p in d["parameters"]:
            if p["name"] in d["example"]["input"]:
                types_seen.add(p["type"])
        driver.find_element(By.CSS_SELECTOR, "button.example[data-example='0']").click()
        started = time.time()
        driver.find_element(By.CSS_SELECTOR, "button.run").click()
        wait.until(lambda d: not d.find_element(By.ID, "result").get_attribute("hidden")
                   or not d.find_element(By.ID, "error").get_attribute("hidden"))
        elapsed = time.time() - started
        text = js("return document.getElementById('output').textContent")
        err = js("return document.getElementById('error').hidden ? '' : document.getElementById('error').textContent")
        check(err == "", "%s: the page shows an error: %s" % (tool, err))
        check(same_result(text, d["example"]["output"]), "%s: page result %r != example %r" % (tool, text[:200], json.dumps(d["example"]["output"])[:200]))
        driver.switch_to.default_content()
        wait.until(lambda d: js("return window.results.length + window.errors.length") > 0)
        got = js("return window.results[0]")
        check(got is not None and got.get("success") and got.get("data") == d["example"]["output"],
              "%s: result message %r" % (tool, json.dumps(got)[:200]))
        summary["tools"].append({"id": tool, "seconds": round(elapsed, 3)})
    summary["field_types_from_catalogue"] = sorted(types_seen)
    check(len(TOOLS) >= 20, "at least 20 tools")

    # dependsOn: caesar-cipher shows `shift` only for the caesar variant.
    driver.get(CMPX + "/tools/caesar-cipher")
    variant = driver.find_element(By.ID, "f-variant")
    shift_field = driver.find_element(By.CSS_SELECTOR, ".field[data-name='shift']")
    options_ = [o.get_attribute("value") for o in variant.find_elements(By.TAG_NAME, "option")]
    other = [o for o in options_ if o != "caesar"][0]
    js("arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('change', {bubbles: true}))", variant, other)
    check(shift_field.get_attribute("hidden") is not None, "caesar-cipher: shift hidden for variant %s" % other)
    js("arguments[0].value = 'caesar'; arguments[0].dispatchEvent(new Event('change', {bubbles: true}))", variant)
    check(shift_field.get_attribute("hidden") is None, "caesar-cipher: shift shown for caesar")
    # Every control has a label; the form is usable by keyboard (Tab reaches Run, Enter runs).
    unlabelled = js("""return Array.from(document.querySelectorAll('#tool-form input:not(.picker), #tool-form select, #tool-form textarea'))
        .filter(function (el) { return !document.querySelector('label[for="' + el.id + '"]'); }).map(function (el) { return el.id; });""")
    check(unlabelled == [], "controls without a label: %s" % unlabelled)

    # A clear error: an invalid JSON value is refused in the form, a tool error is shown.
    driver.get(CMPX + "/tools/json-formatter")
    box = driver.find_element(By.ID, "f-input")
    box.send_keys("{\"a\": ")
    driver.find_element(By.CSS_SELECTOR, "button.run").click()
    wait.until(lambda d: not d.find_element(By.ID, "error").get_attribute("hidden"))
    shown = driver.find_element(By.ID, "error").text
    check("INVALID_INPUT" in shown, "json-formatter error display: %r" % shown)

    # Time to first result on the web UI's page of one tool.
    driver.get(CMPX + "/tools/json-formatter")
    driver.find_element(By.CSS_SELECTOR, "button.example").click()
    driver.find_element(By.CSS_SELECTOR, "button.run").send_keys(Keys.ENTER)
    wait.until(lambda d: js("return window.cmpx.firstResultAt !== undefined"))
    summary["first_result"] = js("""var n = performance.getEntriesByType('navigation')[0];
        return {domContentLoadedMs: Math.round(n.domContentLoadedEventEnd), runMs: Math.round(window.cmpx.lastRunMs)};""")

    # ---- 2. date, datetime and email: no catalogue tool has them, so a page generated from a
    #         definition that does (written by tests/pages.rs) is checked for controls and
    #         validation ---------------------------------------------------------------------
    if not os.path.exists(os.path.join(args.dir, "synthetic.html")):
        raise SystemExit("synthetic.html is missing: tests/pages.rs writes it")
    driver.get(HOST + "/synthetic.html")
    kinds = js("return ['f-day', 'f-when', 'f-mail', 'f-site', 'f-tint'].map(function (i) { return document.getElementById(i).type; })")
    check(kinds == ["date", "datetime-local", "email", "url", "text"], "synthetic control types %s" % kinds)
    js("""document.getElementById('f-day').value = '2024-02-29'; document.getElementById('f-when').value = '2024-01-15T10:30:15';
          document.getElementById('f-mail').value = 'not an address'; document.getElementById('f-site').value = 'https://example.com/x';""")
    bad = driver.execute_async_script("var done = arguments[0]; cmpx.form.collect().then(done);")
    check([e[0] for e in bad["errors"]] == ["mail"], "an invalid email is refused: %s" % bad)
    js("document.getElementById('f-mail').value = 'dev@example.com'")
    good = driver.execute_async_script("var done = arguments[0]; cmpx.form.collect().then(done);")
    check(good["errors"] == [] and good["args"] == {"day": "2024-02-29", "when": "2024-01-15T10:30:15", "mail": "dev@example.com",
                                                     "site": "https://example.com/x", "tint": "#336699"},
          "synthetic values %s" % good)
    driver.find_element(By.CSS_SELECTOR, "button.example").click()
    filled = js("return [document.getElementById('f-day').value, document.getElementById('f-when').value, document.getElementById('f-mail').value]")
    check(filled == ["2023-12-31", "2023-12-31T23:59:30", "ops@example.org"], "synthetic example fill %s" % filled)

    # ---- 3. autosense: Tailwind, Bootstrap and a dark data-theme page ----------------------
    tailwind_css = """<style>:root{--font-sans:"Inter",ui-sans-serif,system-ui,sans-serif;--spacing:.25rem;
      --color-blue-500:oklch(62.3% .214 259.815);--color-indigo-600:oklch(51.1% .262 276.966);--radius-md:.375rem}
      body{font-family:var(--font-sans);background:#fff;color:#111827;margin:0;padding:24px;font-size:16px}
      .bg-indigo-600{background-color:var(--color-indigo-600)}.text-white{color:#fff}.rounded-md{border-radius:var(--radius-md)}
      .px-4{padding:0 1rem}.flex{display:flex}</style>"""
    host_page("tailwind.html", tailwind_css, ("", "<div class=flex><h1>Tailwind site</h1><button class='bg-indigo-600 text-white rounded-md px-4'>Sign up</button></div>"
                                               "<div data-ctp-tool=json-formatter data-ctp-loading=eager></div>"))
    bootstrap_css = """<style>:root{--bs-primary:#6f42c1;--bs-body-bg:#fff;--bs-body-color:#212529;--bs-border-radius:.5rem;
      --bs-body-font-family:Georgia,"Times New Roman",serif;--bs-font-sans-serif:system-ui,sans-serif}
      body{font-family:var(--bs-body-font-family);background:var(--bs-body-bg);color:var(--bs-body-color);margin:0;padding:24px;font-size:17px}
      .btn{border-radius:var(--bs-border-radius)}.btn-primary{background:var(--bs-primary);color:#fff}.d-flex{display:flex}
      .bg-primary{background:var(--bs-primary)}.p-3{padding:1rem}.text-center{text-align:center}</style>"""
    host_page("bootstrap.html", bootstrap_css, (" data-bs-theme=light", "<div class='d-flex p-3 text-center'><h1>Bootstrap site</h1><a class='btn btn-primary'>Go</a></div>"
                                                 "<div class='bg-primary flex p-3'>utility classes Tailwind also has</div>"
                                                 "<div data-ctp-tool=json-formatter data-ctp-loading=eager></div>"))
    dark_css = """<style>body{background:#1e1e2e;color:#cdd6f4;font-family:"DejaVu Serif",Georgia,serif;margin:0;padding:24px;font-size:15px}
      button{background:#f38ba8;color:#1e1e2e;border:0;border-radius:10px;padding:6px 12px}</style>"""
    host_page("dark.html", dark_css, (" data-theme=dark", "<h1>Dark site</h1><button>Subscribe</button>"
                                       "<div data-ctp-embed=base64-encoder data-ctp-loading=eager></div>"))
    cases = [
        ("tailwind", "tailwind", "light", "button.bg-indigo-600"),
        ("bootstrap", "bootstrap", "light", "a.btn-primary"),
        ("dark", None, "dark", "button"),
    ]
    for page, framework, theme, accent_el in cases:
        driver.get(HOST + "/" + page + ".html")
        wait.until(lambda d: js("return ConveniencePro.getAllEmbeds().length === 1 && ConveniencePro.getAllEmbeds()[0].ready"))
        detected = js("return ConveniencePro.getAllEmbeds()[0].detected")
        host = js("""var b = document.querySelector(arguments[0]); return {accent: getComputedStyle(b).backgroundColor,
            font: getComputedStyle(document.body).fontFamily, size: getComputedStyle(document.body).fontSize};""", accent_el)
        check(detected["framework"] == framework, "%s: framework %s" % (page, detected["framework"]))
        check(detected["theme"] == theme, "%s: detected theme %s" % (page, detected["theme"]))
        driver.switch_to.frame(driver.find_element(By.CSS_SELECTOR, "[data-ctp-initialised] iframe"))
        inside = js("""var b = document.querySelector('button.run'); return {theme: document.documentElement.dataset.theme,
            accent: getComputedStyle(b).backgroundColor, font: getComputedStyle(document.body).fontFamily, size: getComputedStyle(document.documentElement).fontSize};""")
        driver.switch_to.default_content()
        check(inside["theme"] == theme, "%s: embed theme %s" % (page, inside["theme"]))
        check(inside["accent"] == host["accent"], "%s: embed accent %s, host %s" % (page, inside["accent"], host["accent"]))
        check(inside["font"] == host["font"], "%s: embed font %s, host %s" % (page, inside["font"], host["font"]))
        check(inside["size"] == host["size"], "%s: embed font size %s, host %s" % (page, inside["size"], host["size"]))
        summary.setdefault("autosense", {})[page] = {"detected": detected, "embed": inside}
        shot("autosense-" + page)

    # The other frameworks, each by its own variables (and shadcn/ui before the Tailwind it
    # is built on; Tailwind v3 by its --tw-* preflight variables).
    frameworks = {
        "chakra": ":root{--chakra-colors-blue-500:#3182ce;--chakra-ring-color:rgba(66,153,225,.6)}",
        "mui": ":root{--mui-palette-primary-main:#1976d2}",
        "antd": ":root{--ant-color-primary:#1677ff}",
        "shadcn": ":root{--background:0 0% 100%;--primary:222.2 47.4% 11.2%;--radius:.5rem;--font-sans:Inter;--spacing:.25rem}",
        "tailwind": "*,::before,::after{--tw-border-spacing-x:0;--tw-ring-color:rgb(59 130 246 / .5)}",
        "none": "body{background:#fafafa}",
    }
    for name, css in frameworks.items():
        host_page("fw-%s.html" % name, "<style>%s</style>" % css, ("", "<button>ok</button>"))
        driver.get(HOST + "/fw-%s.html" % name)
        wait.until(lambda d: js("return !!window.ConveniencePro"))
        got = js("return ConveniencePro.detectStyles().framework")
        check(got == (None if name == "none" else name), "framework of the %s page: %s" % (name, got))
    check(js("return ConveniencePro.detectStyles().accentColor") is None, "a grey page has no accent")

    # The page's theme wins over the OS: OS dark, a light page (and one with no background).
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    host_page("plain.html", "", ("", "<h1>Plain page</h1><div data-ctp-tool=uuid-analyzer data-ctp-loading=eager></div>"))
    for page in ["bootstrap", "plain"]:
        driver.get(HOST + "/" + page + ".html")
        check(js("return matchMedia('(prefers-color-scheme: dark)').matches"), "OS dark mode is emulated")
        wait.until(lambda d: js("return ConveniencePro.getAllEmbeds().length === 1 && ConveniencePro.getAllEmbeds()[0].ready"))
        check(js("return ConveniencePro.getAllEmbeds()[0].detected.theme") == "light", "%s: light page under OS dark mode" % page)
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "light"}]})

    # watchTheme: the page switching to dark reaches the embed.
    driver.get(HOST + "/bootstrap.html")
    wait.until(lambda d: js("return ConveniencePro.getAllEmbeds().length === 1 && ConveniencePro.getAllEmbeds()[0].ready"))
    js("document.documentElement.setAttribute('data-bs-theme', 'dark'); document.body.style.background = '#212529'")
    driver.switch_to.frame(driver.find_element(By.CSS_SELECTOR, "[data-ctp-initialised] iframe"))
    wait.until(lambda d: js("return document.documentElement.dataset.theme") == "dark")
    driver.switch_to.default_content()

    # ---- 4. messages: foreign origins ignored, updates only to the embed's origin, two embeds
    write("foreign.html", "<!doctype html><script>for (var i = 0; i < parent.frames.length; i++) { try { parent.frames[i].postMessage("
          "{type: 'updateStyles', payload: {theme: 'dark', accentColor: '#ff0000'}}, '*'); } catch (e) {} } window.sent = true;</script>")
    write("spy.html", "<!doctype html><script>window.got = []; addEventListener('message', function (e) { window.got.push(e.data); });</script>")
    host_page("messages.html", "", ("", "<div id=a></div><div id=b></div><div id=c></div>"))
    driver.get(HOST + "/messages.html")
    js("""window.ra = []; window.rb = [];
          window.ea = ConveniencePro.embed('a', 'base64-encoder', {loading: 'eager', theme: 'light', autosense: false, onResult: function (r) { ra.push(r); }});
          window.eb = ConveniencePro.embed('b', 'base64-encoder', {loading: 'eager', theme: 'light', autosense: false, onResult: function (r) { rb.push(r); }});""")
    wait.until(lambda d: js("return ea.ready && eb.ready"))
    js("var f = document.createElement('iframe'); f.src = arguments[0]; f.id = 'foreign'; document.getElementById('c').appendChild(f);", OTHER + "/foreign.html")
    driver.switch_to.frame(driver.find_element(By.ID, "foreign"))
    wait.until(lambda d: js("return window.sent === true"))
    driver.switch_to.default_content()
    time.sleep(0.3)
    driver.switch_to.frame(driver.find_element(By.CSS_SELECTOR, "#a iframe"))
    check(js("return document.documentElement.dataset.theme") == "light", "a foreign origin's updateStyles was ignored")
    driver.switch_to.default_content()
    js("ea.updateStyles({theme: 'dark'})")
    driver.switch_to.frame(driver.find_element(By.CSS_SELECTOR, "#a iframe"))
    wait.until(lambda d: js("return document.documentElement.dataset.theme") == "dark")  # the host's own update works
    # Two embeds: a run in A reaches A's callback only, then B's reaches B's only.
    driver.find_element(By.CSS_SELECTOR, "button.example").click()
    driver.find_element(By.CSS_SELECTOR, "button.run").click()
    driver.switch_to.default_content()
    wait.until(lambda d: js("return ra.length") == 1)
    time.sleep(0.3)
    check(js("return rb.length") == 0, "embed B received A's result")
    driver.switch_to.frame(driver.find_element(By.CSS_SELECTOR, "#b iframe"))
    driver.find_element(By.CSS_SELECTOR, "button.example").click()
    driver.find_element(By.CSS_SELECTOR, "button.run").click()
    driver.switch_to.default_content()
    wait.until(lambda d: js("return rb.length") == 1)
    check(js("return ra.length") == 1, "embed A received B's result")
    # Style updates go to the embed's origin only: once the frame shows another origin's page,
    # an update is not delivered (a message to '*' is, which shows the spy listens).
    js("document.querySelector('#a iframe').src = arguments[0]", OTHER + "/spy.html")
    driver.switch_to.frame(driver.find_element(By.CSS_SELECTOR, "#a iframe"))
    wait.until(lambda d: js("return Array.isArray(window.got)"))
    driver.switch_to.default_content()
    js("ea.updateStyles({accentColor: '#00ff00'}); document.querySelector('#a iframe').contentWindow.postMessage({probe: 1}, '*');")
    time.sleep(0.3)
    driver.switch_to.frame(driver.find_element(By.CSS_SELECTOR, "#a iframe"))
    got = js("return window.got")
    driver.switch_to.default_content()
    check(got == [{"probe": 1}], "messages the spy received: %s" % got)

    # ---- 5. the web UI: search finds the expected tool first -------------------------------
    searches = [
        ("pretty print json", "json-formatter"), ("decode a jwt", "jwt-decoder"),
        ("sha256 of a string", "hash-generator"), ("convert yaml to json", "yaml-to-json"),
        ("base64 encode", "base64-encoder"), ("generate a uuid", "uuid-generator"),
        ("parse a cron expression", "cron-parser"), ("url encode a string", "url-encoder"),
        ("unix timestamp to date", "timestamp-converter"), ("diff two texts", "text-diff"),
    ]
    driver.get(CMPX + "/")
    q = driver.find_element(By.ID, "q")
    found = 0
    for text, want in searches:
        q.clear()
        q.send_keys(text)
        try:
            wait.until(lambda d: js("var li = document.querySelector('#results li'); return li && li.dataset.id") == want)
            found += 1
        except Exception:
            check(False, "search %r: first is %s" % (text, js("var li = document.querySelector('#results li'); return li && li.dataset.id")))
    summary["search"] = "%d/%d" % (found, len(searches))
    q.send_keys(Keys.ENTER)
    wait.until(lambda d: d.current_url.endswith("/tools/text-diff"))
    shot("web-ui-tool-page")
    driver.get(CMPX + "/")
    js("document.documentElement.setAttribute('data-theme', 'dark')")
    shot("web-ui-index-dark")

    # ---- 6. the MCP Apps view under the official AppBridge ---------------------------------
    if args.app_host:
        write("app-host.html", "<!doctype html><html><head><meta charset=utf-8><title>MCP Apps host</title></head>"
              "<body><script type=module src=app-host.js></script></body></html>")
        driver.get(HOST + "/app-host.html")
        wait.until(lambda d: js("return typeof window.startHost === 'function'"))
        d = DEFS["base64-encoder"]
        uri = driver.execute_async_script("var done = arguments[arguments.length - 1]; startHost(arguments[0], 'base64-encoder', arguments[1]).then(done, function (e) { done('ERROR ' + e.message); });",
                                          CMPX + "/mcp", d["example"]["input"])
        check(uri == "ui://cmpx/base64-encoder", "view uri %s" % uri)
        check(js("return window.viewMime") == "text/html;profile=mcp-app", "view MIME type")
        wait.until(lambda d: js("return window.initialized === true"))
        driver.switch_to.frame(driver.find_element(By.ID, "view"))
        wait.until(lambda dr: js("return document.getElementById('f-input').value") == d["example"]["input"]["input"])
        check(js("return document.documentElement.dataset.theme") == "dark", "the host context's theme reaches the view")
        driver.find_element(By.CSS_SELECTOR, "button.run").click()
        wait.until(lambda dr: not dr.find_element(By.ID, "result").get_attribute("hidden"))
        text = js("return document.getElementById('output').textContent")
        check(same_result(text, d["example"]["output"]), "MCP Apps view result %r" % text)
        js("document.getElementById('result').scrollIntoView()")
        driver.switch_to.default_content()
        check(js("return window.calls.length") == 1 and js("return window.calls[0].name") == "base64-encoder", "the view called through the bridge")
        shot("mcp-apps-view")
        summary["mcp_apps"] = "ran base64-encoder through AppBridge"
except Exception as e:  # a timeout or a missing element: report where
    failures.append("aborted: %s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else ""))
    try:
        shot("failure")
    except Exception:
        pass
finally:
    driver.quit()

summary["failures"] = failures
print(json.dumps(summary))
sys.exit(1 if failures else 0)

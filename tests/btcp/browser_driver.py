"""Headless Chromium for tests/btcp_browser.rs: the reference BTCPClient on a web page
(browser_page.html, on its own origin) offers greet and paint to agents through `cmpx serve`,
and agent.py (the official MCP Python SDK) uses them.

usage: browser_driver.py --pages URL --cmpx URL --transport http|ws --agent agent.py
                         --bin CMPX --home CMP_HOME --out DIR
Opens the page with tools, a second page without (another session), and the page on an origin
cmpx was not told about; runs agent.py against the two sessions; then reads what the agent did
to the DOM and takes a screenshot. The last line of stdout is a JSON summary; any failure exits
non-zero with its reason."""

import argparse
import json
import os
import shutil
import subprocess
import sys

# Never reach the network: no Selenium Manager statistics, and the system chromedriver named
# explicitly below, so Selenium never looks a driver up online.
os.environ["SE_AVOID_STATS"] = "true"
os.environ["SE_OFFLINE"] = "true"

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait

ap = argparse.ArgumentParser()
ap.add_argument("--pages", required=True)  # http://127.0.0.1:PORT, serving page.html and dist/
ap.add_argument("--other", required=True)  # the same pages on an origin cmpx does not allow
ap.add_argument("--cmpx", required=True)
ap.add_argument("--transport", required=True, choices=["http", "ws"])
ap.add_argument("--agent", required=True)
ap.add_argument("--bin", required=True)
ap.add_argument("--home", required=True)
ap.add_argument("--out", required=True)
args = ap.parse_args()

options = webdriver.ChromeOptions()
options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
for a in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=900,700",
          "--disable-gpu", "--no-first-run", "--disable-extensions", "--lang=en-US"]:
    options.add_argument(a)
# Chromium's own background traffic (component updates, sync, field trials) is off too.
for a in ["--disable-background-networking", "--disable-component-update", "--disable-sync",
          "--disable-quic", "--no-pings", "--disable-domain-reliability"]:
    options.add_argument(a)
DRIVER = os.environ.get("CHROMEDRIVER") or shutil.which("chromedriver") or "/usr/bin/chromedriver"
driver = webdriver.Chrome(service=Service(executable_path=DRIVER), options=options)
wait = WebDriverWait(driver, 20, poll_frequency=0.05)


def js(script):
    return driver.execute_script(script)


def page(origin, tools, transport):
    """Opens the page in a new window and waits until its client connected or failed."""
    driver.switch_to.new_window("window")
    driver.get("%s/page.html?server=%s/btcp&transport=%s&tools=%s" % (origin, args.cmpx, transport, tools))
    wait.until(lambda d: js("return window.btcp && window.btcp.state !== 'connecting'"))
    return driver.current_window_handle, js("return window.btcp")


def fail(reason):
    print("FAILED:", reason)
    driver.save_screenshot(os.path.join(args.out, "btcp-%s-failed.png" % args.transport))
    sys.exit(1)


try:
    summary = {}
    with_tools, state = page(args.pages, "tools", args.transport)
    if state["state"] != "ready":
        fail("the page with tools did not connect: %s" % state)
    # The second session comes over HTTP streaming whatever the first uses.
    _, other = page(args.pages, "none", "http")
    if other["state"] != "ready":
        fail("the page without tools did not connect: %s" % other)
    # A page on an origin cmpx was not given with --allow-origin cannot open a session.
    _, stranger = page(args.other, "tools", args.transport)
    summary["stranger"] = {"state": stranger["state"], "error": stranger["error"]}

    agent = subprocess.run(
        [sys.executable, args.agent, args.cmpx, state["sessionId"], other["sessionId"], args.bin],
        env=dict(os.environ, CMP_HOME=args.home, HOME=args.home),
        capture_output=True, text=True, timeout=45)
    if agent.returncode != 0:
        fail("agent.py: %s%s" % (agent.stdout, agent.stderr))
    summary["agent"] = json.loads(agent.stdout.strip().splitlines()[-1])

    driver.switch_to.window(with_tools)
    wait.until(lambda d: js("return document.getElementById('tools').textContent") == "greet")
    summary["background"] = js("return getComputedStyle(document.body).backgroundColor")
    summary["canvas"] = js("return document.getElementById('canvas').textContent")
    summary["calls"] = js("return window.btcp.calls")
    summary["userAgent"] = js("return navigator.userAgent")
    shot = os.path.join(args.out, "btcp-%s.png" % args.transport)
    driver.save_screenshot(shot)
    summary["screenshot"] = shot
finally:
    driver.quit()
print(json.dumps(summary))

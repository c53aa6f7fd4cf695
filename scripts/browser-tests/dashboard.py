#!/usr/bin/python3
"""The dashboard in a real browser: headless Chromium (Debian's) driven through Selenium, against
the built attributiond serving a fresh database on 127.0.0.1.

    scripts/browser-tests/dashboard.py [--binary .build/debug/attributiond] [--screenshots DIR]

Signs in with the admin key, creates a link through the form, clicks it from another client and
sees the count and the chart change, issues and revokes an API key, has a form without its CSRF
token refused, adds a viewer who is refused on settings, and does it again with JavaScript off
and in a 390-pixel-wide window (a phone's). Screenshots of the main pages go to --screenshots.
"""
import argparse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
import json
import threading
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

ADMIN_KEY = "browser-admin-key-0123456789"
IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1"
DESKTOP = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36"
failures = []
passes = 0


def check(condition, what):
    global passes
    print(("ok   " if condition else "FAIL ") + what)
    if condition:
        passes += 1
    else:
        failures.append(what)


def start_server(binary, folder):
    config = os.path.join(folder, "config.json")
    with open(config, "w") as f:
        json.dump({"projects": [{"name": "Shop", "token": "browser-token-0123456789abcdef",
                                 "ios_store_url": "https://apps.apple.com/app/id1",
                                 "web_url": "https://shop.example.com/"}]}, f)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ATTRIBUTIOND_")}
    # Webhooks may go to the test's own receiver on 127.0.0.1.
    env.update({"ATTRIBUTIOND_ADMIN_KEY": ADMIN_KEY, "ATTRIBUTIOND_CONFIG": config, "ATTRIBUTIOND_OUTBOUND_ALLOW_PRIVATE": "true", "ATTRIBUTIOND_FX_URL": ""})
    process = subprocess.Popen([binary, "serve", "--host", "127.0.0.1", "--port", "0", "--db", os.path.join(folder, "db.sqlite")],
                               stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, env=env, cwd=folder)
    deadline = time.time() + 20
    while time.time() < deadline:
        line = process.stderr.readline().decode()
        if '"listening"' in line:
            address = json.loads(line)["address"]
            # Keep reading its log, or a full pipe would stop the server at its next line.
            threading.Thread(target=lambda: [None for _ in iter(process.stderr.readline, b"")], daemon=True).start()
            return process, "http://" + address
        if not line and process.poll() is not None:
            break
    process.kill()
    raise SystemExit("the server did not start")


class Receiver(BaseHTTPRequestHandler):
    """A webhook endpoint on 127.0.0.1: keeps each request's body, answers 200."""
    bodies = []

    def do_POST(self):
        Receiver.bodies.append(self.rfile.read(int(self.headers.get("Content-Length", 0))).decode())
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *args):
        pass


def start_receiver():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/hook"


def http(method, url, headers=None, data=None):
    request = urllib.request.Request(url, method=method, headers=headers or {}, data=data)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def browser(javascript=True, width=1280):
    options = Options()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", f"--window-size={width},900"):
        options.add_argument(argument)
    if not javascript:
        options.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(20)
    if width < 500:  # below headless Chromium's smallest window: a phone's viewport, emulated
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": True})
    return driver


def wait_for(driver, text, seconds=10):
    """Whether `text` shows on the page within `seconds`: a click that submits a form returns
    before the answer has loaded."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            if text in driver.page_source:
                return True
        except Exception:
            pass
        time.sleep(0.1)
    return False


def open_section(driver, title):
    """Unfolds the form's section titled `title` (a <details>), as a person clicks its summary."""
    for summary in driver.find_elements(By.TAG_NAME, "summary"):
        if summary.text.strip() == title:
            if summary.find_element(By.XPATH, "..").get_attribute("open") is None:
                summary.click()
            return True
    return False


def fits(driver):
    """(document width, viewport width): equal when nothing runs past the page's edge."""
    return (driver.execute_script("return document.documentElement.scrollWidth"),
            driver.execute_script("return document.documentElement.clientWidth"))


def sign_in(driver, base, admin_key=None, email=None, password=None):
    driver.get(base + "/dashboard/")
    if admin_key:
        driver.find_element(By.NAME, "admin_key").send_keys(admin_key)
        driver.find_element(By.NAME, "admin_key").submit()
    else:
        driver.find_element(By.NAME, "email").send_keys(email)
        driver.find_element(By.NAME, "password").send_keys(password)
        driver.find_element(By.NAME, "password").submit()
    wait_for(driver, "Sign out")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=".build/debug/attributiond")
    parser.add_argument("--screenshots")
    arguments = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="attributiond-browser-")
    server, base = start_server(os.path.abspath(arguments.binary), folder)
    shots = arguments.screenshots
    if shots:
        os.makedirs(shots, exist_ok=True)
    drivers = []
    try:
        driver = browser()
        drivers.append(driver)
        sign_in(driver, base, admin_key=ADMIN_KEY)
        check(wait_for(driver, "Clicks by day") and "Shop" in driver.page_source, "the admin key signs in and the projects page lists Shop")
        cookie = driver.get_cookie("attributiond_session")
        check(cookie is not None and cookie.get("httpOnly") and cookie.get("sameSite") == "Lax", "the session cookie is HttpOnly and SameSite=Lax")
        driver.find_element(By.LINK_TEXT, "Shop").click()
        project_url = driver.current_url.split("?")[0]
        project_id = project_url.rstrip("/").split("/")[-1]

        check("Get started" in driver.page_source and "○ A first click" in driver.page_source,
              "a new project's overview lists what to do first")
        driver.get(project_url + "/connect")
        check(wait_for(driver, "Connect your app to Shop") and "apple-app-site-association" in driver.page_source,
              "the Connect your app page shows the base URL, the SDK lines and the .well-known files")
        current = [element.text for element in driver.find_elements(By.CSS_SELECTOR, "nav a[aria-current]")]
        check(current == ["Connect"], f"the nav marks Connect on the Connect page ({current})")
        check("docs/" not in driver.page_source and "settings page" in driver.page_source,
              "the Connect page links to the settings it names, no repository paths")

        # The app ids set on the settings page are what /.well-known serves.
        driver.get(project_url + "/settings")
        for name, value in [("ios_team_id", "ABCDE12345"), ("ios_bundle_id", "com.shop.app"), ("android_package", "com.shop.app"),
                            ("android_sha256", ":".join(["AB"] * 32) + "\n" + ":".join(["CD"] * 32))]:
            field = driver.find_element(By.NAME, name)
            field.clear()
            field.send_keys(value)
        driver.find_element(By.NAME, "ios_team_id").submit()
        check(wait_for(driver, "Settings saved."),
              f"the app ids are saved from the settings page {[e.text for e in driver.find_elements(By.CSS_SELECTOR, '.error')]}")
        aasa = http("GET", base + "/.well-known/apple-app-site-association")[1]
        assetlinks = http("GET", base + "/.well-known/assetlinks.json")[1]
        check("ABCDE12345.com.shop.app" in aasa and ":".join(["AB"] * 32) in assetlinks and ":".join(["CD"] * 32) in assetlinks
              and '"com.shop.app"' in assetlinks, "/.well-known serves the app ids the settings page set")
        driver.get(project_url)
        driver.find_element(By.LINK_TEXT, "Links").click()
        def visible(name):
            # Inside a closed <details> a field is laid out but not shown (Chromium's details content).
            return driver.execute_script("const e = arguments[0]; return !e.closest('details:not([open])') && e.getClientRects().length > 0",
                                         driver.find_element(By.NAME, name))
        check(not visible("utm_source") and visible("original_url")
              and "The destination URL is the last fallback" in driver.page_source,
              "the new-link form shows the fields most links need, the rest folded, and which URL wins "
              f"({visible('utm_source')}, {visible('original_url')})")
        for name, value in [("short_code", "summer"), ("title", "Summer sale"), ("original_url", "https://shop.example.com/summer")]:
            driver.find_element(By.NAME, name).send_keys(value)
        check(open_section(driver, "UTM parameters") and visible("utm_source"),
              "a folded section opens with a click")
        for name, value in [("utm_source", "newsletter"), ("utm_campaign", "summer")]:
            driver.find_element(By.NAME, name).send_keys(value)
        driver.find_element(By.NAME, "utm_campaign").submit()
        check(wait_for(driver, "Created") and "/summer" in driver.page_source, "a link is created through the form")

        driver.get(project_url + "?range=24h")
        before = driver.find_element(By.CSS_SELECTOR, ".cards .card b").text
        status, _ = http("GET", base + "/summer", {"User-Agent": IPHONE})
        check(status == 200, "another client clicks the link")
        time.sleep(0.5)
        driver.get(project_url + "?range=24h")
        after = driver.find_element(By.CSS_SELECTOR, ".cards .card b").text
        check(before == "0" and after == "1", f"the click count changes ({before} → {after})")
        bars = [element.get_attribute("textContent") for element in driver.find_elements(By.CSS_SELECTOR, "svg rect title")]
        check(any(text.endswith("Clicks: 1") for text in bars), "the chart has the click's bar")
        if shots:
            driver.save_screenshot(os.path.join(shots, "overview.png"))

        driver.get(project_url + "/links")
        row = driver.find_element(By.XPATH, "//tr[td/a[contains(., '/summer')]]")
        cells = [cell.text for cell in row.find_elements(By.TAG_NAME, "td")]
        check(cells[0].endswith("/summer") and ":" in cells[0] and re.match(r"\d{4}-\d{2}-\d{2}$", cells[2]) is not None,
              f"the links list shows the short URL with its host and the day it was made ({cells[:3]})")
        driver.find_element(By.XPATH, "//td/a[contains(., '/summer')]").click()
        wait_for(driver, "Latest clicks")
        title = driver.find_element(By.CSS_SELECTOR, "form.stack input[name=title]")
        title.clear()
        title.send_keys("Summer sale, edited")
        title.submit()
        check(wait_for(driver, "Saved.") and "Summer sale, edited" in driver.page_source, "a link is edited on its own page")
        check(driver.find_element(By.CSS_SELECTOR, "button[data-copy]").is_displayed(), "with JavaScript on, the copy button shows")

        # Rules and an A/B split through plain fields: no JSON typed.
        open_section(driver, "Routing rules and A/B split")
        driver.find_element(By.NAME, "rule_url_0").send_keys("https://shop.example.com/desktop-de")
        driver.find_element(By.CSS_SELECTOR, "input[name=rule_platform_0][value=desktop]").click()
        driver.find_element(By.NAME, "rule_country_0").send_keys("DE")
        driver.find_element(By.NAME, "rule_url_1").send_keys("https://shop.example.com/desktop")
        driver.find_element(By.CSS_SELECTOR, "input[name=rule_platform_1][value=desktop]").click()
        for index, (name, url, weight) in enumerate([("red", "https://shop.example.com/red", "1"), ("blue", "https://shop.example.com/blue", "1")]):
            driver.find_element(By.NAME, f"variant_name_{index}").send_keys(name)
            driver.find_element(By.NAME, f"variant_url_{index}").send_keys(url)
            driver.find_element(By.NAME, f"variant_weight_{index}").send_keys(weight)
        driver.find_element(By.NAME, "variant_weight_1").submit()
        # The page before the submit said "Saved." too: wait for what only the new answer has.
        check(wait_for(driver, "A/B split (30 days)")
              and driver.find_element(By.NAME, "rule_country_0").get_attribute("value") == "DE"
              and driver.find_element(By.CSS_SELECTOR, "input[name=rule_platform_1][value=desktop]").is_selected()
              and driver.find_element(By.NAME, "variant_name_1").get_attribute("value") == "blue",
              "rules and an A/B split are saved from the link's form and shown back as fields")
        try:
            urllib.request.build_opener(NoRedirect).open(urllib.request.Request(base + "/summer", headers={"User-Agent": DESKTOP}), timeout=10)
            location = None
        except urllib.error.HTTPError as answer:
            location = answer.headers.get("Location")
        check(location == "https://shop.example.com/desktop?utm_source=newsletter&utm_campaign=summer",
              f"a desktop tap follows the desktop rule ({location})")
        if shots:
            driver.save_screenshot(os.path.join(shots, "link.png"))

        driver.get(project_url + "/settings")
        zone = driver.find_element(By.NAME, "time_zone")
        zone.clear()
        zone.send_keys("Asia/Kolkata")
        zone.submit()
        check(wait_for(driver, "Settings saved."), "the project's time zone is saved")
        driver.get(project_url + "?range=7d")
        check("Asia/Kolkata" in driver.page_source and driver.find_element(By.CSS_SELECTOR, ".cards .card b").text == "2",
              "the overview counts the project's own days (the iPhone's click and the desktop's)")

        driver.get(project_url + "/settings")
        driver.find_element(By.CSS_SELECTOR, "form[action$='/settings/api-keys'] button").click()
        wait_for(driver, "copy it)")
        match = re.search(r"copy it\): (ak_[A-Za-z0-9]{32})", driver.page_source)
        check(match is not None, "an API key is issued and shown once")
        key = match.group(1) if match else ""
        check(http("GET", base + "/api/links", {"Authorization": "Bearer " + key})[0] == 200, "the new key works")
        driver.get(project_url + "/settings")
        check(key not in driver.page_source, "the key is not shown again")
        for row in driver.find_elements(By.CSS_SELECTOR, "tr"):
            codes = row.find_elements(By.TAG_NAME, "code")
            if codes and key.startswith(codes[0].text.rstrip("…")) and row.find_elements(By.TAG_NAME, "button"):
                row.find_element(By.TAG_NAME, "button").click()
                break
        deadline = time.time() + 10  # the click submits the form; its answer may still be on its way
        while http("GET", base + "/api/links", {"Authorization": "Bearer " + key})[0] != 401 and time.time() < deadline:
            time.sleep(0.1)
        check(http("GET", base + "/api/links", {"Authorization": "Bearer " + key})[0] == 401, "the revoked key is refused")

        session = "attributiond_session=" + driver.get_cookie("attributiond_session")["value"]
        status, body = http("POST", f"{base}/dashboard/projects/{project_id}/links",
                            {"Cookie": session, "Content-Type": "application/x-www-form-urlencoded"},
                            b"short_code=forged&original_url=https%3A%2F%2Fevil.example%2F")
        check(status == 403, f"a form without its CSRF token is refused ({status})")

        # A webhook endpoint added, tested from its button, and the delivery opened.
        receiver, receiver_url = start_receiver()
        driver.get(project_url + "/outbound")
        driver.find_element(By.CSS_SELECTOR, "form[action$='/outbound/webhooks'] input[name=url]").send_keys(receiver_url)
        driver.find_element(By.CSS_SELECTOR, "form[action$='/outbound/webhooks'] input[name=url]").submit()
        wait_for(driver, "shown this once")
        driver.find_element(By.XPATH, "//button[text()='Send test']").click()
        wait_for(driver, "A test event is queued")
        deadline = time.time() + 15
        while not any('"webhook.test"' in body for body in Receiver.bodies) and time.time() < deadline:
            time.sleep(0.2)
        check(any('"webhook.test"' in body for body in Receiver.bodies), "a test webhook sent from the dashboard reaches the receiver")
        delivered = False
        while time.time() < deadline and not delivered:
            driver.get(project_url + "/outbound?status=delivered")
            delivered = "webhook.test" in driver.page_source
            if not delivered:
                time.sleep(0.3)
        driver.find_element(By.XPATH, "//a[contains(@href, '/outbound/deliveries/')]").click()
        check(wait_for(driver, "Request body") and "webhook.test" in driver.page_source and ">200<" in driver.page_source,
              "the delivery's page shows its request body and the receiver's 200")
        # The endpoint goes with its receiver: later events would otherwise retry into nothing.
        for endpoint in json.loads(http("GET", f"{base}/admin/v1/projects/{project_id}/webhooks",
                                        {"Authorization": "Bearer " + ADMIN_KEY})[1])["webhooks"]:
            http("DELETE", f"{base}/admin/v1/projects/{project_id}/webhooks/{endpoint['id']}", {"Authorization": "Bearer " + ADMIN_KEY})
        receiver.shutdown()

        driver.get(project_url + "/settings")
        driver.find_element(By.CSS_SELECTOR, "form[action$='/settings/users'] input[name=email]").send_keys("viewer@example.com")
        driver.find_element(By.CSS_SELECTOR, "form[action$='/settings/users'] input[name=password]").send_keys("correct horse battery")
        driver.find_element(By.CSS_SELECTOR, "form[action$='/settings/users'] button").click()
        check(wait_for(driver, "Added viewer@example.com (viewer)"), "an admin adds a viewer")

        # An install (a Linkrunner client's first launch): its page explains how it was matched.
        status, body = http("POST", f"{base}/api/client/init", {"Content-Type": "application/json"},
                            json.dumps({"token": "browser-token-0123456789abcdef", "platform": "IOS",
                                        "install_instance_id": "browser-install-1"}).encode())
        install_id = json.loads(body)["data"]["install_id"] if status == 200 else ""
        driver.get(project_url + "/installs/" + install_id)
        check(wait_for(driver, "How it was matched") and "Decided by" in driver.page_source and "Erase this install" in driver.page_source,
              "an install's page explains its match and offers the GDPR erase")
        # Apple's published SKAdNetwork 4.0 example postback, for Apple's example app.
        http("PATCH", f"{base}/admin/v1/projects/{project_id}", {"Authorization": "Bearer " + ADMIN_KEY},
             json.dumps({"ios_app_store_id": 525463029}).encode())
        apple = {"version": "4.0", "ad-network-id": "com.example", "source-identifier": "5239", "app-id": 525463029,
                 "transaction-id": "6aafb7a5-0170-41b5-bbe4-fe71dedf1e30", "redownload": False, "source-domain": "example.com",
                 "fidelity-type": 1, "did-win": True, "conversion-value": 63, "postback-sequence-index": 0,
                 "attribution-signature": "MEUCIGRmSMrqedNu6uaHyhVcifs118R5z/AB6cvRaKrRRHWRAiEAv96ne3dKQ5kJpbsfk4eYiePmrZUU6sQmo+7zfP/1Bxo="}
        status, body = http("POST", f"{base}/.well-known/skadnetwork/report-attribution/", {"Content-Type": "application/json"},
                            json.dumps(apple).encode())
        check(status == 200, f"Apple's example postback copy is verified and stored ({status})")
        driver.get(project_url + "/skan")
        check(wait_for(driver, "By network, source and window") and "add one to the project in Settings" in driver.page_source
              and "https://example.com" not in driver.page_source,
              "without a domain the SKAN page asks for one instead of showing a placeholder endpoint")
        status, _ = http("POST", f"{base}/admin/v1/projects/{project_id}/domains",
                         {"Authorization": "Bearer " + ADMIN_KEY, "Content-Type": "application/json"}, b'{"domain":"links.shop.test"}')
        check(status == 201, f"a domain for the project ({status})")
        driver.get(project_url + "/skan")
        check(wait_for(driver, "By network, source and window") and "com.example" in driver.page_source and "5239" in driver.page_source
              and "AttributionCopyEndpoint" in driver.page_source and "https://shop.test" in driver.page_source
              and "App Store id 525463029" in driver.page_source,
              "the SKAN page shows Apple's postback beside our installs, with the Info.plist lines for the project's domain")
        if shots:
            driver.get(project_url + "/skan")
            driver.save_screenshot(os.path.join(shots, "skan.png"))
            driver.get(project_url + "/links")
            driver.save_screenshot(os.path.join(shots, "links.png"))
            driver.get(project_url + "/installs")
            driver.save_screenshot(os.path.join(shots, "installs.png"))

        # A new project made and connected through the dashboard alone: the form, the key it shows
        # once, a link with a rule and deep-link parameters as fields, and the app's first install.
        driver.get(base + "/dashboard/")
        driver.find_element(By.NAME, "name").send_keys("Garden")
        driver.find_element(By.NAME, "ios_store_url").send_keys("https://apps.apple.com/app/id42")
        driver.find_element(By.NAME, "ios_store_url").submit()
        check(wait_for(driver, "Connect your app to Garden"), "a server admin makes a project from the projects page")
        match = re.search(r"API key</th><td><code>([^<]+)</code>", driver.page_source)
        garden_key = match.group(1) if match else ""
        check(garden_key != "" and "LinkFortyConfig" in driver.page_source, "the answer shows the API key once and each SDK's line")
        driver.find_element(By.LINK_TEXT, "links page").click()
        wait_for(driver, "New link")
        garden_url = driver.current_url.rsplit("/links", 1)[0]
        for name, value in [("short_code", "seeds"), ("original_url", "https://garden.example.com/seeds"),
                            ("param_key_0", "product"), ("param_value_0", "42"), ("param_key_1", "color"), ("param_value_1", "green"),
                            ("rule_url_0", "https://garden.example.com/desktop")]:
            if name == "rule_url_0":
                open_section(driver, "Routing rules and A/B split")
            driver.find_element(By.NAME, name).send_keys(value)
        driver.find_element(By.CSS_SELECTOR, "input[name=rule_platform_0][value=desktop]").click()
        driver.find_element(By.NAME, "short_code").submit()
        check(wait_for(driver, "Created"), "a link with a rule and deep-link parameters is made from fields, no JSON typed")
        garden_id = garden_url.rstrip("/").split("/")[-1]
        # "Created" is also a column of the links table: the form's answer may still be on its way.
        seeds, deadline = {}, time.time() + 10
        while not seeds and time.time() < deadline:
            links = json.loads(http("GET", f"{base}/admin/v1/projects/{garden_id}/links", {"Authorization": "Bearer " + ADMIN_KEY})[1])
            seeds = next((link for link in (links if isinstance(links, list) else []) if link.get("short_code") == "seeds"), {})
            if not seeds:
                time.sleep(0.2)
        check(seeds.get("deep_link_parameters") == {"product": "42", "color": "green"}
              and (seeds.get("rules") or [{}])[0].get("url") == "https://garden.example.com/desktop",
              f"the link stores the parameters and the rule ({seeds.get('deep_link_parameters')}, {seeds.get('rules')})")
        status, garden_body = http("POST", f"{base}/api/sdk/v1/install", {"Authorization": "Bearer " + garden_key, "Content-Type": "application/json"},
                         json.dumps({"userAgent": "Garden/1.0 iOS/17.4", "platform": "iOS", "platformVersion": "17.4", "timezone": "UTC",
                                     "language": "en", "screenWidth": 390, "screenHeight": 844, "deviceId": "garden-device"}).encode())
        driver.get(garden_url)
        check(status == 200 and wait_for(driver, "Get started") and "✓ A first install" in driver.page_source
              and "○ A first click" in driver.page_source, "the app's first install ticks the project's Get started list")
        # LinkForty's SDK has no payment call: an event with an amount is the project's first revenue,
        # and a EUR amount in a USD project gets a chart of its own.
        install_ids = [json.loads(garden_body).get("installId")] if status == 200 else []
        status, _ = http("POST", f"{base}/api/sdk/v1/event", {"Authorization": "Bearer " + garden_key, "Content-Type": "application/json"},
                         json.dumps({"installId": install_ids[0] if install_ids else "", "eventName": "purchase",
                                     "eventData": {"revenue": 12.5, "currency": "EUR"}}).encode())
        time.sleep(0.5)
        driver.get(garden_url + "?range=24h")
        legends = [element.text for element in driver.find_elements(By.CSS_SELECTOR, ".legend span")]
        check(status == 200 and "✓ A first revenue" in driver.page_source and "Event values (EUR)" in legends and "Payments (USD)" in legends,
              f"an event with an amount ticks the revenue step, and its EUR amount has its own chart ({status}, {legends})")
        driver.find_element(By.XPATH, "//button[text()='Hide this list']").click()
        wait_for(driver, "Funnel")
        driver.get(garden_url)
        check("Get started" not in driver.page_source and "Funnel" in driver.page_source, "the Get started list can be hidden")

        # The New project form's test-mode box makes a sandbox.
        driver.get(base + "/dashboard/")
        driver.find_element(By.NAME, "name").send_keys("Sandbox")
        driver.find_element(By.NAME, "test_mode").click()
        driver.find_element(By.NAME, "name").submit()
        wait_for(driver, "Connect your app to Sandbox")
        projects = json.loads(http("GET", f"{base}/admin/v1/projects", {"Authorization": "Bearer " + ADMIN_KEY})[1])
        listed = projects.get("projects", projects) if isinstance(projects, dict) else projects
        check(any(item.get("name") == "Sandbox" and item.get("test_mode") is True for item in listed),
              "New project's test-mode box makes a test-mode project")

        # A cohort table with known numbers: a test-mode project, whose clock the test moves forward.
        admin = {"Authorization": "Bearer " + ADMIN_KEY, "Content-Type": "application/json"}
        status, body = http("POST", f"{base}/admin/v1/projects", admin, json.dumps({"name": "Cohorts", "test_mode": True}).encode())
        cohort_project = json.loads(body)
        sdk = {"Authorization": "Bearer " + cohort_project["api_key"], "Content-Type": "application/json"}
        clock_url = f"{base}/admin/v1/projects/{cohort_project['id']}/clock"
        started = json.loads(http("POST", clock_url, admin, b'{"advance_seconds":0}')[1])["now_ms"] / 1000
        installed_on = time.strftime("%Y-%m-%d", time.gmtime(started))
        week_after = time.strftime("%Y-%m-%d", time.gmtime(started + 6 * 86400))
        installs = []
        for number in range(4):
            status, body = http("POST", f"{base}/api/sdk/v1/install", sdk, json.dumps({
                "userAgent": "Shop/1.0 iOS/17.4", "platform": "iOS", "platformVersion": "17.4", "timezone": "UTC", "language": "en",
                "screenWidth": 390, "screenHeight": 844, "deviceId": f"cohort-device-{number}"}).encode())
            installs.append(json.loads(body).get("installId") if status == 200 else None)
        http("POST", clock_url, admin, b'{"advance_seconds":90000}')  # day 1 after the installs
        for install in installs[:3]:
            http("POST", f"{base}/api/sdk/v1/event", sdk, json.dumps({"installId": install, "eventName": "open"}).encode())
        http("POST", clock_url, admin, b'{"advance_seconds":172800}')  # day 3
        http("POST", f"{base}/api/sdk/v1/event", sdk, json.dumps({"installId": installs[0], "eventName": "open"}).encode())
        http("POST", clock_url, admin, b'{"advance_seconds":3456000}')  # 40 days on: every day of the table is over
        driver.get(f"{base}/dashboard/projects/{cohort_project['id']}/cohorts?range=custom&from={installed_on}&to={installed_on}")
        wait_for(driver, "Day 30")
        cells = [cell.text for cell in driver.find_elements(By.CSS_SELECTOR, "table.cohorts tbody tr:first-child td")]
        check(None not in installs and cells == ["4", "75.0 %", "25.0 %", "0.0 %", "0.0 %", "0.0 %"],
              f"a cohort of four installs shows its day-1 and day-3 retention ({cells})")
        driver.find_element(By.LINK_TEXT, "Events per install").click()
        wait_for(driver, "Events per install")
        cells = [cell.text for cell in driver.find_elements(By.CSS_SELECTOR, "table.cohorts tbody tr:first-child td")]
        check(cells[:3] == ["4", "0.75", "1.00"], f"and its events per install by day N ({cells})")
        driver.get(f"{base}/dashboard/projects/{cohort_project['id']}/breakdowns?range=custom&from={installed_on}&to={week_after}&by=events")
        wait_for(driver, "Installs doing it first")
        first = [cell.text for cell in driver.find_elements(By.CSS_SELECTOR, "tbody tr:first-child td")][:3]
        check(first == ["open", "4", "3"], f"the events breakdown counts them by name ({first})")
        if shots:
            driver.get(f"{base}/dashboard/projects/{cohort_project['id']}/cohorts?range=custom&from={installed_on}&to={installed_on}")
            driver.save_screenshot(os.path.join(shots, "cohorts.png"))

        # A ROAS page with known numbers, at 400 px: a click and its install on a Facebook link, a
        # 10 USD purchase that day, 50 USD of Meta's spend on the campaign, the euro at 1.25 dollars.
        status, body = http("POST", f"{base}/admin/v1/projects", admin,
                            json.dumps({"name": "Ads", "test_mode": True, "reporting_currency": "EUR"}).encode())
        ads = json.loads(body)
        ads_sdk = {"Authorization": "Bearer " + ads["api_key"], "Content-Type": "application/json"}
        http("POST", f"{base}/admin/v1/projects/{ads['id']}/links", admin,
             json.dumps({"short_code": "fbsummer", "utm": {"source": "facebook", "campaign": "summer"}}).encode())
        ads_day = time.strftime("%Y-%m-%d", time.gmtime(json.loads(http(
            "POST", f"{base}/admin/v1/projects/{ads['id']}/clock", admin, b'{"advance_seconds":0}')[1])["now_ms"] / 1000))
        request = urllib.request.Request(f"{base}/fbsummer", headers={"User-Agent": IPHONE, "Accept-Language": "en-US"})
        try:
            click_id = urllib.request.build_opener(NoRedirect).open(request, timeout=10).headers.get("X-Click-Id")
        except urllib.error.HTTPError as error:
            click_id = error.headers.get("X-Click-Id")
        http("POST", f"{base}/c/{click_id}", {"Content-Type": "application/json", "User-Agent": IPHONE},
             json.dumps({"sw": 390, "sh": 844, "dpr": 3, "tz": "UTC", "tzo": 0, "langs": ["en-US"]}).encode())
        status, body = http("POST", f"{base}/api/sdk/v1/install", ads_sdk, json.dumps({
            "userAgent": "Shop/1.0 iOS/17.4", "platform": "iOS", "platformVersion": "17.4", "timezone": "UTC", "language": "en_US",
            "screenWidth": 1170, "screenHeight": 2532}).encode())
        ads_install = json.loads(body) if status == 200 else {}
        http("POST", f"{base}/api/sdk/v1/event", ads_sdk, json.dumps({
            "installId": ads_install.get("installId"), "eventName": "purchase", "eventData": {"revenue": 10, "currency": "USD"}}).encode())
        http("PUT", f"{base}/admin/v1/fx-rates", {"Authorization": "Bearer " + ADMIN_KEY, "Content-Type": "text/csv"},
             f"Date,USD,\n{ads_day},1.25,\n".encode())
        http("POST", f"{base}/admin/v1/projects/{ads['id']}/cost", {"Authorization": "Bearer " + ADMIN_KEY, "Content-Type": "text/csv"},
             f"date,network,campaign_id,campaign_name,spend,currency\n{ads_day},meta,23851,Summer,50,USD\n".encode())
        slim = browser(width=400)
        drivers.append(slim)
        sign_in(slim, base, admin_key=ADMIN_KEY)
        slim.get(f"{base}/dashboard/projects/{ads['id']}/roas?range=custom&from={ads_day}&to={ads_day}")
        wait_for(slim, "Return on ad spend")
        row = [cell.text for cell in slim.find_elements(By.CSS_SELECTOR, "table tbody tr:first-child td") if cell.is_displayed()]
        width, viewport = fits(slim)
        check(ads_install.get("attributed") is True and row == ["meta", "Summer 23851", "EUR 40.00", "1", "EUR 40.00", "20.0 %"],
              f"400 px wide: the ROAS page shows the campaign's spend, install, CPI and ROAS by day 7 ({ads_install.get('attributed')}, {row})")
        check(width <= viewport, f"400 px wide: the ROAS page fits without sideways scrolling ({width} ≤ {viewport})")
        slim.get(f"{base}/dashboard/projects/{ads['id']}/roas?range=custom&from={ads_day}&to={ads_day}&sort=installs")
        totals = [cell.text for cell in slim.find_elements(By.CSS_SELECTOR, "table tfoot tr:first-child > *") if cell.is_displayed()]
        check(totals[:3] == ["Total", "EUR 40.00", "1"], f"and its totals row ({totals})")

        # The Traffic quality page with known counts: a tap, then an install whose Play referrer
        # says the install began a minute before it (click injection: refused), then an honest one.
        status, body = http("POST", f"{base}/admin/v1/projects", admin, json.dumps({"name": "Quality"}).encode())
        quality = json.loads(body)
        quality_sdk = {"Authorization": "Bearer " + quality["api_key"], "Content-Type": "application/json"}
        http("POST", f"{base}/admin/v1/projects/{quality['id']}/links", admin,
             json.dumps({"short_code": "qspring", "utm": {"source": "quality-ads", "campaign": "spring"}}).encode())
        request = urllib.request.Request(f"{base}/qspring", headers={"User-Agent": IPHONE, "Accept-Language": "en-US"})
        try:
            urllib.request.build_opener(NoRedirect).open(request, timeout=10)
        except urllib.error.HTTPError:
            pass
        time.sleep(0.3)  # the click's row is written in the background
        began = int(time.time()) - 60
        answers = []
        for device, extra in (("quality-a", {"installBeginTimestampSeconds": began}), ("quality-b", {})):
            status, body = http("POST", f"{base}/api/sdk/v1/install", quality_sdk, json.dumps({
                "userAgent": "Shop/1.0 iOS/17.4", "platform": "iOS", "platformVersion": "17.4", "timezone": "UTC",
                "language": "en_US", "deviceId": device, **extra}).encode())
            answers.append(json.loads(body).get("attributed") if status == 200 else status)
        driver.get(f"{base}/dashboard/projects/{quality['id']}/traffic-quality?range=7d")
        wait_for(driver, "By reason")
        cards = [card.text.replace("\n", " ") for card in driver.find_elements(By.CSS_SELECTOR, ".cards .card")]
        reason = [cell.text for cell in driver.find_elements(By.XPATH, "//table[@class='reasons']//tr[td/code='click_injection']/td")]
        source = [cell.text for cell in driver.find_elements(By.CSS_SELECTOR, "table.sources tbody tr:first-child td")]
        # The honest install came seconds after the tap, sooner than a download takes: flagged, kept.
        check(answers == [False, True] and "Rejected 1 50.0 % of installs" in cards and "Flagged 1 50.0 % of installs" in cards
              and reason[1:] == ["1", "0", "50.0 %"] and source == ["quality-ads", "spring", "1", "1", "100.0 %"],
              f"the Traffic quality page counts the injected click's install by reason and campaign ({answers}, {cards}, {reason}, {source})")
        if shots:
            driver.save_screenshot(os.path.join(shots, "traffic-quality.png"))

        viewer = browser()
        drivers.append(viewer)
        sign_in(viewer, base, email="viewer@example.com", password="correct horse battery")
        check(wait_for(viewer, "Funnel") and "Shop" in viewer.title, "the viewer signs in to the project")
        viewer.get(project_url + "/settings")
        check("Not allowed" in viewer.page_source and "Issue a key" not in viewer.page_source, "the viewer is refused on settings")

        quiet = browser(javascript=False)
        drivers.append(quiet)
        sign_in(quiet, base, admin_key=ADMIN_KEY)
        quiet.get(project_url + "/links")
        quiet.find_element(By.NAME, "short_code").send_keys("nojs")
        quiet.find_element(By.NAME, "original_url").send_keys("https://shop.example.com/nojs")
        quiet.find_element(By.NAME, "original_url").submit()
        check(wait_for(quiet, "/nojs"), "with JavaScript off, signing in and creating a link work")
        check(not quiet.find_element(By.CSS_SELECTOR, "button[data-copy]").is_displayed(),
              "with JavaScript off, the copy button stays hidden (the URL is on the page)")
        quiet.get(project_url + "?range=7d&sort=clicks")
        check("summer" in quiet.page_source and "<svg" in quiet.page_source, "with JavaScript off, the overview shows its table and chart")

        # 1280 px: the funnel's labels inside its chart, a long title does not push the table past the page.
        http("POST", f"{base}/admin/v1/projects/{project_id}/links", admin,
             json.dumps({"short_code": "longtitle", "title": "A" * 180 + " spring sale " + "B" * 120}).encode())
        driver.get(project_url + "/links")
        width, viewport = fits(driver)
        right = driver.execute_script("return Math.max(...[...document.querySelectorAll('table.links button')].map(b => b.getBoundingClientRect().right))")
        check(width <= viewport and right <= viewport, f"1280 px wide: the links table with a long title fits, Disable included ({width}, {right} ≤ {viewport})")
        driver.get(project_url + "?range=7d")
        overflow = driver.execute_script(
            "const svg=[...document.querySelectorAll('svg[aria-label=Funnel]')][0];const w=svg.viewBox.baseVal.width;"
            "return [...svg.querySelectorAll('text')].map(t=>t.getBBox()).filter(b=>b.x+b.width>w+0.5).length")
        check(overflow == 0, f"1280 px wide: every funnel label fits in its chart ({overflow} run past)")
        for path, title in (("/breakdowns", "Breakdowns · Shop"), ("/cohorts", "Cohorts · Shop")):
            driver.get(project_url + path)
            check(driver.title.startswith(title), f"the {path[1:]} page's title names the project ({driver.title})")

        # The pages a tap can end on: styled, with the project's name and a way on.
        http("POST", f"{base}/admin/v1/projects/{project_id}/links", admin,
             json.dumps({"short_code": "retired", "original_url": "https://shop.example.com/old", "active": False}).encode())
        driver.get(base + "/retired")
        font = driver.execute_script("return getComputedStyle(document.body).fontFamily")
        ways = [element.get_attribute("href") for element in driver.find_elements(By.CSS_SELECTOR, ".ways a")]
        check("Link not found" in driver.page_source and "Shop" in driver.find_element(By.CSS_SELECTOR, ".project").text
              and "system-ui" in font and "https://shop.example.com/" in ways and "https://apps.apple.com/app/id1" in ways,
              f"a disabled link's page names the project and offers its store and website ({font}, {ways})")

        narrow = browser(width=390)
        drivers.append(narrow)
        sign_in(narrow, base, admin_key=ADMIN_KEY)
        for path in ("", "/breakdowns", "/cohorts", "/links", "/installs", "/cost", "/roas", "/traffic-quality", "/skan", "/connect", "/outbound", "/settings"):
            narrow.get(project_url + path)
            width, viewport = fits(narrow)
            wide = narrow.execute_script("return [...document.querySelectorAll('main *')].filter(e => e.getBoundingClientRect().right > 391 && !e.closest('table')).slice(0, 4).map(e => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right) + ' ' + (e.textContent || '').slice(0, 40))")
            check(width <= viewport == 390, f"390 px wide: {path or '/'} fits without sideways scrolling ({width} ≤ {viewport}) {wide if width > viewport else ''}")
        narrow.get(project_url + "?range=7d")
        check(narrow.find_element(By.CSS_SELECTOR, ".narrow-chart svg").is_displayed()
              and not narrow.find_element(By.CSS_SELECTOR, ".wide-chart svg").is_displayed(),
              "390 px wide: the main chart is drawn for the narrow screen")
        cue = narrow.execute_script("return getComputedStyle(document.querySelector('main table')).backgroundImage")
        check("radial-gradient" in cue, "390 px wide: a table that scrolls sideways shows a shadow at its cut edge")
        narrow.get(project_url + "/links")
        check(narrow.find_element(By.CSS_SELECTOR, ".narrow-only").is_displayed(),
              "390 px wide: a page that leaves columns out says so")
        driver.get(project_url + "/links")
        check(not driver.find_element(By.CSS_SELECTOR, ".narrow-only").is_displayed(), "1280 px wide: no such note")
        if shots:
            narrow.get(project_url + "?range=7d")
            narrow.save_screenshot(os.path.join(shots, "overview-narrow.png"))
    finally:
        for driver in drivers:
            driver.quit()
        server.terminate()
        server.wait(timeout=10)
        shutil.rmtree(folder, ignore_errors=True)
    print(f"dashboard in Chromium: {passes} passed, {len(failures)} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()

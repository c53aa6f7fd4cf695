"""Mutated JSON bodies against every JSON endpoint of a running server (scripts/fuzz/run starts one).

Each request takes a valid body (the shapes the seed clients and SDKs send) and changes one to three
fields: removed, retyped, huge, empty, non-ASCII, lone surrogates, nested; or sends broken JSON
(truncated, a flipped byte, deep nesting, trailing text, a BOM, duplicate keys). Then a fifth as
many GET requests with odd query parameters on the routes that read them. Every answer must be
below 500, and every 4xx must be a JSON body (but the link host's HTML pages). Exits 1 otherwise,
or when the server stops.

    FUZZ_PORT=... FUZZ_ADMIN_KEY=... python3 api_fuzz.py SEED COUNT
"""
import copy, http.client, json, os, random, sys, time, urllib.parse

HOST, PORT = "127.0.0.1", int(os.environ.get("FUZZ_PORT", "18181"))
ADMIN = os.environ.get("FUZZ_ADMIN_KEY", "bench-admin-key-0123456789")
rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
N = int(sys.argv[2]) if len(sys.argv) > 2 else 3000

def req(method, path, body=None, headers=None, raw=None):
    c = http.client.HTTPConnection(HOST, PORT, timeout=10)
    h = {"Content-Type": "application/json"}
    h.update(headers or {})
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    c.request(method, path, body=data, headers=h)
    r = c.getresponse(); b = r.read(); c.close()
    return r.status, b, dict(r.getheaders())

A = {"Authorization": "Bearer " + ADMIN}
st, b, _ = req("POST", "/admin/v1/projects", {"name": "Fuzz", "ios_store_url": "https://apps.apple.com/app/id1", "web_url": "https://example.com/",
    "android_store_url": "https://play.google.com/store/apps/details?id=x"}, A)
proj = json.loads(b); pid = proj["id"]; token = proj["token"]
st, b, _ = req("POST", f"/admin/v1/projects/{pid}/api-keys", {"name": "k"}, A)
apikey = json.loads(b).get("key") or json.loads(b).get("api_key")
req("POST", f"/admin/v1/projects/{pid}/links", {"short_code": "fz1"}, A)  # also the slow-read target
req("POST", f"/admin/v1/projects/{pid}/templates", {"slug": "tp", "name": "t"}, A)
K = {"Authorization": "Bearer " + str(apikey)}
req("POST", "/api/client/init", {"token": token, "platform": "IOS", "install_instance_id": "fz-install"})

dd = {"device": "iPhone15,2", "system_version": "17.4.1", "device_display": {"width": 390, "height": 844, "scale": 3},
      "idfv": "A1B2C3D4-0000-1111-2222-333344445555", "idfa": "00000000-0000-0000-0000-000000000000", "locale": "fr_FR",
      "language": "fr", "country": "FR", "timezone": "Europe/Paris", "timezone_offset": 60, "user_agent": "Shop/2.1 iOS/17.4.1"}
LR = {
 "init": {"token": token, "platform": "IOS", "install_instance_id": "fz-i", "package_version": "1.0", "app_version": "2.1", "device_data": dd, "debug": False, "link": "https://x/fz1", "source": "GENERAL"},
 "attribution-data": {"token": token, "platform": "IOS", "install_instance_id": "fz-install", "device_data": dd},
 "trigger": {"token": token, "platform": "IOS", "install_instance_id": "fz-install", "data": {"device_data": dd}},
 "set-user-data": {"token": token, "platform": "IOS", "install_instance_id": "fz-install", "user_data": {"id": "u1", "name": "N", "email": "e@x", "phone": "1", "mixpanel_id": "m"}, "data": {"device_data": dd}},
 "capture-event": {"token": token, "platform": "IOS", "install_instance_id": "fz-install", "event_name": "purchase", "event_data": {"a": 1, "amount": 9.5}, "event_id": "e1", "device_data": dd},
 "capture-payment": {"token": token, "platform": "IOS", "install_instance_id": "fz-install", "user_id": "u1", "amount": 12.5, "payment_id": "p1", "type": "FIRST_PAYMENT", "status": "PAYMENT_COMPLETED", "currency": "EUR"},
 "remove-captured-payment": {"token": token, "platform": "IOS", "install_instance_id": "fz-install", "user_id": "u1", "payment_id": "p1"},
 "update-push-token": {"token": token, "platform": "IOS", "install_instance_id": "fz-install", "push_token": "abc"},
 "integrations": {"token": token, "platform": "IOS", "install_instance_id": "fz-install", "integration_info": {"clevertap_id": "c"}},
 "handle-deeplink": {"token": token, "platform": "IOS", "install_instance_id": "fz-install", "deeplink_url": "http://127.0.0.1:18181/fz1?x=1", "device_data": dd},
 "customer-user-id": {"token": token, "platform": "IOS", "install_instance_id": "fz-install", "customer_user_id": "cu"},
 "deeplink-triggered": {"token": token, "platform": "IOS", "install_instance_id": "fz-install"},
}
LF_INSTALL = {"fingerprint": {"userAgent": "Shop/2.1 iOS/17.4.1", "timezone": "Europe/Paris", "language": "fr_FR", "screenWidth": 1170, "screenHeight": 2532, "platform": "iOS", "platformVersion": "17.4.1"},
              "userAgent": "Shop/2.1 iOS/17.4.1", "timezone": "Europe/Paris", "language": "fr_FR", "screenWidth": 1170, "screenHeight": 2532, "platform": "iOS", "platformVersion": "17.4.1", "appVersion": "2.1",
              "deviceId": "dev-1", "idfv": "A1B2", "attributionWindowHours": 24, "deepLinkParams": {"a": "b"}}
LF_EVENT = {"installId": "x", "eventName": "signup", "eventData": {"k": 1}, "timestamp": "2026-11-21T10:00:00Z"}
LF_LINK = {"templateId": None, "originalUrl": "https://example.com/p", "title": "t", "utmParameters": {"source": "s", "medium": "m"}, "customCode": "cc1", "externalUserId": "eu", "deepLinkParameters": {"a": "b"}, "iosAppStoreUrl": "https://apps.apple.com/x", "attributionWindowHours": 48}
ADMIN_PROJ = {"name": "P", "ios_store_url": "https://apps.apple.com/app/id1", "web_url": "https://example.com/", "signing": "optional"}
BEACON = {"screen_width": 390, "screen_height": 844, "dpr": 3, "timezone": "Europe/Paris", "utc_offset": 60, "languages": ["fr-FR", "en"]}

# A real link id and a real click id, so that PUT /api/links/{id} and the beacon reach their handlers.
st, b, _ = req("POST", "/api/links", {"originalUrl": "https://example.com/f"}, K)
link_id = json.loads(b).get("id", "unknown")
c = http.client.HTTPConnection(HOST, PORT, timeout=10)
c.request("GET", "/fz1", headers={"User-Agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1"})
r = c.getresponse(); r.read(); click_id = r.getheader("X-Click-Id", "unknown"); c.close()

# The newer surfaces: a domain, FDL's REST API with every nested dynamicLinkInfo field, links with
# rules, variants and a password, project settings with nested objects, Apple's postback copies.
req("POST", f"/admin/v1/projects/{pid}/domains", {"domain": "fz.page.link"}, A)
FDL_INFO = {"dynamicLinkInfo": {"domainUriPrefix": "https://fz.page.link", "link": "https://example.com/p?x=1",
    "androidInfo": {"androidPackageName": "com.x", "androidFallbackLink": "https://example.com/a", "androidMinPackageVersionCode": "12"},
    "iosInfo": {"iosBundleId": "com.x", "iosFallbackLink": "https://example.com/i", "iosCustomScheme": "shopapp", "iosIpadFallbackLink": "https://example.com/ip",
                "iosIpadBundleId": "com.x", "iosAppStoreId": "123", "iosMinimumVersion": "1.0"},
    "navigationInfo": {"enableForcedRedirect": True}, "analyticsInfo": {"googlePlayAnalytics": {"utmSource": "s", "utmCampaign": "c"},
    "itunesConnectAnalytics": {"at": "1", "ct": "2", "mt": "8", "pt": "9"}},
    "socialMetaTagInfo": {"socialTitle": "t", "socialDescription": "d", "socialImageLink": "https://example.com/i.png"}}, "suffix": {"option": "SHORT"}}
ROUTED_LINK = {"short_code": "fzr", "web_url": "https://example.com/", "password": "pw-123456",
    "rules": [{"when": {"platform": "ios", "country": ["FR"], "after": "2026-01-01T00:00:00Z"}, "url": "https://example.com/ios"}],
    "variants": [{"url": "https://example.com/a", "weight": 50, "name": "A"}, {"url": "https://example.com/b", "weight": 50}],
    "deep_link_parameters": {"k": "v"}, "utm": {"source": "a", "campaign": "b"}, "expires_at": "2030-01-01T00:00:00Z", "max_clicks": 10}
PROJECT_NESTED = {"matching": {"decay": [{"under_hours": 1, "confidence": 0.85}], "candidate_penalty": 0.1},
    "skan": {"revenue": {"currency": "USD", "buckets": [0, 1, 5]}}, "utm_templates": [{"name": "n", "utm": {"source": "s"}}],
    "long_link_hosts": ["*.example.com"], "long_links_per_domain": 100}
SKAN_POSTBACK = {"version": "4.0", "ad-network-id": "com.apple.test-1", "source-identifier": "5239", "app-id": 525463029,
    "transaction-id": "6aafb7a5-0170-41b5-bbe4-fe71dedf1e31", "redownload": False, "source-domain": "example.com", "fidelity-type": 1,
    "did-win": True, "coarse-conversion-value": "high", "postback-sequence-index": 0, "attribution-signature": "MEUCIQ=="}
targets = [("POST", "/api/client/" + k, v, {}) for k, v in LR.items()]
targets += [("POST", f"/v1/shortLinks?key={apikey}", FDL_INFO, {}),
            ("POST", f"/admin/v1/projects/{pid}/domains", {"domain": "fz2.page.link"}, A),
            ("POST", f"/admin/v1/projects/{pid}/links", ROUTED_LINK, A),
            ("PATCH", f"/admin/v1/projects/{pid}", PROJECT_NESTED, A),
            ("POST", "/.well-known/skadnetwork/report-attribution/", SKAN_POSTBACK, {}),
            ("POST", "/.well-known/appattribution/report-attribution/", SKAN_POSTBACK, {}),
            ("POST", f"/admin/v1/projects/{pid}/links/bulk", {"links": [ROUTED_LINK]}, A)]
targets += [("POST", "/api/sdk/v1/install", LF_INSTALL, K), ("POST", "/api/sdk/v1/event", LF_EVENT, K),
            ("POST", "/api/sdk/v1/links", LF_LINK, K), ("POST", "/api/links", LF_LINK, K), ("PUT", "/api/links/" + link_id, LF_LINK, K),
            ("POST", "/admin/v1/projects", ADMIN_PROJ, A), ("PATCH", f"/admin/v1/projects/{pid}", ADMIN_PROJ, A),
            ("POST", f"/admin/v1/projects/{pid}/links", {"short_code": "zz", "ios_url": "https://x", "utm": {"source": "a"}, "window_hours": 24}, A),
            ("POST", f"/admin/v1/projects/{pid}/templates", {"slug": "s1", "name": "n", "window_hours": 24}, A),
            ("POST", f"/admin/v1/projects/{pid}/clock", {"offset_seconds": 10}, A),
            ("POST", f"/admin/v1/projects/{pid}/api-keys", {"name": "k"}, A),
            ("POST", f"/admin/v1/projects/{pid}/signing-keys", {}, A),
            ("POST", "/c/" + click_id, BEACON, {})]

WEIRD = [None, True, False, 0, -1, 1.5, -0.0, 1e308, 2**64, -2**63 - 1, 10**30, "", "x" * 70000, "\u0000", "é漢😀", "\ud800",
         [], [1, 2], {}, {"a": {"b": None}}, "NaN", "2026-13-45T99:99:99Z", "null", "true", " ", "\n"]
def mutate_value(v):
    r = rng.random()
    if r < 0.6: return rng.choice(WEIRD)
    if isinstance(v, dict) and v:
        return mutate(v)
    if isinstance(v, str): return v * rng.randint(2, 50) if rng.random() < 0.5 else v[: rng.randint(0, len(v))]
    if isinstance(v, (int, float)) and not isinstance(v, bool): return v * rng.choice([-1, 1000000, 1e20, 0])
    return rng.choice(WEIRD)

def mutate(obj):
    o = copy.deepcopy(obj)
    for _ in range(rng.randint(1, 3)):
        keys = list(o.keys())
        if not keys: break
        k = rng.choice(keys); r = rng.random()
        if r < 0.2: del o[k]
        elif r < 0.3: o["zz" + str(rng.randint(0, 9))] = rng.choice(WEIRD)
        else: o[k] = mutate_value(o[k])
    return o

def raw_mutation(body):
    s = json.dumps(body).encode()
    r = rng.random()
    if r < 0.2: return s[: rng.randint(0, len(s))]
    if r < 0.35:
        b = bytearray(s); i = rng.randrange(len(b)); b[i] = rng.randrange(256); return bytes(b)
    if r < 0.45: return b"[" * rng.choice([100, 1000, 100000]) + b"]" * rng.choice([0, 100])
    if r < 0.55: return b'{"a":' * 5000 + b"1" + b"}" * 5000
    if r < 0.65: return s + b" trailing"
    if r < 0.72: return s.replace(b'"token"', b'"token":"dup","token"', 1)
    if r < 0.8: return b"\xff\xfe" + s
    if r < 0.86: return s.replace(b'"', b"'")
    if r < 0.92: return b"1e99999"
    return b""

stats = {}
bad = []
t0 = time.time()
def check(method, path, body, headers, raw):
    """Sends one case; returns False when the server stopped answering."""
    try:
        st, b, _ = req(method, path, body, headers, raw)
    except Exception as e:
        bad.append((path, "EXC " + repr(e), body if raw is None else raw[:200]))
        try: req("GET", "/health")
        except Exception as e2:
            print("SERVER DOWN after", path, repr(e2))
            return False
        return True
    stats[st] = stats.get(st, 0) + 1
    try: json.loads(b); isjson = True
    except Exception: isjson = False
    if st >= 500 or (st >= 400 and not isjson):
        bad.append((path, st, (json.dumps(body) if raw is None else raw)[:300], b[:300]))
    return True

sent = 0
for i in range(N):
    method, path, base, headers = rng.choice(targets)
    if rng.random() < 0.7: body = mutate(base); raw = None
    else: body = None; raw = raw_mutation(base)
    # A quarter of the cases are sent twice, as a retrying client would: the second answer must be
    # as sound as the first (a value stored but then not found again shows up here).
    alive = True
    for _ in range(2 if rng.random() < 0.25 else 1):
        alive = alive and check(method, path, body, headers, raw)
        sent += 1
    if not alive: break
# Every leaf of every valid body, in turn, set to each number at the edges of what integers and
# doubles hold (and a few strings of them): a conversion or an overflow on any field shows up here.
EXTREMES = [1e300, -1e300, 1.7976931348623157e308, 2**63, -2**63, 2**63 - 1, 2**64, 1e19, -1e19, 0.5, -1,
            "9223372036854775808", "-9223372036854775809", "1e300", "999999999999d", 2**53, -2**53, 2**53 + 1, -0.0,
            "NaN", "-Infinity", "1e19", "-9223372036854775808"]
def leaf_paths(obj, prefix=()):
    if isinstance(obj, dict):
        for k, v in obj.items(): yield from leaf_paths(v, prefix + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj): yield from leaf_paths(v, prefix + (i,))
    else:
        yield prefix
def with_leaf(obj, path, value):
    o = copy.deepcopy(obj); cur = o
    for k in path[:-1]: cur = cur[k]
    cur[path[-1]] = value
    return o
if os.environ.get("FUZZ_EXTREMES", "1") == "1" and sys.argv[1:2] in ([], ["1"]):  # once per run, with the first seed
    for method, path, base, headers in targets:
        for leaf in leaf_paths(base):
            if not leaf: continue
            for value in EXTREMES:
                alive = check(method, path, with_leaf(base, leaf, value), headers, None)
                sent += 1
                if not alive: break
            if not alive: break
        if not alive: break

# Every column of an FDL export (the admin API's CSV import), one at a time, set to each extreme
# value, as a dry run and for real: a refusal names the row, and nothing traps.
FDL_HEADER = ["Short link", "Deep link (link)", "Android package name (apn)", "Android fallback link (afl)",
    "Android minimum package version code (amv)", "iOS bundle ID (ibi)", "iOS fallback link (ifl)", "iOS custom scheme (ius)",
    "iOS iPad fallback link (ipfl)", "iOS iPad bundle ID (ipbi)", "iOS app store ID (isi)", "iOS minimum version (imv)",
    "Enable forced redirect? (efr)", "Desktop fallback link (ofl)", "Social title (st)", "Social description (sd)",
    "Social image link (si)", "UTM source (utm_source)", "UTM medium (utm_medium)", "UTM campaign (utm_campaign)",
    "UTM term (utm_term)", "UTM content (utm_content)", "iTunes Connect at", "iTunes Connect ct", "iTunes Connect mt",
    "iTunes Connect pt", "Archived?", "Link name", "Creation timestamp"]
FDL_ROW = ["https://fz.page.link/csvrow", "https://example.com/p", "com.x", "", "12", "com.x", "", "shopapp", "", "", "123", "1.0",
    "1", "https://example.com/d", "t", "d", "", "s", "m", "c", "", "", "", "", "", "", "false", "n", "2024-03-01 10:00:00"]
CSV_EXTREMES = ["-9223372036854775808", "9223372036854775807", "-1", "1e308", "NaN", "-0", "99999999999999999999",
                "\u0000", "x" * 5000, "javascript:alert(1)", "\"quoted, with comma\""]
def csv_line(cells):
    return ",".join('"' + c.replace('"', '""') + '"' if ("," in c or '"' in c) else c for c in cells)
if os.environ.get("FUZZ_EXTREMES", "1") == "1" and sys.argv[1:2] in ([], ["1"]):
    for column in range(len(FDL_HEADER)):
        for value in CSV_EXTREMES:
            row = list(FDL_ROW); row[column] = value
            body = (csv_line(FDL_HEADER) + "\r\n" + csv_line(row) + "\r\n").encode()
            for dry in ("true", "false"):
                alive = check("POST", f"/admin/v1/projects/{pid}/imports/fdl?domain=fz.page.link&dry_run={dry}", None,
                              dict(A, **{"Content-Type": "text/csv"}), body)
                sent += 1
                if not alive: break
            if not alive: break
        if not alive: break

# Query strings on the GET routes that take parameters. The link host's own pages (a click, its 404
# and 410) are HTML by design, so there a 4xx need not be JSON.
QUERY_TARGETS = [
    ("/fz1/qr", ["ecc", "margin"], {}, False), ("/tp/fz1/qr", ["ecc"], {}, False),
    (f"/admin/v1/projects/{pid}/stats", ["since", "until"], A, False),
    (f"/admin/v1/projects/{pid}/links", ["limit", "offset"], A, False),
    ("/api/links", ["limit", "offset", "page"], K, False),
    ("/api/sdk/v1/resolve/fz1", ["fp_tz", "fp_lang", "fp_sw", "fp_sh", "fp_platform", "fp_pv"], K, False),
    ("/c/" + click_id, ["sw", "sh", "dpr", "tz", "tzo", "langs"], {}, False),
    ("/fz1", ["utm_source", "utm_campaign", "click_id", "x"], {}, True),
]
QUERY_VALUES = ["", "0", "-1", "17", "99999999999999999999", "1.5", "NaN", "inf", "L", "h", "x" * 5000, "%00", "%ff%fe",
                "é漢😀", "2026-13-45T99:99:99Z", "7d", "-7d", "99999999999d", "999999999999d", "9223372036854775807h", "-9223372036854775808", "1e308", "a,b,,c", "Europe/Paris", "../../etc"]
def quoted(text):
    return urllib.parse.quote(text, safe="%")
for _ in range(max(1, N // 5)):
    path, names, headers, html_ok = rng.choice(QUERY_TARGETS)
    query = "&".join(f"{quoted(rng.choice(names + ['zz']))}={quoted(rng.choice(QUERY_VALUES))}" for _ in range(rng.randint(1, 4)))
    try:
        st, b, _ = req("GET", path + "?" + query, None, headers)
    except Exception as e:
        bad.append((path, "EXC " + repr(e), query[:200]))
        continue
    stats[st] = stats.get(st, 0) + 1
    sent += 1
    try: json.loads(b); isjson = True
    except Exception: isjson = False
    if st >= 500 or (st >= 400 and not isjson and not html_ok):
        bad.append((path, st, query[:300], b[:300]))

print("api_fuzz seed %s: %d requests, statuses %s, %.1fs, %d bad" % (sys.argv[1], sent, dict(sorted(stats.items())), time.time() - t0, len(bad)))
for x in bad[:30]: print("BAD", x)
sys.exit(1 if bad else 0)

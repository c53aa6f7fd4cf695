"""Mutated raw HTTP/1.1 requests against a running server (scripts/fuzz/run starts one).

Each case takes a valid request (GET, HEAD, POST with Content-Length or chunked, HTTP/1.0) and
flips bytes, inserts framing tokens (CR, LF, NUL, Content-Length, Transfer-Encoding, huge chunk
sizes), deletes, repeats or truncates; some cases pipeline several requests, some arrive 7 bytes
at a time. The first response must be a well-formed HTTP/1.1 message by h11's reading, with no
status of 500 or more other than 501 and 505, and the server must close or answer within 3 s.
Exits 1 otherwise, or when /health stops answering.

    FUZZ_PORT=... python3 http_fuzz.py SEED COUNT
"""
import os, random, re, socket, sys, time
import h11

HOST, PORT = "127.0.0.1", int(os.environ.get("FUZZ_PORT", "18181"))
rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
N = int(sys.argv[2]) if len(sys.argv) > 2 else 3000

body = b'{"token":"unknown-token","platform":"IOS","install_instance_id":"fuzz","event_name":"x"}'
IPHONE = b"Mozilla/5.0 (iPhone; CPU iPhone OS 17_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1"
BASES = [
    b"GET /health HTTP/1.1\r\nHost: a\r\n\r\n",
    b"GET /fz1?utm_source=x&click_id=1 HTTP/1.1\r\nHost: a\r\nUser-Agent: " + IPHONE
    + b"\r\nAccept-Language: fr-FR,fr;q=0.9\r\nX-Forwarded-For: 1.2.3.4, 5.6.7.8\r\nForwarded: for=\"[2001:db8::1]:80\"\r\n\r\n",
    b"POST /api/client/capture-event HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body) + body,
    b"POST /api/client/capture-event HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n" % len(body) + body + b"\r\n0\r\n\r\n",
    b"HEAD /fz1 HTTP/1.1\r\nHost: a\r\n\r\n",
    b"GET /.well-known/apple-app-site-association HTTP/1.0\r\n\r\n",
]
TOKENS = [b"\r\n", b"\n", b"\r", b" ", b"\t", b":", b"\x00", b"\xff", b"%", b"%00", b"%zz", b"/..", b"//", b"?", b"#",
          b"chunked", b"Content-Length: 5\r\n", b"Transfer-Encoding: chunked\r\n", b"Content-Length: -1\r\n",
          b"Content-Length: 99999999999999999999\r\n", b"Expect: 100-continue\r\n", b"Connection: close\r\n", b"HTTP/1.0",
          b"HTTP/2.0", b"HTTP/1.1", b"A" * 9000, b"ffffffffffffffff\r\n", b"0\r\n\r\n"]


def mutate(data):
    data = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        r, i = rng.random(), rng.randrange(len(data) + 1)
        if r < 0.3 and data: data[min(i, len(data) - 1)] = rng.randrange(256)
        elif r < 0.5: data[i:i] = rng.choice(TOKENS)
        elif r < 0.7 and data: del data[i:min(len(data), i + rng.randint(1, 20))]
        elif r < 0.8: data[i:i] = bytes(data[max(0, i - 30):i])
        else: data = data[:i]
    return bytes(data)


def exchange(data, trickle):
    """Sends the bytes, half-closes, and reads until the server closes (or 3 s pass: None)."""
    with socket.create_connection((HOST, PORT)) as s:
        s.settimeout(3)
        if trickle:
            for k in range(0, len(data), 7): s.sendall(data[k:k + 7])
        else:
            s.sendall(data)
        s.shutdown(socket.SHUT_WR)
        out = b""
        while True:
            try: chunk = s.recv(65536)
            except socket.timeout: return None
            except ConnectionResetError: return out
            if not chunk: return out
            out += chunk


def first_response(out, method):
    """The first response as h11 reads it: (status, problem or None)."""
    conn = h11.Connection(h11.CLIENT)
    conn.send(h11.Request(method=method, target="/", headers=[("Host", "a")]))
    conn.send(h11.EndOfMessage())
    conn.receive_data(out)
    conn.receive_data(b"")
    status = None
    try:
        while True:
            event = conn.next_event()
            if isinstance(event, (h11.Response, h11.InformationalResponse)):
                status = event.status_code
                if isinstance(event, h11.InformationalResponse): return status, None
            elif isinstance(event, h11.EndOfMessage): return status, None
            elif event is h11.NEED_DATA or isinstance(event, h11.ConnectionClosed):
                return status, "truncated response"
    except h11.RemoteProtocolError as error:
        return status, "h11: %s" % error


stats, bad = {}, []
t0 = time.time()
for n in range(N):
    base = rng.choice(BASES)
    data = mutate(base) if rng.random() < 0.9 else base * rng.randint(2, 5)
    out = exchange(data, trickle=rng.random() < 0.2)
    if out is None:
        bad.append(("no answer and no close within 3 s", data[:200]))
        continue
    for code in re.findall(rb"(?:^|\r\n)HTTP/1\.[01] (\d{3}) ", out):
        stats[int(code)] = stats.get(int(code), 0) + 1
        if int(code) >= 500 and int(code) not in (501, 505): bad.append((int(code), data[:300], out[:300]))
    if out:
        # RFC 9112 §2.2: empty lines before the request-line are ignored, so "\r\nHEAD …" is a HEAD.
        status, problem = first_response(out, "HEAD" if data.lstrip(b"\r\n").startswith(b"HEAD ") else "GET")
        if problem: bad.append((problem, status, data[:300], out[:300]))
    if n % 500 == 0 and exchange(b"GET /health HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", False) is None:
        print("SERVER NOT ANSWERING after case", n); bad.append(("down",)); break
print("http_fuzz seed %s: %d cases, statuses %s, %.1fs, %d bad" % (sys.argv[1], n + 1, dict(sorted(stats.items())), time.time() - t0, len(bad)))
for x in bad[:20]: print("BAD", x)
sys.exit(1 if bad else 0)

"""Broken TLS clients against the HTTPS port of a running server (scripts/fuzz/run starts one).

Each case is one of: bytes that are no ClientHello at all; the start of a ClientHello and then
silence; a real handshake followed by garbage or a cut request; or a clean request. Every clean
request must be answered 200, whatever the broken ones did before it. Exits 1 otherwise, or when
the port stops answering.

    FUZZ_TLS_PORT=... python3 tls_fuzz.py SEED COUNT
"""
import os, random, socket, ssl, sys, time

PORT = int(os.environ.get("FUZZ_TLS_PORT", "18443"))
rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
N = int(sys.argv[2]) if len(sys.argv) > 2 else 500
context = ssl.create_default_context()
context.check_hostname = False
context.verify_mode = ssl.CERT_NONE
HELLO_START = b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03"


def noise(count):
    return bytes(rng.randrange(256) for _ in range(count))


def drain(sock, seconds):
    """Reads until the server closes; False when it is still open after `seconds`."""
    sock.settimeout(seconds)
    try:
        while sock.recv(1000): pass
        return True
    except socket.timeout:
        return False
    except (OSError, ssl.SSLError):
        return True


answered, failures = 0, []
t0 = time.time()
for n in range(N):
    choice = rng.random()
    sock = socket.create_connection(("127.0.0.1", PORT))
    sock.settimeout(5)
    try:
        if choice < 0.3:
            sock.sendall(noise(rng.randint(1, 3000)))
            drain(sock, 0.5)
        elif choice < 0.4:
            # The start of a ClientHello, then silence: cut at the handshake timeout (1 s in the run).
            sock.sendall(HELLO_START + noise(rng.randint(0, 100)))
            if not drain(sock, 3): failures.append(("stalled handshake still open after 3 s",))
        elif choice < 0.6:
            sock = context.wrap_socket(sock, server_hostname="localhost")
            sock.sendall(rng.choice([b"GET /health HTTP/1.1\r\nHost: a\r\n\r\n"[:rng.randint(0, 30)], noise(200),
                                     b"GET /health HTTP/1.1\r\nHost: a\r\nContent-Length: 99\r\n\r\nabc"]))
            drain(sock, 0.2)  # then hang up, whatever the server is waiting for
        else:
            sock = context.wrap_socket(sock, server_hostname="localhost")
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
            data = b""
            while True:
                chunk = sock.recv(4096)
                if not chunk: break
                data += chunk
            if data.startswith(b"HTTP/1.1 200 "): answered += 1
            else: failures.append(("clean request not answered 200", data[:200]))
    except (OSError, ssl.SSLError) as error:
        if choice >= 0.6: failures.append(("clean request failed", repr(error)))
    finally:
        sock.close()
print("tls_fuzz seed %s: %d cases, %d clean requests answered 200, %.1fs, %d bad" % (sys.argv[1], N, answered, time.time() - t0, len(failures)))
for failure in failures[:20]: print("BAD", failure)
sys.exit(1 if failures else 0)

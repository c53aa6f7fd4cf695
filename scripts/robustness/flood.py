"""Connection flood: one address (127.0.0.2) opens N idle connections, then a swarm of addresses
(127.0.1.x) opens more than the server's connection cap, while another address (127.0.0.1) keeps
asking GET /health on a new connection each time. Prints /health latency before and during each
flood and how the flood's connections were answered. Loopback only, bounded in count and time.

    python3 flood.py PORT [connections]
"""
import socket, sys, time

port = int(sys.argv[1])
count = int(sys.argv[2]) if len(sys.argv) > 2 else 5000


reasons = {}


def health(samples=300):
    latencies, failures = [], 0
    for _ in range(samples):
        started = time.perf_counter()
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=2, source_address=("127.0.0.1", 0)) as s:
                s.sendall(b"GET /health HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
                data = b""
                while b"\r\n\r\n" not in data:
                    chunk = s.recv(4096)
                    if not chunk:
                        break
                    data += chunk
                if not data.startswith(b"HTTP/1.1 200"):
                    failures += 1
                    reason = data[:12].decode(errors="replace") or "closed without an answer"
                    reasons[reason] = reasons.get(reason, 0) + 1
        except OSError as error:
            failures += 1
            reasons[type(error).__name__] = reasons.get(type(error).__name__, 0) + 1
        latencies.append((time.perf_counter() - started) * 1000)
    latencies.sort()
    return latencies[len(latencies) // 2], latencies[int(len(latencies) * 0.99)], failures


def open_from(addresses, per_address):
    opened = []
    for address in addresses:
        for _ in range(per_address):
            s = socket.socket()
            s.bind((address, 0))
            s.settimeout(5)
            try:
                s.connect(("127.0.0.1", port))
                opened.append(s)
            except OSError:
                s.close()
    return opened


def classify(sockets):
    """Asks each flood connection for /health: served (200), refused (503 then closed) or closed."""
    served = refused = closed = 0
    for s in sockets:
        try:
            s.settimeout(0.5)
            s.sendall(b"GET /health HTTP/1.1\r\nHost: t\r\n\r\n")
            head = s.recv(64)
            if head.startswith(b"HTTP/1.1 200"):
                served += 1
            elif head.startswith(b"HTTP/1.1 503"):
                refused += 1
            else:
                closed += 1
        except OSError:
            closed += 1
    return served, refused, closed


def report(name, before, during, counts):
    print(f"{name}: /health p50 {before[0]:.2f} ms p99 {before[1]:.2f} ms before, "
          f"p50 {during[0]:.2f} ms p99 {during[1]:.2f} ms during, {during[2]} failed; "
          f"flood connections served {counts[0]}, refused 503 {counts[1]}, closed {counts[2]}"
          + (f"; failures: {reasons}" if reasons else ""))
    reasons.clear()
    return during[2] == 0


ok = True
before = health()
one = open_from(["127.0.0.2"], count)
during = health()
ok &= report(f"one address, {len(one)} connections", before, during, classify(one))
for s in one:
    s.close()
time.sleep(1)

before = health()
swarm = open_from([f"127.0.1.{i}" for i in range(1, 21)], count // 20)
during = health()
ok &= report(f"20 addresses, {len(swarm)} connections", before, during, classify(swarm))
for s in swarm:
    s.close()
sys.exit(0 if ok else 1)

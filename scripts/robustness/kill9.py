"""kill -9 under load: writers create templates through the admin API (each 201 is sent only after
its commit) until the server is killed with SIGKILL; the server is started again on the same
database and every acknowledged template must be there.

    python3 kill9.py BINARY [seconds] [rounds]
"""
import json, os, signal, socket, subprocess, sys, tempfile, threading, time

binary = sys.argv[1]
seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 3
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
admin = "robustness-admin-key-0123456789"
work = tempfile.mkdtemp()
db = os.path.join(work, "db.sqlite")
server_log = []


def start():
    process = subprocess.Popen([binary, "serve", "--host", "127.0.0.1", "--port", "0", "--db", db],
                               env={**os.environ, "ATTRIBUTIOND_ADMIN_KEY": admin, "ATTRIBUTIOND_LOG_LEVEL": "notice"},
                               stderr=subprocess.PIPE, text=True)
    for line in process.stderr:
        if '"listening"' in line:
            # Keep draining its log, so that a full pipe never blocks the server.
            threading.Thread(target=lambda: [server_log.append(l) for l in process.stderr], daemon=True).start()
            return process, int(json.loads(line)["address"].rsplit(":", 1)[1])
    raise SystemExit("server did not start")


def call(port, method, path, body=None):
    payload = json.dumps(body).encode() if body is not None else b""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(f"{method} {path} HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer {admin}\r\nConnection: close\r\n"
                  f"Content-Length: {len(payload)}\r\n\r\n".encode() + payload)
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    head, _, content = data.partition(b"\r\n\r\n")
    parts = head.split(b" ")
    return (int(parts[1]) if len(parts) > 1 else 0), content  # 0: no answer (the server was killed)


total_acknowledged = total_lost = 0
server, port = start()
status, body = call(port, "POST", "/admin/v1/projects", {"name": "Durable"})
project = json.loads(body)["id"]
for round_number in range(rounds):
    acknowledged, stop, killing = [], threading.Event(), threading.Event()

    def writer(index):
        n = 0
        while not stop.is_set():
            slug = f"r{round_number}-w{index}-{n}"
            try:
                status, _ = call(port, "POST", f"/admin/v1/projects/{project}/templates", {"slug": slug, "name": slug})
            except OSError as error:
                if not killing.is_set():
                    print(f"writer {index}: {error}")
                return
            if status != 201:
                if status and not killing.is_set():
                    print(f"writer {index}: {slug} answered {status}")
                return
            acknowledged.append(slug)
            n += 1

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    time.sleep(seconds)
    killing.set()
    server.send_signal(signal.SIGKILL)
    server.wait()
    stop.set()
    for t in threads:
        t.join()
    server, port = start()
    status, body = call(port, "GET", f"/admin/v1/projects/{project}/templates")
    stored = {template["slug"] for template in json.loads(body)}
    lost = [slug for slug in acknowledged if slug not in stored]
    total_acknowledged += len(acknowledged)
    total_lost += len(lost)
    print(f"kill -9 round {round_number + 1}: {len(acknowledged)} acknowledged, {len(lost)} lost")
server.send_signal(signal.SIGTERM)
server.wait()
print(f"kill -9: {total_acknowledged} acknowledged writes across {rounds} kills, {total_lost} lost")
sys.exit(0 if total_lost == 0 else 1)

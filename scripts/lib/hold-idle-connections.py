"""Holds COUNT idle connections to 127.0.0.1:PORT, from COUNT loopback addresses (the server caps
connections per address), without sending a byte; then prints the server's resident memory.

    python3 scripts/lib/hold-idle-connections.py PORT COUNT PID LABEL
prints: LABEL VmRSS RssAnon RssFile (MB) open-descriptors
"""
import os
import resource
import socket
import sys
import time

port, count, pid, label = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
resource.setrlimit(resource.RLIMIT_NOFILE, (count + 1000, count + 1000))
held = []
for i in range(count):
    s = socket.socket()
    s.bind((f"127.1.{i // 200}.{i % 200 + 1}", 0))
    s.connect(("127.0.0.1", port))
    held.append(s)
time.sleep(2)
open_fds = len(os.listdir(f"/proc/{pid}/fd"))
status = dict(line.split(":", 1) for line in open(f"/proc/{pid}/status"))
mb = lambda key: int(status[key].split()[0]) // 1024
print(label, mb("VmRSS"), mb("RssAnon"), mb("RssFile"), open_fds)

#!/usr/bin/env python3
"""An S3-compatible server for the raw export's tests, and a reader of what the export put there.

  s3.py serve            moto's S3 server on a free loopback port with request signing enforced
                         (IAM on, a user whose key the export signs with, one bucket); prints one JSON
                         line: endpoint, bucket, access_key_id, secret_access_key; runs until stdin closes.
  s3.py proxy UPSTREAM STALL_FILE
                         a pass-through in front of UPSTREAM on a free port (printed on one line): while
                         STALL_FILE exists, a multipart part upload is held (and STALL_FILE + ".held"
                         made), so a test can kill the exporter in the middle of an upload.
  s3.py read ENDPOINT BUCKET PREFIX KEY SECRET
                         every hour's manifest and files, each file's digest checked, rows read with
                         Python's csv and json and with DuckDB; prints one JSON document.
"""
import csv
import gzip
import hashlib
import io
import json
import os
import socket
import sys
import tempfile


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve():
    # Four unauthenticated actions make the user, its key, its policy and the bucket; every
    # request after them is checked against its Signature V4 (moto recomputes it with botocore).
    os.environ["INITIAL_NO_AUTH_ACTION_COUNT"] = "4"
    import boto3
    from moto.server import ThreadedMotoServer

    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    endpoint = f"http://127.0.0.1:{port}"
    root = dict(endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="root", aws_secret_access_key="root")
    iam = boto3.client("iam", **root)
    iam.create_user(UserName="exporter")
    key = iam.create_access_key(UserName="exporter")["AccessKey"]
    iam.put_user_policy(
        UserName="exporter", PolicyName="bucket",
        PolicyDocument=json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}))
    boto3.client("s3", **root).create_bucket(Bucket="raw-export")
    print(json.dumps({"endpoint": endpoint, "bucket": "raw-export", "access_key_id": key["AccessKeyId"],
                      "secret_access_key": key["SecretAccessKey"]}), flush=True)
    sys.stdin.read()
    server.stop()


def proxy(upstream, stall_file):
    import http.client
    import threading
    import time
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    from urllib.parse import urlsplit

    target = urlsplit(upstream)

    class Forward(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def forward(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            if "partNumber=" in self.path and os.path.exists(stall_file):
                open(stall_file + ".held", "w").close()
                while os.path.exists(stall_file):
                    time.sleep(0.05)
                self.close_connection = True
                return
            # The Host header goes as it came: it is signed, and moto checks it.
            connection = http.client.HTTPConnection(target.hostname, target.port, timeout=60)
            connection.request(self.command, self.path, body=body, headers={k: v for k, v in self.headers.items()})
            answer = connection.getresponse()
            data = answer.read()
            self.send_response(answer.status)
            for name, value in answer.getheaders():
                if name.lower() not in ("content-length", "transfer-encoding", "connection", "server", "date"):
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = forward

    server = ThreadingHTTPServer(("127.0.0.1", 0), Forward)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(json.dumps({"endpoint": f"http://127.0.0.1:{server.server_address[1]}"}), flush=True)
    sys.stdin.read()


def signed_get(endpoint, key, secret, path, query=""):
    """A GET signed here with Signature V4, independently of the server under test (boto3 signs
    keys with `=` in a way moto's own check refuses)."""
    import datetime
    import hashlib
    import hmac
    import http.client
    from urllib.parse import urlsplit

    target = urlsplit(endpoint)
    amz_date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    payload = hashlib.sha256(b"").hexdigest()
    headers = {"host": f"{target.hostname}:{target.port}", "x-amz-content-sha256": payload, "x-amz-date": amz_date}
    names = sorted(headers)
    canonical = "\n".join([
        "GET", path, query, "".join(f"{name}:{headers[name]}\n" for name in names), ";".join(names), payload])
    scope = f"{amz_date[:8]}/us-east-1/s3/aws4_request"
    to_sign = f"AWS4-HMAC-SHA256\n{amz_date}\n{scope}\n" + hashlib.sha256(canonical.encode()).hexdigest()
    signing = ("AWS4" + secret).encode()
    for part in (amz_date[:8], "us-east-1", "s3", "aws4_request"):
        signing = hmac.new(signing, part.encode(), "sha256").digest()
    signature = hmac.new(signing, to_sign.encode(), "sha256").hexdigest()
    headers["authorization"] = (f"AWS4-HMAC-SHA256 Credential={key}/{scope}, SignedHeaders={';'.join(names)}, "
                                f"Signature={signature}")
    connection = http.client.HTTPConnection(target.hostname, target.port, timeout=60)
    connection.request("GET", path + ("?" + query if query else ""), headers=headers)
    answer = connection.getresponse()
    body = answer.read()
    if answer.status != 200:
        raise SystemExit(f"GET {path}?{query}: {answer.status} {body[:300]!r}")
    return body


def read(endpoint, bucket, prefix, key, secret):
    import xml.etree.ElementTree as ElementTree
    from urllib.parse import quote

    import duckdb

    def xml_texts(body, tag):
        root = ElementTree.fromstring(body)
        return [element.text for element in root.iter() if element.tag.split("}")[-1] == tag]

    objects = {}
    token = None
    while True:
        # The canonical query's names in order, as Signature V4 wants them.
        query = (f"continuation-token={quote(token, safe='')}&" if token else "") + "list-type=2"
        listing = signed_get(endpoint, key, secret, f"/{bucket}", query)
        for name in xml_texts(listing, "Key"):
            if name.startswith(prefix):
                objects[name] = signed_get(endpoint, key, secret, f"/{bucket}/{name}")
        following = xml_texts(listing, "NextContinuationToken")
        if not following:
            break
        token = following[0]
    uploads = xml_texts(signed_get(endpoint, key, secret, f"/{bucket}", "uploads="), "UploadId")
    hours = {}
    problems = []
    scratch = tempfile.mkdtemp()
    for name, body in sorted(objects.items()):
        if not name.endswith("/manifest.json"):
            continue
        manifest = json.loads(body)
        tables = {}
        for file in manifest["files"]:
            object_key = file["path"].split(f"s3://{bucket}/", 1)[1]
            data = objects.get(object_key)
            if data is None:
                problems.append(f"{object_key} is missing")
                continue
            if hashlib.sha256(data).hexdigest() != file["sha256"] or len(data) != file["bytes"]:
                problems.append(f"{object_key}: digest or size differs from the manifest")
            text = gzip.decompress(data).decode("utf-8")
            local = os.path.join(scratch, object_key.replace("/", "_"))
            with open(local, "wb") as handle:
                handle.write(data)
            entry = tables.setdefault(file["table"], {})
            columns = [column["name"] for column in manifest["columns"][file["table"]]]
            if file["format"] == "csv":
                records = list(csv.reader(io.StringIO(text, newline="")))
                if records[0] != columns:
                    problems.append(f"{object_key}: header {records[0]} is not the manifest's columns")
                entry["csv_rows"] = len(records) - 1
                entry["ids"] = sorted(record[1] for record in records[1:])
                entry["duckdb_csv_rows"] = duckdb.sql(
                    f"SELECT count(*) FROM read_csv('{local}', header = true, all_varchar = true)").fetchall()[0][0]
            else:
                lines = [json.loads(line) for line in text.splitlines()]
                if any(list(line.keys()) != columns for line in lines):
                    problems.append(f"{object_key}: a line's keys are not the manifest's columns")
                entry["ndjson_rows"] = len(lines)
                entry["duckdb_json_rows"] = duckdb.sql(
                    f"SELECT count(*) FROM read_json('{local}', format = 'newline_delimited')").fetchall()[0][0] if lines else 0
            entry["manifest_rows"] = file["rows"]
        hours[manifest["hour"]] = {"version": manifest["version"], "tables": tables}
    print(json.dumps({"hours": hours, "objects": len(objects), "multipart_uploads": len(uploads), "problems": problems}))


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        serve()
    elif sys.argv[1] == "proxy":
        proxy(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "read":
        read(*sys.argv[2:7])
    else:
        sys.exit(__doc__)

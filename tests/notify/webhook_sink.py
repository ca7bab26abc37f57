"""A webhook receiver for the notification tests: every POST is written to --dir as <n>.json
({"path", "headers", "body"}, body as received) and answered --status (default 200); with
--fail N the first N are answered 500 (and still recorded). Prints "listening http://..."."""
import argparse
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--dir", required=True)
    p.add_argument("--fail", type=int, default=0)
    a = p.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    lock = threading.Lock()
    state = {"n": 0}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length)
            with lock:
                state["n"] += 1
                n = state["n"]
            status = 500 if n <= a.fail else 200
            record = {"path": self.path, "status": status,
                      "headers": {k.lower(): v for k, v in self.headers.items()},
                      "body": body.decode("utf-8", "replace")}
            tmp = os.path.join(a.dir, ".%d.tmp" % n)
            with open(tmp, "w") as f:
                json.dump(record, f)
            os.rename(tmp, os.path.join(a.dir, "%06d.json" % n))
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    # Python's default listen backlog (5) drops connections a worker opens together.
    ThreadingHTTPServer.request_queue_size = 256
    ThreadingHTTPServer.daemon_threads = True
    server = ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    print("listening http://127.0.0.1:%d" % a.port, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())

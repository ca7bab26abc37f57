"""A real SMTP server for the notification tests (Debian's python3-aiosmtpd): every message
it accepts is written to --dir as <n>.eml (the raw bytes as received, envelope sender and
recipients in X-Envelope-* lines above them). With --hang it accepts connections and never
answers, as a mail server that hangs does. Prints "listening smtp://127.0.0.1:P" when ready.
"""
import argparse
import asyncio
import os
import socket
import sys
import time

from aiosmtpd.controller import Controller


class Save:
    def __init__(self, directory):
        self.directory = directory
        # A sink started again on the same directory (the server "back up") goes on numbering.
        self.count = len([n for n in os.listdir(directory) if n.endswith(".eml")])

    async def handle_DATA(self, server, session, envelope):
        self.count += 1
        head = "X-Envelope-From: %s\r\nX-Envelope-To: %s\r\n" % (
            envelope.mail_from, ",".join(envelope.rcpt_tos))
        tmp = os.path.join(self.directory, ".%d.tmp" % self.count)
        with open(tmp, "wb") as f:
            f.write(head.encode() + envelope.original_content)
        os.rename(tmp, os.path.join(self.directory, "%06d.eml" % self.count))
        return "250 OK"


def hang(port):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", port))
    s.listen(64)
    print("listening smtp://127.0.0.1:%d" % port, flush=True)
    held = []
    while True:
        conn, _ = s.accept()
        held.append(conn)  # never answered, never closed


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--dir")
    p.add_argument("--hang", action="store_true")
    a = p.parse_args()
    if a.hang:
        hang(a.port)
        return
    os.makedirs(a.dir, exist_ok=True)
    c = Controller(Save(a.dir), hostname="127.0.0.1", port=a.port)
    c.start()
    print("listening smtp://127.0.0.1:%d" % a.port, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        c.stop()


if __name__ == "__main__":
    sys.exit(main())

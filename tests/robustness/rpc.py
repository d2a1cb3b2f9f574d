"""A minimal JSON-RPC client over the server's stdio, for protocol-abuse tests (no pygls client,
so malformed messages can be sent)."""
from __future__ import annotations

import json
import os
import pathlib
import queue
import subprocess
import sys
import threading

ROOT = pathlib.Path(__file__).resolve().parents[2]


class RawClient:
    def __init__(self):
        env = {**os.environ, "PYTHONPATH": str(ROOT / "server"), "SHAPEHINT_DEBOUNCE_MS": "20"}
        self.proc = subprocess.Popen([sys.executable, "-m", "shapehint", "lsp"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        self.inbox: queue.Queue = queue.Queue()
        self._id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        out = self.proc.stdout
        while True:
            header = b""
            while not header.endswith(b"\r\n\r\n"):
                ch = out.read(1)
                if not ch:
                    return
                header += ch
            length = int([h for h in header.decode().split("\r\n") if h.lower().startswith("content-length")][0]
                         .split(":")[1])
            self.inbox.put(json.loads(out.read(length)))

    def send_raw(self, body: bytes):
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def send(self, msg: dict):
        self.send_raw(json.dumps(msg).encode())

    def request(self, method: str, params, timeout: float = 60.0) -> dict:
        self._id += 1
        rid = self._id
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        return self.wait_response(rid, timeout)

    def notify(self, method: str, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def wait_response(self, rid, timeout: float = 60.0) -> dict:
        while True:
            msg = self.inbox.get(timeout=timeout)
            if msg.get("id") == rid and "method" not in msg:
                return msg

    def alive(self) -> bool:
        return self.proc.poll() is None

    def close(self):
        try:
            self.request("shutdown", None, timeout=10)
            self.notify("exit", None)
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()

"""A minimal JSON-RPC/LSP client over stdio, for timing the real `shapehint lsp` process.

No pygls, no pytest-lsp: a reader thread parses `Content-Length` frames and stamps each
message with `time.perf_counter()` when its last byte arrived; requests from the server
(`workspace/configuration`, `client/registerCapability`, progress creation) are answered
with empty results. The client declares no pull-diagnostics capability, so the server pushes
`textDocument/publishDiagnostics`.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from typing import Any, Callable, Optional


class LspClient:
    def __init__(self, cmd: Optional[list] = None, env: Optional[dict] = None, cwd: Optional[str] = None):
        self.cmd = cmd or [sys.executable, "-m", "shapehint", "lsp"]
        full_env = dict(os.environ)
        full_env.update(env or {})
        self.t_spawn = time.perf_counter()
        self.proc = subprocess.Popen(self.cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, env=full_env, cwd=cwd, bufsize=0)
        self._next_id = 0
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)
        self.responses: dict = {}  # id -> (t, message)
        self.notifications: list = []  # (t, method, params)
        self.closed = False
        self._reader = threading.Thread(target=self._read_loop, daemon=True)
        self._reader.start()

    # ---- transport --------------------------------------------------------------------
    def _send(self, msg: dict) -> float:
        body = json.dumps(msg, separators=(",", ":")).encode("utf-8")
        data = b"Content-Length: %d\r\n\r\n" % len(body) + body
        t = time.perf_counter()
        self.proc.stdin.write(data)
        self.proc.stdin.flush()
        return t

    def _read_loop(self) -> None:
        out = self.proc.stdout
        try:
            while True:
                length = None
                while True:
                    line = out.readline()
                    if not line:
                        raise EOFError
                    line = line.strip()
                    if not line:
                        break
                    k, _, v = line.partition(b":")
                    if k.lower() == b"content-length":
                        length = int(v)
                body = b""
                while len(body) < (length or 0):
                    chunk = out.read(length - len(body))
                    if not chunk:
                        raise EOFError
                    body += chunk
                t = time.perf_counter()
                msg = json.loads(body)
                self._dispatch(t, msg)
        except (EOFError, ValueError, OSError):
            with self._cond:
                self.closed = True
                self._cond.notify_all()

    def _dispatch(self, t: float, msg: dict) -> None:
        if "method" in msg and "id" in msg:  # a request from the server
            method = msg["method"]
            result: Any = None
            if method == "workspace/configuration":
                result = [None for _ in msg.get("params", {}).get("items", [])]
            try:
                self._send({"jsonrpc": "2.0", "id": msg["id"], "result": result})
            except OSError:
                pass
            return
        with self._cond:
            if "method" in msg:
                self.notifications.append((t, msg["method"], msg.get("params")))
            else:
                self.responses[msg.get("id")] = (t, msg)
            self._cond.notify_all()

    # ---- API ----------------------------------------------------------------------------
    def request(self, method: str, params: Any, timeout: float = 120.0) -> tuple[float, dict]:
        """Send a request and wait for its response: (seconds, response message)."""
        with self._lock:
            self._next_id += 1
            rid = self._next_id
        t0 = self._send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        with self._cond:
            ok = self._cond.wait_for(lambda: rid in self.responses or self.closed, timeout)
            if not ok or rid not in self.responses:
                raise TimeoutError(f"no response to {method} within {timeout}s")
            t1, msg = self.responses.pop(rid)
        return t1 - t0, msg

    def notify(self, method: str, params: Any) -> float:
        return self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def wait_notification(self, pred: Callable[[str, Any], bool], start: int = 0,
                          timeout: float = 300.0) -> tuple[float, int, Any]:
        """Wait for a notification (from index `start`) satisfying pred: (time, index, params)."""
        with self._cond:
            found: list = []

            def scan():
                for i in range(start, len(self.notifications)):
                    t, m, p = self.notifications[i]
                    if pred(m, p):
                        found.append((t, i, p))
                        return True
                return self.closed
            if not self._cond.wait_for(scan, timeout) or not found:
                raise TimeoutError("notification not received")
            return found[0]

    def mark(self) -> int:
        with self._lock:
            return len(self.notifications)

    def initialize(self, root: str) -> float:
        """initialize + initialized; returns seconds from process spawn to the initialize reply."""
        from pathlib import Path
        _, msg = self.request("initialize", {
            "processId": os.getpid(), "rootUri": Path(root).as_uri(),
            "capabilities": {"textDocument": {"hover": {"contentFormat": ["markdown", "plaintext"]},
                                              "publishDiagnostics": {"versionSupport": True},
                                              "synchronization": {"didSave": True}},
                             "general": {"positionEncodings": ["utf-16"]}},
            "workspaceFolders": None}, timeout=60)
        t_reply = self.responses_time = time.perf_counter()
        self.server_capabilities = msg.get("result", {}).get("capabilities", {})
        self.notify("initialized", {})
        return t_reply - self.t_spawn if "result" in msg else float("nan")

    @property
    def sync_kind(self) -> int:
        s = self.server_capabilities.get("textDocumentSync", 1)
        return s.get("change", 1) if isinstance(s, dict) else int(s)

    def rss_kb(self) -> tuple[int, int]:
        """(VmRSS, VmHWM) of the server process in KiB (Linux /proc)."""
        rss = hwm = 0
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1])
                elif line.startswith("VmHWM:"):
                    hwm = int(line.split()[1])
        return rss, hwm

    def close(self) -> None:
        try:
            self.request("shutdown", None, timeout=10)
            self.notify("exit", None)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

#!/usr/bin/env python3
"""CI check for stream_turn.py: runs it against the real binary and the mock
provider, through a proxy that cuts its first event stream mid-turn, and
checks what it did.

    CODEWHALE_BIN=target/release/codewhale MOCK_PROVIDER_BIN=target/release/mock-provider \
        python3 examples/python/check_stream_turn.py

The scripted model asks to run a shell command (so an approval is
required), then streams its answer in parts. The example must approve the
command (the command's file appears in the workspace and its output reaches
the model), print the answer exactly once although its stream was cut after
the first part, and exit 0. Standard library only.
"""

import json
import os
import re
import secrets
import socket
import subprocess
import sys
import tempfile
import threading
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
EXAMPLE = HERE / "stream_turn.py"

PROOF_FILE = "proof.txt"
PROOF = "approved-by-the-python-example"
COMMAND = f"printf {PROOF} > {PROOF_FILE} && cat {PROOF_FILE}"
ANSWER_PARTS = ["The command ", "ran, ", "and ", "the proof ", "file ", "is written."]
ANSWER = "".join(ANSWER_PARTS)
PROMPT = "Write the proof file"


def binary(variable, name):
    path = Path(os.environ.get(variable) or ROOT / "target" / "release" / name).resolve()
    if not path.is_file():
        sys.exit(f"{path} is missing: build it first (cargo build --release -p {name}) or set {variable}")
    return path


class Process:
    """A child whose first stdout line is its URL; the rest of its output is
    drained (a server whose pipes fill up or close stops answering)."""

    def __init__(self, args, **kwargs):
        self.args = args
        self.child = subprocess.Popen(
            args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kwargs
        )
        self.output = []
        first = self.child.stdout.readline().decode().strip()
        for pipe in (self.child.stdout, self.child.stderr):
            threading.Thread(target=self._drain, args=(pipe,), daemon=True).start()
        if not first.startswith("http"):
            self.stop()
            sys.exit(f"{args[0]} did not print its URL (got {first!r}):\n{self.log()}")
        self.url = first

    def _drain(self, pipe):
        for line in iter(pipe.readline, b""):
            self.output.append(line.decode(errors="replace"))

    def log(self):
        return "".join(self.output)

    def stop(self):
        if self.child.poll() is None:
            self.child.send_signal(2)  # SIGINT: a clean shutdown
            try:
                self.child.wait(5)
            except subprocess.TimeoutExpired:
                self.child.kill()
                self.child.wait()


class CuttingProxy:
    """A TCP proxy to the server that cuts the first event-stream connection
    right after the server sent an `item.delta` frame through it, as a
    network drop would (mid-stream, possibly mid-frame)."""

    def __init__(self, target_port):
        self.target_port = target_port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.event_requests = []  # request lines of event-stream connections
        self.cut = False
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client):
        upstream = socket.create_connection(("127.0.0.1", self.target_port))
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = client.recv(65536)
            if not chunk:
                break
            head += chunk
        upstream.sendall(head)
        request_line = head.split(b"\r\n", 1)[0].decode(errors="replace")
        cut_this = False
        if "/events" in request_line:
            with self.lock:
                self.event_requests.append(request_line)
                cut_this = not self.cut
                self.cut = True
        threading.Thread(target=self._pump, args=(client, upstream, None), daemon=True).start()
        self._pump(upstream, client, b"event: item.delta" if cut_this else None)

    @staticmethod
    def _pump(source, sink, cut_after):
        seen = b""
        try:
            while True:
                chunk = source.recv(65536)
                if not chunk:
                    break
                sink.sendall(chunk)
                seen = (seen + chunk)[-4096:]
                if cut_after and cut_after in seen:
                    break
        except OSError:
            pass
        for end in (source, sink):
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            end.close()

    def close(self):
        self.listener.close()


def post_json(url, body):
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), method="POST", headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status


def get_json(url, token=None):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=10) as response:
        return json.loads(response.read())


def usage_chunk():
    return {"kind": "usage", "prompt_tokens": 100, "completion_tokens": 20}


def scripted_replies():
    """What the mock model answers: first a shell call, then the answer in
    parts 150 ms apart (separate deltas, so the cut lands mid-answer)."""
    call = {
        "kind": "tool_call",
        "index": 0,
        "id": "call_python_example",
        "name": "exec_shell",
        "arguments": json.dumps({"command": COMMAND}),
    }
    answer = [{"kind": "text", "text": part} for part in ANSWER_PARTS]
    return [
        {"type": "stream", "chunks": [call, {"kind": "finish", "reason": "tool_calls"}, usage_chunk()]},
        {
            "type": "stream",
            "chunks": answer + [{"kind": "finish", "reason": "stop"}, usage_chunk()],
            "delay_ms": 150,
        },
    ]


def main():
    codewhale_bin = binary("CODEWHALE_BIN", "codewhale")
    mock_bin = binary("MOCK_PROVIDER_BIN", "mock-provider")
    failures = []

    def check(condition, what):
        if not condition:
            failures.append(what)

    # No proxy from the environment may stand between us and 127.0.0.1.
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    with tempfile.TemporaryDirectory(prefix="codewhale-example-") as scratch:
        home = Path(scratch, "home")
        workspace = Path(scratch, "workspace")
        home.mkdir(mode=0o700)
        workspace.mkdir()
        started = []
        proxy = None
        try:
            mock = Process([str(mock_bin)], env=env)
            started.append(mock)
            (home / "config.toml").write_text(
                'default_provider = "mock"\n\n[providers.mock]\n'
                f"base_url = {json.dumps(mock.url)}\nmodels = [\"mock-large\", \"mock-small\"]\n"
            )
            token = secrets.token_hex(24)
            server = Process(
                [str(codewhale_bin), "app-server", "--http", "--port", "0", "--auth-token", token],
                cwd=workspace,
                env={**env, "CODEWHALE_HOME": str(home)},
            )
            started.append(server)
            post_json(mock.url + "/__mock/replies", scripted_replies())
            proxy = CuttingProxy(int(server.url.rsplit(":", 1)[1].rstrip("/")))

            example = subprocess.run(
                [sys.executable, str(EXAMPLE), "--approve", "--workspace", str(workspace), PROMPT],
                env={**env, "CODEWHALE_URL": proxy.url, "CODEWHALE_TOKEN": token},
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=120,
            )
            stderr = example.stderr
            print(f"--- stream_turn.py (exit {example.returncode}) stdout:\n{example.stdout}--- stderr:\n{stderr}---")

            check(example.returncode == 0, f"the example exits 0 (got {example.returncode})")
            check(example.stdout == ANSWER + "\n", f"stdout is the answer exactly once: {ANSWER!r}")
            proof = workspace / PROOF_FILE
            check(proof.is_file() and proof.read_text() == PROOF, f"the approved command wrote {PROOF_FILE}")
            check(f"[approval] exec_shell: Run: {COMMAND} -> allow" in stderr, "the approval was answered")
            check(f"[command] $ {COMMAND}\n{PROOF}" in stderr, "the command's receipt and output were printed")
            resumes = re.findall(r"^\[stream\] .*; resuming after seq (\d+)", stderr, re.M)
            check(len(resumes) == 1, f"the example noticed the cut connection once ({resumes})")
            check("[gap]" not in stderr, "no gap was reported")
            check(
                len(proxy.event_requests) == 2 and resumes and f"since_seq={resumes[0]} " in proxy.event_requests[1],
                f"the reopened stream asked for the events after the last one seen ({proxy.event_requests})",
            )
            check(resumes and int(resumes[0]) > 0, "the cut came after some events had arrived")
            requests = get_json(mock.url + "/__mock/requests")
            check(len(requests) == 2, f"the model was called twice (got {len(requests)})")
            check(PROOF in json.dumps(requests[-1:]), "the command's output reached the model")
            threads = get_json(server.url + "/v1/threads", token)
            check(len(threads) == 1, "one thread was created")
            if threads:
                detail = get_json(f"{server.url}/v1/threads/{threads[0]['id']}", token)
                check(
                    [turn["status"] for turn in detail["turns"]] == ["completed"],
                    f"the turn completed ({[turn['status'] for turn in detail['turns']]})",
                )
                check(detail["pending_approvals"] == [], "no approval is left pending")
        finally:
            if proxy:
                proxy.close()
            for process in reversed(started):
                process.stop()
        if failures:
            print("FAILED:\n  " + "\n  ".join(failures), file=sys.stderr)
            print(f"--- codewhale's log:\n{server.log()[-6000:]}", file=sys.stderr)
            return 1
    print("ok: the Python example streamed a turn, answered its approval and resumed a cut stream")
    return 0


if __name__ == "__main__":
    sys.exit(main())

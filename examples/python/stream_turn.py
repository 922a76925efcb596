#!/usr/bin/env python3
"""Run one codewhale turn from Python, with nothing but the standard library.

It creates a thread in a workspace, starts a turn, follows the thread's
event stream (Server-Sent Events), prints the agent's text as it streams,
answers approvals, and resumes from the last event it saw whenever the
connection drops, so nothing is lost and nothing is printed twice.

    export CODEWHALE_URL=http://127.0.0.1:7878   # what `codewhale app-server --http` printed
    export CODEWHALE_TOKEN=...                   # its --auth-token (unset for --insecure-no-auth)
    python3 stream_turn.py --workspace ~/src/project "Run the tests"

The agent's text goes to stdout; what happens around it (commands,
approvals, reconnects) goes to stderr. Approvals are asked on the terminal;
`--approve` allows every request, `--deny` refuses every one (without a
terminal and without either flag, requests are denied). The exit status is
0 when the turn completes, 1 when it fails or is interrupted, 2 for a usage
or API error.

The reference for every route and event is the OpenAPI document the server
serves at GET /v1/openapi.json.
"""

import argparse
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

# The server sends a keep-alive comment every 15 s: a read that waits
# longer than this means the connection is dead.
READ_TIMEOUT_S = 45
MAX_BACKOFF_S = 10


class ApiError(Exception):
    """A /v1 call answered with an error status (the JSON error envelope)."""

    def __init__(self, status, message):
        super().__init__(f"HTTP {status}: {message}")
        self.status = status


class Client:
    def __init__(self, base_url, token):
        self.base_url = base_url.rstrip("/")
        self.token = token

    def _request(self, method, path, body=None, accept="application/json"):
        headers = {"Accept": accept}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        return urllib.request.Request(self.base_url + path, data=data, method=method, headers=headers)

    def call(self, method, path, body=None):
        """One JSON call; raises ApiError with the server's message on failure."""
        try:
            with urllib.request.urlopen(self._request(method, path, body), timeout=30) as response:
                raw = response.read()
        except urllib.error.HTTPError as error:
            raise ApiError(error.code, error_message(error)) from None
        return json.loads(raw) if raw else None

    def events(self, thread_id, since_seq):
        """Opens the thread's event stream after `since_seq`; yields envelopes.

        Ends (returns) when the server closes the stream; raises OSError
        (or http.client errors) when the connection breaks.
        """
        query = urllib.parse.urlencode({"since_seq": since_seq})
        path = f"/v1/threads/{urllib.parse.quote(thread_id)}/events?{query}"
        request = self._request("GET", path, accept="text/event-stream")
        try:
            response = urllib.request.urlopen(request, timeout=READ_TIMEOUT_S)
        except urllib.error.HTTPError as error:
            raise ApiError(error.code, error_message(error)) from None
        with response:
            for name, data in sse_frames(response):
                envelope = json.loads(data)
                if envelope.get("event") != name:
                    raise ValueError(f"frame named {name!r} carries event {envelope.get('event')!r}")
                yield envelope


def error_message(error):
    """The message of the JSON error envelope {"error": {"message", "status"}}."""
    try:
        return json.loads(error.read())["error"]["message"]
    except Exception:
        return error.reason


def sse_frames(stream):
    """Parses text/event-stream into (event name, data) pairs.

    A frame is dispatched only at the blank line that ends it, so a frame
    cut off by a dropped connection is never half-delivered. Comment lines
    (the keep-alives) and `id:`/`retry:` fields are skipped: the envelope
    carries the seq.
    """
    name, data = "message", []
    while True:
        raw = stream.readline()
        if not raw:
            return  # closed; anything pending was incomplete
        line = raw.decode("utf-8").rstrip("\r\n")
        if line == "":
            if data:
                yield name, "\n".join(data)
            name, data = "message", []
        elif line.startswith(":"):
            continue
        else:
            field, _, value = line.partition(":")
            if value.startswith(" "):
                value = value[1:]
            if field == "event":
                name = value
            elif field == "data":
                data.append(value)


class Approver:
    """Decides approval requests: a fixed answer, or ask on the terminal."""

    def __init__(self, fixed):
        self.fixed = fixed

    def decide(self, payload):
        what = f"{payload.get('tool_name')}: {payload.get('description')}"
        if self.fixed:
            log(f"[approval] {what} -> {self.fixed}")
            return self.fixed
        if not sys.stdin.isatty():
            log(f"[approval] {what} -> deny (no terminal; pass --approve to allow)")
            return "deny"
        answer = input(f"Allow {what}? [y/N] ").strip().lower()
        return "allow" if answer in ("y", "yes") else "deny"


def log(message):
    print(message, file=sys.stderr, flush=True)


def follow_turn(client, thread_id, turn_id, approver, since_seq=0):
    """Streams the thread until `turn_id` completes; returns the final turn record.

    `last_seq` is the newest event handled. Every (re)connection asks for
    the events after it, and an event at or below it is a duplicate and is
    skipped, so a reconnect neither loses nor repeats anything.
    """
    last_seq = since_seq
    backoff = 0.25
    while True:
        try:
            for event in client.events(thread_id, last_seq):
                if event["seq"] <= last_seq:
                    continue  # already handled
                if event["previous_seq"] > last_seq:
                    # The server says it sent something we never got (it
                    # should not happen; a UI would reload GET /v1/threads/{id}).
                    log(f"[gap] events {last_seq + 1}..{event['previous_seq']} were missed")
                last_seq = event["seq"]
                backoff = 0.25
                turn = handle(client, event, turn_id, approver)
                if turn is not None:
                    return turn
            # The server ends streams only when it shuts down; a connection
            # cut between two chunks also looks like this.
            log(f"[stream] connection closed; resuming after seq {last_seq} in {backoff:.2f}s")
        except ApiError as error:
            # 4xx: reconnecting will not help (wrong token, unknown thread).
            if error.status < 500:
                raise
            log(f"[stream] {error}; resuming after seq {last_seq} in {backoff:.2f}s")
        except (OSError, ValueError, EOFError) as error:
            # OSError covers refused/reset connections and timeouts;
            # http.client.IncompleteRead (a ValueError) is a cut-off chunk.
            log(f"[stream] connection lost ({type(error).__name__}: {error}); resuming after seq {last_seq} in {backoff:.2f}s")
        time.sleep(backoff)
        backoff = min(backoff * 2, MAX_BACKOFF_S)


def handle(client, event, turn_id, approver):
    """Acts on one event; returns the turn record when our turn has ended."""
    if event["turn_id"] != turn_id:
        return None
    name, payload = event["event"], event["payload"]
    if name == "item.delta" and payload.get("kind") == "agent_message":
        sys.stdout.write(payload["delta"])
        sys.stdout.flush()
    elif name == "item.completed" and payload["item"]["kind"] == "agent_message":
        sys.stdout.write("\n")
        sys.stdout.flush()
    elif name == "item.completed" and payload["item"]["kind"] == "command_execution":
        item = payload["item"]
        command = item["metadata"].get("command", item["summary"])
        log(f"[command] $ {command}\n{(item.get('detail') or '').rstrip()}")
    elif name == "item.failed":
        log(f"[item failed] {payload['item']['summary']}: {payload['item'].get('detail')}")
    elif name == "approval.required":
        decision = approver.decide(payload)
        try:
            client.call("POST", f"/v1/approvals/{payload['approval_id']}", {"decision": decision})
        except ApiError as error:
            if error.status != 404:
                raise
            # Already settled: another client decided, it timed out, or this
            # is a replay after a reconnect. The stream says what happened.
            log(f"[approval] {payload['approval_id']} was already settled")
    elif name == "turn.completed":
        return payload["turn"]
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("prompt")
    parser.add_argument("--workspace", default=os.getcwd(), help="directory the agent works in (default: here)")
    parser.add_argument("--model", help="model id (default: the server's default)")
    decide = parser.add_mutually_exclusive_group()
    decide.add_argument("--approve", action="store_const", const="allow", dest="decision", help="allow every approval request")
    decide.add_argument("--deny", action="store_const", const="deny", dest="decision", help="deny every approval request")
    args = parser.parse_args()

    base_url = os.environ.get("CODEWHALE_URL", "http://127.0.0.1:7878")
    client = Client(base_url, os.environ.get("CODEWHALE_TOKEN"))
    try:
        thread = client.call("POST", "/v1/threads", {"workspace": os.path.abspath(args.workspace)})
        log(f"[thread] {thread['id']} in {thread['workspace']}")
        turn_request = {"prompt": args.prompt}
        if args.model:
            turn_request["model"] = args.model
        started = client.call("POST", f"/v1/threads/{thread['id']}/turns", turn_request)
        turn_id = started["turn"]["id"]
        log(f"[turn] {turn_id} on {started['turn']['effective_provider']}/{started['turn']['effective_model']}")
        # A new thread: its stream from the start holds everything of this turn.
        turn = follow_turn(client, thread["id"], turn_id, Approver(args.decision))
    except ApiError as error:
        log(f"codewhale: {error}")
        return 2
    except OSError as error:
        log(f"codewhale: cannot reach {base_url}: {error}")
        return 2
    usage = turn["usage"]
    log(f"[turn {turn['status']}] {usage['input_tokens']} tokens in, {usage['output_tokens']} out")
    if turn["status"] != "completed":
        log(f"codewhale: the turn ended {turn['status']}: {turn.get('error')}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Replays the event stream of every thread on a server and checks each
frame against the document: `data` is a `StreamEvent` (the envelope with
the payload of its event), `id:` is its seq and `event:` its name, and the
replay is lossless (each `previous_seq` is the seq before it).

    events.py BASE_URL TOKEN DOCUMENT

schemathesis reads a few streams during its run, cut short by its request
timeout; this reads all of them, to the end of what the run produced.
"""

import collections
import json
import sys
import urllib.request

import jsonschema_rs


def main(base, token, document_path):
    with open(document_path) as file:
        document = json.load(file)
    # The document's components as the root, so `#/components/...` resolves.
    validator = jsonschema_rs.Draft202012Validator(
        {"$ref": "#/components/schemas/StreamEvent", "components": document["components"]}
    )
    headers = {"Authorization": f"Bearer {token}"}

    def get(path, accept="application/json"):
        request = urllib.request.Request(base + path, headers={**headers, "Accept": accept})
        return urllib.request.urlopen(request, timeout=30)

    threads = json.load(get("/v1/threads?include_archived=true&limit=500"))
    if len(threads) == 500:
        print("(the newest 500 threads)")
    seen = collections.Counter()
    problems = []
    for thread in threads:
        latest = json.load(get(f"/v1/threads/{thread['id']}"))["latest_seq"]
        previous = 0
        with get(f"/v1/threads/{thread['id']}/events?since_seq=0", "text/event-stream") as stream:
            for frame in frames(stream):
                data = json.loads(frame["data"])
                where = f"{thread['id']} seq {data.get('seq')} ({frame.get('event')})"
                for error in validator.iter_errors(data):
                    problems.append(f"{where}: {error.message} at {list(error.instance_path)}")
                if frame.get("id") != str(data.get("seq")) or frame.get("event") != data.get("event"):
                    problems.append(f"{where}: frame id/event {frame.get('id')}/{frame.get('event')} differ from the data")
                if data.get("previous_seq") != previous:
                    problems.append(f"{where}: previous_seq {data.get('previous_seq')}, expected {previous}")
                previous = data["seq"]
                seen[data.get("event")] += 1
                if previous >= latest:
                    break
    print(f"{sum(seen.values())} events of {len(threads)} threads: " + ", ".join(f"{k}×{v}" for k, v in sorted(seen.items())))
    if problems:
        sys.exit("\n".join(problems[:50]) + (f"\n… and {len(problems) - 50} more" if len(problems) > 50 else ""))


def frames(stream):
    """SSE frames as dicts of their fields (data lines joined)."""
    fields, data = {}, []
    while True:
        line = stream.readline()
        if not line:
            return
        line = line.decode("utf-8").rstrip("\r\n")
        if not line:
            if data:
                yield {**fields, "data": "\n".join(data)}
            fields, data = {}, []
        elif not line.startswith(":"):
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "data":
                data.append(value)
            else:
                fields[name] = value


if __name__ == "__main__":
    main(*sys.argv[1:])

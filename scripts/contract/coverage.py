#!/usr/bin/env python3
"""Checks schemathesis's NDJSON report: every operation of the document was
exercised by the coverage and fuzzing phases (none skipped, none errored),
and prints the statuses each operation answered.

    coverage.py DOCUMENT REPORT_DIR
"""

import collections
import glob
import json
import sys

METHODS = {"get", "put", "post", "delete", "options", "head", "patch", "trace"}
REQUIRED_PHASES = ("coverage", "fuzzing")


def main(document_path, report_dir):
    with open(document_path) as file:
        document = json.load(file)
    operations = sorted(
        f"{method.upper()} {path}"
        for path, item in document["paths"].items()
        for method in item
        if method in METHODS
    )
    reports = sorted(glob.glob(f"{report_dir}/*.ndjson"))
    if len(reports) != 1:
        sys.exit(f"expected one NDJSON report in {report_dir}, found {reports}")

    # phase -> operation -> scenario statuses; operation -> response statuses
    scenarios = collections.defaultdict(lambda: collections.defaultdict(list))
    statuses = collections.defaultdict(collections.Counter)
    with open(reports[0]) as file:
        for line in file:
            event = json.loads(line)
            finished = event.get("ScenarioFinished")
            if not finished:
                continue
            recorder = finished["recorder"]
            label = recorder.get("label")
            phase = finished["phase"]
            if label in operations:
                scenarios[phase][label].append(finished["status"])
            for case_id, case in recorder.get("cases", {}).items():
                value = case["value"]
                interaction = recorder.get("interactions", {}).get(case_id)
                response = interaction and interaction.get("response")
                status = response["status_code"] if response else "no response"
                statuses[f"{value['method'].upper()} {value['path']}"][status] += 1

    problems = []
    for phase in REQUIRED_PHASES:
        for operation in operations:
            seen = scenarios[phase].get(operation, [])
            ran = [status for status in seen if status in ("success", "failure")]
            if not ran:
                problems.append(f"{phase}: {operation} was not exercised ({seen or 'no scenario'})")
            elif "error" in seen:
                problems.append(f"{phase}: {operation} errored")
    # The unsupported_method check sends methods a path does not declare.
    undeclared = collections.Counter()
    for label in set(statuses) - set(operations):
        undeclared.update(statuses[label])

    width = max(len(operation) for operation in operations)
    for operation in operations:
        counts = statuses.get(operation, {})
        shown = " ".join(f"{status}×{count}" for status, count in sorted(counts.items(), key=str))
        print(f"{operation:<{width}}  {sum(counts.values()):>5} requests  {shown}")
    if undeclared:
        shown = " ".join(f"{status}×{count}" for status, count in sorted(undeclared.items(), key=str))
        print(f"{'undeclared methods':<{width}}  {sum(undeclared.values()):>5} requests  {shown}")
    if problems:
        sys.exit("\n".join(problems))
    print(f"all {len(operations)} operations exercised in the {' and '.join(REQUIRED_PHASES)} phases")


if __name__ == "__main__":
    main(*sys.argv[1:])

"""Turn labels keyed by task (as a crowdsourcing sheet often is) into `labels import` lines.

    clarify-tui export --db DB --run coin | python examples/labels/to_sessions.py \
        examples/labels/demo-labels.jsonl > labels.jsonl
    clarify-tui labels import labels.jsonl --db DB

Reads the run's JSONL export on stdin (one session per task) and each line of the labels
file, {"task_id", "step", "annotator", "label", "note"?}, and writes it with the task's
`session_id` in place of `task_id`. `step` is already the export's step `index`.
"""

from __future__ import annotations

import json
import sys


def main(labels_path: str) -> int:
    sessions: dict[str, str] = {}
    for line in sys.stdin:
        record = json.loads(line)
        task, sid = record["session"]["task_id"], record["session"]["id"]
        if task in sessions:
            sys.exit(f"task {task} has two sessions in the export ({sessions[task]}, {sid}): export one run")
        sessions[task] = sid
    with open(labels_path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            label = json.loads(line)
            if label["task_id"] not in sessions:
                sys.exit(f"{labels_path}:{n}: no session of task {label['task_id']} in the export")
            out = {"session_id": sessions[label.pop("task_id")], **label}
            print(json.dumps(out, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))

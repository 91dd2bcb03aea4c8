"""The InteractComp release (`InteractComp210.jsonl`), encrypted or already decrypted.

The release XOR-encrypts `domain`, `question`, `answer` and `context`: each value is
Base64 of the UTF-8 bytes XORed with SHA-256(canary), the 32-byte digest repeated to the
value's length; the canary string sits in each record's `canary` column. Records are
decrypted in memory only: decrypted text is never written to disk, so a checkout of this
project never holds the plaintext benchmark.

Tasks of a record with a canary (encrypted, or decrypted with its canary column kept)
remember it (`tasks/sealed.py`), so the database and exports store their text fields
encrypted as the release does.

A record counts as encrypted when its `question` is strict Base64 (a real question has
spaces or punctuation Base64 lacks). A wrong canary shows up as fields that do not
decrypt to printable UTF-8 text.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from clarify_tui.models import Protocol, Task
from clarify_tui.tasks.language import detect_language
from clarify_tui.tasks.problems import Loc, Problems, field_path
from clarify_tui.tasks.sourced import Sourced
from clarify_tui.tasks.textfile import Record

ENCRYPTED_FIELDS = ("domain", "question", "answer", "context")
REQUIRED_FIELDS = ("id", "question", "answer", "context")
_BASE64 = re.compile(r"[A-Za-z0-9+/]+={0,2}")
_ALLOWED_CONTROLS = frozenset("\t\n\r")


class GarbageText(ValueError):
    """Decrypted bytes that are not printable UTF-8 text: the canary is wrong."""


def looks_encrypted(value: Any) -> bool:
    return isinstance(value, str) and len(value) >= 4 and len(value) % 4 == 0 and _BASE64.fullmatch(value) is not None


def _xor(data: bytes, canary: str) -> bytes:
    key = hashlib.sha256(canary.encode("utf-8")).digest()
    stream = (key * (len(data) // len(key) + 1))[: len(data)]
    return (int.from_bytes(data, "big") ^ int.from_bytes(stream, "big")).to_bytes(len(data), "big")


def encrypt_field(text: str, canary: str) -> str:
    """The release's encryption, for building test data and checking round trips."""
    return base64.b64encode(_xor(text.encode("utf-8"), canary)).decode("ascii")


def decrypt_field(value: str, canary: str) -> str:
    """Decrypt one value; binascii.Error if not Base64, GarbageText if the key is wrong."""
    plain = _xor(base64.b64decode(value, validate=True), canary)
    try:
        text = plain.decode("utf-8")
    except UnicodeDecodeError as err:
        raise GarbageText(f"not UTF-8 after decryption (byte {err.start})") from err
    if any(ch < " " and ch not in _ALLOWED_CONTROLS or ch == "\x7f" for ch in text):
        raise GarbageText("control characters after decryption")
    return text


def is_release_record(record: dict[str, Any]) -> bool:
    """Release records have no `protocol` and carry a canary or question/answer/context."""
    return "protocol" not in record and ("canary" in record or {"question", "answer", "context"} <= record.keys())


def tasks_from_records(
    path: Path, records: list[Record], problems: Problems, canary: str | None = None
) -> list[Sourced]:
    """Map release records to Tasks. `canary` overrides a missing or stripped column."""
    tasks: list[Sourced] = []
    for line, record in records:
        plain = _plain_fields(path, line, record, problems, canary)
        if plain is None:
            continue
        data = {
            "id": record["id"],
            "protocol": Protocol.interactcomp.value,
            "question": plain["question"],
            "answer": {"text": plain["answer"]},
            "domain": plain.get("domain", ""),
            "language": detect_language(plain["question"]),
            "interactcomp": {"context": plain["context"]},
        }
        try:
            task = Task.model_validate(data)
            task._canary = canary or record.get("canary") or None  # written encrypted: tasks/sealed.py
            tasks.append(Sourced(task, str(path), line))
        except ValidationError as err:
            problems.add_validation_error(err, lambda loc: (str(path), line, _release_field(loc)))  # noqa: B023 (called at once)
    return tasks


def _plain_fields(
    path: Path, line: int, record: dict[str, Any], problems: Problems, canary: str | None
) -> dict[str, str] | None:
    """The four text fields in plaintext, or None after reporting what is wrong."""
    ok = True
    for name in REQUIRED_FIELDS:
        if name not in record:
            problems.add(path, line, name, "missing (required)")
            ok = False
    if not isinstance(record.get("id", 0), int | str) or isinstance(record.get("id"), bool):
        problems.add(path, line, "id", "must be a string or an integer")
        ok = False
    present = [f for f in ENCRYPTED_FIELDS if f in record]
    for name in present:
        if not isinstance(record[name], str):
            problems.add(path, line, name, "must be a string")
            ok = False
    if not ok:
        return None
    if not looks_encrypted(record["question"]):
        return {name: record[name] for name in present}
    key = canary or record.get("canary")
    if not isinstance(key, str) or not key:
        problems.add(path, line, "canary", "missing: the record is encrypted and no canary is given")
        return None
    plain: dict[str, str] = {}
    wrong: list[str] = []
    for name in present:
        try:
            plain[name] = decrypt_field(record[name], key)
        except binascii.Error:
            problems.add(path, line, name, "not Base64, although this record is encrypted")
            ok = False
        except GarbageText:
            wrong.append(name)
    if wrong:
        problems.add(
            path,
            line,
            "canary",
            f"canary {key!r} does not decrypt {', '.join(wrong)} to UTF-8 text "
            "(wrong canary, or the field is corrupted)",
        )
        return None
    return plain if ok else None


_RELEASE_COLUMNS: dict[Loc, str] = {
    ("answer",): "answer",
    ("answer", "text"): "answer",
    ("interactcomp",): "context",
    ("interactcomp", "context"): "context",
}


def _release_field(loc: Loc) -> str | None:
    """Task field path -> the release column it came from."""
    return _RELEASE_COLUMNS.get(loc, field_path(loc))

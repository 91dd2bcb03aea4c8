"""Reading dataset files strictly: UTF-8 only, every bad line reported with its number.

A dataset saved as GBK or Latin-1 would otherwise load as mojibake and quietly poison
every answer comparison, so an undecodable line is a problem, never replaced silently.
"""

from __future__ import annotations

import codecs
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clarify_tui.tasks.problems import Problems

_UTF16_32_BOMS = {
    codecs.BOM_UTF32_LE: "UTF-32",
    codecs.BOM_UTF32_BE: "UTF-32",
    codecs.BOM_UTF16_LE: "UTF-16",
    codecs.BOM_UTF16_BE: "UTF-16",
}


@dataclass(frozen=True)
class Line:
    """One physical line; `ok` is False when it was not UTF-8 (text is then a lossy copy)."""

    number: int
    text: str
    ok: bool


Record = tuple[int, dict[str, Any]]  # (line number, JSON object)


def read_lines(path: Path, problems: Problems) -> list[Line] | None:
    """The file's lines, or None (with a problem) if it cannot be read or is empty."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        problems.add(path, None, None, "no such file")
        return None
    except IsADirectoryError:
        problems.add(path, None, None, "is a folder, expected a file")
        return None
    except PermissionError:
        problems.add(path, None, None, "permission denied")
        return None
    for bom, name in _UTF16_32_BOMS.items():
        if data.startswith(bom):
            problems.add(path, None, None, f"file is {name}-encoded; save it as UTF-8")
            return None
    data = data.removeprefix(codecs.BOM_UTF8)
    if data.startswith(SQLITE_HEADER):  # `--dataset` given the database: one problem, not one per "line"
        problems.add(path, None, None, "is a SQLite database, not a dataset (a database goes to --db)")
        return None
    for magic, what in _PACKED.items():
        if data.startswith(magic):
            problems.add(path, None, None, f"is {what}; unpack it first")
            return None
    if (
        data[:8192].count(b"\x00") > 8
    ):  # JSON text holds no NUL bytes: an image, a binary (a stray one is a line's problem)
        problems.add(path, None, None, "is a binary file, not JSON text")
        return None
    if not data.strip():
        problems.add(path, None, None, "file is empty")
        return None
    lines: list[Line] = []
    for number, raw in enumerate(data.split(b"\n"), start=1):
        raw = raw.removesuffix(b"\r")
        try:
            lines.append(Line(number, raw.decode("utf-8"), True))
        except UnicodeDecodeError as err:
            problems.add(
                path,
                number,
                None,
                f"not UTF-8: byte 0x{raw[err.start]:02x} at column {err.start + 1} "
                "(is the file saved as GBK, Latin-1 or another encoding? save it as UTF-8)",
            )
            lines.append(Line(number, raw.decode("utf-8", errors="replace"), False))
    return lines


SQLITE_HEADER = b"SQLite format 3\x00"
_PACKED = {
    b"\x1f\x8b": "gzip-compressed (gunzip it)",
    b"PK\x03\x04": "a zip archive",
    b"BZh": "bzip2-compressed",
    b"\xfd7zXZ\x00": "xz-compressed",
}
MAX_DEPTH_NOTE = "nested too deeply to read (a record is a few levels deep)"


def loads(text: str) -> Any:
    """json.loads, with a value nested past Python's recursion limit (100,000 brackets)
    reported as bad JSON rather than a RecursionError traceback."""
    return _deep_is_bad(json.loads, text)


def _deep_is_bad(decode, text: str, *args):
    try:
        return decode(text, *args)
    except RecursionError:
        raise json.JSONDecodeError(MAX_DEPTH_NOTE, text, args[0] if args else 0) from None


def read_records(path: Path, problems: Problems) -> list[Record]:
    """JSON objects of a .jsonl file (one per line) or a .json file (array or object)."""
    lines = read_lines(path, problems)
    if lines is None:
        return []
    if path.suffix.lower() == ".json":
        text = "\n".join(line.text for line in lines)
        stripped = text.lstrip()
        if stripped.startswith("["):
            return _array_records(path, text, problems)
        try:
            value = loads(text)
        except json.JSONDecodeError as err:
            if err.msg != "Extra data":
                problems.add(path, err.lineno, None, f"not JSON: {err.msg} (column {err.colno})")
                return []
            # several objects, one per line: a JSONL file named .json
        else:
            return _objects(path, [(_first_line(text), value)], problems)
    return _jsonl_records(path, lines, problems)


def _jsonl_records(path: Path, lines: list[Line], problems: Problems) -> list[Record]:
    pairs: list[tuple[int, Any]] = []
    for line in lines:
        if not line.ok or not line.text.strip():
            continue
        try:
            pairs.append((line.number, loads(line.text)))
        except json.JSONDecodeError as err:
            problems.add(path, line.number, None, f"not JSON: {err.msg} (column {err.colno})")
    return _objects(path, pairs, problems)


def _array_records(path: Path, text: str, problems: Problems) -> list[Record]:
    """Elements of a top-level JSON array, each with the line it starts on."""
    decoder = json.JSONDecoder()
    pairs: list[tuple[int, Any]] = []
    i = _skip_ws(text, text.index("[") + 1)
    while i < len(text) and text[i] != "]":
        try:
            value, end = _deep_is_bad(decoder.raw_decode, text, i)
        except json.JSONDecodeError as err:
            problems.add(path, err.lineno, None, f"not JSON: {err.msg} (column {err.colno})")
            return _objects(path, pairs, problems)
        pairs.append((text.count("\n", 0, i) + 1, value))
        i = _skip_ws(text, end)
        if i < len(text) and text[i] == ",":
            i = _skip_ws(text, i + 1)
        elif i >= len(text) or text[i] != "]":
            line = text.count("\n", 0, i) + 1
            problems.add(path, line, None, "not JSON: expected ',' or ']' between array elements")
            break
    else:
        rest = _skip_ws(text, i + 1)
        if rest < len(text):  # `[...] }`: what follows the array used to be dropped unread
            line, column = text.count("\n", 0, rest) + 1, rest - text.rfind("\n", 0, rest)
            problems.add(path, line, None, f"not JSON: extra data after the array (column {column})")
    return _objects(path, pairs, problems)


def _objects(path: Path, pairs: list[tuple[int, Any]], problems: Problems) -> list[Record]:
    records: list[Record] = []
    for number, value in pairs:
        if isinstance(value, dict):
            records.append((number, value))
        else:
            problems.add(path, number, None, f"expected a JSON object, got {_json_kind(value)}")
    return records


def _json_kind(value: Any) -> str:
    kinds = {list: "an array", str: "a string", bool: "a boolean", int: "a number", float: "a number"}
    return kinds.get(type(value), "null")


def _skip_ws(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    return i


def _first_line(text: str) -> int:
    return text.count("\n", 0, len(text) - len(text.lstrip())) + 1

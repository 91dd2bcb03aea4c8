"""Prompt templates live in `prompts/*.txt`, one file each, so they can be read and
diffed without reading code. Leading lines starting with `//` are a header (source,
what was changed) and are not sent to the model. Templates use `str.format` fields,
with `{{`/`}}` for literal braces as in the InteractComp reference prompts.
"""

from __future__ import annotations

from functools import cache

from clarify_tui.paths import prompts_dir


@cache
def template(name: str) -> str:
    """The body of prompts/NAME.txt without its `//` header."""
    path = prompts_dir() / f"{name}.txt"
    lines = path.read_text(encoding="utf-8").splitlines()
    while lines and lines[0].startswith("//"):
        lines.pop(0)
    return "\n".join(lines).strip("\n") + "\n"


@cache
def exists(name: str) -> bool:
    """Whether prompts/NAME.txt is there (a protocol's own prompt, where it brings one)."""
    return (prompts_dir() / f"{name}.txt").is_file()


def render(name: str, **fields: object) -> str:
    return template(name).format(**fields)


@cache
def verbatim(name: str) -> str:
    """The body of prompts/NAME.txt exactly as written after its `//` header (leading
    blank lines and trailing spaces kept), minus the file's own final newline: for the
    InteractComp prompts, which must equal the reference harness's byte for byte."""
    text = (prompts_dir() / f"{name}.txt").read_text(encoding="utf-8")
    while text.startswith("//"):
        text = text.partition("\n")[2]
    return text[:-1] if text.endswith("\n") else text


def render_verbatim(name: str, **fields: object) -> str:
    return verbatim(name).format(**fields)

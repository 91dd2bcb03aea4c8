"""What produced a run's numbers, recorded on the run and carried by every export line:
the clarify-tui version, the command line, each role's resolved settings (never a key),
the sha256 of the prompt files its model roles read and of the dataset.

Why: a number without its settings cannot be compared with a paper's, and a resumed run
that silently changed its temperature, prompt or dataset halfway mixes two experiments.
`--resume` therefore refuses a change of role settings, prompt hashes or dataset hash,
naming it; the command line is recorded, not compared (it differs by `--resume` itself);
a newer clarify-tui version is reported, not refused (docs/runs.md).
"""

from __future__ import annotations

import hashlib
import shlex
from pathlib import Path
from typing import Any

from clarify_tui import __version__
from clarify_tui.backends import make_agent, make_deep_search, make_judge, make_user
from clarify_tui.models import Protocol
from clarify_tui.paths import prompts_dir
from clarify_tui.tasks.demo import demo_files

# The call purposes (llm/client.PAPER_SAMPLING) each role makes per benchmark: its
# resolved request parameters are recorded per purpose.
ROLE_PURPOSES: dict[str, dict[str, tuple[str, ...]]] = {
    "agent": {"interactcomp": ("interactcomp.agent",), "cts": ("cts.clarifier",),
              "discobench": ("discobench.agent",)},
    "deep_search": {"cts": ("cts.agent",)},
    "user": {"interactcomp": ("interactcomp.responder",), "cts": ("cts.answerer", "cts.rewriter"),
             "discobench": ("discobench.user",)},
    "judge": {"interactcomp": ("grader",), "cts": ("cts.judge",), "discobench": ("discobench.judge", "grader")},
}
COMPARED = ("roles", "prompts", "dataset_sha256")  # what --resume refuses to see change


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def dataset_sha256(benchmark: str, dataset: str) -> str | None:
    """sha256 of the dataset file (what `sha256sum` prints); a folder: of its files' names
    and hashes in sorted order; `demo`: of the bundled demo file. None: nothing to read."""
    if dataset == "demo":
        files = [path for _, path in demo_files(Protocol(benchmark))]
        return sha256_file(files[0]) if len(files) == 1 and files[0].is_file() else None
    path = Path(dataset)
    if path.is_file():
        return sha256_file(path)
    if path.is_dir():
        digest = hashlib.sha256()
        for file in sorted(p for p in path.rglob("*") if p.is_file()):
            digest.update(f"{file.relative_to(path).as_posix()}\0{sha256_file(file)}\n".encode())
        return digest.hexdigest()
    return None


def prompt_hashes(benchmark: str, model_roles: set[str]) -> dict[str, str]:
    """sha256 of each prompt file the run's model roles can read: the benchmark's own
    prompts, and for DiscoBench and CTS the shared ReAct prompts of an LLM agent or deep
    searcher. A run with no model role reads none."""
    if not model_roles:
        return {}
    names = [p for p in sorted(prompts_dir().glob("*.txt")) if p.name.startswith(f"{benchmark}_")]
    if benchmark != "interactcomp" and model_roles & {"agent", "deep_search"}:
        names += [p for p in sorted(prompts_dir().glob("*.txt")) if p.name.startswith(("action_", "react_"))]
    return {p.name: sha256_file(p) for p in names}


def _client(backend: Any) -> Any:
    """The ChatClient of a model backend (agents, users and judges keep it as `client`)."""
    return getattr(backend, "client", None)


def role_settings(role: str, spec: str, benchmark: str, config_obj: Any) -> dict:
    """A role's spec and, for a model, the model, base URL and the request parameters each
    of its calls sends (temperature, top_p, max tokens, seed, reasoning effort) as the client
    resolves them: the paper's defaults unless clarify.toml or --set overrides them."""
    make = {"agent": make_agent, "deep_search": make_deep_search, "user": make_user, "judge": make_judge}[role]
    backend = make(spec, config_obj)
    client = _client(backend)
    if client is None:
        return {"spec": spec}
    settings = client.settings
    return {
        "spec": spec,
        "model": client.model,
        "base_url": client.endpoint.base_url,  # None: the OpenAI API
        "temperature": settings.temperature,  # None: the paper's per call (see `calls`)
        "top_p": settings.top_p,
        "max_tokens": settings.max_tokens,
        "seed": settings.seed,
        "calls": {purpose: client.request_params(purpose)
                  for purpose in ROLE_PURPOSES.get(role, {}).get(benchmark, ())},
    }


def run_provenance(
    *, benchmark: str, dataset: str, agent: str, user: str, judge: str, search: str,
    deep_search: str | None = None, config_obj: Any = None, argv: list[str] | None = None,
) -> dict:
    """The provenance object of a run (JSON-ready; `export --format jsonl` carries it)."""
    specs = {"agent": agent, "user": user, "judge": judge}
    if deep_search:
        specs["deep_search"] = deep_search
    roles = {role: role_settings(role, spec, benchmark, config_obj) for role, spec in specs.items()}
    roles["search"] = {"spec": search}
    model_roles = {role for role, r in roles.items() if "model" in r}
    return {
        "version": __version__,
        "command": shlex.join(["clarify-tui", *argv]) if argv is not None else None,
        "roles": roles,
        "prompts": prompt_hashes(benchmark, model_roles),
        "dataset": dataset,
        "dataset_sha256": dataset_sha256(benchmark, dataset),
    }


def imported_provenance(
    *, benchmark: str, dataset: str, source: str | Path, row: dict, config_obj: Any = None,
    argv: list[str] | None = None,
) -> dict:
    """The provenance of an imported run: what imported it, from which file (its sha256)
    against which dataset, and the specs its sessions were replayed and judged with."""
    roles: dict[str, dict] = {}
    for role in ("agent", "user", "judge"):
        spec = str(row.get(role) or "")
        roles[role] = (role_settings(role, spec, benchmark, config_obj) if spec.startswith("openai:")
                       else {"spec": spec})
    roles["search"] = {"spec": row.get("search")}
    path = Path(source)
    return {
        "version": __version__,
        "command": shlex.join(["clarify-tui", *argv]) if argv is not None else None,
        "roles": roles,
        "prompts": prompt_hashes(benchmark, {r for r, v in roles.items() if "model" in v}),
        "dataset": dataset,
        "dataset_sha256": dataset_sha256(benchmark, dataset),
        "imported_from": str(path),
        "imported_sha256": sha256_file(path) if path.is_file() else None,
    }


def _version_tuple(version: str) -> tuple[int, ...]:
    return tuple(int(part) if part.isdigit() else 0 for part in version.split("."))


def changes(stored: dict, current: dict) -> list[str]:
    """What changed between a run's recorded provenance and this command's, in words
    (empty: the same experiment). Only role settings, prompt hashes and the dataset hash
    count."""
    out: list[str] = []
    old_roles, new_roles = stored.get("roles") or {}, current.get("roles") or {}
    for role in sorted(set(old_roles) | set(new_roles)):
        old, new = old_roles.get(role) or {}, new_roles.get(role) or {}
        for key in sorted(set(old) | set(new)):
            if old.get(key) != new.get(key):
                out.append(f"{role} {key}: {_show(old.get(key))} -> {_show(new.get(key))}")
    old_prompts, new_prompts = stored.get("prompts") or {}, current.get("prompts") or {}
    for name in sorted(set(old_prompts) | set(new_prompts)):
        if old_prompts.get(name) != new_prompts.get(name):
            out.append(f"prompt {name}: sha256 {_short(old_prompts.get(name))} -> {_short(new_prompts.get(name))}")
    if stored.get("dataset_sha256") != current.get("dataset_sha256"):
        out.append(f"dataset sha256: {_short(stored.get('dataset_sha256'))} -> "
                   f"{_short(current.get('dataset_sha256'))}")
    return out


def version_note(stored: dict, current: dict) -> str | None:
    """A line when the run was started by another clarify-tui version (reported, not refused)."""
    old, new = stored.get("version"), current.get("version")
    if not old or old == new:
        return None
    newer = "a newer" if _version_tuple(str(new)) > _version_tuple(str(old)) else "another"
    return f"run started with clarify-tui {old}; resuming with {newer} version, {new}"


def _show(value: Any) -> str:
    return "(none)" if value is None else str(value)


def _short(digest: str | None) -> str:
    return "(none)" if not digest else digest[:12]

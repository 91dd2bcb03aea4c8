"""What produced a run's numbers, recorded on the run and carried by every export line:
the clarify-tui version and code state (git commit, sha256 of the package's files), the
command line, each role's resolved settings (never a key), the sha256 of the prompt files
its model roles read and of the dataset.

Why: a number without its settings cannot be compared with a paper's, and a resumed run
that silently changed its temperature, prompt or dataset halfway mixes two experiments.
`--resume` therefore refuses a change of role settings, prompt hashes or dataset hash,
naming it; the command line is recorded, not compared (it differs by `--resume` itself);
a newer clarify-tui version or other code is reported, not refused (docs/runs.md).
"""

from __future__ import annotations

import hashlib
import inspect
import json
import shlex
import subprocess
from functools import lru_cache
from pathlib import Path
from typing import Any

from clarify_tui import __version__
from clarify_tui.backend_spec import BackendSpec, RoleSpecs
from clarify_tui.backends import build_backends
from clarify_tui.models import Protocol
from clarify_tui.paths import prompts_dir
from clarify_tui.protocols import registry
from clarify_tui.tasks.demo import demo_files

# The call purposes (llm/client.PAPER_SAMPLING) each role makes per benchmark: its
# resolved request parameters are recorded per purpose.
ROLE_PURPOSES: dict[str, dict[str, tuple[str, ...]]] = {
    "agent": {"interactcomp": ("interactcomp.agent",), "cts": ("cts.clarifier",), "discobench": ("discobench.agent",)},
    "deep_search": {"cts": ("cts.agent",)},
    "user": {
        "interactcomp": ("interactcomp.responder",),
        "cts": ("cts.answerer", "cts.rewriter"),
        "discobench": ("discobench.user",),
    },
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
    agent_prompts = registry.get(benchmark).agent_prompts  # InteractComp's: the action texts its system prompt lists
    if agent_prompts is None and model_roles & {"agent", "deep_search"}:
        names += [p for p in sorted(prompts_dir().glob("*.txt")) if p.name.startswith(("action_", "react_"))]
    if agent_prompts is not None and "agent" in model_roles:
        names += [prompts_dir() / f"{name}.txt" for name in agent_prompts]
    return {p.name: sha256_file(p) for p in sorted(names)}


@lru_cache(maxsize=1)
def code_state() -> dict:
    """Which code produced the numbers (the version alone never moves): in a git checkout
    of clarify-tui, its commit and whether tracked files differ from it; always the sha256
    of the package's Python files and prompt files (their relative paths and hashes in
    sorted order), which tells an installed wheel's or an edited checkout's code apart."""
    package = Path(__file__).resolve().parent
    out: dict[str, Any] = {}
    commit = _git(package, "rev-parse", "HEAD")
    if commit and _git(package, "ls-files", "--error-unmatch", "__init__.py") is not None:
        out["git_commit"] = commit  # (a wheel installed inside another project's repo is not tracked there)
        out["git_dirty"] = bool(_git(package.parent, "status", "--porcelain", "--untracked-files=no"))
    digest = hashlib.sha256()
    files = [(f"clarify_tui/{p.relative_to(package).as_posix()}", p) for p in package.rglob("*.py")]
    files += [(f"prompts/{p.name}", p) for p in prompts_dir().glob("*.txt")]
    for name, path in sorted(files):
        digest.update(f"{name}\0{sha256_file(path)}\n".encode())
    out["package_sha256"] = digest.hexdigest()
    return out


def _git(where: Path, *args: str) -> str | None:
    """`git -C where ARGS` output, stripped; None when git or the repository is missing."""
    try:
        done = subprocess.run(["git", "-C", str(where), *args], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def _client(backend: Any) -> Any:
    """The ChatClient of a model backend (agents, users and judges keep it as `client`)."""
    return getattr(backend, "client", None)


def py_args(role: str, config_obj: Any) -> dict:
    """The keyword arguments a `py:` backend of `role` is made with (`--agent-arg`,
    `[ROLE.args]` of clarify.toml), JSON-ready; {} without a config."""
    if config_obj is None:
        return {}
    return {
        key: _readable(value) if _is_plain(value) else str(value)
        for key, value in dict(config_obj.role(role).args).items()
    }


def object_args(obj: Any) -> dict:
    """The arguments of an agent object handed to api.run, where they can be read: each
    parameter of its class's constructor kept on the object under the same name (a
    dataclass's fields, `self.max_asks = max_asks`); a value that is not plain data (a
    model, a client) by its type only, as `<TypeName>`."""
    try:
        params = inspect.signature(type(obj)).parameters
    except (TypeError, ValueError):
        return {}
    out = {}
    for name, param in params.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD) or name.startswith("_"):
            continue
        try:
            value = getattr(obj, name)
        except Exception:  # a property that raises: not readable
            continue
        out[name] = _readable(value)
    return out


def _readable(value: Any) -> Any:
    """A value as recorded: plain data as is (a long one by its sha256, so a changed
    value still shows), anything else by its type."""
    if not _is_plain(value):
        return f"<{type(value).__qualname__}>"
    text = json.dumps(value, sort_keys=True)
    if len(text) <= 200:
        return value
    return f"<{type(value).__name__} sha256 {hashlib.sha256(text.encode()).hexdigest()[:12]}>"


def _is_plain(value: Any) -> bool:
    if value is None or isinstance(value, (bool, int, float, str)):
        return True
    if isinstance(value, (list, tuple)):
        return all(_is_plain(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _is_plain(v) for k, v in value.items())
    return False


def role_settings(role: str, spec: str, benchmark: str, config_obj: Any) -> dict:
    """A role's spec and, for a model, the model, base URL and the request parameters each
    of its calls sends (temperature, top_p, max tokens, seed, reasoning effort) as the client
    resolves them: the paper's defaults unless clarify.toml or --set overrides them."""
    parsed = BackendSpec.parse(spec)
    if parsed.is_custom:
        # a researcher's own backend: no model client to read, and building it again would
        # run its constructor once more (it may load a model); its file's sha256 is on the run,
        # its keyword arguments here (a changed argument is another agent)
        args = py_args(role, config_obj) if parsed.is_py else {}
        return {"spec": spec, **({"args": args} if args else {})}
    backend = getattr(build_backends(RoleSpecs.of(**{role: spec}), config_obj), role)
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
        "calls": {
            purpose: client.request_params(purpose) for purpose in ROLE_PURPOSES.get(role, {}).get(benchmark, ())
        },
    }


def run_provenance(
    *,
    benchmark: str,
    dataset: str,
    agent: str,
    user: str,
    judge: str,
    search: str,
    deep_search: str | None = None,
    config_obj: Any = None,
    argv: list[str] | None = None,
    agent_object: Any = None,
) -> dict:
    """The provenance object of a run (JSON-ready; `export --format jsonl` carries it).
    `agent_object`: the agent api.run was handed, whose readable arguments are recorded."""
    specs = {"agent": agent, "user": user, "judge": judge}
    if deep_search:
        specs["deep_search"] = deep_search
    roles = {role: role_settings(role, spec, benchmark, config_obj) for role, spec in specs.items()}
    if agent_object is not None and (args := object_args(agent_object)):
        roles["agent"]["args"] = args
    roles["search"] = {"spec": search}
    model_roles = {role for role, r in roles.items() if "model" in r}
    return {
        "version": __version__,
        "code": code_state(),
        "command": shlex.join(["clarify-tui", *argv]) if argv is not None else None,
        "roles": roles,
        "prompts": prompt_hashes(benchmark, model_roles),
        "dataset": dataset,
        "dataset_sha256": dataset_sha256(benchmark, dataset),
    }


def imported_provenance(
    *,
    benchmark: str,
    dataset: str,
    source: str | Path,
    row: dict,
    config_obj: Any = None,
    argv: list[str] | None = None,
) -> dict:
    """The provenance of an imported run: what imported it, from which file (its sha256)
    against which dataset, and the specs its sessions were replayed and judged with."""
    roles: dict[str, dict] = {}
    for role in ("agent", "user", "judge"):
        spec = str(row.get(role) or "")
        model = BackendSpec.parse(spec).is_model  # `openai/MODEL` too (it was left without its settings)
        roles[role] = role_settings(role, spec, benchmark, config_obj) if model else {"spec": spec}
    roles["search"] = {"spec": row.get("search")}
    path = Path(source)
    return {
        "version": __version__,
        "code": code_state(),
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
    # a run recorded before the code state was recorded did not hash InteractComp's action prompts
    names = set(old_prompts) | (set(new_prompts) if "code" in stored else set())
    for name in sorted(names):
        if old_prompts.get(name) != new_prompts.get(name):
            out.append(f"prompt {name}: sha256 {_short(old_prompts.get(name))} -> {_short(new_prompts.get(name))}")
    if stored.get("dataset_sha256") != current.get("dataset_sha256"):
        out.append(f"dataset sha256: {_short(stored.get('dataset_sha256'))} -> {_short(current.get('dataset_sha256'))}")
    return out


def version_note(stored: dict, current: dict) -> str | None:
    """A line when the run was started by another clarify-tui version or code state
    (commit, edited files: reported, not refused)."""
    old, new = stored.get("version"), current.get("version")
    if old and old != new:
        newer = "a newer" if _version_tuple(str(new)) > _version_tuple(str(old)) else "another"
        return f"run started with clarify-tui {old}; resuming with {newer} version, {new}"
    was, now = stored.get("code") or {}, current.get("code") or {}
    if not was or was.get("package_sha256") == now.get("package_sha256"):
        return None
    return f"run started with other clarify-tui code ({_code(was)}); resuming with {_code(now)}"


def _code(state: dict) -> str:
    commit = state.get("git_commit")
    files = f"files sha256 {_short(state.get('package_sha256'))}"
    if not commit:
        return files
    return f"commit {commit[:12]}{' with local changes, ' + files if state.get('git_dirty') else ''}"


def _show(value: Any) -> str:
    return "(none)" if value is None else str(value)


def _short(digest: str | None) -> str:
    return "(none)" if not digest else digest[:12]

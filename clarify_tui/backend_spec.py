"""A backend spec string, parsed once into a small typed value.

A backend is named by a string on the command line, in clarify.toml, in a sweep file and
on every stored session: `scripted:search-then-ask`, `rule`, `openai:gpt-4o` (or Inspect's
`openai/gpt-4o`), `human`, `py:examples/my_user.py:MyUser`, `http://HOST:PORT/PATH`,
`local`, `tavily`, `cache(local)`. Why one place: each caller used to split these strings
itself (`spec.split(":")[0] == "human"`, `startswith("py:")`, ...), so a new spelling
meant a hunt; now `BackendSpec.parse` reads one and the callers ask it (`is_human`,
`is_custom`, `model`). Which kinds a role accepts, and the words a bad spec is refused
with, are the makers' (backends.py), which build every role through `build_backends`.
Imports nothing of the program: any layer may read a spec.
"""

from __future__ import annotations

from dataclasses import dataclass, field

CUSTOM_KINDS = ("py", "http", "https")  # a researcher's own backend (plugins.py, docs/agents.md)
ROLES = ("agent", "user", "judge", "search", "deep_search")


def normalize(text: str) -> str:
    """`openai/MODEL` (Inspect's spelling) is `openai:MODEL`."""
    return "openai:" + text[len("openai/") :] if text.startswith("openai/") else text


@dataclass(frozen=True)
class BackendSpec:
    """One role's spec: its `kind` (`openai` of `openai:gpt-4o`, `rule` of `rule`) and the
    `arg` after the first colon (the model, the scripted policy, a plugin's place).

    `text` is the spec as sessions record it (`openai/M` read as `openai:M`); `given` is
    what was typed, kept for the words of an error that quotes it."""

    text: str
    kind: str
    arg: str
    given: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if not self.given:
            object.__setattr__(self, "given", self.text)

    @classmethod
    def parse(cls, text: str | BackendSpec | None) -> BackendSpec:
        """Total: any string parses (an empty one to kind ""); whether a role accepts it is
        its maker's to say (backends.check_known), in the words users see today."""
        if isinstance(text, BackendSpec):
            return text
        given = text or ""
        norm = normalize(given)
        kind, _, arg = norm.partition(":")
        return cls(text=norm, kind=kind, arg=arg, given=given)

    def __str__(self) -> str:
        return self.text

    def __bool__(self) -> bool:
        return bool(self.text)

    @property
    def is_custom(self) -> bool:
        """A researcher's own backend: a `py:` object or an `http://` server."""
        return self.kind in CUSTOM_KINDS

    @property
    def is_py(self) -> bool:
        return self.kind == "py"

    @property
    def is_http(self) -> bool:
        return self.kind in ("http", "https")

    @property
    def is_human(self) -> bool:
        """A person at the keyboard plays the role (the TUI; a batch run refuses it)."""
        return self.kind == "human"

    @property
    def is_scripted(self) -> bool:
        return self.kind == "scripted"

    @property
    def is_model(self) -> bool:
        """An `openai:MODEL` backend (also `openai` with no model: its maker refuses that)."""
        return self.kind == "openai"

    @property
    def model(self) -> str | None:
        """The model of an `openai:MODEL` spec, else None."""
        return self.arg if self.is_model else None

    @property
    def needs_config(self) -> bool:
        """Whether building it reads clarify.toml (a model, a search service, a plugin's
        arguments); the offline specs read no file."""
        return self.given.startswith(("openai", "tavily", "serper", "py:", "http://", "https://"))

    @property
    def search_name(self) -> str:
        """A search spec's backend: `local` of a stored session's `cache(local)`."""
        if self.given.startswith("cache(") and self.given.endswith(")"):
            return self.given[len("cache(") : -1]
        return self.given


def parse(text: str | BackendSpec | None) -> BackendSpec:
    return BackendSpec.parse(text)


@dataclass(frozen=True)
class RoleSpecs:
    """The specs of the roles to build, each parsed once; None: not built here (a caller
    that needs only a judge names only the judge)."""

    agent: BackendSpec | None = None
    user: BackendSpec | None = None
    judge: BackendSpec | None = None
    search: BackendSpec | None = None
    deep_search: BackendSpec | None = None

    @classmethod
    def of(
        cls,
        *,
        agent: str | BackendSpec | None = None,
        user: str | BackendSpec | None = None,
        judge: str | BackendSpec | None = None,
        search: str | BackendSpec | None = None,
        deep_search: str | BackendSpec | None = None,
    ) -> RoleSpecs:
        """Each given string parsed; an empty `deep_search` is none (CTS: the agent searches)."""

        def read(text: str | BackendSpec | None) -> BackendSpec | None:
            return None if text is None else BackendSpec.parse(text)

        return cls(read(agent), read(user), read(judge), read(search), read(deep_search) if deep_search else None)

    def items(self) -> list[tuple[str, BackendSpec]]:
        """(role, spec) of each role named, in ROLES order."""
        return [(role, spec) for role in ROLES if (spec := getattr(self, role)) is not None]

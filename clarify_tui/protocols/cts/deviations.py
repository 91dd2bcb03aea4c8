"""How a CTS run departs from its paper (clarify_tui/deviations.py asks these)."""

from __future__ import annotations

from collections.abc import Iterable

from clarify_tui.backend_spec import BackendSpec
from clarify_tui.deviations import PaperSetting, Setting, spec_kind

PAPER = PaperSetting(
    user="ERNIE-4.5-Turbo at T=0 as the User Answerer and Rewriter (paper 001 line 223)",
    judge="ERNIE-4.5-Turbo as the nugget judge (paper 001 Table 1, line 205)",
    search=(None, "the web, from WebDancer's deep search (paper 001 line 113)"),
    rounds=(10, "deep-search rounds, our default; the paper states no limit"),
)


def unfixed_deep_search(s: Setting) -> Iterable[str]:
    if s.config.k != 0 and not s.config.deep_search:
        yield (
            "deep search: the agent under test, the paper kept the deep-search backend fixed while varying the "
            "clarifier (paper 001 line 203)"
        )


def own_model_deep_search(s: Setting) -> Iterable[str]:
    """A 'fixed' deep search that is the clarifier's own model: clarification and search
    skill mix again, as with no fixed deep search."""
    deep = s.config.deep_search
    if s.config.k == 0 or not deep or spec_kind(s.agent) == "scripted":
        return
    if _normal(deep) == _normal(s.agent):
        yield (
            f"deep search: {deep}, the clarifier's own model, the paper kept the deep-search backend "
            "(WebDancer) fixed and apart from the clarifier (paper 001 line 203)"
        )


def _normal(spec: str) -> str:
    """`openai/MODEL` (Inspect's spelling) is `openai:MODEL`."""
    return BackendSpec.parse(spec).text


SOURCES = (unfixed_deep_search, own_model_deep_search)

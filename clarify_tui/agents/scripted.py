"""Scripted agents: four fixed policies that show guessing and asking, offline, and a
seeded random one.

They read only the AgentView (question, their own actions and what came back), treat a
search hit's title as a candidate answer, and differ only in when they ask:

- direct-guess: at most one search, then answers the top hit.
- search-heavy-guess: several searches per hop, never asks.
- ask-first: asks before its first search, then behaves like search-then-ask.
- search-then-ask: searches; when the top hits compete, asks which one is meant, then
  searches again with what it learned.
- coin-flip: at each move flips a coin between ask-first's move and direct-guess's: a
  random ask-or-guess baseline. The coin is seeded by `run --seed` (0 without it), the
  task, the epoch and the move, so epochs differ and a rerun or `--resume` repeats them.
  The other four are deterministic: the seed reaches them and changes nothing.

In CTS the two guessing policies skip clarification (the `orig` baseline) and the two
asking policies ask k questions, one per aspect. Limits: candidates are titles, so a
question whose answer is not the title of some document cannot be solved by them.
"""

from __future__ import annotations

import random

from clarify_tui.agent_view import AgentView
from clarify_tui.errors import UsageError
from clarify_tui.models import Action, ActionKind, SearchHit
from clarify_tui.protocols import registry
from clarify_tui.text import content_words, mentions, overlap

COMPETING_RATIO = 0.7
INFORMATIVE_NEW_WORDS = 3
MAX_HOPS = 4
HEAVY_SEARCHES_PER_HOP = 4

POLICIES = ("direct-guess", "search-heavy-guess", "ask-first", "search-then-ask", "coin-flip")
COIN_SIDES = ("ask-first", "direct-guess")  # heads, tails

CTS_TEMPLATES = {
    "en": {
        "time": "Which time period or year do you mean?",
        "region": "Which country or region are you asking about?",
        "entity": "Which specific one (product, organisation or group) do you mean?",
        "scope": "What scope do you have in mind?",
        "criteria": "What criterion matters most to you?",
    },
    "zh": {
        "time": "你指的是哪个时间段或哪一年？",
        "region": "你问的是哪个国家或地区？",
        "entity": "你具体指的是哪一个（产品、机构或群体）？",
        "scope": "你关心的范围是哪些方面？",
        "criteria": "你最看重的标准是什么？",
    },
}
CTS_ORDER = {
    "search-then-ask": ("entity", "scope", "time", "criteria", "region"),
    "ask-first": ("region", "time", "entity", "scope", "criteria"),
}
_ASPECT_PRESENT = {
    "time": ("year", "20", "19", "年", "recent", "latest"),
    "region": ("in china", "in europe", "in the us", "中国", "国内", "欧洲"),
}

GENERIC_ASK = {
    "en": "Before I search: is there a detail that singles out the one you mean?",
    "zh": "在搜索之前：有没有能区分你所指对象的细节？",
}
YESNO_FIRST_ASK = {
    "en": "Is the answer the most widely known thing that fits this description?",
    "zh": "答案是符合这个描述的最有名的那个吗？",
}


def _lang(view: AgentView) -> str:
    return "zh" if view.language.startswith("zh") else "en"


def competing(hits: list[SearchHit]) -> bool:
    """Two top hits with close scores and different titles: the results disagree."""
    if len(hits) < 2 or hits[0].score <= 0:
        return False
    return hits[1].title != hits[0].title and hits[1].score >= COMPETING_RATIO * hits[0].score


class ScriptedAgent:
    """One of the four policies; stateless between calls (everything is in the view)."""

    def __init__(self, policy: str, seed: int | None = None) -> None:
        if policy not in POLICIES:
            raise UsageError(f"unknown scripted policy '{policy}'; choose one of {', '.join(POLICIES)}")
        self.policy = policy
        self.seed = seed
        self.spec = f"scripted:{policy}"

    @property
    def asks(self) -> bool:
        return self.policy in ("ask-first", "search-then-ask", "coin-flip")

    def coin(self, view: AgentView) -> str:
        """coin-flip's side for this move: the same view under the same seed, the same side."""
        move = (self.seed or 0, view.task_id, view.epoch, view.phase, view.checkpoint, len(view.history))
        return COIN_SIDES[random.Random(repr(move)).random() >= 0.5]

    async def act(self, view: AgentView) -> Action:
        if self.policy == "coin-flip":
            return await ScriptedAgent(self.coin(view)).act(view)
        play = registry.roles(view.protocol.value).scripted
        if callable(play):  # the protocol's own play (protocols/roles.py)
            return play(self.policy, view)
        if play == "clarify_first":
            return self._cts(view)
        if ActionKind.answer in view.allowed and len(view.allowed) == 1:
            return self._final_answer(view)
        if play == "is_it":
            return self._interactcomp(view)
        return self._discobench(view)

    # ---- helpers -------------------------------------------------------------------

    def _searches(self, view: AgentView):
        return [t for t in view.history if t.action.kind == ActionKind.search]

    def _can(self, view: AgentView, kind: ActionKind) -> bool:
        return kind in view.allowed

    def _final_answer(self, view: AgentView) -> Action:
        searches = self._searches(view)
        for turn in reversed(searches):
            if turn.observation.hits:
                return Action.answer(turn.observation.hits[0].title, 50)
        return Action.answer("unknown", 0)

    # ---- InteractComp ----------------------------------------------------------------

    def _interactcomp(self, view: AgentView) -> Action:
        lang = _lang(view)
        history = view.history
        if self.policy == "ask-first" and not history and self._can(view, ActionKind.ask):
            return Action.ask(YESNO_FIRST_ASK[lang])
        searches = self._searches(view)
        if not searches:
            if self._can(view, ActionKind.search):
                return Action.search(view.question)
            return Action.answer("unknown", 10)
        candidates = [h.title for h in searches[0].observation.hits[:3]]
        if self.policy == "direct-guess" or not candidates:
            return Action.answer(candidates[0] if candidates else "unknown", 80)
        if self.policy == "search-heavy-guess":
            if len(searches) < 3 and self._can(view, ActionKind.search):
                return Action.search(f"{candidates[min(len(searches) - 1, len(candidates) - 1)]}")
            return Action.answer(candidates[0], 85)
        # asking policies: "Is it X?" down the candidate list until a yes.
        replies: dict[str, str] = {}
        for turn in history:
            if turn.action.kind == ActionKind.ask:
                for cand in candidates:
                    if mentions(turn.action.text, cand):
                        replies[cand] = turn.observation.text.strip().lower()
        confirmed = next((c for c, r in replies.items() if r.startswith("yes")), None)
        if confirmed:
            if not any(mentions(t.action.text, confirmed) for t in searches[1:]) and self._can(view, ActionKind.search):
                return Action.search(confirmed)
            return Action.answer(confirmed, 90)
        for cand in candidates:
            if cand not in replies and self._can(view, ActionKind.ask) and view.rounds_left > 1:
                return Action.ask(f"是{cand}吗？" if lang == "zh" else f"Is it {cand}?")
        remaining = [c for c in candidates if not replies.get(c, "").startswith("no")]
        return Action.answer((remaining or candidates)[0], 30)

    # ---- DiscoBench ------------------------------------------------------------------

    def _discobench(self, view: AgentView) -> Action:
        """Per-checkpoint protocol: one hop per checkpoint, each ended by an answer."""
        if view.checkpoints is None:
            return self._discobench_trajectory(view)
        lang = _lang(view)
        question, history = view.question, view.history
        answers = [i for i, t in enumerate(history) if t.action.kind == ActionKind.answer]
        chain = [history[i].action.text for i in answers]  # accepted intermediate answers
        hop = history[answers[-1] + 1 :] if answers else history
        searches = [i for i, t in enumerate(hop) if t.action.kind == ActionKind.search]
        can_search = self._can(view, ActionKind.search) and view.rounds_left > 1
        can_ask = self._can(view, ActionKind.ask) and view.rounds_left > 2
        if self.policy == "ask-first" and not hop and can_ask:
            return Action.ask(GENERIC_ASK[lang])  # before any search in this checkpoint
        if not searches:
            if can_search:
                return Action.search(f"{chain[-1]} {question}" if chain else question)
            return Action.answer(chain[-1] if chain else "unknown")
        if self.policy == "direct-guess":
            return self._checkpoint_answer(hop[searches[0]].observation.hits, chain)
        replies = [t.observation.text.strip() for t in hop if t.action.kind == ActionKind.ask]
        clue_searches = [i for i in searches if any(r and hop[i].action.text.startswith(r) for r in replies)]
        source = hop[clue_searches[-1] if clue_searches else searches[0]]
        hits = self._candidates(source.observation.hits, chain)
        if not hits:
            return Action.answer(chain[-1] if chain else "unknown")
        last = history[-1]
        asked_after_search = any(t.action.kind == ActionKind.ask for t in hop[searches[0] :])
        if last.action.kind == ActionKind.ask:
            reply = last.observation.text
            new_words = [w for w in content_words(reply) if overlap([w], question) == 0]
            if len(new_words) >= INFORMATIVE_NEW_WORDS and can_search:
                return Action.search(f"{reply.strip()} {question}")
        elif self.asks and not clue_searches and not asked_after_search and competing(hits) and can_ask:
            a, b = hits[0].title, hits[1].title
            return Action.ask(f"你是指{a}还是{b}？" if lang == "zh" else f"Do you mean {a} or {b}?")
        if self.policy == "search-heavy-guess" and can_search and len(searches) < HEAVY_SEARCHES_PER_HOP:
            top = hits[0].title
            variants = [top, f"{question} {top}", f"{top} {chain[-1]}" if chain else f"{top} facts"]
            return Action.search(variants[(len(searches) - 1) % len(variants)])
        return Action.answer(hits[0].title)

    @staticmethod
    def _candidates(hits: list[SearchHit], chain: list[str]) -> list[SearchHit]:
        """Hits that can be the next hop: not an earlier hop, and linked to the previous one."""
        hits = [h for h in hits if h.title not in chain]
        return [h for h in hits if mentions(h.content, chain[-1])] if chain else hits

    def _checkpoint_answer(self, hits: list[SearchHit], chain: list[str]) -> Action:
        candidates = self._candidates(hits, chain)
        return Action.answer(candidates[0].title if candidates else (chain[-1] if chain else "unknown"))

    def _discobench_trajectory(self, view: AgentView) -> Action:
        """Trajectory mode (no checkpoint count shown): follow a chain of hops. Hop queries
        read "<entity> <question>", so the chain is recovered from the agent's own past
        queries; see the module docstring."""
        lang = _lang(view)
        question = view.question
        history = view.history
        if self.policy == "ask-first" and not history and self._can(view, ActionKind.ask):
            return Action.ask(GENERIC_ASK[lang])
        searches = self._searches(view)
        if not searches:
            return Action.search(question) if self._can(view, ActionKind.search) else Action.answer("unknown")
        if self.policy == "direct-guess":
            hits = searches[0].observation.hits
            return Action.answer(hits[0].title if hits else "unknown")

        replies = {t.observation.text.strip() for t in history if t.action.kind == ActionKind.ask}
        chain: list[str] = []
        # index in history of the search that opened the current hop
        hop_start = next(i for i, t in enumerate(history) if t.action.kind == ActionKind.search)
        clue_search = False
        for i, turn in enumerate(history):
            if turn.action.kind != ActionKind.search:
                continue
            query = turn.action.text
            prefix = query[: -len(question)].strip() if query.endswith(question) else None
            if prefix and prefix not in replies:
                chain.append(prefix)
                hop_start, clue_search = i, False
            elif prefix and prefix in replies:
                hop_start, clue_search = i, True
        hop_turns = history[hop_start:]
        hits = [h for h in hop_turns[0].observation.hits if h.title not in chain]
        if chain:
            hits = [h for h in hits if mentions(h.content, chain[-1])]
        if not hits:
            return Action.answer(chain[-1] if chain else "unknown")

        last = history[-1]
        can_search = self._can(view, ActionKind.search) and view.rounds_left > 1
        asked_in_hop = any(t.action.kind == ActionKind.ask for t in hop_turns)
        if last.action.kind == ActionKind.ask:
            reply = last.observation.text
            new_words = [w for w in content_words(reply) if overlap([w], question) == 0]
            if len(new_words) >= INFORMATIVE_NEW_WORDS and can_search:
                return Action.search(f"{reply.strip()} {question}")
        elif self.asks and not clue_search and not asked_in_hop and competing(hits):
            if self._can(view, ActionKind.ask) and view.rounds_left > 2:
                a, b = hits[0].title, hits[1].title
                return Action.ask(f"你是指{a}还是{b}？" if lang == "zh" else f"Do you mean {a} or {b}?")
        if self.policy == "search-heavy-guess" and can_search:
            done = sum(1 for t in hop_turns if t.action.kind == ActionKind.search)
            if done < HEAVY_SEARCHES_PER_HOP:
                top = hits[0].title
                variants = [top, f"{question} {top}", f"{top} {chain[-1]}" if chain else f"{top} facts"]
                return Action.search(variants[(done - 1) % len(variants)])
        entity = hits[0].title
        if len(chain) + 1 >= MAX_HOPS or not can_search:
            return Action.answer(entity)
        return Action.search(f"{entity} {question}")

    # ---- CTS -------------------------------------------------------------------------

    def _cts(self, view: AgentView) -> Action:
        if view.phase == "clarify":
            if not self.asks:
                return Action.clarify([])
            lang = _lang(view)
            query = view.question.casefold()
            aspects = [
                a for a in CTS_ORDER[self.policy] if not any(marker in query for marker in _ASPECT_PRESENT.get(a, ()))
            ]
            return Action.clarify([CTS_TEMPLATES[lang][a] for a in aspects[: view.k]])
        searches = self._searches(view)
        if not searches:
            return Action.search(view.question)
        if self.policy == "search-heavy-guess" and len(searches) < 3 and ActionKind.search in view.allowed:
            hits = searches[-1].observation.hits
            return Action.search(f"{view.question} {hits[0].title}" if hits else view.question)
        hits = searches[0].observation.hits[:3]
        return Action.answer(" ".join(h.content for h in hits) or "no results")

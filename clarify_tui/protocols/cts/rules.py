"""Clarify-Then-Search rules (paper §3-5): clarify -> answer -> rewrite -> deep search -> nuggets.

Phase "clarify": the clarifier's one action is `clarify` with exactly k questions (an
empty list skips clarification: the `orig` baseline). The user answerer replies to each
from the intent only ("unknown" otherwise); the rewriter builds q-hat from the blurred
query and the Q&A pairs only. Phase "search": the deep-search agent sees only q-hat and
its own searches and visits, then answers; the answer is scored by nugget coverage.
"""

from __future__ import annotations

from collections.abc import Sequence

from clarify_tui.engine.episode import Rules, merge_usage
from clarify_tui.llm.actions import final_output_answer
from clarify_tui.models import Action, ActionKind, Observation
from clarify_tui.protocols.cts.aspects import classify_aspects
from clarify_tui.results import CTSResult, CTSState, NuggetCoverage
from clarify_tui.users.unknown import as_ua_answer

COVERAGE_SCORE = {"full": 1.0, "partial": 0.5, "none": 0.0}


def restore_score(weights: Sequence[int], coverage: Sequence[str]) -> float:
    """restore_score_100 = 100 * sum(w * s(cov)) / sum(w) (paper §4.4)."""
    total = sum(weights)
    if not total:
        return 0.0
    return 100.0 * sum(w * COVERAGE_SCORE[c] for w, c in zip(weights, coverage)) / total


class CTSRules(Rules):
    default_max_rounds = 10
    state: CTSState

    def __init__(self, episode) -> None:
        super().__init__(episode)
        self.state = CTSState()
        self.fallback = False  # the answer was read from a last-round output (prepare)
        if episode.config.k == 0:  # orig: deep search on the blurred query, no clarification
            blurred = episode.task.cts_part.blurred_query
            self.state = CTSState(phase="search", orig=True, rewritten=blurred)

    @property
    def invalid_uses_round(self) -> bool:  # type: ignore[override]
        """An invalid clarifier output does not use one of the deep-search rounds."""
        return self.state.phase != "clarify"

    def acting_agent(self):
        """The fixed deep-search agent runs the search phase when one is given (paper 001
        §5.2: WebDancer is fixed while the clarifier varies); else the agent under test."""
        if self.state.phase == "search" and self.ep.deep_search is not None:
            return self.ep.deep_search
        return self.ep.agent

    def deep_search_spec(self) -> str:
        """The configured deep-search spec (imports: "stored"), else the agent under test."""
        return self.ep.config.deep_search or self.ep.agent.spec

    def phase(self) -> str:
        return self.state.phase

    def visible_question(self) -> str:
        if self.state.phase == "search" and self.state.rewritten:
            return self.state.rewritten
        return self.ep.task.cts_part.blurred_query

    def view_turns(self):
        agent = [s for s in self.ep.steps if s.actor == "agent"]
        if self.state.phase == "clarify" or self.state.clarify_step is None:
            return agent
        return [s for s in agent if s.index > self.state.clarify_step]

    def allowed(self) -> list[ActionKind]:
        if self.state.phase == "clarify":
            return [ActionKind.clarify]
        if self.ep.final_round:
            return [ActionKind.answer]
        return [ActionKind.search, ActionKind.visit, ActionKind.answer]

    def notice(self) -> str | None:
        if self.state.phase == "clarify":
            return f"Ask exactly {self.ep.config.k} clarification question(s)."
        return "This is your last round: you must answer now." if self.ep.final_round else None

    def prepare(self, action: Action) -> Action:
        """The deep-search budget's last round: an output that is no answer action is scored
        as the answer its text holds, as the paper's runner extracts the candidate answer from
        the final output "with robust fallbacks" (paper 001 §4.3, §5.2), not as 0 unjudged.
        Only a model's words (`raw`) count: a tool call, or an own agent's Action without
        `raw`, stays refused and the task scores 0 (docs/paper-readings.md C-fallback)."""
        if self.state.phase != "search" or not self.ep.final_round or action.kind == ActionKind.answer:
            return action
        text = final_output_answer(action.raw)
        if text is None:
            return action
        self.fallback = True
        return Action(kind=ActionKind.answer, text=text, raw=action.raw, usage=action.usage)

    def refusal(self, action: Action) -> str | None:
        if action.kind == ActionKind.clarify:
            questions = [q for q in action.items if q.strip()]
            if questions and len(questions) != self.ep.config.k:
                return f"Ask exactly {self.ep.config.k} question(s); got {len(questions)}."
            return None
        return None if (action.text or "").strip() else f"{action.kind.value} needs text."

    async def handle(self, action: Action) -> Observation:
        if action.kind == ActionKind.clarify:
            return await self._clarify(action)
        ep = self.ep
        if action.kind == ActionKind.search:
            result = await ep.search.search(action.text, ep.config.search_results)
            obs = Observation(text=f"{len(result.hits)} results", hits=result.hits)
            ep.record("agent", action, obs, usage=merge_usage(action.usage, result.usage))
            return obs
        if action.kind == ActionKind.visit:
            page = await ep.search.visit(action.text)
            obs = Observation(text=page if page is not None else f"could not open {action.text}")
            ep.record("agent", action, obs)
            return obs
        return await self._answer(action)

    async def _clarify(self, action: Action) -> Observation:
        ep = self.ep
        questions = [q.strip() for q in action.items if q.strip()]
        self.state.orig = not questions
        self.state.questions = questions
        self.state.aspect_sets = [classify_aspects(q) for q in questions]
        self.state.aspects = [aspects[0] for aspects in self.state.aspect_sets]
        answers, usages = [], []
        for question in questions:
            reply = await ep.user.answer_clarification(ep.task, question)
            answers.append(as_ua_answer(reply.text))  # "does not specify ..." is unknown
            usages.append(reply.usage)
        self.state.answers = answers
        self.state.phase = "search"
        # The clarify action is not a deep-search round.
        ep.rounds_used -= 1
        obs = Observation(text="no clarification (orig)" if not questions else "; ".join(answers), items=answers)
        step = ep.record("agent", action, obs)
        self.state.clarify_step = step.index
        for question, answer, aspects, usage in zip(questions, answers, self.state.aspect_sets, usages):
            # Like every other step: what the actor was given in (the question), what it said out.
            ep.record(
                "user",
                Action(kind=ActionKind.reply, text=question),
                Observation(text=answer, data={"aspect": aspects[0], "aspects": aspects, "input": "question"}),
                usage=usage,
            )
        blurred = ep.task.cts_part.blurred_query
        if questions:
            rewrite = await ep.user.rewrite(blurred, list(zip(questions, answers)))
            self.state.rewritten = rewrite.text.strip() or blurred
            ep.record("user", Action(kind=ActionKind.rewrite, text=self.state.rewritten), usage=rewrite.usage)
        else:
            self.state.rewritten = blurred
        ep.refresh_last_state()
        return obs

    async def _answer(self, action: Action) -> Observation:
        ep = self.ep
        self.state.answer = action.text
        obs = Observation(text="answer recorded", done=True)
        if self.fallback:  # said on the step, so replay and the export show where the answer came from
            obs.text = "answer recorded: the last round's output held no answer action; its text is scored"
            obs.data["fallback"] = "final output"
        ep.record("agent", action, obs)
        nuggets = ep.task.cts_part.nuggets
        judgement = await ep.judge.nuggets(action.text, nuggets, query=ep.task.cts_part.fused_query)
        self.state.coverage = [
            NuggetCoverage(id=n.id, weight=n.weight, coverage=c) for n, c in zip(nuggets, judgement.coverage)
        ]
        self.state.restore_score = restore_score([n.weight for n in nuggets], judgement.coverage)  # full precision
        obs.data["restore_score"] = self.state.restore_score
        ep.done = True
        ep.record(
            "judge",
            Action(kind=ActionKind.judge, text="nugget coverage"),
            Observation(
                text=f"restore score {self.state.restore_score:.1f}",
                data={
                    "coverage": judgement.coverage,
                    "restore_score": self.state.restore_score,
                    **({"reply": judgement.reply} if judgement.reply is not None else {}),
                },
            ),
            usage=judgement.usage,
        )
        return obs

    def on_rounds_exhausted(self) -> None:
        nuggets = self.ep.task.cts_part.nuggets
        self.state.coverage = [NuggetCoverage(id=n.id, weight=n.weight, coverage="none") for n in nuggets]
        self.state.restore_score = 0.0
        self.ep.done = True

    def result(self) -> CTSResult:
        return CTSResult(
            **self.state.model_dump(exclude={"phase", "clarify_step", "protocol"}),
            k=self.ep.config.k,
            deep_search=self.deep_search_spec(),
            deep_search_fixed=bool(self.ep.config.deep_search),
            **self.skip_fields(),
        )


def user_reply(step) -> tuple[str | None, str]:
    """(question, reply) of a user reply step. CTS answerer steps hold the question in the
    action and the reply in the observation (`data.input == "question"`), like an agent's
    ask step; databases written before that (and the other protocols' reply steps, whose
    question is the agent's ask step before them) hold the reply in the action."""
    if step.observation.data.get("input") == "question":
        return step.action.text, step.observation.text
    return step.observation.text or None, step.action.text

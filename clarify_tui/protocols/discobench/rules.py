"""DiscoBench rules (paper 000 §3, appendix B): search / ask / answer per checkpoint.

Three ways to settle the hidden checkpoints, chosen by `EpisodeConfig.checkpoints` and
recorded in the result as `checkpoint_mode` (docs/paper-readings.md D1-D3, D7):

- "answer" (default, the paper: §3 lines 79-83, B.1 line 293, B.2 line 307, appendix I
  case 1 line 477): the agent is told how many checkpoints there are and which one it is
  on, never their content. `answer` commits the current checkpoint's intermediate answer,
  judged for equivalence with its target (aliases count): right -> advanced, wrong ->
  failed, and either way the next becomes current with the same words to the agent
  ("silent cascading": no local indication of an upstream error). The answer at the last
  checkpoint is the final answer and alone decides accuracy. Searches and asks never pass
  or fail a checkpoint.
- "strict" (our earlier reading, not the paper's): as "answer", but a wrong intermediate
  answer fails the checkpoint, the later ones are unreached and the task ends (wrong).
- "trajectory" (for imported single-answer runs): the agent is told nothing about
  checkpoints; the current one passes when a search query or the answer establishes its
  target (checkpoint judge) and fails when one commits to a distractor first; the last is
  judged on the final answer.

Either way a search belongs to the checkpoint current when it was made (appendix E
profiles count one checkpoint's searches only), and an ask is judged against the
current checkpoint; on an ambiguous checkpoint a well-targeted ask releases its clue.
"""

from __future__ import annotations

from typing import Any

from clarify_tui.engine.episode import Rules, merge_usage
from clarify_tui.models import Action, ActionKind, Answer, Observation, Usage
from clarify_tui.results import (
    CheckpointResult,
    CheckpointState,
    DiscoBenchResult,
    DiscoBenchState,
    checkpoint_outcome,
)


class DiscoBenchRules(Rules):
    default_max_rounds = 20
    state: DiscoBenchState

    def __init__(self, episode) -> None:
        super().__init__(episode)
        cps = episode.task.discobench_part.checkpoints
        states = [CheckpointState(index=i, type=cp.type, ambiguity_type=cp.ambiguity_type) for i, cp in enumerate(cps)]
        states[0].status = "current"
        self.state = DiscoBenchState(checkpoints=states, mode=episode.config.checkpoints)

    @property
    def answer_mode(self) -> bool:
        """The agent answers each checkpoint ("answer" or "strict")."""
        return self.state.mode in ("answer", "strict")

    # ---- what the agent sees and may do ----------------------------------------------

    def visible_question(self) -> str:
        if self.ep.config.ablation == "original_question":
            return self.ep.task.discobench_part.original_question
        return self.ep.task.question

    def allowed(self) -> list[ActionKind]:
        if self.ep.final_round:
            return [ActionKind.answer]
        kinds = [ActionKind.search, ActionKind.ask, ActionKind.answer]
        if self.ep.config.ablation == "no_search":
            kinds.remove(ActionKind.search)
        if self.ep.config.ablation == "no_ask":
            kinds.remove(ActionKind.ask)
        return kinds

    def notice(self) -> str | None:
        parts = []
        if self.answer_mode and self.state.current is not None:
            i, n = self.state.current + 1, len(self.state.checkpoints)
            what = "your final answer to the question" if i == n else "this checkpoint's intermediate answer"
            parts.append(f"You are on checkpoint {i} of {n}; answer commits {what}.")
        if self.ep.final_round:
            parts.append("This is your last round: you must answer now.")
        return " ".join(parts) or None

    def view_extra(self) -> dict[str, Any]:
        if not self.answer_mode or self.state.current is None:
            return {}
        return {
            "checkpoint": self.state.current + 1,
            "checkpoints": len(self.state.checkpoints),
            "checkpoint_mode": self.state.mode,
        }

    def refusal(self, action: Action) -> str | None:
        return None if (action.text or "").strip() else f"{action.kind.value} needs text."

    # ---- checkpoint tracking ---------------------------------------------------------

    def _current(self) -> tuple[CheckpointState, Any] | None:
        i = self.state.current
        if i is None:
            return None
        return self.state.checkpoints[i], self.ep.task.discobench_part.checkpoints[i]

    def _is_last(self, index: int) -> bool:
        return index == len(self.state.checkpoints) - 1

    def _pass(self, index: int) -> None:
        self.state.checkpoints[index].status = "passed"
        nxt = index + 1
        if nxt < len(self.state.checkpoints):
            self.state.checkpoints[nxt].status = "current"
            self.state.current = nxt
        else:
            self.state.current = None

    def _fail(self, index: int) -> None:
        self.state.checkpoints[index].status = "failed"
        for cp in self.state.checkpoints[index + 1 :]:
            cp.status = "unreached"
        self.state.current = None

    def _fail_and_go_on(self, index: int) -> None:
        """Paper reading: the wrong checkpoint fails and the next becomes current."""
        self.state.checkpoints[index].status = "failed"
        nxt = index + 1
        self.state.checkpoints[nxt].status = "current"
        self.state.current = nxt

    async def _judge_progress(self, kind: str, text: str) -> list[tuple[int, str, Usage | None]]:
        """Advance through non-final checkpoints this text settles; returns the events."""
        events = []
        while (cur := self._current()) is not None and not self._is_last(cur[0].index):
            state, checkpoint = cur
            judgement = await self.ep.judge.checkpoint(checkpoint, kind, text)
            if judgement.verdict == "target":
                self._pass(state.index)
                events.append((state.index, "passed", judgement.usage))
            elif judgement.verdict == "distractor":
                self._fail(state.index)
                events.append((state.index, "failed", judgement.usage))
                break
            else:
                break
        return events

    def _record_events(self, events) -> None:
        for index, what, usage in events:
            self.ep.record(
                "judge",
                Action(kind=ActionKind.judge, text=f"checkpoint {index + 1}"),
                Observation(text=f"checkpoint {index + 1} {what}", data={"checkpoint": index, "status": what}),
                usage=usage,
            )

    # ---- actions ---------------------------------------------------------------------

    async def handle(self, action: Action) -> Observation:
        if action.kind == ActionKind.search:
            return await self._search(action)
        if action.kind == ActionKind.ask:
            return await self._ask(action)
        return await self._answer(action)

    async def _search(self, action: Action) -> Observation:
        ep = self.ep
        if (cur := self._current()) is not None:
            state = cur[0]
            state.searches += 1
            state.first_action = state.first_action or "search"
        result = await ep.search.search(action.text, ep.config.search_results)
        obs = Observation(text=f"{len(result.hits)} results", hits=result.hits)
        events = [] if self.answer_mode else await self._judge_progress("search", action.text)
        ep.record("agent", action, obs, usage=merge_usage(action.usage, result.usage))
        self._record_events(events)
        return obs

    async def _ask(self, action: Action) -> Observation:
        ep = self.ep
        cur = self._current()
        right, judge_usage = False, None
        if cur is not None:
            state, checkpoint = cur
            state.asks += 1
            state.asked = True
            state.first_action = state.first_action or "ask"
            if state.searches_before_first_ask is None:
                state.searches_before_first_ask = state.searches
            judgement = await ep.judge.ask_targets(checkpoint, action.text)
            judge_usage = judgement.usage
            right = judgement.targets and checkpoint.type == "ambi"
            if right:
                state.asked_right = True
            reply = await ep.user.reply_discobench(ep.task, checkpoint, action.text, right)
        else:
            last = ep.task.discobench_part.checkpoints[-1]
            reply = await ep.user.reply_discobench(ep.task, last, action.text, False)
        # what the agent received: the user's own account when it gives one (a person who
        # typed something else did not release the clue, whatever the judge said)
        released = cur is not None and (right if reply.released_clue is None else reply.released_clue)
        if released and cur is not None:
            cur[0].clue_released = True
        obs = Observation(text=reply.text)
        ep.record("agent", action, obs)
        if cur is not None:
            ep.record(
                "judge",
                Action(kind=ActionKind.judge, text="ask target"),
                Observation(
                    text=f"ask {'targets' if right else 'does not target'} checkpoint {cur[0].index + 1}",
                    data={"checkpoint": cur[0].index, "asked_right": right},
                ),
                usage=judge_usage,
            )
        ep.record(
            "user",
            Action(kind=ActionKind.reply, text=reply.text),
            Observation(data={"released_clue": released}),
            usage=reply.usage,
        )
        return obs

    async def _answer(self, action: Action) -> Observation:
        cur = self._current()
        if cur is not None:
            cur[0].first_action = cur[0].first_action or "answer"
            if self.answer_mode:
                cur[0].answer = action.text
                if not self._is_last(cur[0].index):
                    return await self._answer_checkpoint(action, *cur)
        return await self._final_answer(action)

    async def _answer_checkpoint(self, action: Action, state: CheckpointState, checkpoint) -> Observation:
        """An intermediate answer: judged against this checkpoint's target and aliases."""
        ep = self.ep
        i, n = state.index, len(self.state.checkpoints)
        gold = Answer(text=checkpoint.target, aliases=checkpoint.aliases)
        verdict = await ep.judge.equivalent(
            checkpoint.description or ep.task.question, action.text, gold, benchmark="discobench"
        )
        status = "passed" if verdict.correct else "failed"
        if verdict.correct:
            self._pass(i)
        elif self.state.mode == "strict":
            self._fail(i)
            self.state.correct = False
        else:  # silent cascading: this one fails, the next is current, the agent is not told
            self._fail_and_go_on(i)
        if self.state.current is None:  # strict: a wrong answer ends the task
            obs = Observation(text="answer recorded", done=True, data={"checkpoint": i})
        else:  # the same words right or wrong: only the judge step (hidden) knows
            obs = Observation(
                text=f"Checkpoint {i + 1} of {n} answered. You are now on checkpoint {i + 2} of {n}.",
                data={"checkpoint": i},
            )
        ep.record("agent", action, obs)
        ep.record(
            "judge",
            Action(kind=ActionKind.judge, text=f"checkpoint {i + 1} answer"),
            self.judged(verdict, f"checkpoint {i + 1} {status}", {"checkpoint": i, "status": status}),
            usage=verdict.usage,
        )
        if self.state.current is None:
            ep.done = True
        return obs

    async def _final_answer(self, action: Action) -> Observation:
        ep = self.ep
        self.state.answer = action.text
        obs = Observation(text="answer recorded", done=True)
        ep.record("agent", action, obs)
        if not self.answer_mode:
            self._record_events(await self._judge_progress("answer", action.text))
        verdict = await ep.judge.equivalent(ep.task.question, action.text, ep.task.gold, benchmark="discobench")
        self.state.correct = verdict.correct
        obs.data["correct"] = verdict.correct
        if (cur := self._current()) is not None:
            if verdict.correct:
                for i in range(cur[0].index, len(self.state.checkpoints)):
                    self._pass(i)
            else:
                self._fail(cur[0].index)
        self.record_verdict(verdict)
        return obs

    def on_rounds_exhausted(self) -> None:
        if (cur := self._current()) is not None:
            self._fail(cur[0].index)
        self.state.correct = False
        self.ep.done = True

    def result(self) -> DiscoBenchResult:
        agent_steps = [s for s in self.ep.steps if s.actor == "agent"]
        return DiscoBenchResult(
            answer=self.state.answer,
            correct=self.state.correct,
            prompting=self.ep.config.prompting,
            ablation=self.ep.config.ablation,
            checkpoint_mode=self.state.mode,
            checkpoints=[
                CheckpointResult(
                    **cp.model_dump(),
                    outcome=checkpoint_outcome(cp.status, cp.type, cp.asked_right),
                    reached=cp.status != "unreached",
                    advanced=cp.status == "passed",
                )
                for cp in self.state.checkpoints
            ],
            ask_turns=sum(1 for s in agent_steps if s.action.kind == ActionKind.ask),
            tool_turns=sum(1 for s in agent_steps if s.action.kind == ActionKind.search),
            **self.skip_fields(),
            **self.unreadable_fields(),
        )

"""A researcher's own user simulator or judge: `py:` objects and `http://` servers.

Why a proxy per role: the engine calls a user's or judge's named methods
(users/base.py, judges/base.py) and expects their reply models; a researcher's object may
be sync, return a plain string or dict, and implement only the methods its protocol uses.
Over HTTP each call POSTs `{"method": NAME, "args": {...}}` and reads the reply model's
JSON. Users and judges may read the hidden task: that is their job (an agent never may).
Any failure here is infrastructure (the session errors): they are not the model under test.
"""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any

from pydantic import BaseModel, ValidationError

from clarify_tui.backend_spec import BackendSpec
from clarify_tui.errors import BackendError
from clarify_tui.judges.base import AskJudgement, CheckpointJudgement, NuggetJudgement, Verdict
from clarify_tui.plugins import HttpJson, call, load_object
from clarify_tui.users.base import IDK, NO, YES, UserReply

USER_METHODS: dict[str, type[BaseModel]] = {
    "reply_interactcomp": UserReply,
    "reply_discobench": UserReply,
    "answer_clarification": UserReply,
    "rewrite": UserReply,
    "reply": UserReply,  # an installed protocol's ask (users/base.py)
}
JUDGE_METHODS: dict[str, type[BaseModel]] = {
    "equivalent": Verdict,
    "checkpoint": CheckpointJudgement,
    "ask_targets": AskJudgement,
    "nuggets": NuggetJudgement,
    "grade_reference": Verdict,
}
_OPTIONAL = {"grade_reference"}  # called only when the object has it


def _coerce(value: Any, model: type[BaseModel], who: str, method: str) -> BaseModel:
    if isinstance(value, model):
        return value
    if isinstance(value, str) and "text" in model.model_fields:
        return model(text=value)
    if isinstance(value, bool) and "correct" in model.model_fields:
        return model(correct=value)
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        raise BackendError(
            f"{who}.{method} returned {value!r:.200}, not a {model.__name__}: {exc.errors()[0].get('msg')}"
        ) from None


def _jsonable(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):  # a reply form (protocols/roles.py)
        return dataclasses.asdict(value)
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


class _Proxy:
    """The role's methods, forwarded to a Python object or an HTTP server."""

    methods: dict[str, type[BaseModel]] = {}

    def __init__(self, spec: str, obj: Any = None, http: HttpJson | None = None) -> None:
        self.spec, self.obj, self.http = spec, obj, http

    def __getattr__(self, name: str):
        model = type(self).methods.get(name)
        if model is None or (name in _OPTIONAL and (self.obj is None or not hasattr(self.obj, name))):
            raise AttributeError(name)
        if self.obj is not None and not hasattr(self.obj, name):

            async def missing(*args: Any, **kwargs: Any) -> BaseModel:
                raise BackendError(f"{self.spec} has no {name} method, which this protocol calls")

            return missing

        async def forward(*args: Any, **kwargs: Any) -> BaseModel:
            if self.http is not None:
                names = list(inspect.signature(getattr(_SIGNATURES, name)).parameters)[1:]
                body = {
                    "method": name,
                    "args": {**dict(zip(names, map(_jsonable, args))), **{k: _jsonable(v) for k, v in kwargs.items()}},
                }
                data, *_ = await self.http.post(body)
                return self.checked(name, _coerce(data, model, self.spec, name))
            try:
                value = (
                    await call(self.obj, name, *args, **kwargs)
                    if not kwargs
                    else await _call_kw(self.obj, name, args, kwargs)
                )
            except BackendError:
                raise
            except Exception as exc:
                raise BackendError(f"{self.spec}.{name} raised {type(exc).__name__}: {exc}") from exc
            return self.checked(name, _coerce(value, model, self.spec, name))

        return forward

    def checked(self, method: str, reply: Any) -> Any:
        """The reply, held to the role's contract where one can be checked."""
        return reply

    async def aclose(self) -> None:
        if self.http is not None:
            await self.http.aclose()


async def _call_kw(obj: Any, name: str, args: tuple, kwargs: dict) -> Any:
    result = getattr(obj, name)(*args, **kwargs)
    return await result if inspect.isawaitable(result) else result


class _SIGNATURES:
    """The argument names each method is called with (the HTTP body's `args` keys)."""

    def reply_interactcomp(self, task, question): ...
    def reply_discobench(self, task, checkpoint, question, asked_right): ...
    def answer_clarification(self, task, question): ...
    def rewrite(self, blurred_query, qa_pairs): ...
    def reply(self, task, question, form): ...
    def equivalent(self, question, answer, gold, benchmark="interactcomp"): ...
    def checkpoint(self, checkpoint, kind, text): ...
    def ask_targets(self, checkpoint, question): ...
    def nuggets(self, answer, nuggets, query=""): ...
    def grade_reference(self, question, predicted, gold): ...


class CustomUser(_Proxy):
    methods = USER_METHODS

    def checked(self, method: str, reply: Any) -> Any:
        """InteractComp's user says exactly yes, no or i don't know (case and a final stop
        aside): anything else would reach the agent as the user's words, so the session
        errors naming the reply, as an LLM simulator's off-contract reply does."""
        if method != "reply_interactcomp":
            return reply
        said = reply.text.strip().replace("\u2019", "'").lower().rstrip(".!")
        if said not in (YES, NO, IDK):
            raise BackendError(
                f"{self.spec}.reply_interactcomp returned {reply.text!r:.80}, not yes, no or "
                "i don't know (InteractComp's user contract: docs/users.md)"
            )
        return reply.model_copy(update={"text": said})


class CustomJudge(_Proxy):
    methods = JUDGE_METHODS


def build(
    role: str,
    spec: str,
    *,
    args: dict[str, Any] | None = None,
    timeout: float = 120.0,
    max_retries: int = 4,
    stop_after: int = 0,
) -> _Proxy:
    proxy = CustomUser if role == "user" else CustomJudge
    if BackendSpec.parse(spec).is_http:  # the circuit breaker of a model endpoint (breaker.py)
        return proxy(
            spec,
            http=HttpJson(spec, timeout=timeout, max_retries=max_retries, stop_after=stop_after, call=f"{role} call"),
        )
    needs = tuple(m for m in proxy.methods if m not in _OPTIONAL)
    return proxy(spec, obj=load_object(spec, args, needs=needs, role=role))

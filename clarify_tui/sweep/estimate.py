"""`sweep --dry-run`: the plan of a sweep, before anything plays (docs/sweeps.md).

Model calls and dollars per session are *measured*, never guessed: from the cell's own
finished sessions when the database holds some, else from finished sessions there of the
same benchmark with the same agent, user and judge. With nothing to measure from, the plan
says so and gives the one bound the settings fix (the agent's rounds per session) and the
model's price per million tokens where it is known.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from clarify_tui.backend_spec import BackendSpec

if TYPE_CHECKING:
    from clarify_tui.store import Store
    from clarify_tui.sweep.play import CellRun

ROLES = ("agent", "user", "judge", "deep_search")


@dataclass
class Measured:
    sessions: int = 0  # finished sessions measured
    calls: dict[str, int] = field(default_factory=dict)  # model -> calls in them
    cost: float = 0.0
    unpriced: int = 0  # model calls with no price
    source: str = ""


def model_roles(r: CellRun) -> dict[str, str]:
    """role -> model, for the roles of the cell that call a model (openai:MODEL)."""
    spec = r.prepared.spec
    specs = {"agent": spec.agent, "user": spec.user, "judge": spec.judge, "deep_search": spec.config.deep_search}
    parsed = {role: BackendSpec.parse(s) for role, s in specs.items() if s}
    return {role: p.model for role, p in parsed.items() if p.model}  # `openai/MODEL` too (it was left unpriced)


def endpoint_of(r: CellRun, role: str) -> str:
    config = r.prepared.config_obj
    if config is None:
        return "the OpenAI API"
    own = config.role(role).base_url if role in ("agent", "user", "judge") else None
    return str(own or config.openai.base_url or "the OpenAI API")


def measure(store: Store | None, r: CellRun) -> Measured:
    """Calls and dollars of finished sessions like this cell's (see the module docstring)."""
    if store is None:
        return Measured()
    from clarify_tui.store import spending

    conn, spec = store.conn, r.prepared.spec
    ids, source = spending.completed_of_run(conn, r.cell.name), "this cell's finished sessions"
    if not ids:
        ids, source = (
            spending.completed_alike(conn, spec.benchmark, spec.agent, spec.user, spec.judge),
            "finished sessions alike",
        )
    if not ids:
        return Measured()
    m = Measured(sessions=len(ids), source=f"{len(ids)} {source}")
    for model, calls, cost, unpriced in spending.calls_by_model(conn, ids):
        m.calls[model] = m.calls.get(model, 0) + int(calls)
        m.cost += float(cost or 0)
        m.unpriced += int(unpriced or 0)
    return m


def plan_lines(
    store: Store | None, runs: list[CellRun], shard: tuple[int, int] | None, concurrency: int, max_cost: float | None
) -> list[str]:
    """The dry-run's text: cells, sessions, model calls per endpoint, cost."""
    from clarify_tui.llm.pricing import call_cost

    where = f" (shard {shard[0]}/{shard[1]})" if shard else ""
    lines = [f"sweep plan{where}: {len(runs)} cell(s); nothing is played (--dry-run)", ""]
    width = max(len(r.cell.name) for r in runs)
    lines.append(f"  {'cell':<{width}}  {'tasks':>5}  {'epochs':>6}  {'sessions':>8}  {'done':>5}  {'to play':>7}")
    for r in runs:
        spec = r.prepared.spec
        lines.append(
            f"  {r.cell.name:<{width}}  {len(r.prepared.tasks):>5}  {spec.epochs:>6}  {r.wanted:>8}  "
            f"{r.done:>5}  {r.to_play:>7}"
        )
    total = sum(r.wanted for r in runs)
    left = sum(r.to_play for r in runs)
    lines.append(f"  {'total':<{width}}  {'':>5}  {'':>6}  {total:>8}  {total - left:>5}  {left:>7}")
    lines.append("")
    calls: dict[str, dict[str, float]] = {}  # endpoint -> model -> calls expected
    unmeasured: dict[str, dict[str, list[str]]] = {}  # endpoint -> model -> bounds in words
    cost = 0.0
    cost_known = True
    for r in runs:
        roles = model_roles(r)
        if not roles or not r.to_play:
            continue
        m = measure(store, r)
        if m.sessions:
            for model, n in m.calls.items():
                role = next((role for role, mod in roles.items() if mod == model), "agent")
                calls.setdefault(endpoint_of(r, role), {}).setdefault(model, 0.0)
                calls[endpoint_of(r, role)][model] += n / m.sessions * r.to_play
            cost += m.cost / m.sessions * r.to_play
            cost_known = cost_known and not m.unpriced
            continue
        cost_known = False
        rounds = r.prepared.spec.config.max_rounds or _default_rounds(r.prepared.spec.benchmark)
        for role, model in roles.items():
            bound = (
                f"{r.to_play} sessions x up to {rounds} rounds" if role == "agent" else f"{r.to_play} sessions ({role})"
            )
            unmeasured.setdefault(endpoint_of(r, role), {}).setdefault(model, []).append(bound)
    if not calls and not unmeasured:
        lines.append("model calls: none (every role of every cell is offline: scripted, rule, local)")
    else:
        lines.append(
            f"model calls expected per endpoint ({concurrency} sessions at once across the cells, --concurrency):"
        )
        for endpoint in sorted(set(calls) | set(unmeasured)):
            measured = calls.get(endpoint, {})
            expected = sum(measured.values(), 0.0)
            lines.append(f"  {endpoint}: {expected:.0f} calls measured" if measured else f"  {endpoint}:")
            for model, k in sorted(measured.items()):
                lines.append(f"    {model}: {k:.0f} calls (measured per session)")
            for model, bounds in sorted(unmeasured.get(endpoint, {}).items()):
                price = call_cost(_config(runs), model, 1_000_000, 0)
                out = call_cost(_config(runs), model, 0, 1_000_000)
                priced = (
                    f"; price ${price:.2f}/M input, ${out:.2f}/M output tokens"
                    if price is not None and out is not None
                    else "; unpriced"
                )
                lines.append(f"    {model}: not measured yet ({'; '.join(bounds)}){priced}")
    if calls or unmeasured:
        limit = next((r.prepared.call_limit for r in runs if model_roles(r) and r.prepared.call_limit), None)
        if limit:
            lines.append(limit)
        if cost_known:
            lines.append(f"cost: ${cost:.4f} expected (measured per session x sessions to play)")
        else:
            partial = f" (${cost:.4f} for the measured cells)" if cost else ""
            lines.append(
                f"cost: not known before some sessions are measured{partial}; play a few first "
                "(e.g. --limit 2), then --dry-run again"
            )
    else:
        lines.append("cost: $0 (no model calls)")
    if max_cost is not None:
        lines.append(f"--max-cost ${max_cost:.2f}: the sweep starts no session that would pass it")
    return lines


def _default_rounds(benchmark: str) -> int:
    from clarify_tui.engine import RULES
    from clarify_tui.models import Protocol

    return RULES[Protocol(benchmark)].default_max_rounds


def _config(runs: list[CellRun]):
    return next((r.prepared.config_obj for r in runs if r.prepared.config_obj is not None), None)

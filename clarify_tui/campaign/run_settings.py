"""A campaign's run row: the settings its sessions are played with, recorded as `run` records
a batch run's (specs, episode config, deviations, provenance: runner.py, provenance.py).

Why: a browser baseline played with the rule user and rule judge can never be the paper's
protocol; `serve --user/--judge/--deep-search/--config/--set` choose the paper's, and the
run row says which were used, so the campaign's numbers are read beside a run's. Serving
the run again with other settings is refused, naming each change, as `run --resume` is:
its sessions were made with the recorded ones."""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any

from clarify_tui.deviations import Setting, deviations, is_demo_dataset
from clarify_tui.errors import UsageError
from clarify_tui.models import EpisodeConfig
from clarify_tui.protocols import registry
from clarify_tui.provenance import changes, run_provenance

if TYPE_CHECKING:
    from clarify_tui.store import Store

AGENT = "human"


def campaign_provenance(
    benchmarks: list[str],
    *,
    dataset: str,
    user: str,
    judge: str,
    search: str,
    deep_search: str | None,
    config_obj: Any,
    argv: list[str] | None,
) -> dict:
    """`run_provenance` of the campaign; over several benchmarks (the demo's three), each
    role's calls and the prompts of every benchmark, and one hash of their datasets."""
    each = [
        run_provenance(
            benchmark=b,
            dataset=dataset,
            agent=AGENT,
            user=user,
            judge=judge,
            search=search,
            deep_search=deep_search if "deep_search" in registry.get(b).run_flags else None,
            config_obj=config_obj,
            argv=argv,
        )
        for b in benchmarks
    ]
    out = each[0]
    for other in each[1:]:
        for role, settings in other["roles"].items():
            mine = out["roles"].setdefault(role, settings)
            if "calls" in settings:
                mine["calls"] = {**mine.get("calls", {}), **settings["calls"]}
        out["prompts"] = {**out["prompts"], **other["prompts"]}
    if len(each) > 1:
        digest = hashlib.sha256()
        for b, p in zip(benchmarks, each):
            digest.update(f"{b}\0{p['dataset_sha256']}\n".encode())
        out["dataset_sha256"] = digest.hexdigest()
    return out


def record_campaign_run(
    store: Store,
    run: str,
    benchmarks: list[str],
    *,
    dataset: str,
    user: str,
    judge: str,
    search: str,
    episode: EpisodeConfig,
    provenance: dict,
) -> None:
    """Write the campaign's run row once; refuse other settings for a run already recorded."""
    row = store.run_row(run)
    if row is not None and row.get("provenance"):
        changed = changes(json.loads(row["provenance"]), provenance)
        if changed:
            raise UsageError(
                f"run '{run}' was served with other settings: {'; '.join(changed)}. Its sessions "
                "were played with the recorded ones; serve with those, or another --queue"
            )
        return
    lines = (
        deviations(
            Setting(benchmark=benchmarks[0], agent=AGENT, user=user, search=search, judge=judge, config=episode),
            demo=is_demo_dataset(dataset),
        )
        if len(benchmarks) == 1
        else None
    )  # several: each session's own settings say it (metrics)
    store.ensure_run(
        run,
        benchmark=",".join(benchmarks),
        dataset=dataset,
        agent=AGENT,
        user=user,
        search=search,
        judge=judge,
        config=episode.model_dump(mode="json"),
        deviations=lines,
    )
    store.set_run_provenance(run, provenance)

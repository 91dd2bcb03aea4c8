"""Retries that finish the job: transient faults retried and counted on the step, a faulty
run completed by --resume --retry-errored with each task scored once, the run's
concurrency raising the endpoint's call limit (issue 12, points 3, 6, 7)."""

from __future__ import annotations

import json
import socket
import threading

import pytest
from servers import FakeOpenAI, Reply, Script, chat, error, interactcomp_router, llm_config

from clarify_tui.cli import main
from clarify_tui.errors import BackendError
from clarify_tui.models import Answer
from clarify_tui.services import build_judge
from clarify_tui.store import Store
from clarify_tui.tasks import load_tasks

DEMO_TASKS = 11


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with FakeOpenAI(Script()) as srv:
        yield srv


async def test_a_200_with_invalid_json_is_retried_and_counted(server):
    server.set_handler(Script(Reply(status=200, body="{not json"), chat("yes")))
    verdict = await build_judge("judge-m", llm_config(server.base_url)).equivalent("q", "a", Answer(text="a"))
    assert verdict.correct is True
    assert verdict.usage.retries == 1 and "invalid JSON in a 200 response" in verdict.usage.retry_cause
    assert len(server.chat_requests()) == 2


async def test_a_connection_failure_names_its_cause(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # nothing listens there now
    judge = build_judge("judge-m", llm_config(f"http://127.0.0.1:{port}/v1", openai={"max_retries": 1}))
    with pytest.raises(BackendError) as exc:
        await judge.equivalent("q", "a", Answer(text="a"))
    message = str(exc.value)
    assert "connection failed: " in message and "(after 1 retries)" in message
    assert "refused" in message.lower() or "connecterror" in message.lower(), message


def faulty(every: int, healthy):
    """Fail every `every`-th request in 10 with HTTP 500 (a 30 % fault rate for 3)."""
    count, lock = [0], threading.Lock()

    def handle(request):
        with lock:
            count[0] += 1
            n = count[0]
        if n % 10 < every:
            return error(500, "injected fault") if n % 2 else Reply(status=200, body="<html>oops")
        return healthy(request)

    return handle


def llm_run(db, *extra):
    return [
        "run",
        "--benchmark",
        "interactcomp",
        "--agent",
        "openai:a",
        "--user",
        "openai:u",
        "--judge",
        "openai:j",
        "--db",
        str(db),
        "--run",
        "f",
        *extra,
    ]


def test_a_faulty_run_completed_by_retry_errored_scores_each_task_once(tmp_path, server, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    ONCE = ("--task-attempts", "1")  # no automatic re-runs: this is about --retry-errored
    healthy = interactcomp_router(0.0)
    server.set_handler(faulty(3, healthy))
    db = tmp_path / "f.db"
    assert main(llm_run(db, "--set", "openai.max_retries=0", "--set", "openai.stop_after_failures=0", *ONCE)) == 1
    first = Store(db).sessions(runs=["f"])
    errored = [s for s in first if s.status == "errored"]
    assert len(first) == DEMO_TASKS and errored  # 30 % faults with no retries leave holes
    capsys.readouterr()

    assert main(llm_run(db, "--resume", *ONCE)) == 1  # plain resume keeps errored tasks as done (and errored)
    capsys.readouterr()
    assert len(Store(db).sessions(runs=["f"])) == DEMO_TASKS

    server.set_handler(healthy)
    assert main(llm_run(db, "--resume", "--retry-errored", *ONCE)) == 0
    err = capsys.readouterr().err
    assert f"{len(errored)} errored session(s) superseded by a retry" in err
    sessions = Store(db).sessions(runs=["f"])
    live = [s for s in sessions if s.status != "superseded"]
    assert sorted(s.task_id for s in live) == sorted({s.task_id for s in first})
    assert {s.status for s in live} == {"completed"}
    assert {s.id for s in sessions if s.status == "superseded"} == {s.id for s in errored}

    capsys.readouterr()
    assert main(["score", "--db", str(db), "--format", "json"]) == 0
    group = json.loads(capsys.readouterr().out)["groups"][0]
    assert group["n_sessions"] == DEMO_TASKS
    assert group["metrics"].get("errored", 0) == 0


def test_retries_are_stored_on_the_step_and_shown_in_the_summary(tmp_path, server, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    server.set_handler(faulty(3, interactcomp_router(0.0)))
    monkeypatch.setattr("clarify_tui.llm.client._backoff", lambda attempt: 0.01)  # retried the same, sooner
    db = tmp_path / "r.db"
    assert main(llm_run(db, "--set", "openai.max_retries=4", "--limit", "4")) == 0
    err = capsys.readouterr().err
    store = Store(db)
    steps = [st for s in store.sessions(runs=["f"]) for st in store.steps(s.id)]
    retried = [st for st in steps if st.retries]
    assert retried and all(st.retry_cause for st in retried)
    assert {st.retry_cause.split(":")[0].split(" (")[0] for st in retried} <= {
        "HTTP 500",
        "not a chat completion",
        "invalid JSON in a 200 response",
    }
    total = sum(st.retries for st in retried)
    assert f"retries: {total} on {len(retried)} step(s)" in err


def test_concurrency_raises_the_endpoint_limit_unless_the_config_pins_it(tmp_path, server, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    in_flight, peak, seen, changed = [0], [0], [0], threading.Condition()
    route = interactcomp_router(0.0)
    # each of the first `wave` requests is held until `want` are in flight at once (then all
    # go on), or `hold` seconds: a limit below `want` shows as a peak below it
    wave, want, hold, reached = [40], [33], [120.0], [False]  # held until 33 are in flight: a loaded machine starts them slowly

    def slow(request):
        with changed:
            seen[0] += 1
            in_flight[0] += 1
            peak[0] = max(peak[0], in_flight[0])
            reached[0] = reached[0] or in_flight[0] >= want[0]
            changed.notify_all()
            if seen[0] <= wave[0]:
                changed.wait_for(lambda: reached[0], timeout=hold[0])
            in_flight[0] -= 1
        return route(request)

    server.set_handler(slow)
    base = load_tasks("interactcomp", "demo")
    data = tmp_path / "many.jsonl"
    data.write_text(
        "".join(base[i % len(base)].model_copy(update={"id": f"t{i}"}).model_dump_json() + "\n" for i in range(40)),
        encoding="utf-8",
    )
    run = [
        "run",
        "--benchmark",
        "interactcomp",
        "--dataset",
        str(data),
        "--agent",
        "openai:a",
        "--user",
        "openai:u",
        "--judge",
        "openai:j",
        "--db",
        str(tmp_path / "c.db"),
        "--concurrency",
        "40",
    ]
    assert main([*run, "--run", "raised"]) == 0
    assert peak[0] > 32, peak[0]
    assert "at most 40 at once per endpoint (raised from the default 32" in capsys.readouterr().err

    peak[0] = seen[0] = 0
    wave[0], want[0], hold[0], reached[0] = 12, 7, 0.3, False  # 12 tasks at once would pass 6 while held
    pinned = tmp_path / "clarify.toml"
    pinned.write_text("[openai]\nmax_concurrency = 6\n", encoding="utf-8")
    assert main([*run, "--run", "pinned", "--config", str(pinned), "--limit", "12"]) == 0
    assert peak[0] <= 6
    assert "limit pinned by the config (openai.max_concurrency=6)" in capsys.readouterr().err


async def test_a_second_run_on_the_same_event_loop_gets_its_own_limit():
    """One loop can serve two runs (nest_asyncio, as Jupyter and Inspect apply it, keeps a
    loop across asyncio.run calls): the second run's smaller pinned limit must hold, not
    the first run's limiter (12 calls at once where 6 were pinned)."""
    from clarify_tui.llm.client import Endpoint

    endpoint = Endpoint("http://127.0.0.1:9/v1")
    endpoint.limits += [40, 40, 40]
    first = endpoint.semaphore()
    assert first._value == 40
    endpoint.limits += [6, 6, 6]  # the next run's clients, pinned by its config
    second = endpoint.semaphore()
    assert second is not first and second._value == 6
    assert endpoint.semaphore() is second  # and it stays the one limiter of this loop

"""Recorded searches travel between databases: run (record) -> cache export -> cache import -> run (replay)."""

from __future__ import annotations

from clarify_tui.cli import main
from clarify_tui.store import Store
from tests.conftest import IC


def test_a_run_replays_from_an_imported_cache_and_a_miss_errors_the_session(tmp_path, search, monkeypatch, capsys):
    import clarify_tui.backends as backends

    monkeypatch.setattr(backends, "_local_search", lambda: search)
    data = tmp_path / "ic.jsonl"
    data.write_text(IC.model_dump_json() + "\n", encoding="utf-8")
    a, b, shared = tmp_path / "a.db", tmp_path / "b.db", tmp_path / "searches.jsonl"
    base = ["run", "--benchmark", "interactcomp", "--dataset", str(data)]
    assert main([*base, "--agent", "scripted:search-then-ask", "--db", str(a), "--run", "rec"]) == 0
    assert main(["cache", "export", "--db", str(a), "--out", str(shared)]) == 0
    assert shared.read_text(encoding="utf-8").count("\n") >= 2
    assert main(["cache", "import", "--db", str(b), str(shared)]) == 0
    assert (
        main([*base, "--agent", "scripted:search-then-ask", "--db", str(b), "--run", "rep", "--search-cache", "replay"])
        == 0
    )
    replayed = Store(b).sessions(runs=["rep"])[0]
    assert replayed.status == "completed" and replayed.result.correct is True
    # direct-guess searches nothing new here, but a different query is a miss: errored, named
    other = data.with_name("other.jsonl")
    other.write_text(
        IC.model_copy(update={"question": "A question never searched before?"}).model_dump_json() + "\n",
        encoding="utf-8",
    )
    assert (
        main(
            [
                "run",
                "--benchmark",
                "interactcomp",
                "--dataset",
                str(other),
                "--agent",
                "scripted:direct-guess",
                "--db",
                str(b),
                "--run",
                "miss",
                "--search-cache",
                "replay",
            ]
        )
        == 1
    )  # a session errored
    [missed] = [s for s in Store(b).sessions(runs=["miss"]) if s.status != "superseded"]
    assert missed.status == "errored" and "never searched before" in missed.error

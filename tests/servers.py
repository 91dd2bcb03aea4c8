"""The loopback OpenAI and Tavily servers of the tests: they live in
clarify_tui/testing/loopback.py, so that the benchmarks use them without importing tests/."""

from clarify_tui.testing.loopback import (  # noqa: F401
    FakeOpenAI,
    FakeTavily,
    Handler,
    LoopbackServer,
    Reply,
    Request,
    Script,
    chat,
    error,
    interactcomp_router,
    llm_config,
    tavily_results,
)


def llm_run(db, name: str, *extra: str) -> list[str]:
    """`clarify-tui run` of InteractComp with every role an `openai:` model (point them at a
    fake server with `--set openai.base_url=...`), into `db` as run `name`, then `extra`."""
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
        name,
        *extra,
    ]

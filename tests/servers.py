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

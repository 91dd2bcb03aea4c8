"""How a web search backend retries a call: one policy for Tavily and Serper, read from
their `[tavily]` / `[serper]` settings (retries, exponential backoff with jitter)."""

from __future__ import annotations

from collections.abc import Callable

from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt, wait_exponential, wait_random

from clarify_tui.config import SerperConfig, TavilyConfig


def retrying(settings: TavilyConfig | SerperConfig, transient: Callable[[BaseException], bool]) -> AsyncRetrying:
    """Up to `max_retries` more attempts of a call whose failure `transient` accepts."""
    s = settings
    return AsyncRetrying(
        stop=stop_after_attempt(s.max_retries + 1),
        wait=wait_exponential(multiplier=s.backoff_initial, max=s.backoff_max) + wait_random(0, s.backoff_initial),
        retry=retry_if_exception(transient),
        reraise=True,
    )

"""What a model call costs, in US dollars: `[prices]` in clarify.toml first, then the
prices `genai-prices` ships (its bundled snapshot: nothing is fetched at run time), else
None: the model is *unpriced*, and its cost is null in JSON and "unpriced" in tables,
never $0 (docs/scoring.md).

Why a library: the papers report dollars (InteractComp Table 2, "Cost($)"), and a hand-kept
price list goes stale; genai-prices is maintained and matches model names across providers.
Its prices are not always those a paper used: docs/scoring.md "The paper's prices" lists where
InteractComp's reference table differs and the `[prices]` entries that restore it.
"""

from __future__ import annotations

import logging
from functools import cache
from typing import Any

log = logging.getLogger(__name__)


@cache
def _has_library_price(model: str) -> bool:
    return _library_cost(model, 0, 0) is not None


def _library_cost(model: str, tokens_in: int, tokens_out: int) -> float | None:
    try:
        from genai_prices import Usage, calc_price
    except ImportError:  # an install without it: every model not in [prices] is unpriced
        return None
    try:
        price = calc_price(Usage(input_tokens=tokens_in, output_tokens=tokens_out), model_ref=model)
    except LookupError:
        return None
    return float(price.total_price)


def call_cost(config: Any, model: str, tokens_in: int, tokens_out: int) -> float | None:
    """Dollars for one call; None when neither clarify.toml nor genai-prices prices `model`."""
    own = config.price(model) if config is not None else None
    if own is not None:
        return (tokens_in * own.input_per_mtok + tokens_out * own.output_per_mtok) / 1e6
    if not _has_library_price(model):
        return None
    return _library_cost(model, tokens_in, tokens_out)

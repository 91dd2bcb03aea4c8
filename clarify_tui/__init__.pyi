# Types of the names clarify_tui/__init__.py loads on first use (docs/agents.md), for
# editors and type checkers; the module itself imports nothing (see its comment).
from clarify_tui import api as api
from clarify_tui.agent_view import AgentView as AgentView
from clarify_tui.agent_view import ViewTurn as ViewTurn
from clarify_tui.agents.base import Agent as Agent
from clarify_tui.errors import AgentFailed as AgentFailed
from clarify_tui.errors import AgentUnavailable as AgentUnavailable
from clarify_tui.models import (
    Action as Action,
)
from clarify_tui.models import (
    ActionKind as ActionKind,
)
from clarify_tui.models import (
    Observation as Observation,
)
from clarify_tui.models import (
    Protocol as Protocol,
)
from clarify_tui.models import (
    SearchHit as SearchHit,
)
from clarify_tui.models import (
    Usage as Usage,
)

__version__: str
__all__: list[str]

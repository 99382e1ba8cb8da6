"""FullCite's strategies: the solver each builds, FullCite citation format.

One row per strategy in :data:`STRATEGIES`; a new strategy is its name in :data:`Strategy`
and its row here. The ALCE tasks have their own table (``alce_tasks.strategies``).
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from inspect_ai.solver import Solver

from solvers.agent import agent_citations
from solvers.constrained import constrained_citations
from solvers.native import native_citations
from solvers.posthoc import posthoc_citations
from solvers.prompted import prompted_citations

Strategy = Literal["prompt", "constrained", "posthoc", "native", "agent"]
"""The names of :data:`STRATEGIES`."""


@dataclass(frozen=True)
class StrategySettings:
    """The task parameters a strategy's solver is built with."""

    thinking: bool


STRATEGIES: dict[Strategy, Callable[[StrategySettings], Solver]] = {
    "prompt": lambda s: prompted_citations(thinking=s.thinking),
    "constrained": lambda s: constrained_citations(format="fullcite", thinking=s.thinking),
    # FullCite's posthoc aligns snippets afterwards (solvers/posthoc); the same name on the
    # ALCE tasks is ALCE's POSTCITE, another solver (alce_tasks.strategies).
    "posthoc": lambda s: posthoc_citations(thinking=s.thinking),
    "native": lambda s: native_citations(format="fullcite", thinking=s.thinking),
    "agent": lambda s: agent_citations(format="fullcite", thinking=s.thinking),
}
"""FullCite's strategies, one row each: strategy name -> its solver.

``prompt``: instructions only; ``constrained``: grammar-constrained decoding; ``posthoc``:
snippets aligned to the documents afterwards by word-set Jaccard; ``native``: the documents go
to the model as documents and the provider's own citations become FullCite citations;
``agent``: the model finds documents with ``search`` and ``read`` tools (docs/native.md).
"""


def strategy_solver(strategy: Strategy, settings: StrategySettings) -> Solver:
    """The solver that implements a strategy, with the task's settings."""
    return STRATEGIES[strategy](settings)

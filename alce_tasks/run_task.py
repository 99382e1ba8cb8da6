"""The Task of an ALCE run: its samples and scorers, the strategy's solver, epochs as a mean.

The ALCE tasks and TRUST-SCORE (``-T trust``) end alike: the strategy's row with the run's
parameters, as chat or as ALCE's raw prompt. HELMET (``-T context``) sends its own prompts and
builds its own solver.
"""

from typing import Any

from inspect_ai import Epochs, Task
from inspect_ai.dataset import Dataset
from inspect_ai.scorer import Scorer
from inspect_ai.solver import Solver

from alce_tasks.options import AlceRun
from alce_tasks.strategies import StrategySettings, strategy_solver
from inspect_cite.alce.prompts import ALCE_SYSTEM_MESSAGE
from scorers import epoch_mean
from solvers import alce_raw_prompt


def run_solver(run: AlceRun) -> Solver:
    """The run's strategy solver: ALCE's system message in chat, else ALCE's raw prompt."""
    o = run.options
    system_message = ALCE_SYSTEM_MESSAGE if o.chat else None
    parameters = {**run.given, **run.resolved, "ndoc_in_demo": run.demo_docs}
    solver = strategy_solver(
        o.strategy, StrategySettings.pick({**parameters, "system_message": system_message})
    )
    if not o.chat:
        solver = alce_raw_prompt(solver, max_length=o.max_length)
    return solver


def run_task(
    run: AlceRun,
    *,
    dataset: Dataset,
    scorers: list[Scorer],
    version: int,
    metadata: dict[str, Any],
) -> Task:
    """The run's Task, its solver from :func:`run_solver`.

    Args:
        run: The resolved run.
        dataset: Its samples.
        scorers: Its scorers, in the order the log shows them.
        version: The task's version.
        metadata: The log's task metadata.

    """
    return Task(
        dataset=dataset,
        solver=run_solver(run),
        scorer=scorers,
        config=run.generate_config,
        version=version,
        # Epochs reduce as Inspect's mean, keeping each epoch's judged shares (-S calibration).
        epochs=Epochs(1, epoch_mean()),
        metadata=metadata,
    )

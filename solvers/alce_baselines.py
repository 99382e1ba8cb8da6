"""ALCE's single-generation baselines besides VANILLA: CLOSEDBOOK, SUMM and SNIPPET."""

from typing import Any

from inspect_ai.solver import Generate, Solver, TaskState, solver

from inspect_cite.alce.prompts import PromptVariant, UseShorter
from inspect_cite.evidence.record import record_evidence
from inspect_cite.options.cli_values import accept_cli_values
from inspect_cite.options.forwarding import forwards_to
from solvers.alce_prompting import AlcePrompts, prepare, warn_small_pool
from solvers.thinking import thinking_generate


# The order SUMM and SNIPPET had when they wrote their parameters out (see forwards_to).
@forwards_to(
    AlcePrompts,
    order="name variant use_shorter ndoc shot seed prompt_file system_message dataset thinking "
    "ndoc_in_demo",
)
def single_generation_solver(
    name: str,
    variant: PromptVariant,
    use_shorter: UseShorter | None,
    ndoc: int = 10,
    thinking: bool = False,
    **options: Any,
) -> Solver:
    """One generation from an ALCE prompt variant: CLOSEDBOOK, SUMM and SNIPPET.

    The prompt shows up to ``ndoc`` documents; with ``use_shorter`` each by its summary or
    snippet, walked in retrieval order, skipping those whose summary (or snippet) contains
    "irrelevant" and renumbering the survivors [1]..[k] (ALCE's ``get_shorter_text``). The
    output is checked against their full text: ``metadata["docs"]`` becomes the shown
    documents. The sample must bring the item's retrieval list in ``metadata["docs"]`` (more
    than ndoc).

    Args:
        name: The solver's name, for warnings.
        variant: The prompt file variant (``closedbook``, ``sum_or_ext``).
        use_shorter: ``summary`` (SUMM), ``extraction`` (SNIPPET) or None (full text).
        ndoc: Most documents shown (paper: 10).
        thinking: Generate with the chat template's thinking on (off by default).
        **options: ``shot``, ``seed``, ``prompt_file`` (instead of the official
            ``*_closedbook.json`` or ``*_sum_or_ext.json``), ``system_message``, ``dataset``,
            ``ndoc_in_demo``: defined and documented at
            :class:`solvers.alce_prompting.AlcePrompts`.

    """
    prompts = AlcePrompts(variant, ndoc=ndoc, use_shorter=use_shorter, **options)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        generate = thinking_generate(state, generate, thinking)
        prep = prepare(state, prompts)
        warn_small_pool(name, prep.pool, ndoc)
        state.metadata["docs"] = prep.shown
        record_evidence(state.metadata, format="alce", via="prompt")
        return await generate(state)

    return solve


@solver
@accept_cli_values("-S")
# Closed-book shows no documents.
@forwards_to(single_generation_solver, omit=("ndoc",))
def alce_closedbook(**options: Any) -> Solver:
    """CLOSEDBOOK: answer from the question alone with ALCE's closed-book prompt (ndoc 0).

    Nothing is shown, so nothing can be cited: ``metadata["docs"]`` is emptied, as ALCE's
    result files keep no documents (a stray ``[n]`` then counts as unsupported). Wrap it in
    ``alce_postcite`` to add citations afterwards, as the paper does.

    Args:
        **options: ``shot``, ``seed``, ``prompt_file``, ``system_message``, ``dataset``,
            ``thinking``: defined and documented at :func:`single_generation_solver` and
            :class:`solvers.alce_prompting.AlcePrompts`.

    """
    return single_generation_solver(
        "alce_closedbook", "closedbook", use_shorter=None, ndoc=0, **options
    )


@solver
@accept_cli_values("-S")
@forwards_to(single_generation_solver)
def alce_summ(**options: Any) -> Solver:
    """SUMM: show up to ``ndoc`` documents' ``summary`` (ALCE's ``sum_or_ext`` prompt).

    Args:
        **options: ``ndoc``, ``shot``, ``seed``, ``prompt_file``, ``system_message``,
            ``dataset``, ``thinking``: defined and documented at
            :func:`single_generation_solver` and :class:`solvers.alce_prompting.AlcePrompts`.

    """
    return single_generation_solver("alce_summ", "sum_or_ext", use_shorter="summary", **options)


@solver
@accept_cli_values("-S")
@forwards_to(single_generation_solver)
def alce_snippet(**options: Any) -> Solver:
    """SNIPPET: as SUMM with each document's ``extraction`` (a snippet) instead of a summary.

    Args:
        **options: SUMM's, defined and documented at :func:`single_generation_solver` and
            :class:`solvers.alce_prompting.AlcePrompts`.

    """
    return single_generation_solver(
        "alce_snippet", "sum_or_ext", use_shorter="extraction", **options
    )

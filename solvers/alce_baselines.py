"""ALCE's single-generation baselines besides VANILLA: CLOSEDBOOK, SUMM and SNIPPET."""

from inspect_ai.solver import Generate, Solver, TaskState, solver

from inspect_cite.alce_prompts import UseShorter
from inspect_cite.cli_values import accept_cli_values
from inspect_cite.prompts import ALCE_SYSTEM_MESSAGE
from solvers.alce_prompting import AlcePrompts, prepare, warn_small_pool
from solvers.thinking import thinking_generate


@solver
@accept_cli_values("-S")
def alce_closedbook(
    shot: int = 2,
    seed: int = 42,
    prompt_file: str | None = None,
    system_message: str | None = ALCE_SYSTEM_MESSAGE,
    dataset: str | None = None,
    thinking: bool = False,
) -> Solver:
    """CLOSEDBOOK: answer from the question alone with ALCE's closed-book prompt (ndoc 0).

    Nothing is shown, so nothing can be cited: ``metadata["docs"]`` is emptied, as ALCE's
    result files keep no documents (a stray ``[n]`` then counts as unsupported). Wrap it in
    ``alce_postcite`` to add citations afterwards, as the paper does.

    Args:
        shot: Demonstrations (paper: 2).
        seed: Seed of the demonstration draw (run.py: 42).
        prompt_file: An ALCE-format prompt file instead of the official ``*_closedbook.json``.
        system_message: System message for chat models (ALCE's); ``None`` sends none.
        dataset: ``asqa``, ``qampari`` or ``eli5``; default ``metadata["dataset"]``.
        thinking: Generate with the chat template's thinking on (off by default).

    """
    prompts = AlcePrompts("closedbook", shot=shot, seed=seed, ndoc=0, prompt_file=prompt_file)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        generate = thinking_generate(state, generate, thinking)
        prepare(state, prompts, dataset, system_message)
        state.metadata["docs"] = []
        return await generate(state)

    return solve


def _shortened(
    name: str,
    use_shorter: UseShorter,
    ndoc: int,
    shot: int,
    seed: int,
    prompt_file: str | None,
    system_message: str | None,
    dataset: str | None,
    thinking: bool,
) -> Solver:
    prompts = AlcePrompts(
        "sum_or_ext",
        shot=shot,
        seed=seed,
        ndoc=ndoc,
        use_shorter=use_shorter,
        prompt_file=prompt_file,
    )

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        generate = thinking_generate(state, generate, thinking)
        prep = prepare(state, prompts, dataset, system_message)
        warn_small_pool(name, prep.pool, ndoc)
        state.metadata["docs"] = prep.shown
        return await generate(state)

    return solve


@solver
@accept_cli_values("-S")
def alce_summ(
    ndoc: int = 10,
    shot: int = 2,
    seed: int = 42,
    prompt_file: str | None = None,
    system_message: str | None = ALCE_SYSTEM_MESSAGE,
    dataset: str | None = None,
    thinking: bool = False,
) -> Solver:
    """SUMM: show up to ``ndoc`` documents' ``summary`` (ALCE's ``sum_or_ext`` prompt).

    Documents are walked in retrieval order; those whose summary contains "irrelevant" are
    skipped and the survivors renumbered [1]..[k] (ALCE's ``get_shorter_text``). The output is
    checked against their full text: ``metadata["docs"]`` becomes the shown documents.
    The sample must bring the item's retrieval list in ``metadata["docs"]`` (more than ndoc).

    Args:
        ndoc: Most documents shown (paper: 10).
        shot: Demonstrations (paper: 2).
        seed: Seed of the demonstration draw (run.py: 42).
        prompt_file: An ALCE-format prompt file instead of the official ``*_sum_or_ext.json``.
        system_message: System message for chat models (ALCE's); ``None`` sends none.
        dataset: ``asqa``, ``qampari`` or ``eli5``; default ``metadata["dataset"]``.
        thinking: Generate with the chat template's thinking on (off by default).

    """
    return _shortened(
        "alce_summ", "summary", ndoc, shot, seed, prompt_file, system_message, dataset, thinking
    )


@solver
@accept_cli_values("-S")
# The options are alce_summ's and documented there (D417 would restate them).
def alce_snippet(  # noqa: D417
    ndoc: int = 10,
    shot: int = 2,
    seed: int = 42,
    prompt_file: str | None = None,
    system_message: str | None = ALCE_SYSTEM_MESSAGE,
    dataset: str | None = None,
    thinking: bool = False,
) -> Solver:
    """SNIPPET: as SUMM with each document's ``extraction`` (a snippet) instead of a summary.

    Its options are SUMM's, documented at :func:`alce_summ`.
    """
    return _shortened(
        "alce_snippet",
        "extraction",
        ndoc,
        shot,
        seed,
        prompt_file,
        system_message,
        dataset,
        thinking,
    )

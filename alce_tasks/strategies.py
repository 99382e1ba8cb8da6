"""ALCE's strategies: how each generates answers, and what the task prepares for it.

One row per strategy in :data:`STRATEGIES`; a new strategy is its name in :data:`Strategy`
and its row here. The FullCite tasks have their own table (``fullcite_tasks.strategies``).
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import Any, Literal

from inspect_ai.solver import Solver

from inspect_cite.alce.prompts import PromptVariant, UseShorter
from solvers import (
    alce_closedbook,
    alce_inlinesearch,
    alce_interact,
    alce_postcite,
    alce_rerank,
    alce_snippet,
    alce_summ,
    alce_vanilla,
    constrained_citations,
)
from solvers.agent import agent_citations
from solvers.alce_prompting import task_built_prompts
from solvers.native import native_citations

Strategy = Literal[
    "vanilla",
    "closedbook",
    "summ",
    "snippet",
    "oracle",
    "rerank",
    "postcite",
    "interact",
    "inlinesearch",
    "prompt",
    "constrained",
    "posthoc",
    "native",
    "agent",
]
"""The names of :data:`STRATEGIES` (its docstring says what each means)."""


@dataclass(frozen=True)
class StrategySettings:
    """The task parameters a strategy's solver is built with."""

    ndoc: int
    shot: int
    seed: int
    nli: str
    prompt_file: str | None
    retrieval_model: str
    thinking: bool
    use_shorter: UseShorter | None
    ndoc_in_demo: int | None
    retrieve_in_all_docs: bool
    force_cite_show: bool
    system_message: str | None

    @classmethod
    def pick(cls, parameters: Mapping[str, Any]) -> "StrategySettings":
        """The settings, taken by name from the task's parameters.

        Args:
            parameters: The task's parameters by name (others are ignored).

        """
        return cls(**{field.name: parameters[field.name] for field in fields(cls)})


@dataclass(frozen=True)
class AlceStrategy:
    """How one ALCE strategy generates answers, and what the task prepares for it.

    Attributes:
        solver: Builds the strategy's solver from the task's settings.
        ndoc: Documents shown per question by default (the paper's settings for ChatGPT).
        prompt: The prompt file variant the solver reads itself, lazily, once it knows the
            dataset (the task fetches it before the run); None: the solver sends the task's.
        task_prompt: Whether the task builds the sample's prompt (`prompt`'s variant with
            `ndoc` documents, the sample input). When False the solver builds its own prompt
            from the question and documents, so the task does not build one (the sample input
            is the question): each sample's prompt is built once.
        pool: Whether the solver chooses among the item's whole retrieval list itself: the
            sample carries every retrieved document in ``metadata["docs"]``.
        retrieval: Whether the solver retrieves documents with `retrieval_model`.
        oracle: Whether the strategy reads ALCE's reranked oracle file.
        run_py: run.py's mode of generation, when the strategy is one (it can then send
            run.py's raw prompts, `chat=false`): ``plain``, ``doc_id`` or ``search``
            (INTERACT's and INLINESEARCH's interactive queries).

    """

    solver: Callable[[StrategySettings], Solver]
    ndoc: int = 5
    prompt: PromptVariant | None = None
    task_prompt: bool = True
    pool: bool = False
    retrieval: bool = False
    oracle: bool = False
    run_py: Literal["plain", "doc_id", "search"] | None = "plain"


def _vanilla(s: StrategySettings) -> Solver:
    return alce_vanilla(system_message=s.system_message, thinking=s.thinking)


def _prompts(s: StrategySettings) -> dict[str, Any]:
    # The prompt options of the solvers that build their own ALCE prompt.
    return {
        "shot": s.shot,
        "seed": s.seed,
        "prompt_file": s.prompt_file,
        "system_message": s.system_message,
        "ndoc_in_demo": s.ndoc_in_demo,
        "thinking": s.thinking,
    }


def _selecting(factory: Callable[..., Solver]) -> Callable[[StrategySettings], Solver]:
    # SUMM and SNIPPET select up to ndoc documents from the pool with their prompt.
    return lambda s: factory(ndoc=s.ndoc, **_prompts(s))


def _interact(s: StrategySettings) -> Solver:
    return alce_interact(
        ndoc=s.ndoc, use_shorter=s.use_shorter, force_cite_show=s.force_cite_show, **_prompts(s)
    )


def _inlinesearch(s: StrategySettings) -> Solver:
    return alce_inlinesearch(
        ndoc=s.ndoc,
        use_shorter=s.use_shorter,
        retrieve_in_all_docs=s.retrieve_in_all_docs,
        force_cite_show=s.force_cite_show,
        retriever=s.retrieval_model,
        **_prompts(s),
    )


def _own_prompt(
    solver: Callable[[StrategySettings], Solver], prompt: PromptVariant, **row: Any
) -> AlceStrategy:
    # A solver that builds its own prompt from the question and its pool of documents.
    return AlceStrategy(solver, prompt=prompt, task_prompt=False, pool=True, **row)


STRATEGIES: dict[Strategy, AlceStrategy] = {
    "vanilla": AlceStrategy(_vanilla),
    "closedbook": AlceStrategy(
        lambda s: alce_closedbook(**_prompts(s)),
        ndoc=0,
        prompt="closedbook",
        task_prompt=False,
    ),
    "summ": _own_prompt(_selecting(alce_summ), "sum_or_ext", ndoc=10),
    "snippet": _own_prompt(_selecting(alce_snippet), "sum_or_ext", ndoc=10),
    "oracle": AlceStrategy(_vanilla, oracle=True),
    "rerank": AlceStrategy(
        lambda s: alce_rerank(n=4, nli=s.nli, system_message=s.system_message, thinking=s.thinking),
        run_py=None,
    ),
    "postcite": _own_prompt(
        # CLOSEDBOOK with the task's prompt options, then POSTCITE.
        lambda s: alce_postcite(
            base=alce_closedbook(**_prompts(s)),
            retriever=s.retrieval_model,
            thinking=s.thinking,
        ),
        "closedbook",
        ndoc=0,
        retrieval=True,
        run_py=None,
    ),
    "interact": _own_prompt(_interact, "interact_doc_id", ndoc=10, run_py="doc_id"),
    "inlinesearch": _own_prompt(
        _inlinesearch, "interact_search", ndoc=0, retrieval=True, run_py="search"
    ),
    "prompt": AlceStrategy(_vanilla),
    "constrained": AlceStrategy(
        lambda s: constrained_citations(format="alce", thinking=s.thinking), run_py=None
    ),
    "posthoc": AlceStrategy(
        lambda s: alce_postcite(base="vanilla", retriever=s.retrieval_model, thinking=s.thinking),
        retrieval=True,
        run_py=None,
    ),
    # The solver sends the shown documents as documents (no demonstrations): its own prompt.
    "native": AlceStrategy(
        lambda s: native_citations(format="alce", thinking=s.thinking),
        task_prompt=False,
        run_py=None,
    ),
    # The tools search the item's whole retrieval list.
    "agent": AlceStrategy(
        lambda s: agent_citations(format="alce", thinking=s.thinking),
        task_prompt=False,
        pool=True,
        run_py=None,
    ),
}
"""ALCE's strategies, one row each: the one place the task reads a strategy's needs from.

ALCE's baselines (paper, Section 4) plus the FullCite strategy names: `prompt` = VANILLA,
`constrained` = VANILLA's prompt under a ``[1]``..``[ndoc]`` grammar, and `posthoc` = ALCE's
POSTCITE after VANILLA (each uncited statement cited with its most similar shown document).
`native` sends the shown documents as documents and writes the provider's own citations as
``[n]``; `agent` shows none and gives the model ``search``/``read`` tools over the item's
retrieval list (docs/native.md).
On the FullCite tasks `posthoc` names another solver: FullCite's Jaccard alignment of
snippets (``fullcite_tasks.strategies``).
"""


def strategy_solver(strategy: Strategy, settings: StrategySettings) -> Solver:
    """The solver that implements a strategy, with the task's settings."""
    # The task builds (and has checked) each sample's prompt: the solver reads no file for it.
    with task_built_prompts():
        return STRATEGIES[strategy].solver(settings)

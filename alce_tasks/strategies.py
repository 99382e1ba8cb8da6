"""ALCE's strategies: how each generates answers, and what the task prepares for it.

One row per strategy in :data:`STRATEGIES`; a new strategy is its name in :data:`Strategy`
and its row here. The FullCite tasks have their own table (``fullcite_tasks.strategies``).
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import Any, Literal

from inspect_ai.solver import Solver

from inspect_cite.alce.prompts import PromptVariant, UseShorter
from inspect_cite.benchmarks.alce import AlceDatasetName
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
from solvers.alce_interactive import INTERACT_USE_SHORTER
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
        use_shorter: What the strategy shows of each document, when it fixes that (SUMM:
            summaries, SNIPPET: extractions).

    """

    solver: Callable[[StrategySettings], Solver]
    ndoc: int = 5
    prompt: PromptVariant | None = None
    task_prompt: bool = True
    pool: bool = False
    retrieval: bool = False
    oracle: bool = False
    run_py: Literal["plain", "doc_id", "search"] | None = "plain"
    use_shorter: UseShorter | None = None

    def resolve_use_shorter(
        self,
        strategy: str,
        dataset: AlceDatasetName,
        use_shorter: UseShorter | None,
        ndoc: int,
    ) -> tuple[UseShorter | None, str | None]:
        """The ``use_shorter`` the strategy shows its documents with, and why it is refused.

        SUMM and SNIPPET fix it (:attr:`use_shorter`); INTERACT defaults to the paper's
        pairing per dataset; INLINESEARCH shows summaries only of the documents in its
        prompt; the closed-book strategies show none. For the others the task's prompt
        decides.

        Returns:
            The value, and a one-line refusal of a ``use_shorter`` the strategy would not use
            (else None).

        """
        fixed = self.use_shorter
        if fixed is not None:
            if use_shorter not in (None, fixed):
                other = "snippet" if strategy == "summ" else "summ"
                return None, (
                    f"-T use_shorter={use_shorter}: strategy={strategy} shows each document's "
                    f"{fixed}; use strategy={other}"
                )
            return fixed, None
        if self.run_py == "doc_id":
            return use_shorter or INTERACT_USE_SHORTER[dataset], None
        if use_shorter is not None and (self.prompt == "closedbook" or ndoc == 0):
            return None, (
                f"-T use_shorter={use_shorter}: strategy={strategy} with ndoc={ndoc} shows no "
                "documents in the prompt"
            )
        return use_shorter, None

    def options_problem(self, strategy: str, options: Any) -> str | None:
        """Why the strategy would not use a value of the task's options (one line), or None.

        Args:
            strategy: The strategy's name.
            options: The task's options (``alce_tasks.options.AlceOptions``).

        The values refused: a prompt variant or document count the strategy's solver does
        not read, run.py's interactive options outside its interactive modes, demonstration
        documents without documents to show, ``max_length`` in chat mode, ``chat=false`` with
        a strategy run.py does not have or with thinking.

        """
        o = options
        closed_book = self.prompt == "closedbook"
        if self.prompt is not None and o.prompt not in ("default", self.prompt):
            return (
                f"-T prompt={o.prompt}: strategy={strategy} reads ALCE's {self.prompt} prompt "
                "(-T prompt_file=FILE for your own)"
            )
        if closed_book and o.ndoc not in (None, 0):
            return f"-T ndoc={o.ndoc}: strategy={strategy} shows no documents"
        if o.no_doc_in_demo and o.ndoc_in_demo is not None:
            return f"-T ndoc_in_demo={o.ndoc_in_demo}: -T no_doc_in_demo=true already shows none"
        if (o.no_doc_in_demo or o.ndoc_in_demo is not None) and (
            closed_book or o.prompt == "closedbook"
        ):
            flag = "no_doc_in_demo=true" if o.no_doc_in_demo else f"ndoc_in_demo={o.ndoc_in_demo}"
            return f"-T {flag}: the closed-book prompt shows no documents"
        if o.retrieve_in_all_docs and self.run_py != "search":
            return (
                f"-T retrieve_in_all_docs=true: only strategy=inlinesearch searches, not {strategy}"
            )
        if o.force_cite_show and self.run_py not in ("doc_id", "search"):
            return (
                "-T force_cite_show=true: only the interactive strategies (interact, "
                f"inlinesearch) show documents after the prompt, not {strategy}"
            )
        if o.chat:
            if o.max_length is not None:
                return (
                    f"-T max_length={o.max_length}: caps raw-prompt generation only (-T chat=false)"
                )
            return None
        if self.run_py is None:
            return (
                f"-T chat=false: sends run.py's raw prompts, and strategy={strategy} is not one "
                "of run.py's modes (vanilla, oracle, closedbook, summ, snippet, interact, "
                "inlinesearch)"
            )
        if o.thinking:
            return "-T thinking=true: a raw prompt (-T chat=false) has no chat template to think in"
        return None


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
    "summ": _own_prompt(_selecting(alce_summ), "sum_or_ext", ndoc=10, use_shorter="summary"),
    "snippet": _own_prompt(
        _selecting(alce_snippet), "sum_or_ext", ndoc=10, use_shorter="extraction"
    ),
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

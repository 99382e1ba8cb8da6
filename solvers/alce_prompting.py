"""What ALCE's baseline solvers share: building the prompt, choosing documents, sampling.

The ALCE tasks put the item's question, documents and dataset in the sample's metadata, and
VANILLA's prompt in ``metadata["alce_prompt"]`` only for the strategies that send it; the input is
the question (TRUST-SCORE's and HELMET's samples still carry their prompt as the input). A baseline
needs another prompt (closed-book, summaries, interactive) and sometimes other documents, so it
builds its prompt from the metadata with its own settings (ALCE's defaults), replacing whatever the
input held. ``metadata["docs"]`` is read as the pool of retrieved documents the sample comes with,
and each solver leaves there the documents its output's ``[n]`` refer to, renumbered ``"1".."k"`` in
prompt order, so citation scorers check the right passages (always the full text, even when the
prompt showed summaries).

A task of one's own has the question as the input and the documents in ``metadata["docs"]``:
VANILLA, RERANK and ``constrained_citations`` give it VANILLA's prompt (:func:`use_alce_prompt`),
and a sample naming no dataset gets ASQA's prompts.
"""

import logging
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, cast, get_args

from inspect_ai.model import ChatMessageUser, ModelOutput
from inspect_ai.solver import Generate, TaskState

from inspect_cite.alce.prompts import (
    ALCE_SYSTEM_MESSAGE,
    TASK_PROMPT_KEY,
    AlceDatasetName,
    AlcePromptBuilder,
    PromptVariant,
    UseShorter,
    check_counts,
    check_dataset_argument,
    load_prompt_file,
)
from inspect_cite.evidence.documents import get_docs
from inspect_cite.generation.messages import add_system_message, system_messages
from inspect_cite.generation.thinking import mark_think_opened

logger = logging.getLogger(__name__)


DEFAULT_DATASET: AlceDatasetName = "asqa"
"""Whose ALCE prompts a sample gets when neither ``dataset=`` nor ``metadata["dataset"]`` names
one (a task of one's own): ASQA's, long-form answers citing ``[n]``."""

VANILLA_NDOC = 5
"""Documents each VANILLA demonstration shows (ALCE's setting for ChatGPT)."""


def sample_dataset(state: TaskState, dataset: str | None = None) -> AlceDatasetName:
    """The ALCE dataset of a sample: ``dataset`` if given, else ``metadata["dataset"]``, else ASQA.

    Raises:
        ValueError: When the name given is not asqa, qampari or eli5.

    """
    name = dataset or (state.metadata or {}).get("dataset") or DEFAULT_DATASET
    if name not in get_args(AlceDatasetName):
        raise ValueError(
            f"sample {state.sample_id}: ALCE solvers need dataset= or metadata['dataset'] in "
            f"{list(get_args(AlceDatasetName))}, got {name!r}"
        )
    return cast(AlceDatasetName, name)


def sample_question(state: TaskState) -> str:
    """The question ALCE prompts are built around: ``metadata["question"]``, else the input."""
    question = (state.metadata or {}).get("question")
    if isinstance(question, str):
        return question
    if state.input_text.strip():
        return state.input_text.strip()
    raise ValueError(f'sample {state.sample_id}: ALCE solvers need metadata["question"]')


def task_prompt(state: TaskState) -> str | None:
    """The prompt the sample's task built for it (``metadata["alce_prompt"]``), if any."""
    prompt = (state.metadata or {}).get(TASK_PROMPT_KEY)
    return prompt if isinstance(prompt, str) else None


def input_is_prompt(state: TaskState) -> bool:
    """Whether the sample's input is a prompt built around its question (the ALCE tasks').

    The ALCE tasks put VANILLA's prompt (demonstrations, documents, question) in the input and
    the question in ``metadata["question"]``. A sample of one's own task has its question as
    the input (with or without ``metadata["question"]``) and its documents in
    ``metadata["docs"]`` only.
    """
    question = (state.metadata or {}).get("question")
    return isinstance(question, str) and state.input_text.strip() != question.strip()


def pool_docs(state: TaskState) -> list[dict[str, Any]]:
    """The documents the sample came with (validated copies), in retrieval order."""
    docs = get_docs(state.metadata, where=f"sample {state.sample_id}")
    return [dict(doc) for doc in docs]


def renumber(docs: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Documents with ids ``"1".."k"`` in the given order (other fields kept)."""
    return [{**doc, "id": str(i + 1)} for i, doc in enumerate(docs)]


class AlcePrompts:
    """ALCE prompt construction for one solver, with one builder per dataset.

    The prompt options every ALCE baseline solver shares are defined and documented here, once:
    the solvers take them from this signature (:func:`inspect_cite.options.forwarding.forwards_to`).

    Args:
        variant: Prompt file variant (``closedbook``, ``sum_or_ext``, ``interact_doc_id``...).
        ndoc: Documents shown per question and per demonstration.
        use_shorter: Show documents' ``summary`` or ``extraction`` instead of their text.
        shot: Demonstrations (paper: 2), drawn from the prompt file as run.py does
            (``np.random.seed(seed)``).
        seed: Seed of the demonstration draw (run.py: 42).
        prompt_file: An ALCE-format prompt file instead of the official one for the variant.
        system_message: System message for chat models (ALCE's); ``None`` sends none.
        dataset: ``asqa``, ``qampari`` or ``eli5``; default ``metadata["dataset"]``.
        ndoc_in_demo: Documents shown per demonstration; default ``ndoc`` (run.py's
            ``--fewer_doc_in_demo --ndoc_in_demo N``; 0 is its ``--no_doc_in_demo``).

    """

    def __init__(
        self,
        variant: PromptVariant,
        *,
        ndoc: int,
        use_shorter: UseShorter | None = None,
        shot: int = 2,
        seed: int = 42,
        prompt_file: str | None = None,
        system_message: str | None = ALCE_SYSTEM_MESSAGE,
        dataset: str | None = None,
        ndoc_in_demo: int | None = None,
    ) -> None:
        # Now, not when the first sample builds its prompt.
        check_counts(shot=shot, ndoc=ndoc, ndoc_in_demo=ndoc_in_demo)
        check_dataset_argument(dataset, who="ALCE solvers")
        self.variant = variant
        self.shot, self.seed, self.ndoc = shot, seed, ndoc
        self.use_shorter = use_shorter
        self.prompt_file = prompt_file
        self.system_message = system_message
        self.dataset = dataset
        self.ndoc_in_demo = ndoc_in_demo
        self._builders: dict[tuple[str, str | None], AlcePromptBuilder] = {}

    def builder(
        self, dataset: AlceDatasetName, use_shorter: UseShorter | None
    ) -> AlcePromptBuilder:
        """The prompt builder for a dataset (prompt file loaded once)."""
        key = (dataset, use_shorter)
        if key not in self._builders:
            self._builders[key] = AlcePromptBuilder(
                # The demonstrations `shot` draws are checked with the file's fields: every
                # problem of the file in one message.
                load_prompt_file(
                    dataset,
                    self.variant,
                    prompt_file=self.prompt_file,
                    flag="-S prompt_file",
                    shot=self.shot,
                ),
                shot=self.shot,
                ndoc=self.ndoc,
                seed=self.seed,
                use_shorter=use_shorter,
                ndoc_in_demo=self.ndoc_in_demo,
            )
        return self._builders[key]

    def build(
        self,
        dataset: AlceDatasetName,
        question: str,
        pool: list[dict[str, Any]],
        use_shorter: UseShorter | None = None,
    ) -> tuple[str, list[dict[str, Any]]]:
        """The prompt for a question and the documents it shows (renumbered, full text)."""
        builder = self.builder(dataset, use_shorter or self.use_shorter)
        item = {"question": question, "docs": pool}
        return builder.build(item), renumber(builder.docs(item))


_warned: set[str] = set()


def warn_small_pool(solver_name: str, pool: Sequence[Any], ndoc: int) -> None:
    """Warn once when a sample brings no more documents than a solver selects from.

    SUMM/SNIPPET/INTERACT skip documents judged irrelevant and INLINESEARCH/POSTCITE search
    all retrieved documents, so they need the item's whole retrieval list, not the top ndoc.
    """
    # A solver that shows no documents (CLOSEDBOOK) needs none.
    if ndoc > 0 and len(pool) <= ndoc and solver_name not in _warned:
        _warned.add(solver_name)
        logger.warning(
            f"{solver_name}: a sample has only {len(pool)} documents in metadata['docs'] "
            f"(ndoc={ndoc}); ALCE selects from the item's full retrieval list. Run the task "
            "with its strategy parameter (or enough documents) to reproduce ALCE."
        )


@dataclass
class Prepared:
    """A sample's ALCE setting after ``prepare``: what the baseline generates from."""

    dataset: AlceDatasetName
    question: str
    pool: list[dict[str, Any]]
    prompt: str
    shown: list[dict[str, Any]]
    doc_prompt: str


def prepare(
    state: TaskState,
    prompts: AlcePrompts,
    use_shorter: UseShorter | Mapping[str, UseShorter] | None = None,
) -> Prepared:
    """Rebuild a sample's prompt with ``prompts`` and make it the conversation.

    Args:
        state: The sample.
        prompts: The solver's prompt construction (with its dataset and system message).
        use_shorter: Overrides the prompts' ``use_shorter``, per dataset when a mapping.

    """
    ds = sample_dataset(state, prompts.dataset)
    question = sample_question(state)
    pool = pool_docs(state)
    shorter = use_shorter.get(ds) if isinstance(use_shorter, Mapping) else use_shorter
    prompt, shown = prompts.build(ds, question, pool, use_shorter=shorter)
    doc_prompt = prompts.builder(ds, shorter or prompts.use_shorter).prompt_file.doc_prompt
    set_prompt(state, prompt, prompts.system_message)
    return Prepared(ds, question, pool, prompt, shown, doc_prompt)


def set_prompt(state: TaskState, prompt: str, system_message: str | None) -> None:
    """Replace the conversation with ``prompt`` as the user message, after a system message.

    An existing system message is kept; otherwise ``system_message`` (ALCE's for chat models)
    is added when given.
    """
    state.messages = [
        *system_messages(state.messages, system_message),
        ChatMessageUser(content=prompt),
    ]


def use_alce_prompt(state: TaskState, prompts: AlcePrompts) -> None:
    """Make the conversation the sample's ALCE prompt, with its documents in it.

    A prompt the sample's task built (:func:`task_prompt`, the ALCE tasks') replaces the input, its
    question; a sample whose input is its prompt (:func:`input_is_prompt`, as TRUST-SCORE's and
    HELMET's) is sent as it is; either after the system message. Any other sample gets VANILLA's
    prompt from ``prompts`` (the dataset's prompt file, its demonstrations with :data:`VANILLA_NDOC`
    documents each) around its question and every document in ``metadata["docs"]``, in order, as
    ``Document [1]``..; ``metadata["docs"]`` then holds them numbered as shown, each original id
    kept as ``passage_id``.

    Raises:
        DocumentError: When the sample has no valid ``metadata["docs"]``.

    """
    built = task_prompt(state)
    if built is not None:
        set_prompt(state, built, prompts.system_message)
        return
    if input_is_prompt(state):
        add_system_message(state.messages, prompts.system_message)
        return
    ds = sample_dataset(state, prompts.dataset)
    pool = pool_docs(state)
    builder = prompts.builder(ds, None)
    prompt = builder.build({"question": sample_question(state), "docs": pool}, ndoc=len(pool))
    set_prompt(state, prompt, prompts.system_message)
    state.metadata["docs"] = [
        {"passage_id": doc["id"], **doc, "id": str(i + 1)} for i, doc in enumerate(pool)
    ]


def vanilla_prompts(
    system_message: str | None, dataset: str | None = None, prompt_file: str | None = None
) -> AlcePrompts:
    """VANILLA's prompt construction with ALCE's defaults, for a sample of one's own task.

    Args:
        system_message: The system message for chat models; ``None`` sends none.
        dataset: Whose prompt file a sample gets; default ``metadata["dataset"]``, else ASQA.
        prompt_file: An ALCE-format prompt file (``-S prompt_file``) instead of the dataset's
            official one, for every sample.

    """
    return AlcePrompts(
        "default",
        ndoc=VANILLA_NDOC,
        system_message=system_message,
        dataset=dataset,
        prompt_file=prompt_file,
    )


# Set while a task builds its strategy's solver: its samples carry the prompt it built.
_TASK_BUILT_PROMPTS: ContextVar[bool] = ContextVar("task_built_prompts", default=False)


@contextmanager
def task_built_prompts() -> Iterator[None]:
    """Solvers built in this block send the prompt their task put in each sample.

    The ALCE tasks build every sample's prompt themselves (and check its file first), so the
    VANILLA prompt files :func:`check_vanilla_prompts` would check are never read.
    """
    token = _TASK_BUILT_PROMPTS.set(True)
    try:
        yield
    finally:
        _TASK_BUILT_PROMPTS.reset(token)


def check_vanilla_prompts(prompts: AlcePrompts) -> None:
    """Read and check, now, the prompt file a sample of one's own task will be given.

    Called when a solver is built, so that a missing, unobtainable or malformed file stops the
    run in one message before the first generation instead of failing every sample: the
    ``-S prompt_file`` given, else the official file of the solver's ``dataset`` (ASQA's when
    not given; a sample naming another dataset in ``metadata["dataset"]`` has that file read
    when its prompt is first built). Nothing is read for a task that builds its samples'
    prompts itself (:func:`task_built_prompts`).

    Raises:
        PromptFileError: Naming the file, every problem, and ``-S prompt_file``.

    """
    if _TASK_BUILT_PROMPTS.get():
        return
    dataset = cast(AlceDatasetName, prompts.dataset or DEFAULT_DATASET)
    prompts.builder(dataset, None)


def set_output(state: TaskState, text: str) -> TaskState:
    """Make ``text``, an answer (no reasoning), the sample's final output.

    The token usage of the last generation is kept.
    """
    usage = state.output.usage if state.output else None
    state.output = ModelOutput.from_content(model=str(state.model), content=text)
    state.output.usage = usage
    mark_think_opened(state.output, False)
    return state


async def sample_outputs(state: TaskState, generate: Generate, n: int) -> list[ModelOutput]:
    """``n`` independent generations from the current conversation (RERANK's candidates).

    Each generation's assistant message is removed again, so the conversation ends as it
    began; the caller picks one and records it (``state.output`` and a final message).
    """
    start = len(state.messages)
    outputs = []
    for _ in range(n):
        state = await generate(state, tool_calls="none")
        outputs.append(state.output)
        del state.messages[start:]
    return outputs

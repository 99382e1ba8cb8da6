"""POSTCITE: cite every uncited statement with its most similar document (post_hoc_cite.py)."""

from collections.abc import Callable
from typing import Literal

import anyio.to_thread
from inspect_ai.log import transcript
from inspect_ai.solver import Generate, Solver, TaskState, solver

from inspect_cite.alce.prompts import check_dataset_argument
from inspect_cite.checks.errors import ArgumentError
from inspect_cite.citations.alce import (
    alce_postprocess,
    marker_refs,
    remove_citations,
    render_marker,
)
from inspect_cite.evidence.documents import get_docs
from inspect_cite.evidence.record import record_evidence
from inspect_cite.generation.thinking import (
    NO_ANSWER_THINKING,
    ended_while_thinking,
    think_opened_by_prompt,
)
from inspect_cite.models.retrieval import GTR_RETRIEVER, check_retriever, get_retriever
from inspect_cite.options.cli_values import accept_cli_values
from inspect_cite.text.sentences import sent_tokenize
from solvers.alce import alce_vanilla
from solvers.alce_baselines import alce_closedbook, alce_snippet, alce_summ
from solvers.alce_prompting import (
    pool_docs,
    renumber,
    sample_dataset,
    sample_question,
    set_output,
    warn_small_pool,
)

PostciteBase = Literal["closedbook", "vanilla", "summ", "snippet", "none"]

_BASES: dict[str, Callable[..., Solver]] = {
    "closedbook": alce_closedbook,
    "vanilla": alce_vanilla,
    "summ": alce_summ,
    "snippet": alce_snippet,
}


def post_hoc_cite(
    output: str,
    question: str,
    search: Callable[[str], int],
    qampari: bool,
    overwrite: bool = False,
) -> str:
    """Add a citation to each uncited statement, exactly as ALCE's ``post_hoc_cite.py``.

    Statements are ``nltk.sent_tokenize`` sentences, or for QAMPARI ``question + " " +
    entity`` for each comma-separated entity (after right-stripping "."). A statement with no
    ``[n`` marker (every statement with ``overwrite``) loses its markers and gains ``"[k] "``
    in front, ``k`` being the 1-based index that ``search`` returns for the citation-free
    statement; QAMPARI entities are then put back without the question, joined by ", ".
    ALCE's quirks are kept: the whole output is used (not its first line), the citation goes
    before the sentence, and a QAMPARI entity keeps a double space after its new citation.

    Args:
        output: The generation after run.py's cleanup.
        question: The item's question (QAMPARI statements are prefixed with it).
        search: Maps a statement to the index of its best document.
        qampari: Whether to treat the output as QAMPARI's comma-separated list.
        overwrite: Replace existing citations too (post_hoc_cite.py's ``--overwrite``).

    """
    output = output.replace("<|im_end|>", "")
    if qampari:
        sents = [question + " " + x.strip() for x in output.rstrip(".").split(",")]
    else:
        sents = sent_tokenize(output)
    new_output = ""
    for sent in sents:
        if not marker_refs(sent) or overwrite:
            sent = remove_citations(sent)
            sent = f"{render_marker(search(sent) + 1)} {sent}"
        if qampari:
            new_output += sent.replace(question, "").strip() + ", "
        else:
            new_output += sent + " "
    return new_output.rstrip().rstrip(",")


@solver
@accept_cli_values("-S")
def alce_postcite(
    base: PostciteBase | Solver = "closedbook",
    retriever: str = GTR_RETRIEVER,
    overwrite: bool = False,
    external_docs: bool | None = None,
    device: str | None = None,
    dataset: str | None = None,
    thinking: bool = False,
) -> Solver:
    """POSTCITE: run a base solver, then cite each uncited statement by dense retrieval.

    Every sentence (QAMPARI: every comma-separated entity) without a citation gets ``[k]``
    for the document most similar to it under a sentence-transformers retriever (ALCE: GTR-large
    on ``title. text``). Which documents: those the base left in ``metadata["docs"]`` (the ones
    its citations refer to), or, when it left none (CLOSEDBOOK), the documents the sample came
    with, which ALCE passes as ``--external_docs`` (the item's whole retrieval list: have the
    task provide it). ``metadata["docs"]`` then holds the documents searched, renumbered.

    Args:
        base: The generating solver: ``closedbook`` (the paper's CLOSEDBOOK+POSTCITE),
            ``vanilla``, ``summ``, ``snippet`` (each with its defaults), ``none`` to cite the
            output already in the state, or a Solver.
        retriever: sentence-transformers model id or local directory.
        overwrite: Re-cite statements that already have citations (``--overwrite``).
        external_docs: Search the sample's original documents (True) or the base's shown
            documents (False); default: the original ones only when the base shows none.
        device: Torch device for the retriever; default CUDA when available.
        dataset: ``asqa``, ``qampari`` or ``eli5``; default ``metadata["dataset"]``.
        thinking: The named base solvers generate with the chat template's thinking on (off
            by default). An output that ended inside thinking is left uncited: it has no answer.

    """
    # The arguments first: a typo is refused before the retriever is looked for.
    if isinstance(base, str) and base != "none" and base not in _BASES:
        raise ArgumentError(f"alce_postcite: base must be one of {[*_BASES, 'none']}, got {base}")
    check_dataset_argument(dataset, who="alce_postcite")
    check_retriever(retriever, flag="-S retriever")
    if isinstance(base, str):
        base_solver = None if base == "none" else _BASES[base](thinking=thinking)
    else:
        base_solver = base

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        ds = sample_dataset(state, dataset)
        question = sample_question(state)
        pool = pool_docs(state)
        if base_solver is not None:
            state = await base_solver(state, generate)
        if ended_while_thinking(state.output):
            transcript().info(f"POSTCITE: nothing to cite ({NO_ANSWER_THINKING}).")
            return state
        shown = [dict(d) for d in get_docs(state.metadata, where=f"sample {state.sample_id}")]
        use_pool = external_docs if external_docs is not None else not shown
        docs = pool if use_pool else shown
        if use_pool:
            warn_small_pool("alce_postcite", pool, 5)
        output = alce_postprocess(
            state.output.completion, prompt_opened=think_opened_by_prompt(state.output)
        )
        if not docs:
            transcript().info("POSTCITE: no documents to cite from; output left as it is.")
            return state

        def cite() -> str:
            searcher = get_retriever(retriever, device).searcher(docs)
            return post_hoc_cite(output, question, searcher.search, ds == "qampari", overwrite)

        cited = await anyio.to_thread.run_sync(cite)
        state.metadata["docs"] = renumber(docs)
        # The base showed its documents; those searched from the sample's own (CLOSEDBOOK's
        # case) were cited by this solver, as ALCE's post_hoc_cite.py cites them.
        record_evidence(state.metadata, format="alce", via="posthoc" if use_pool else "prompt")
        set_output(state, cited)
        transcript().info(
            f"**POSTCITE** ({retriever}, {len(docs)} documents)\n\n"
            f"Before: {output or '*(empty)*'}\n\nAfter: {cited or '*(empty)*'}"
        )
        return state

    return solve

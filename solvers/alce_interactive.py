"""INTERACT and INLINESEARCH: ALCE's multi-turn baselines (run.py's interactive loop).

The model writes one line per turn (generation stops at a newline):

- ``Check: Document [1][2]`` (INTERACT) or ``Search: query`` (INLINESEARCH) shows documents'
  full text for one turn, followed by ``Output:``, which forces the next line to be output;
- ``Output: sentence`` adds a sentence to the answer;
- ``End`` stops; so do an abstention ("sorry ... relevant document/information", "none of the
  documents"), any other line, and the turn limit.

With thinking on, a turn is not stopped at a newline (that would end it inside ``<think>``):
its line is the first line after the think block. A turn that ends inside thinking stops the
loop and stays the sample's output, so that scorers report it as no answer.

Each turn the model sees the whole prompt so far as one user message (after ALCE's system
message): the original prompt, every earlier line, and the documents shown for this turn
only. For the log viewer the conversation is kept as one user/assistant pair per turn: the
user message holds what was added to the model's context for that turn (the prompt, the
documents shown, or "(continue)"), the assistant message the line as it entered the prompt;
each turn's exact input is in its model event.
"""

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import anyio.to_thread
from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageUser
from inspect_ai.solver import Generate, Solver, TaskState, solver

from inspect_cite.alce.prompts import UseShorter, make_doc_prompt
from inspect_cite.citations.alce import (
    alce_postprocess,
    marker_refs,
    remove_citations,
    render_marker,
)
from inspect_cite.evidence.record import SeenVia, record_evidence
from inspect_cite.generation.messages import system_messages
from inspect_cite.generation.thinking import ended_while_thinking, split_output
from inspect_cite.models.retrieval import GTR_RETRIEVER, check_retriever, get_retriever
from inspect_cite.options.cli_values import accept_cli_values
from inspect_cite.options.forwarding import forwards_to
from inspect_cite.text.sentences import sent_tokenize
from solvers.alce_prompting import (
    AlcePrompts,
    Prepared,
    prepare,
    renumber,
    set_output,
    warn_small_pool,
)
from solvers.thinking import thinking_generate

MAX_TURN = 10
MAX_DOC_SHOW = 3
TURN_STOP_SEQS = ["\n", "\n\n"]
CONTINUE_NOTE = "(continue)"

# ALCE pairs INTERACT with SUMM on ASQA and with SNIPPET on QAMPARI and ELI5 (paper, Tables 4-6).
INTERACT_USE_SHORTER: dict[str, UseShorter] = {
    "asqa": "summary",
    "qampari": "extraction",
    "eli5": "extraction",
}


def turn_action(output: str) -> str:
    """What a turn's line asks for: ``end``, ``abstain``, ``check``, ``output`` or ``other``.

    Tested in run.py's order: a line starting with "end", then an abstention, then "check" or
    "search", then "output" (all case-insensitive, after stripping).
    """
    head = output.strip().lower()
    low = output.lower()
    if head[:3] == "end":
        return "end"
    if ("sorry" in low and ("relevant document" in low or "relevant information" in low)) or (
        "none of the documents" in low
    ):
        return "abstain"
    if head[:5] == "check" or head[:6] == "search":
        return "check"
    if head[:6] == "output":
        return "output"
    return "other"


def checked_doc_ids(output: str, n_docs: int, max_doc_show: int = MAX_DOC_SHOW) -> list[int]:
    """0-based documents a ``Check:`` line names: in-range ``[n`` markers, the first few."""
    return [r for r in marker_refs(output) if r is not None and 0 <= r < n_docs][:max_doc_show]


def search_query(output: str) -> str:
    """The query of a ``Search:`` line (run.py removes "Search:"/"search:" anywhere)."""
    return output.replace("Search:", "").replace("search:", "").strip()


def output_statement(output: str) -> str:
    """The answer text of an ``Output:`` line."""
    return output.strip().replace("Output:", "").strip()


def force_cite(statement: str, shown: Sequence[int], qampari: bool) -> str:
    """run.py's ``force_cite_show``: cite the documents shown last on every sentence/entity.

    The statement's own citations are removed; ``[i]...`` (1-based) goes before each sentence
    (joined by spaces, then "." appended) or, for QAMPARI, each comma-separated entity (joined
    by ", ", with a trailing ", ").
    """
    statement = remove_citations(statement)
    cites = "".join(render_marker(d + 1) for d in shown)
    if qampari:
        entities = statement.rstrip().rstrip(",").split(",")
        return ", ".join(cites + " " + e.strip() for e in entities) + ", "
    return " ".join(cites + " " + s for s in sent_tokenize(statement)) + "."


FindDocs = Callable[[str], Awaitable[list[int]]]


async def interactive_answer(
    state: TaskState,
    generate: Generate,
    prompt: str,
    doc_list: Sequence[dict[str, Any]],
    doc_prompt: str,
    find_docs: FindDocs,
    qampari: bool,
    max_turn: int = MAX_TURN,
    force_cite_show: bool = False,
    thinking: bool = False,
) -> str:
    """Run ALCE's interactive loop from ``prompt`` and return the final answer.

    ``state.messages`` must hold the system message (if any) and is left as the readable
    per-turn conversation; ``metadata["interactive"]`` records the turns, the documents shown
    (1-based, per Check/Search) and why the loop stopped (``thinking`` when a turn ended
    inside the model's thinking: ``state.output`` is then that turn's output).
    """
    system = system_messages(state.messages, None)
    interactive_prompt = prompt.rstrip() + "\n"
    inline_doc = ""
    answer = ""
    doc_history: list[list[int]] = []
    conversation: list[ChatMessage] = [*system]
    stop = "max_turn"
    for num_turn in range(1, max_turn + 1):
        added = interactive_prompt if num_turn == 1 else (inline_doc or CONTINUE_NOTE)
        state.messages = [*system, ChatMessageUser(content=interactive_prompt + inline_doc)]
        if thinking:
            state = await generate(state, tool_calls="none")
        else:
            state = await generate(state, tool_calls="none", stop_seqs=TURN_STOP_SEQS)
        if ended_while_thinking(state.output):
            conversation.append(ChatMessageUser(content=added))
            stop = "thinking"
            break
        split = split_output(state.output)
        completion = split.answer
        if split.reasoning:
            completion = completion.lstrip()  # the line starts after the think block
        # What an API with stop=["\n"] returns, whatever the provider does with stop strings.
        output = completion.split("\n")[0]
        if inline_doc:
            output = "Output: " + output  # "Output:" ended the shown documents
        inline_doc = ""
        interactive_prompt += output + "\n"
        conversation += [ChatMessageUser(content=added), ChatMessageAssistant(content=output)]

        action = turn_action(output)
        if action in ("end", "abstain", "other"):
            stop = action
            break
        if action == "check":
            shown = await find_docs(output)
            inline_doc = "".join(make_doc_prompt(doc_list[d], d, doc_prompt) for d in shown)
            inline_doc += "Output:"
            doc_history.append(shown)
        else:
            statement = output_statement(output)
            if force_cite_show and doc_history:
                statement = force_cite(statement, doc_history[-1], qampari)
            elif force_cite_show:
                statement = remove_citations(statement)  # run.py: nothing shown yet to cite
            answer += " " + statement
        if state.completed:
            stop = "limit"
            break
    if qampari:
        answer = answer.rstrip().rstrip(",")
    if stop == "thinking":
        conversation.append(state.output.message)
    state.messages = conversation
    state.metadata["interactive"] = {
        "turns": len(conversation) // 2,
        "shown_docs": [[d + 1 for d in shown] for shown in doc_history],
        "stop": stop,
    }
    return alce_postprocess(answer, prompt_opened=False)  # answer lines: no reasoning


async def _interactive(
    state: TaskState,
    generate: Generate,
    prep: Prepared,
    doc_list: list[dict[str, Any]],
    find_docs: FindDocs,
    max_turn: int,
    force_cite_show: bool,
    thinking: bool,
    turn_via: SeenVia,
) -> TaskState:
    """Run the loop on a prepared sample; ``doc_list`` becomes ``metadata["docs"]``.

    The evidence record: the documents of the prompt (``prep.shown``) and those a turn
    showed (Check, Search) were seen.
    """
    generate = thinking_generate(state, generate, thinking)
    state.metadata["docs"] = doc_list
    answer = await interactive_answer(
        state,
        generate,
        prep.prompt,
        doc_list,
        prep.doc_prompt,
        find_docs,
        qampari=prep.dataset == "qampari",
        max_turn=max_turn,
        force_cite_show=force_cite_show,
        thinking=thinking,
    )
    in_prompt = {(d["title"], d["text"]) for d in prep.shown}
    turns = {n - 1 for shown in state.metadata["interactive"]["shown_docs"] for n in shown}
    via: dict[str, list[str]] = {}
    for i, doc in enumerate(doc_list):
        ways = ["prompt"] if (doc["title"], doc["text"]) in in_prompt else []
        if i in turns:
            ways.append(turn_via)
        if ways:
            via[doc["id"]] = ways
    record_evidence(state.metadata, format="alce", via=via)
    if state.metadata["interactive"]["stop"] == "thinking":
        return state  # the cut turn stays the output: no answer
    return set_output(state, answer)


@solver
@accept_cli_values("-S")
# INTERACT declares its own use_shorter: a per-dataset default, which overrides the prompts'.
# The order is the one it had when it wrote its parameters out (see forwards_to).
@forwards_to(
    AlcePrompts,
    order="ndoc use_shorter shot seed max_turn max_doc_show force_cite_show prompt_file "
    "system_message dataset thinking ndoc_in_demo",
)
def alce_interact(
    ndoc: int = 10,
    use_shorter: UseShorter | None = None,
    max_turn: int = MAX_TURN,
    max_doc_show: int = MAX_DOC_SHOW,
    force_cite_show: bool = False,
    thinking: bool = False,
    **options: Any,
) -> Solver:
    """INTERACT: summaries/snippets up front, ``Check: Document [i][j]`` shows full texts.

    The prompt (``*_interact_doc_id.json``) shows up to ``ndoc`` documents' summaries or
    snippets, skipping irrelevant ones as SUMM/SNIPPET; a Check line shows the full text of at
    most ``max_doc_show`` of them for one turn, and the next line is forced to be output.
    ``metadata["docs"]`` becomes the documents of the prompt (full text), renumbered.

    Args:
        ndoc: Most documents in the prompt (paper: 10).
        use_shorter: ``summary`` or ``extraction``; default the paper's pairing (ASQA summary,
            QAMPARI and ELI5 extraction).
        max_turn: Most turns (run.py: 10).
        max_doc_show: Most documents shown per Check (run.py: 3).
        force_cite_show: Replace each output's citations by the documents checked last.
        thinking: Generate with the chat template's thinking on (off by default).
        **options: ``shot``, ``seed``, ``prompt_file``, ``system_message``, ``dataset``,
            ``ndoc_in_demo``: defined and documented at
            :class:`solvers.alce_prompting.AlcePrompts`.

    """
    prompts = AlcePrompts("interact_doc_id", ndoc=ndoc, **options)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        prep = prepare(state, prompts, use_shorter or INTERACT_USE_SHORTER)
        warn_small_pool("alce_interact", prep.pool, ndoc)
        doc_list = prep.shown

        async def find_docs(output: str) -> list[int]:
            return checked_doc_ids(output, len(doc_list), max_doc_show)

        return await _interactive(
            state, generate, prep, doc_list, find_docs, max_turn, force_cite_show, thinking, "read"
        )

    return solve


@solver
@accept_cli_values("-S")
# The order it had when it wrote its parameters out (see forwards_to).
@forwards_to(
    AlcePrompts,
    order="ndoc retrieve_in_all_docs force_cite_show retriever use_shorter shot seed max_turn "
    "prompt_file system_message dataset device thinking ndoc_in_demo",
)
def alce_inlinesearch(
    ndoc: int = 0,
    retrieve_in_all_docs: bool = True,
    force_cite_show: bool = True,
    retriever: str = GTR_RETRIEVER,
    max_turn: int = MAX_TURN,
    device: str | None = None,
    thinking: bool = False,
    **options: Any,
) -> Solver:
    """INLINESEARCH: ``Search: query`` shows the most similar of the question's documents.

    The paper's setting (run.py config ``*_interact_search_ret_all_forcecite``): no documents
    in the prompt (``*_interact_search.json``, ndoc 0), each Search shows the top document
    among all the item's retrieved documents by dense retrieval (GTR-large), and each output's
    citations are replaced by the document shown last. ``metadata["docs"]`` becomes the
    searched documents, renumbered (the sample must bring the item's retrieval list).

    Args:
        ndoc: Documents (summaries/snippets with ``use_shorter``) in the prompt (paper: 0).
        retrieve_in_all_docs: Search all the sample's documents (paper) rather than the ones
            in the prompt.
        force_cite_show: Replace each output's citations by the document shown last (paper).
        retriever: sentence-transformers model id or local directory.
        max_turn: Most turns (run.py: 10).
        device: Torch device for the retriever; default CUDA when available.
        thinking: Generate with the chat template's thinking on (off by default).
        **options: ``use_shorter`` (with ndoc > 0), ``shot``, ``seed``, ``prompt_file``,
            ``system_message``, ``dataset``, ``ndoc_in_demo``: defined and documented at
            :class:`solvers.alce_prompting.AlcePrompts`.

    """
    check_retriever(retriever, flag="-S retriever")
    prompts = AlcePrompts("interact_search", ndoc=ndoc, **options)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        prep = prepare(state, prompts)
        if retrieve_in_all_docs:
            warn_small_pool("alce_inlinesearch", prep.pool, max(ndoc, 5))
        doc_list = renumber(prep.pool) if retrieve_in_all_docs else prep.shown
        searcher: list[Any] = []

        def search(query: str) -> list[int]:
            if not searcher:
                searcher.append(get_retriever(retriever, device).searcher(doc_list))
            return [searcher[0].search(query)]

        async def find_docs(output: str) -> list[int]:
            if not doc_list:
                return []
            return await anyio.to_thread.run_sync(search, search_query(output))

        return await _interactive(
            state,
            generate,
            prep,
            doc_list,
            find_docs,
            max_turn,
            force_cite_show,
            thinking,
            "search",
        )

    return solve

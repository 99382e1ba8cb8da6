"""The agent strategy: no documents in the prompt; the model searches and reads them with tools.

ALCE's interactive baseline done with native tool calling, for any model that calls tools.
The model gets the question and two Inspect tools over the sample's own documents
(``metadata["docs"]``: ALCE's retrieval list of the item, up to 100 passages; FullCite's
documents):

- ``search(query)``: the best-matching documents by BM25
  (:class:`inspect_cite.models.retrieval.BM25Searcher`), at most ``search_results`` of them, as a
  JSON list of ``{"doc_id", "title", "text"}`` where ``text`` is the document's first
  ``preview_words`` words;
- ``read(doc_id)``: one document in full, as ``{"doc_id", "title", "text"}``.

It answers in the task's citation format (ALCE's ``[n]`` with ``n`` the document's id, or
FullCite's ``{doc_id: X, snippet: ...}``), citing what it found. The loop gives the model
``max_turns`` generations that may call tools; if it is still calling them then, it is asked
once more with the tools off for its answer. ``state.metadata["agent"]`` records ``searches``,
``reads`` and ``turns``; the evidence record (:mod:`inspect_cite.evidence.record`) records each
document a tool returned, which tools did, and the text the model saw of it: its preview when
only ``search`` showed it, its whole text once ``read`` did. The scorers count a citation of
any other document as invalid.
"""

import json
from typing import Any

from inspect_ai.model import ChatMessageUser
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.tool import Tool, ToolError, tool

from inspect_cite.alce.prompts import ALCE_SYSTEM_MESSAGE
from inspect_cite.checks.errors import ArgumentError
from inspect_cite.evidence.documents import Document, docs_by_id, get_docs
from inspect_cite.evidence.record import record_evidence
from inspect_cite.generation.messages import system_messages
from inspect_cite.models.retrieval import BM25Searcher
from inspect_cite.options.cli_values import accept_cli_values
from solvers.constrained import AnswerFormat, answer_format
from solvers.prompted import sample_question
from solvers.thinking import thinking_generate

AGENT_KEY = "agent"
"""The sample metadata key of the agent's record of its tool calls."""

MAX_TURNS = 10
"""Generations that may call tools before the model must answer (ALCE's INTERACT: 10 turns)."""
SEARCH_RESULTS = 5
"""Documents one search returns at most."""
PREVIEW_WORDS = 40
"""Words of each document a search shows (``read`` shows the whole text)."""

# This project's own wording. {question} is filled in; doubled braces are literal.
AGENT_ALCE_PROMPT = """\
Answer the question below. You are not given any documents: find them with the search tool \
(it returns the best-matching documents with the start of their text) and read a document in \
full with the read tool. Then write an accurate, engaging and concise answer in one \
paragraph, using only what you found. After each sentence, cite the documents that support \
it by their doc_id in square brackets, e.g. [3] or [3][12]. Cite only documents the tools \
returned.

Question: {question}
Answer:"""

AGENT_FULLCITE_PROMPT = """\
Answer the question below. You are not given any documents: find them with the search tool \
(it returns the best-matching documents with the start of their text) and read a document in \
full with the read tool.

After every claim in your answer, cite the evidence for it in this exact form:
{{doc_id: <id>, snippet: <verbatim text>}}
where <id> is the doc_id of a document the tools returned and <verbatim text> is a passage \
copied word for word from that document. Put the citation right after the claim it supports. \
Every claim needs at least one citation. Do not change the words of a snippet.

Example: The Eiffel Tower is in Paris {{doc_id: 3, snippet: The tower stands in Paris}}.

Question: {question}
Answer:"""


class DocumentPool:
    """A sample's documents for the tools, and which of them the tools returned."""

    def __init__(self, docs: list[Document], preview_words: int) -> None:
        self.docs = docs
        self.by_id = docs_by_id(docs)
        self.preview_words = preview_words
        # Each returned document's tools (first first) and the text the model saw of it.
        self.returned: dict[str, list[str]] = {}
        self.seen_text: dict[str, str] = {}
        self.searches: list[str] = []
        self.reads: list[str] = []
        self._searcher: BM25Searcher | None = None

    def search(self, query: str, k: int) -> list[dict[str, str]]:
        """The best ``k`` documents for ``query`` (each with a preview of its text)."""
        if self._searcher is None:
            self._searcher = BM25Searcher(self.docs)
        self.searches.append(query)
        found = []
        for i, _ in self._searcher.search(query, k):
            doc = self.docs[i]
            words = doc["text"].split()
            preview = " ".join(words[: self.preview_words])
            self._returned(doc, "search", preview if len(words) > self.preview_words else None)
            if len(words) > self.preview_words:
                preview += " …"
            found.append({"doc_id": doc["id"], "title": doc["title"], "text": preview})
        return found

    def _returned(self, doc: Document, tool: str, part: str | None) -> None:
        """Note that ``tool`` returned ``doc``, all of it or only ``part`` of its text."""
        ways = self.returned.setdefault(doc["id"], [])
        if tool not in ways:
            ways.append(tool)
        if part is None:
            self.seen_text[doc["id"]] = doc["text"]
        else:
            self.seen_text.setdefault(doc["id"], part)

    def read(self, doc_id: str) -> dict[str, str] | None:
        """One document in full (None: no document has this id)."""
        doc = self.by_id.get(str(doc_id).strip())
        self.reads.append(str(doc_id))
        if doc is None:
            return None
        self._returned(doc, "read", None)
        return {"doc_id": doc["id"], "title": doc["title"], "text": doc["text"]}

    def record(self, turns: int) -> dict[str, Any]:
        """What the tools did, for ``state.metadata["agent"]``."""
        return {
            "searches": list(self.searches),
            "reads": list(self.reads),
            "turns": turns,
        }


@tool(name="search")
def search_tool(pool: DocumentPool, results: int = SEARCH_RESULTS) -> Tool:
    """The ``search`` tool over a sample's documents."""

    async def execute(query: str) -> str:
        """Search the documents about the question.

        Args:
            query: Words to search the documents for.

        Returns:
            The best-matching documents (doc_id, title, the start of the text), best first.

        """
        found = pool.search(query, results)
        if not found:
            return "No document matches this query; try other words."
        return json.dumps(found, ensure_ascii=False, indent=1)

    return execute


@tool(name="read")
def read_tool(pool: DocumentPool) -> Tool:
    """The ``read`` tool over a sample's documents."""

    async def execute(doc_id: str) -> str:
        """Read a document in full.

        Args:
            doc_id: The doc_id of a document the search tool returned.

        Returns:
            The document: doc_id, title and its whole text.

        """
        doc = pool.read(doc_id)
        if doc is None:
            raise ToolError(f"No document has the doc_id {doc_id!r}; use one that search returned.")
        return json.dumps(doc, ensure_ascii=False, indent=1)

    return execute


@solver
@accept_cli_values("-S")
def agent_citations(
    format: AnswerFormat = "auto",
    max_turns: int = MAX_TURNS,
    search_results: int = SEARCH_RESULTS,
    preview_words: int = PREVIEW_WORDS,
    system_message: str | None = None,
    thinking: bool = False,
) -> Solver:
    """The agent strategy: the model finds the documents with ``search`` and ``read`` tools.

    See the module docstring for the tools, the loop and ``metadata["agent"]``.

    Args:
        format: ``auto`` (ALCE's ``[n]`` for ALCE samples, else FullCite), ``fullcite`` or
            ``alce``.
        max_turns: Generations that may call tools before the model must answer.
        search_results: Documents one search returns at most.
        preview_words: Words of each document a search shows.
        system_message: A system message to add when the sample has none (ALCE samples get
            ALCE's by default).
        thinking: Generate with the model's thinking on (off by default).

    """
    for name, value in (
        ("max_turns", max_turns),
        ("search_results", search_results),
        ("preview_words", preview_words),
    ):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ArgumentError(f"{name} must be a whole number of at least 1, got {value!r}")

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        fmt = answer_format(state.metadata, format)
        docs = list(get_docs(state.metadata, where=f"sample {state.sample_id}"))
        pool = DocumentPool(docs, preview_words)
        question = sample_question(state)
        template = AGENT_ALCE_PROMPT if fmt == "alce" else AGENT_FULLCITE_PROMPT
        default_system = system_message or (ALCE_SYSTEM_MESSAGE if fmt == "alce" else None)
        state.messages = [
            *system_messages(state.messages, default_system),
            ChatMessageUser(content=template.format(question=question)),
        ]
        state.tools = [search_tool(pool, search_results), read_tool(pool)]
        state.tool_choice = "auto"
        generate = thinking_generate(state, generate, thinking)
        turns = 0
        while turns < max_turns:
            turns += 1
            state = await generate(state, tool_calls="single")
            if not state.output.choices or not state.output.message.tool_calls:
                break
            if state.completed:
                break
        else:
            # Still calling tools: one more generation with the tools off, for the answer.
            state.tool_choice = "none"
            state = await generate(state, tool_calls="none")
            turns += 1
        state.metadata[AGENT_KEY] = pool.record(turns)
        record_evidence(state.metadata, format=fmt, via=pool.returned, texts=pool.seen_text)
        return state

    return solve

"""Provider-native document citations, written in the task's own citation format.

The documents go to the model as documents, and the citations the provider returns become the
task's own citations.

Each shown document is sent as one ``ContentDocument(citations=True)`` holding the document's
text (plain text), in the shown order, named by its id; the question and a short instruction
follow in the same user message. A provider that supports it (``anthropic/``) answers in text
blocks carrying ``DocumentCitation``s. The reply's blocks are then written as one answer with
the citations in the task's format (:func:`inspect_cite.citations.native.render_native`):
FullCite's ``{doc_id: X, snippet: <cited text>}`` or ALCE's ``[n]`` after each block. That
answer is the sample's output, so every citation scorer reads it unchanged; the reply itself,
with its citations, stays in ``state.messages``.

``state.metadata["native"]`` records ``format``, ``citations`` (one
:class:`~inspect_cite.citations.native.NativeCitation` per document citation: its document
index, doc id, cited text, range, status and offsets in the output), ``native_citations``,
``cited``, ``unmapped_citations`` and ``without_citations`` (True for a reply that carried
none, which is scored as an answer without citations).
"""

import base64
from collections.abc import Sequence

from inspect_ai.model import ChatMessageUser, Content, ContentDocument, ContentText, ModelOutput
from inspect_ai.solver import Generate, Solver, TaskState, solver

from inspect_cite.alce.prompts import ALCE_SYSTEM_MESSAGE
from inspect_cite.checks.run import active_model_name, check_native_citations
from inspect_cite.citations.native import (
    NativeFormat,
    answer_blocks,
    native_counts,
    render_native,
)
from inspect_cite.evidence.documents import Document, get_docs
from inspect_cite.evidence.record import record_evidence
from inspect_cite.generation.messages import system_messages
from inspect_cite.generation.thinking import (
    NO_ANSWER_THINKING,
    ended_while_thinking,
    mark_think_opened,
)
from inspect_cite.options.cli_values import accept_cli_values
from solvers.constrained import AnswerFormat, answer_format
from solvers.prompted import sample_question
from solvers.thinking import thinking_generate

# This project's own wording. The provider adds the citations: the model is not asked to write
# any markup. {documents} lists the attached documents' ids and titles, {question} the question.
NATIVE_FULLCITE_PROMPT = """\
Answer the question using the attached documents. Base every claim on the documents and cite \
the passages that support it.

The documents, in the order attached:
{documents}

Question: {question}"""

NATIVE_ALCE_PROMPT = """\
Write an accurate, engaging and concise answer to the question in one paragraph, using only \
the attached documents (some of which might be irrelevant), and cite the documents that \
support each sentence.

The documents, in the order attached:
{documents}

Question: {question}"""

NATIVE_DOCUMENT = "- {id}: {title}"

# Both benchmarks use it, and their strategies differ: the task's docstring lists its own.
NATIVE_FIX = "Use an anthropic/ model, or another -T strategy."


def document_content(doc: Document) -> ContentDocument:
    """A document as the model is given it: its text as plain text, named by its id."""
    data = base64.b64encode(doc["text"].encode("utf-8")).decode("ascii")
    return ContentDocument(
        document=f"data:text/plain;base64,{data}",
        filename=doc["id"],
        mime_type="text/plain",
        citations=True,
    )


def native_message(docs: Sequence[Document], question: str, template: str) -> ChatMessageUser:
    """The user message: every document, then the instruction and the question."""
    listing = "\n".join(
        NATIVE_DOCUMENT.format(id=d["id"], title=d["title"] or "(untitled)") for d in docs
    )
    content: list[Content] = [document_content(d) for d in docs]
    content.append(ContentText(text=template.format(documents=listing, question=question)))
    return ChatMessageUser(content=content)


@solver
@accept_cli_values("-S")
def native_citations(
    format: AnswerFormat = "auto",
    system_message: str | None = None,
    thinking: bool = False,
) -> Solver:
    """Provider-native document citations, written in the task's citation format.

    The documents in ``metadata["docs"]`` go to the model as documents with citations enabled
    (see the module docstring); the reply's citations become FullCite or ALCE citations in the
    output. A provider that cannot return document citations is refused before anything is
    generated, naming the ones that can (``anthropic/``).

    Args:
        format: ``auto`` (ALCE's ``[n]`` for ALCE samples, else FullCite), ``fullcite`` or
            ``alce``.
        system_message: A system message to add when the sample has none (ALCE samples get
            ALCE's by default).
        thinking: Generate with the model's thinking on (off by default).

    """
    what = "solvers/native_citations (-T strategy=native)"
    check_native_citations(active_model_name(), what=what, fix=NATIVE_FIX)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        # A task built before its eval knew its model is checked here, before generating.
        check_native_citations(str(state.model), what=what, fix=NATIVE_FIX)
        fmt: NativeFormat = (
            "alce" if answer_format(state.metadata, format) == "alce" else "fullcite"
        )
        docs = get_docs(state.metadata, where=f"sample {state.sample_id}")
        record_evidence(state.metadata, format=fmt, via="document", document_indexes=True)
        template = NATIVE_ALCE_PROMPT if fmt == "alce" else NATIVE_FULLCITE_PROMPT
        default_system = system_message or (ALCE_SYSTEM_MESSAGE if fmt == "alce" else None)
        generate = thinking_generate(state, generate, thinking)
        state.messages = [
            *system_messages(state.messages, default_system),
            native_message(docs, sample_question(state), template),
        ]
        state = await generate(state, tool_calls="none")
        if ended_while_thinking(state.output):
            state.metadata["native"] = {"format": fmt, "skipped": NO_ANSWER_THINKING}
            return state
        reply = state.output
        message = reply.message if reply.choices else None
        answer, records = render_native(answer_blocks(message), docs, fmt)
        # A new output: the reply's message, with its citations, stays in state.messages.
        state.output = ModelOutput.from_content(
            model=reply.model or str(state.model), content=answer, stop_reason=reply.stop_reason
        )
        state.output.usage = reply.usage
        mark_think_opened(state.output, False)
        counts = native_counts(records)
        state.metadata["native"] = {
            "format": fmt,
            "citations": records,
            **counts,
            "without_citations": counts["native_citations"] == 0,
        }
        return state

    return solve

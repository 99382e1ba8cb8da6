"""FullCite prompt-based generation: instructions ask for a verbatim snippet after each claim."""

from collections.abc import Sequence

from inspect_ai.model import ChatMessageUser
from inspect_ai.solver import Generate, Solver, TaskState, solver

from inspect_cite.checks.errors import ArgumentError
from inspect_cite.evidence.documents import Document, get_docs
from inspect_cite.evidence.record import record_evidence
from inspect_cite.generation.messages import system_messages
from inspect_cite.options.cli_values import accept_cli_values
from solvers.thinking import thinking_generate

# This project's own wording of the FullCite instruction. {documents} and {question} are filled
# in; the doubled braces show the citation format literally.
FULLCITE_PROMPT = """\
Answer the question using the documents below.

After every claim in your answer, cite the evidence for it in this exact form:
{{doc_id: <id>, snippet: <verbatim text>}}
where <id> is the id of the document and <verbatim text> is a passage copied word for word \
from that document. Put the citation right after the claim it supports. If several \
documents support a claim, give one citation for each, one after the other. Every claim \
needs at least one citation. Do not change the words of a snippet.

Example: The Eiffel Tower is in Paris {{doc_id: 3, snippet: The tower stands in Paris}}.

{documents}

Question: {question}
Answer:"""

# One context document; {number} counts from 1 in the order shown.
FULLCITE_DOCUMENT = "Document {number} (doc_id: {id}): {title}\n{text}"


def format_documents(docs: Sequence[Document], document_template: str = FULLCITE_DOCUMENT) -> str:
    """The context documents, numbered, one block each, separated by blank lines."""
    return "\n\n".join(
        document_template.format(
            number=i + 1, id=doc["id"], title=doc["title"] or "(untitled)", text=doc["text"]
        ).strip()
        for i, doc in enumerate(docs)
    )


def sample_question(state: TaskState) -> str:
    """The question of a sample: ``metadata["question"]``, else the sample input."""
    question = (state.metadata or {}).get("question")
    if isinstance(question, str) and question.strip():
        return question.strip()
    return state.input_text.strip()


def fullcite_prompt(
    state: TaskState,
    template: str = FULLCITE_PROMPT,
    document_template: str = FULLCITE_DOCUMENT,
) -> str:
    """The FullCite user prompt for a sample (documents from ``metadata["docs"]``)."""
    docs = get_docs(state.metadata, where=f"sample {state.sample_id}")
    return template.format(
        documents=format_documents(docs, document_template), question=sample_question(state)
    )


def set_fullcite_prompt(
    state: TaskState,
    template: str = FULLCITE_PROMPT,
    document_template: str = FULLCITE_DOCUMENT,
    system_message: str | None = None,
) -> None:
    """Replace the sample's messages by the FullCite prompt, keeping system messages."""
    prompt = fullcite_prompt(state, template, document_template)
    state.messages = [
        *system_messages(state.messages, system_message),
        ChatMessageUser(content=prompt),
    ]


def check_templates(template: str, document_template: str) -> None:
    """Fail early (at solver construction) on a template with missing or unknown fields."""
    try:
        template.format(documents="", question="")
    except (KeyError, IndexError, ValueError) as ex:
        raise ArgumentError(
            f"template must use only {{documents}} and {{question}} (braces meant literally "
            f"are doubled): {ex!r}"
        ) from ex
    try:
        document_template.format(number=1, id="", title="", text="")
    except (KeyError, IndexError, ValueError) as ex:
        raise ArgumentError(
            f"document_template may use only {{number}}, {{id}}, {{title}} and {{text}}: {ex!r}"
        ) from ex
    for field in ("{documents}", "{question}"):
        if field not in template:
            raise ArgumentError(f"template must contain {field}")


@solver
@accept_cli_values("-S")
def prompted_citations(
    template: str = FULLCITE_PROMPT,
    document_template: str = FULLCITE_DOCUMENT,
    system_message: str | None = None,
    thinking: bool = False,
) -> Solver:
    """FullCite prompt-based generation: no decoding-time help.

    The user message is replaced by the FullCite prompt: numbered context documents from
    ``metadata["docs"]`` with their ids and titles, the question (``metadata["question"]`` or
    the sample input), and the instruction to follow every claim with
    ``{doc_id: <id>, snippet: <verbatim text>}``. Then the model generates once.

    Args:
        template: The prompt, with ``{documents}`` and ``{question}`` fields.
        document_template: One document, with ``{number}``, ``{id}``, ``{title}``, ``{text}``.
        system_message: A system message to add when the sample has none.
        thinking: Generate with the chat template's thinking on (off by default).

    """
    check_templates(template, document_template)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        generate = thinking_generate(state, generate, thinking)
        set_fullcite_prompt(state, template, document_template, system_message)
        record_evidence(state.metadata, format="fullcite", via="prompt")
        return await generate(state)

    return solve

r"""What a transcript retrieved, and what its final answer cites.

The sources of tool-using models and agents, read from an Inspect conversation (nothing is
fetched again).

**Sources** (:func:`transcript_sources`), each under a key (``url:<normalised URL>``,
``doc:<id>``, ``document:<index>``), with every text the transcript holds for it:

- a tool call with a ``url`` argument: its result is that URL's text; with a ``doc_id``
  argument, that document's text (the agent strategy's ``read``);
- search results a tool returned: the ``UrlCitation``\ s of Inspect's ``web_search`` results
  (their ``cited_text``, or the block's text when it cites one page), and JSON results listing
  objects with a ``url`` or ``doc_id`` and their content (``content``, ``text``,
  ``raw_content``, ``page_content``, ``snippet``, ...);
- server-side search Inspect records: ``ContentToolUse`` results and arguments in assistant
  messages (Anthropic's, OpenAI's ``web_search``: their pages' URLs, with text where the
  provider gives it), and Perplexity's ``search_results``/``fetch_url_results`` in the final
  output's metadata;
- documents the model was given (``ContentDocument``, numbered in order as providers number
  them for ``DocumentCitation``'s document index): ``document:<index>``.

Search results are numbered for ``[n]`` markers: by their own ``number``/``index``/``rank``
field, else their place in their result list (from 1); a later search's result ``n`` replaces
an earlier one.

**Claims** (:func:`answer_claims`): the sentences of the final answer (:func:`final_answer`),
its text blocks joined as :func:`inspect_cite.citations.native.answer_blocks` joins them. A
claim's citations are the ``UrlCitation``/``DocumentCitation``\ s of the text blocks it lies
in, its markdown links ``[text](url)``, its ``[n]`` markers (markers opening a sentence belong
to the one before, as ALCE's fixed reading has it) and its FullCite citations
``{doc_id: X, snippet: ...}`` (when the answer has those, its claims are FullCite's: the text
before each citation).
A marker ``[n]`` cites the retrieved document with id ``n`` when there is one (the ALCE
documents are numbered), else search result ``n``.
"""

import base64
import binascii
import json
import re
import urllib.parse
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageTool,
    ContentDocument,
    ContentText,
    ContentToolUse,
    DocumentCitation,
    ModelOutput,
    UrlCitation,
)
from inspect_ai.tool import ToolCall

from inspect_cite.citations.alce import leading_markers_end, markers, strip_markers
from inspect_cite.citations.fullcite import parse_citations, strip_citations
from inspect_cite.citations.native import (
    AnswerBlock,
    answer_blocks,
    document_index,
    final_assistant,
    joined_text,
)
from inspect_cite.evidence.urls import normalize_url
from inspect_cite.text.sentences import sent_spans

TEXT_FIELDS = ("content", "text", "raw_content", "page_content", "snippet", "body", "markdown")
"""Fields of a search result that hold its page's text, in order of preference."""

NUMBER_FIELDS = ("number", "index", "rank", "position")
"""Fields of a search result that give its number (1-based)."""

OUTPUT_RESULTS = ("search_results", "fetch_url_results")
"""Keys of ``ModelOutput.metadata`` where Inspect's perplexity/ provider keeps search results."""

MARKDOWN_LINK = re.compile(r"\[(?P<text>[^\[\]]*)\]\((?P<url>https?://[^\s()]+(?:\([^\s()]*\))?)\)")
"""A markdown link ``[text](url)`` to a web page."""
_LINK = MARKDOWN_LINK.pattern.replace("?P<text>", "?:").replace("?P<url>", "?:")
# Links that only cite: a parenthesis holding nothing but links, ``([source](url))``, and a link
# whose text is a number, ``[2](url)``. Their words are not part of the claim.
CITATION_ONLY_LINKS = re.compile(
    rf"\s*\(\s*{_LINK}(?:\s*[,;]?\s*{_LINK})*\s*\)|\s*\[\[?\d+\]?\]\(https?://[^\s()]+\)"
)


@dataclass
class Source:
    """One source the transcript retrieved.

    Attributes:
        key: ``url:<normalised URL>``, ``doc:<id>`` or ``document:<index>``.
        label: What it is shown as (the URL as first seen, the doc id, the document's name).
        title: Its title when the transcript gives one.
        texts: Every distinct text the transcript holds for it, in order (empty: it was
            retrieved, but its text was not recorded, e.g. encrypted server-side results).

    """

    key: str
    label: str
    title: str | None = None
    texts: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        """All its texts, one after the other."""
        return "\n".join(self.texts)


@dataclass(frozen=True)
class CitedRef:
    """One citation in the answer.

    Attributes:
        kind: ``url`` (UrlCitation), ``link`` (markdown link), ``document``
            (DocumentCitation), ``marker`` (``[n]``) or ``doc_id`` (FullCite).
        target: The URL, ``[n]``, doc id or document index, as written.
        keys: The source keys it may name, in order of preference.

    """

    kind: str
    target: str
    keys: tuple[str, ...]


@dataclass
class AnswerClaim:
    """A claim of the final answer and the citations that support it.

    Attributes:
        text: The claim as written (citation markup included).
        hypothesis: The claim without citation markup (what NLI judges).
        citations: Indexes into :attr:`ClaimedAnswer.citations`.

    """

    text: str
    hypothesis: str
    citations: list[int] = field(default_factory=list)


@dataclass
class ClaimedAnswer:
    """The final answer: its text, claims and every citation in it (each once)."""

    text: str
    claims: list[AnswerClaim]
    citations: list[CitedRef]


class TranscriptSources:
    """The sources of a transcript by key, and the search results by number."""

    def __init__(self) -> None:
        self.by_key: dict[str, Source] = {}
        self.numbered: dict[int, str] = {}

    def add(self, key: str, label: str, text: str | None = None, title: str | None = None) -> None:
        """Record a source (again): a new text is added to the ones it has."""
        source = self.by_key.setdefault(key, Source(key, label))
        if title and not source.title:
            source.title = title
        if text and text.strip() and text not in source.texts:
            source.texts.append(text)

    def resolve(self, ref: CitedRef) -> Source | None:
        """The retrieved source a citation names, or None (it was never retrieved)."""
        for key in ref.keys:
            if key.startswith("#"):
                key = self.numbered.get(int(key[1:]), "")
            if key in self.by_key:
                return self.by_key[key]
        return None


def url_key(url: str) -> str:
    """The source key of a URL."""
    return f"url:{normalize_url(url)}"


def doc_key(doc_id: object) -> str:
    """The source key of a document id."""
    return f"doc:{str(doc_id).strip()}"


def transcript_sources(
    messages: Sequence[ChatMessage], output: ModelOutput | None = None
) -> TranscriptSources:
    """Every source the conversation retrieved (see the module docstring)."""
    sources = TranscriptSources()
    calls: dict[str, ToolCall] = {}
    n_documents = 0
    for message in messages:
        if isinstance(message, ChatMessageAssistant):
            for call in message.tool_calls or []:
                calls[call.id] = call
        if isinstance(message, ChatMessageTool):
            if message.error is None:
                _tool_result(sources, message, calls.get(message.tool_call_id or ""))
            continue
        if isinstance(message.content, str):
            continue
        for content in message.content:
            if isinstance(content, ContentDocument):
                sources.add(f"document:{n_documents}", content.filename, _document_text(content))
                n_documents += 1
            elif isinstance(content, ContentToolUse) and content.error is None:
                for raw in (content.arguments, content.result):
                    _results(sources, _json(raw))
    if output is not None and output.metadata:
        for key in OUTPUT_RESULTS:
            _results(sources, output.metadata.get(key))
    return sources


def _tool_result(
    sources: TranscriptSources, message: ChatMessageTool, call: ToolCall | None
) -> None:
    arguments = call.arguments if call is not None else {}
    url, doc_id = arguments.get("url"), arguments.get("doc_id")
    if isinstance(url, str) and url.strip():
        sources.add(url_key(url), url.strip(), message.text)
        return
    if isinstance(doc_id, (str, int)) and not isinstance(doc_id, bool) and str(doc_id).strip():
        sources.add(doc_key(doc_id), str(doc_id).strip(), message.text)
        return
    cited = _cited_pages(message)
    if cited:
        _number(sources, cited)
        return
    _results(sources, _json(message.text))


def _cited_pages(message: ChatMessageTool) -> list[tuple[str, str, str | None, str | None, None]]:
    """The pages of Inspect's web_search results: (key, label, text, title, number)."""
    if isinstance(message.content, str):
        return []
    found: list[tuple[str, str, str | None, str | None, None]] = []
    for content in message.content:
        if not isinstance(content, ContentText):
            continue
        cites = [c for c in content.citations or [] if isinstance(c, UrlCitation)]
        for c in cites:
            text = c.cited_text if isinstance(c.cited_text, str) else None
            if text is None and len(cites) == 1:
                text = content.text  # a fetched page with its one citation (Google's)
            found.append((url_key(c.url), c.url, text, c.title, None))
    return found


def _json(raw: Any) -> Any:
    if not isinstance(raw, str):
        return raw
    try:
        return json.loads(raw)
    except ValueError:
        return None


def _results(sources: TranscriptSources, value: Any) -> None:
    """Record the search results in a JSON value (objects with a ``url`` or ``doc_id``)."""
    found = []
    for place, item in _result_objects(value):
        text = next((item[f] for f in TEXT_FIELDS if isinstance(item.get(f), str)), None)
        title = item.get("title") if isinstance(item.get("title"), str) else None
        number = next(
            (
                item[f]
                for f in NUMBER_FIELDS
                if isinstance(item.get(f), int) and not isinstance(item.get(f), bool)
            ),
            place,
        )
        url, doc_id = item.get("url"), item.get("doc_id")
        if isinstance(url, str) and url.strip():
            found.append((url_key(url), url.strip(), text, title, number))
        elif (
            isinstance(doc_id, (str, int)) and not isinstance(doc_id, bool) and str(doc_id).strip()
        ):
            found.append((doc_key(doc_id), str(doc_id).strip(), text, title, number))
    _number(sources, found)


def _number(
    sources: TranscriptSources, found: Sequence[tuple[str, str, str | None, str | None, Any]]
) -> None:
    for position, (key, label, text, title, number) in enumerate(found, 1):
        sources.add(key, label, text, title)
        sources.numbered[number if isinstance(number, int) else position] = key


def _result_objects(value: Any, place: int = 1) -> Iterator[tuple[int, Mapping[str, Any]]]:
    """Each result object with its 1-based place in its list.

    The place counts every item of the list, results the scorer cannot use included (an ad
    without a URL): a model numbers the results as it was shown them.
    """
    if isinstance(value, Mapping):
        if isinstance(value.get("url"), str) or "doc_id" in value:
            yield place, value
            return
        for item in value.values():
            yield from _result_objects(item)
    elif isinstance(value, list):
        for i, item in enumerate(value, 1):
            yield from _result_objects(item, i)


def _document_text(content: ContentDocument) -> str | None:
    """The text of a plain-text document given as a data URL (files are not read)."""
    document = content.document
    if not document.startswith("data:") or not content.mime_type.startswith("text/"):
        return None
    header, _, payload = document.partition(",")
    try:
        if header.endswith(";base64"):
            return base64.b64decode(payload, validate=False).decode("utf-8")
        return urllib.parse.unquote(payload)
    except (binascii.Error, UnicodeDecodeError):
        return None


def final_answer(messages: Sequence[ChatMessage], output: ModelOutput | None) -> ChatMessage | None:
    """The message holding the final answer: the conversation's last assistant message.

    When that one holds no text (a log that ends with a tool call, or one whose answer is only
    in its output), the output's message. A solver that rewrote the output (the native
    strategy) leaves the reply, with its citations, as the last assistant message.
    """
    last = final_assistant(messages)
    if last is not None and joined_text(answer_blocks(last)).strip():
        return last
    if output is not None and output.choices:
        return output.message
    return last


def answer_claims(message: ChatMessage | None) -> ClaimedAnswer:
    """The final answer's claims and citations (see the module docstring)."""
    blocks = answer_blocks(message)
    text = joined_text(blocks)
    citations: list[CitedRef] = []
    spans: list[tuple[int, int, list[int]]] = []  # (start, end, citations) of each claim
    # Native citations belong to their block: one citation each, given to its claims below.
    block_refs = [_block_refs(block, citations) for block in blocks]
    parsed = parse_citations(text)
    if parsed.citations:
        for claim in parsed.claims:
            refs = []
            for c in claim.citations:
                refs.append(len(citations))
                citations.append(CitedRef("doc_id", c.doc_id, (doc_key(c.doc_id),)))
            spans.append((claim.start, claim.end, refs))
        spans += [(s, e, []) for s, e in _uncited_spans(text, parsed)]
        spans.sort()
    else:
        for start, end in sent_spans(text):
            sentence = text[start:end]
            lead = leading_markers_end(sentence)
            if lead and spans:
                spans[-1][2].extend(_inline_refs(sentence[:lead], citations))
            spans.append((start, end, _inline_refs(sentence[lead:], citations)))
    claims = []
    for start, end, refs in spans:
        for block, own in zip(blocks, block_refs, strict=True):
            if _overlaps(block, start, end):
                refs += [r for r in own if r not in refs]
        claim_text = text[start:end]
        hypothesis = _hypothesis(claim_text)
        if hypothesis:
            claims.append(AnswerClaim(claim_text, hypothesis, refs))
    return ClaimedAnswer(text, claims, citations)


def _overlaps(block: AnswerBlock, start: int, end: int) -> bool:
    """Whether some of the block's text (not only its whitespace) lies in ``[start, end)``."""
    if block.start >= end or block.end <= start:
        return False
    return bool(block.text[max(0, start - block.start) : end - block.start].strip())


def _block_refs(block: AnswerBlock, citations: list[CitedRef]) -> list[int]:
    refs = []
    for c in block.citations:
        if isinstance(c, UrlCitation):
            ref = CitedRef("url", c.url, (url_key(c.url),))
        elif isinstance(c, DocumentCitation):
            index = document_index(c)
            target = "?" if index is None else str(index)
            ref = CitedRef("document", target, () if index is None else (f"document:{index}",))
        else:
            continue
        refs.append(len(citations))
        citations.append(ref)
    return refs


def _inline_refs(text: str, citations: list[CitedRef]) -> list[int]:
    """The markdown links and ``[n]`` markers in ``text``, added to ``citations``."""
    refs = []
    links = list(MARKDOWN_LINK.finditer(text))
    for link in links:
        refs.append(len(citations))
        citations.append(CitedRef("link", link["url"], (url_key(link["url"]),)))
    for marker in markers(text):
        if not marker.closed or any(link.start() <= marker.start < link.end() for link in links):
            continue
        for ref in marker.refs:
            if ref is None:
                continue
            refs.append(len(citations))
            citations.append(CitedRef("marker", f"[{ref + 1}]", (doc_key(ref + 1), f"#{ref + 1}")))
    return refs


def _uncited_spans(text: str, parsed: Any) -> Iterable[tuple[int, int]]:
    """Spans of the sentences no FullCite citation follows."""
    covered = [(c.start, c.end) for c in parsed.claims] + [
        (c.start, c.end) for c in parsed.citations
    ]
    for start, end in sent_spans(text):
        if not any(s < end and e > start for s, e in covered):
            yield start, end


def _hypothesis(text: str) -> str:
    """A claim without its citation markup: links become their text, markers go.

    A link that only cites (``([source](url))``) goes whole, as a ``[n]`` marker does.
    """
    text = CITATION_ONLY_LINKS.sub("", text)
    text = MARKDOWN_LINK.sub(lambda m: m["text"], text)
    text = strip_markers(strip_citations(text))
    return " ".join(text.split())

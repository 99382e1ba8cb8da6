"""Models that cite natively, for the native-citation tests (no network).

- ``citingdocs/<name>``: a model provider of the tests' own that answers with Anthropic-style
  ``DocumentCitation``s (document index in ``internal``, ``cited_text``, a ``char`` range) on
  the ``ContentDocument``s it receives: one claim per document, citing its first sentence.
- :func:`messages_reply`: a Messages API reply with ``char_location`` citations, for a local
  stand-in of Anthropic's API (``tests.helpers.http_servers.json_api``) that Inspect's real
  ``anthropic/`` provider and SDK talk to.
"""

from __future__ import annotations

import base64
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ContentDocument,
    ContentText,
    DocumentCitation,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    modelapi,
)
from inspect_ai.tool import ToolChoice, ToolInfo


def document_texts(messages: list[ChatMessage]) -> list[str]:
    """The texts of the plain-text documents in a request, in order."""
    texts = []
    for message in messages:
        if isinstance(message.content, str):
            continue
        for content in message.content:
            if isinstance(content, ContentDocument):
                payload = content.document.partition(",")[2]
                texts.append(base64.b64decode(payload).decode("utf-8"))
    return texts


def first_sentence(text: str) -> str:
    end = text.find(". ")
    return text if end == -1 else text[: end + 1]


class CitingAPI(ModelAPI):
    """Answers with one claim per document received, citing the document's first sentence."""

    calls: list[list[ChatMessage]] = []

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig | None = None,
        **model_args: Any,
    ) -> None:
        super().__init__(
            model_name=model_name,
            base_url=base_url,
            api_key=api_key,
            config=config or GenerateConfig(),
        )

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        CitingAPI.calls.append(list(input))
        blocks: list[Any] = [ContentText(text="From the documents: ")]
        for i, text in enumerate(document_texts(input)):
            cited = first_sentence(text)
            blocks.append(
                ContentText(
                    text=f"document {i + 1} makes a point",
                    citations=[
                        DocumentCitation(
                            cited_text=cited,
                            range={"type": "char", "start_index": 0, "end_index": len(cited)},
                            internal={"document_index": i},
                        )
                    ],
                )
            )
            blocks.append(ContentText(text=". "))
        if self.model_name == "silent":  # answers without citations
            blocks = [ContentText(text="I read them all.")]
        output = ModelOutput.from_content(model=self.model_name, content=blocks)
        output.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
        return output


@modelapi(name="citingdocs")
def citingdocs() -> type[ModelAPI]:
    return CitingAPI


def messages_reply(body: dict[str, Any]) -> dict[str, Any]:
    """A Messages API reply citing the first sentence of every text document sent."""
    documents = [
        block
        for message in body["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "document"
    ]
    content: list[dict[str, Any]] = [{"type": "text", "text": "The documents say that "}]
    for i, doc in enumerate(documents):
        cited = first_sentence(doc["source"]["data"])
        content.append(
            {
                "type": "text",
                "text": f"point {i + 1} holds",
                "citations": [
                    {
                        "type": "char_location",
                        "cited_text": cited,
                        "document_index": i,
                        "document_title": doc.get("title"),
                        "start_char_index": 0,
                        "end_char_index": len(cited),
                    }
                ],
            }
        )
        content.append({"type": "text", "text": ". "})
    return {
        "id": "msg_test",
        "type": "message",
        "role": "assistant",
        "model": body["model"],
        "content": content,
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 12, "output_tokens": 7},
    }

"""Offline scripted models for solver tests (mockllm with outputs that carry usage).

mockllm counts tokens with a tiktoken file when an output has no usage, which needs a
download; every output made here carries usage so nothing is fetched.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from inspect_ai.model import GenerateConfig, Model, ModelOutput, ModelUsage, get_model


def scripted_output(text: str, stop_reason: str = "stop") -> ModelOutput:
    output = ModelOutput.from_content(model="mockllm/model", content=text)
    output.choices[0].stop_reason = stop_reason  # type: ignore[assignment]
    output.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
    return output


class Script:
    """Replays answers in order and records the config and input of every call."""

    def __init__(self, answers: Sequence[str | tuple[str, str]]):
        self.answers = list(answers)
        self.configs: list[GenerateConfig] = []
        self.inputs: list[list[Any]] = []

    def __call__(self, input: list[Any], tools: Any, tool_choice: Any, config: GenerateConfig):
        self.configs.append(config)
        self.inputs.append(list(input))
        if not self.answers:
            raise AssertionError("scripted model ran out of answers")
        answer = self.answers.pop(0)
        if isinstance(answer, tuple):
            return scripted_output(*answer)
        return scripted_output(answer)

    def user_texts(self) -> list[str]:
        """The last message of every call's input, in order."""
        return [messages[-1].text for messages in self.inputs]


def scripted_model(
    answers: Sequence[str | tuple[str, str]] | Callable[..., ModelOutput],
    *,
    name: str = "mockllm/model",
) -> tuple[Model, Script | None]:
    """A mockllm model replaying ``answers`` in order (or answering with a function of its input).

    Returns the model and, for a list of answers, the Script that records every call.
    """
    script = Script(answers) if not callable(answers) else None
    model = get_model(name, custom_outputs=script or answers, memoize=False)
    return model, script


_DOC = re.compile(r"^Document 1 \(doc_id: (.+?)\): .*\n(.+)$", re.MULTILINE)


def cite_first_document(input, tools, tool_choice, config):
    """An answer citing the first six words of the first document shown."""
    m = _DOC.search(input[-1].text)
    if m is None:
        return scripted_output("I cannot answer.")
    doc_id, text = m.group(1), m.group(2)
    snippet = " ".join(text.split()[:6])
    return scripted_output(f"Yes, the documents say so {{doc_id: {doc_id}, snippet: {snippet}}}.")

"""A scripted LongBench-Cite grader: the reply is a function of what the prompt asks about.

Plain Python (no project imports): ``tests/fixtures/longcite/make_expected.py`` runs it inside
LongCite's own scripts (their ``query_llm`` patched to it) and the tests run it as Inspect's
``grader`` role, so both get the same replies whatever the prompt's wording and call order.

A citation prompt is recognised by the layout of LongCite's ``cat_*`` functions: the question
in ``<question>``, the sentence in ``<sentence>`` (need-citation) or the statement in
``<statement>`` and the cited text in ``<snippet>`` (support when the prompt offers
``[[Fully supported]]``, relevance otherwise). A correctness prompt is recognised by the
reference answer it shows. ``tests/fixtures/longcite/grader_script.json`` gives, per question
and field, the replies of successive calls; other calls get a reply by a fixed rule of the
text, so that every verdict occurs.
"""

import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

SCRIPT = Path(__file__).parents[1] / "fixtures" / "longcite" / "grader_script.json"


def _tag(prompt: str, name: str) -> str | None:
    m = re.search(rf"<{name}>\n(.*?)\n</{name}>", prompt, re.DOTALL)
    return m.group(1) if m else None


def citation_key(prompt: str) -> tuple[str, str, str, str] | None:
    """(kind, question, statement, snippet) of a citation grader prompt, or None."""
    question = _tag(prompt, "question")
    if question is None:
        return None
    sentence = _tag(prompt, "sentence")
    if sentence is not None:
        return ("need", question, sentence, "")
    statement, snippet = _tag(prompt, "statement"), _tag(prompt, "snippet")
    if statement is None or snippet is None:
        return None
    kind = "support" if "[[Fully supported]]" in prompt else "relevant"
    return (kind, question, statement, snippet)


def default_citation_reply(kind: str, statement: str, snippet: str) -> str:
    """The reply when the script names no other: a fixed rule of the text."""
    if kind == "need":
        needs = any(ch.isdigit() for ch in statement)
        return f"Need Citation: [[{'Yes' if needs else 'No'}]] "
    if kind == "support":
        rating = ("Fully supported", "Partially supported", "No support")[
            (len(statement) + len(snippet)) % 3
        ]
        return f"Rating: [[{rating}]] "
    return f"Rating: [[{'Unrelevant' if len(snippet) % 4 == 0 else 'Relevant'}]] "


class ScriptedGrader:
    """Replies to LongBench-Cite grader prompts; counts the calls per question asked."""

    def __init__(self, script: dict[str, Any] | None = None):
        script = script if script is not None else json.loads(SCRIPT.read_text("utf-8"))
        self.citation = {
            (e["kind"], e["question"], e["statement"], e.get("snippet", "")): e["replies"]
            for e in script["citation"]
        }
        self.correctness = {e["reference"]: e["replies"] for e in script["correctness"]}
        self.default_rating = script["default_rating"]
        self.calls: dict[Any, int] = defaultdict(int)
        self.prompts: list[str] = []

    def _next(self, key: Any, replies: list[str]) -> str:
        n = self.calls[key]
        self.calls[key] += 1
        return replies[min(n, len(replies) - 1)]

    def reply(self, prompt: str) -> str:
        """The reply to one call whose last message is ``prompt``."""
        self.prompts.append(prompt)
        key = citation_key(prompt)
        if key is not None:
            scripted = self.citation.get(key)
            if scripted is not None:
                return self._next(key, scripted)
            self.calls[key] += 1
            return default_citation_reply(key[0], key[2], key[3])
        # Longest first: a reference that holds another is matched as itself.
        for reference in sorted(self.correctness, key=len, reverse=True):
            if reference in prompt:
                return self._next(("correctness", reference), self.correctness[reference])
        return self.default_rating

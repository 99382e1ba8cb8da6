"""LongBench-Cite's prompts, read from LongCite's own files at run time, never copied here.

- The answer prompt is ``one_shot_prompt.txt``: the numbered passage replaces ``<<context>>``,
  then the question replaces ``<<question>>`` (in that order, as ``pred_one_shot.py`` does).
- The citation grader's prompts are read from ``auto_scorer.py`` without running it: its three
  module-level templates (``need_citation_prompt_template``, ``support_prompt_template``,
  ``relevant_prompt_template``) and the f-strings of ``cat_qa_and_statement`` and
  ``cat_question_statement_context`` that lay out the question, answer, statement and snippet
  (each value stripped, as they strip it). A prompt is the template ``.format``-ed with that
  layout.
- The correctness grader's prompts are read from ``eval_correct.py`` the same way: its module
  level ``system_prompt`` and the ``prompt_template`` of ``gpt_score_qa`` (``$Q$``, ``$A$``,
  ``$P$`` replaced in that order), ``gpt_score_summ`` (``$A$``, ``$P$``) and
  ``gpt_score_fewshot`` (``.format`` with the question, the reference answer, each example
  answer and its score, and the answer).

A file whose layout differs (another commit, a file of one's own in the wrong shape) is refused
with what is missing.
"""

import ast
import string
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_cite.longcite.files import LongciteFileError, LongciteFileName, read_longcite_file

CONTEXT_SLOT = "<<context>>"
QUESTION_SLOT = "<<question>>"
QUESTION_MARK, REFERENCE_MARK, PREDICTION_MARK = "$Q$", "$A$", "$P$"


@dataclass(frozen=True)
class OneShotPrompt:
    """The answer prompt with its two slots."""

    template: str
    provenance: dict[str, Any]

    def fill(self, passage: str, question: str) -> str:
        """The prompt for one question (sequential replacement, as LongCite)."""
        return self.template.replace(CONTEXT_SLOT, passage).replace(QUESTION_SLOT, question)


def one_shot_prompt(prompt_file: str | None = None) -> OneShotPrompt:
    """LongBench-Cite's one-shot prompt, or the user's own file in its format.

    Raises:
        LongciteFileError: When it cannot be had, or lacks a slot.

    """
    if prompt_file is None:
        text, provenance = read_longcite_file("one_shot_prompt.txt")
        where = str(provenance.get("path") or provenance["file"])
    else:
        from inspect_cite.downloads.hub_files import file_provenance

        path = Path(prompt_file)
        if not path.is_file():
            raise LongciteFileError(f"prompt file {path} does not exist (-T prompt_file)")
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise LongciteFileError(f"prompt file {path}: not UTF-8 text ({e})") from e
        provenance, where = file_provenance(path), f"{path} (-T prompt_file)"
    missing = [slot for slot in (CONTEXT_SLOT, QUESTION_SLOT) if slot not in text]
    if missing:
        raise LongciteFileError(f"prompt file {where} has no {' and no '.join(missing)} slot")
    return OneShotPrompt(text, provenance)


@dataclass(frozen=True)
class Field:
    """A value an f-string inserts: a parameter of its function, stripped or as given."""

    name: str
    strip: bool


@dataclass(frozen=True)
class Layout:
    """An f-string of LongCite's, as literal parts and fields."""

    parts: tuple[str | Field, ...]

    def render(self, **values: str) -> str:
        """The f-string's value for the function's arguments ``values``."""
        out = []
        for part in self.parts:
            if isinstance(part, str):
                out.append(part)
            else:
                value = values[part.name]
                out.append(value.strip() if part.strip else value)
        return "".join(out)


class _Module:
    """A LongCite source file, read (never run) for its string constants and f-strings."""

    def __init__(self, text: str, where: str):
        self.where = where
        try:
            self.tree = ast.parse(text)
        except SyntaxError as e:
            raise LongciteFileError(f"{where}: not Python source ({e.msg}, line {e.lineno})") from e

    def _function(self, name: str) -> ast.FunctionDef:
        for node in self.tree.body:
            if isinstance(node, ast.FunctionDef) and node.name == name:
                return node
        raise LongciteFileError(f"{self.where}: no function {name}()")

    @staticmethod
    def _assigned(body: Sequence[ast.stmt], name: str) -> ast.expr | None:
        for node in body:
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id == name
            ):
                return node.value
        return None

    def constant(self, name: str, function: str | None = None) -> str:
        """The string assigned to ``name`` (at module level, or in ``function``)."""
        body = self._function(function).body if function else self.tree.body
        value = self._assigned(body, name)
        where = f"{function}()" if function else "module level"
        if not (isinstance(value, ast.Constant) and isinstance(value.value, str)):
            raise LongciteFileError(f"{self.where}: no string {name} = ... at {where}")
        return value.value

    def layout(self, function: str) -> Layout:
        """The f-string ``function`` builds from its parameters (assigned, or returned)."""
        node = self._function(function)
        params = {a.arg for a in node.args.args}
        found = [n for n in ast.walk(node) if isinstance(n, ast.JoinedStr)]
        if len(found) != 1:
            raise LongciteFileError(f"{self.where}: {function}() must build one f-string")
        parts: list[str | Field] = []
        for value in found[0].values:
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                parts.append(value.value)
                continue
            field = _field(value, params)
            if field is None:
                raise LongciteFileError(
                    f"{self.where}: {function}() inserts something other than a parameter "
                    f"or parameter.strip(): {ast.unparse(value)}"
                )
            parts.append(field)
        return Layout(tuple(parts))


def _field(value: ast.expr, params: set[str]) -> Field | None:
    if not (
        isinstance(value, ast.FormattedValue)
        and value.conversion == -1
        and value.format_spec is None
    ):
        return None
    expr = value.value
    if isinstance(expr, ast.Name) and expr.id in params:
        return Field(expr.id, strip=False)
    if (
        isinstance(expr, ast.Call)
        and not expr.args
        and not expr.keywords
        and isinstance(expr.func, ast.Attribute)
        and expr.func.attr == "strip"
        and isinstance(expr.func.value, ast.Name)
        and expr.func.value.id in params
    ):
        return Field(expr.func.value.id, strip=True)
    return None


def _slots(template: str) -> int:
    """How many positional ``{}`` fields ``str.format`` fills in ``template``."""
    return sum(1 for _, name, _, _ in string.Formatter().parse(template) if name is not None)


def _read_module(name: LongciteFileName) -> tuple[_Module, dict[str, Any]]:
    """A LongCite source file (pinned, or the override folder's) and its provenance.

    Raises:
        LongciteFileError: When the file cannot be had or is not Python source.

    """
    text, provenance = read_longcite_file(name)
    return _Module(text, str(provenance.get("path") or provenance["file"])), provenance


@dataclass(frozen=True)
class CitationPrompts:
    """The citation grader's prompts (LongCite's ``auto_scorer.py``)."""

    need_citation: str
    support: str
    relevant: str
    answer_layout: Layout
    """``cat_qa_and_statement(question, answer, statement)``."""
    snippet_layout: Layout
    """``cat_question_statement_context(question, statement, context)``."""
    provenance: dict[str, Any]

    def need_citation_prompt(self, question: str, answer: str, sentence: str) -> str:
        """Does this sentence of the answer need a citation? (``need_citation``)."""
        body = self.answer_layout.render(question=question, answer=answer, statement=sentence)
        return self.need_citation.format(body)

    def support_prompt(self, question: str, statement: str, snippet: str) -> str:
        """How well do the cited chunks support the statement? (``is_support``)."""
        body = self.snippet_layout.render(question=question, statement=statement, context=snippet)
        return self.support.format(body)

    def relevant_prompt(self, question: str, statement: str, snippet: str) -> str:
        """Is one cited chunk range relevant to the statement? (``is_relevant``)."""
        body = self.snippet_layout.render(question=question, statement=statement, context=snippet)
        return self.relevant.format(body)


def citation_prompts() -> CitationPrompts:
    """The citation grader's prompts, from ``auto_scorer.py`` (pinned, or the override folder).

    Raises:
        LongciteFileError: When the file cannot be had or lacks a prompt.

    """
    module, provenance = _read_module("auto_scorer.py")
    prompts = CitationPrompts(
        need_citation=module.constant("need_citation_prompt_template"),
        support=module.constant("support_prompt_template"),
        relevant=module.constant("relevant_prompt_template"),
        answer_layout=module.layout("cat_qa_and_statement"),
        snippet_layout=module.layout("cat_question_statement_context"),
        provenance=provenance,
    )
    for name in ("need_citation", "support", "relevant"):
        if _slots(getattr(prompts, name)) != 1:
            raise LongciteFileError(f"{module.where}: the {name} template must have one {{}} slot")
    return prompts


@dataclass(frozen=True)
class CorrectnessPrompts:
    """The correctness grader's prompts (LongCite's ``eval_correct.py``)."""

    system: str
    qa: str
    summary: str
    few_shot: str
    provenance: dict[str, Any]

    @property
    def few_shot_examples(self) -> int:
        """How many rated example answers the few-shot prompt shows."""
        return (_slots(self.few_shot) - 3) // 2

    def qa_prompt(self, question: str, reference: str, answer: str) -> str:
        """``gpt_score_qa``'s prompt."""
        return (
            self.qa.replace(QUESTION_MARK, question)
            .replace(REFERENCE_MARK, reference)
            .replace(PREDICTION_MARK, answer)
        )

    def summary_prompt(self, reference: str, answer: str) -> str:
        """``gpt_score_summ``'s prompt."""
        return self.summary.replace(REFERENCE_MARK, reference).replace(PREDICTION_MARK, answer)

    def few_shot_prompt(
        self, question: str, reference: str, examples: Sequence[tuple[str, Any]], answer: str
    ) -> str:
        """``gpt_score_fewshot``'s prompt: each example answer with its score, in order."""
        flat = [item for pair in examples for item in pair]
        return self.few_shot.format(question, reference, *flat, answer)


def correctness_prompts() -> CorrectnessPrompts:
    """The correctness grader's prompts, from ``eval_correct.py``.

    Raises:
        LongciteFileError: When the file cannot be had or lacks a prompt.

    """
    module, provenance = _read_module("eval_correct.py")
    prompts = CorrectnessPrompts(
        system=module.constant("system_prompt"),
        qa=module.constant("prompt_template", function="gpt_score_qa"),
        summary=module.constant("prompt_template", function="gpt_score_summ"),
        few_shot=module.constant("prompt_template", function="gpt_score_fewshot"),
        provenance=provenance,
    )
    slots = _slots(prompts.few_shot)
    if slots < 3 or (slots - 3) % 2:
        raise LongciteFileError(
            f"{module.where}: gpt_score_fewshot's template must have slots for the question, "
            f"the reference, pairs of example answer and score, and the answer; it has {slots}"
        )
    for name, marks in (
        ("qa", (QUESTION_MARK, REFERENCE_MARK, PREDICTION_MARK)),
        ("summary", (REFERENCE_MARK, PREDICTION_MARK)),
    ):
        missing = [m for m in marks if m not in getattr(prompts, name)]
        if missing:
            raise LongciteFileError(f"{module.where}: the {name} template lacks {missing}")
    return prompts

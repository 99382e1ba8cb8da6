"""LongCite's prompts read from its files at run time (inspect_cite/longcite/prompts.py, files.py).

The offline tests read own-words files in LongCite's layout (tests/helpers/longcite_files.py).
The reference test reads LongCite's own files from ``$INSPECT_CITE_REFERENCE_DIR/longcite``
(a checkout of THUDM/LongCite at d7d772e) and checks that every prompt equals the one LongCite's
functions build, run with their model call captured.
"""

import ast
import importlib.util
import re
import shutil
from pathlib import Path

import pytest

from inspect_cite.downloads.download import sha256_file
from inspect_cite.longcite.files import (
    LONGCITE_COMMIT,
    LONGCITE_FILES,
    LongciteFileError,
    longcite_file,
)
from inspect_cite.longcite.prompts import citation_prompts, correctness_prompts, one_shot_prompt
from tests.conftest import reference_dir
from tests.helpers.longcite_files import write_longcite_files


def load_module(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


Q, A, S, C = (
    "  Who built it?\n",
    "\nIt was built by Ada. She finished in 1901. ",
    " She finished in 1901. ",
    "\n<C3>Ada finished the bridge in 1901.\n\n",
)


def test_citation_prompts_equal_what_the_files_functions_build(longcite_files):
    module = load_module(longcite_files / "LongBench-Cite" / "auto_scorer.py")
    prompts = citation_prompts()
    assert prompts.need_citation_prompt(Q, A, S) == module.need_citation_prompt_template.format(
        module.cat_qa_and_statement(Q, A, S)
    )
    assert prompts.support_prompt(Q, S, C) == module.support_prompt_template.format(
        module.cat_question_statement_context(Q, S, C)
    )
    assert prompts.relevant_prompt(Q, S, C) == module.relevant_prompt_template.format(
        module.cat_question_statement_context(Q, S, C)
    )
    assert prompts.provenance["path"].endswith("auto_scorer.py")
    assert "commit" not in prompts.provenance  # not LongCite's file: recorded by path and hash


def test_correctness_prompts_fill_their_slots_in_longcites_order(longcite_files):
    prompts = correctness_prompts()
    assert prompts.few_shot_examples == 3
    # A value holding a later placeholder is replaced again, as LongCite's chain of replace does.
    assert "Q: why $A$" not in prompts.qa_prompt("why $A$", "ref", "ans")
    assert "Q: why ref" in prompts.qa_prompt("why $A$", "ref", "ans")
    text = prompts.few_shot_prompt("q", "r", [("a1", 1), ("a2", 2), ("a3", 3)], "mine")
    assert text.index("a1") < text.index("a3") < text.index("mine")


def test_the_one_shot_prompt_fills_context_then_question(longcite_files, tmp_path):
    prompt = one_shot_prompt()
    text = prompt.fill("<C0>Doc with <<question>> inside. ", "Why?")
    assert "<C0>Doc with Why? inside." in text and "Question: Why?" in text
    own = tmp_path / "mine.txt"
    own.write_text("Context: <<context>>\nOnly a context slot.")
    with pytest.raises(LongciteFileError, match="has no <<question>> slot"):
        one_shot_prompt(str(own))
    with pytest.raises(LongciteFileError, match="does not exist"):
        one_shot_prompt(str(tmp_path / "absent.txt"))


def test_a_file_the_folder_lacks_is_named(longcite_files):
    (longcite_files / "LongBench-Cite" / "eval_correct.py").unlink()
    with pytest.raises(LongciteFileError, match="holds no eval_correct.py"):
        correctness_prompts()


def test_a_layout_other_than_longcites_is_refused(longcite_files):
    path = longcite_files / "LongBench-Cite" / "auto_scorer.py"
    path.write_text(path.read_text().replace("{question.strip()}", "{question.upper()}", 1))
    with pytest.raises(LongciteFileError, match=r"cat_qa_and_statement\(\) inserts something"):
        citation_prompts()
    path.write_text("relevant_prompt_template = 3\n")
    with pytest.raises(LongciteFileError, match="no string need_citation_prompt_template"):
        citation_prompts()


def test_a_file_with_the_pinned_hash_is_recorded_as_longcites(longcite_files, monkeypatch):
    # Pretend the own-words file is the pinned one: the provenance names the commit.
    path = longcite_files / "LongBench-Cite" / "one_shot_prompt.txt"
    pinned = LONGCITE_FILES["one_shot_prompt.txt"]
    monkeypatch.setitem(
        LONGCITE_FILES,
        "one_shot_prompt.txt",
        type(pinned)(pinned.name, pinned.git_blob, sha256_file(path), pinned.what),
    )
    _, provenance = longcite_file("one_shot_prompt.txt")
    assert provenance["commit"] == LONGCITE_COMMIT
    assert provenance["file"] == "LongBench-Cite/one_shot_prompt.txt"


def test_a_cached_file_is_used_offline_and_a_corrupt_one_is_named(tmp_path, monkeypatch):
    monkeypatch.delenv("INSPECT_CITE_LONGCITE_DIR", raising=False)
    monkeypatch.setenv("INSPECT_CITE_CACHE_DIR", str(tmp_path / "cache"))

    def unreachable(url):
        raise ConnectionError("no network in tests")

    monkeypatch.setattr("inspect_cite.downloads.hub_files.ensure_reachable", unreachable)
    with pytest.raises(LongciteFileError) as e:
        longcite_file("auto_scorer.py")
    message = str(e.value)
    assert "is not cached" in message and "no network in tests" in message
    assert f"raw.githubusercontent.com/THUDM/LongCite/{LONGCITE_COMMIT}" in message
    assert "INSPECT_CITE_LONGCITE_DIR" in message
    # A cached copy with the pinned content is used without a download.
    source = write_longcite_files(tmp_path / "own") / "LongBench-Cite" / "auto_scorer.py"
    pinned = LONGCITE_FILES["auto_scorer.py"]
    monkeypatch.setitem(
        LONGCITE_FILES,
        "auto_scorer.py",
        type(pinned)(pinned.name, pinned.git_blob, sha256_file(source), pinned.what),
    )
    cached = tmp_path / "cache" / "longcite" / LONGCITE_COMMIT[:12] / "auto_scorer.py"
    shutil.copyfile(source, cached)
    path, provenance = longcite_file("auto_scorer.py")
    assert path == cached and provenance["commit"] == LONGCITE_COMMIT
    cached.write_text("changed")
    with pytest.raises(LongciteFileError, match="was corrupt"):
        longcite_file("auto_scorer.py")


def _longcite_checkout() -> Path:
    folder = reference_dir() / "longcite"
    if not (folder / "LongBench-Cite" / "auto_scorer.py").is_file():
        pytest.skip(
            f"{folder} holds no LongCite checkout (THUDM/LongCite at {LONGCITE_COMMIT[:7]}); "
            "the comparison with LongCite's own prompt functions needs one"
        )
    return folder


def _functions(path: Path, names: tuple[str, ...], namespace: dict) -> dict:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    keep = [n for n in tree.body if isinstance(n, ast.FunctionDef | ast.Assign)]
    keep = [n for n in keep if not isinstance(n, ast.FunctionDef) or n.name in names]
    exec(compile(ast.Module(body=keep, type_ignores=[]), str(path), "exec"), namespace)
    return namespace


def test_longcites_own_files_give_the_prompts_its_functions_send(monkeypatch):
    checkout = _longcite_checkout()
    bench = checkout / "LongBench-Cite"
    monkeypatch.setenv("INSPECT_CITE_LONGCITE_DIR", str(checkout))
    for name, pin in LONGCITE_FILES.items():
        assert sha256_file(bench / name) == pin.sha256, name
    sent: list[list[dict]] = []

    def query_llm(messages, model, **kwargs):
        sent.append(messages)
        return ("[[Yes]] [[3]]", {"prompt_tokens": 0, "completion_tokens": 0})

    scorer = _functions(
        bench / "auto_scorer.py",
        (
            "cat_qa_and_statement",
            "cat_question_statement_context",
            "need_citation",
            "need_citation_to_score",
            "is_support",
            "support_level_to_score",
            "is_relevant",
            "relevant_level_to_score",
        ),
        {"re": re, "query_llm": query_llm},
    )
    prompts = citation_prompts()
    assert prompts.provenance["commit"] == LONGCITE_COMMIT
    scorer["need_citation"](Q, A, S)
    scorer["is_support"](Q, S, C)
    scorer["is_relevant"](Q, S, C)
    assert [m[0]["content"] for m in sent] == [
        prompts.need_citation_prompt(Q, A, S),
        prompts.support_prompt(Q, S, C),
        prompts.relevant_prompt(Q, S, C),
    ]
    sent.clear()
    correct = _functions(
        bench / "eval_correct.py",
        ("gpt_score_qa", "gpt_score_summ", "gpt_score_fewshot"),
        {"re": re, "query_llm": query_llm, "random": __import__("random")},
    )
    usage = {"responses": [], "prompt_tokens": 0, "completion_tokens": 0}
    correct["gpt_score_qa"]("pred", "ref", query="q?", gpt_usage=usage)
    correct["gpt_score_summ"]("pred", "ref", query="q?", gpt_usage=usage)
    shots = [{"answer": "only", "score": 5}] * 3  # shuffling equal examples changes nothing
    correct["gpt_score_fewshot"](
        "pred\nline", "ref", query="q?", few_shot_scores=shots, gpt_usage=usage
    )
    c = correctness_prompts()
    assert [[m["content"] for m in msgs] for msgs in sent] == [
        [c.system, c.qa_prompt("q?", "ref", "pred")],
        [c.system, c.summary_prompt("ref", "pred")],
        [c.system, c.few_shot_prompt("q?", "ref", [("only", 5)] * 3, "pred line")],
    ]
    assert one_shot_prompt().provenance["commit"] == LONGCITE_COMMIT

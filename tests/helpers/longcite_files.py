"""LongCite-format prompt and scorer files in this project's own words, for offline tests.

The project reads LongCite's prompts from its files (``one_shot_prompt.txt``, and the string
constants and f-strings of ``auto_scorer.py`` and ``eval_correct.py``). These stand-ins have the
same names and layout, so the project reads them as it reads LongCite's, and they keep the
``<question>``/``<sentence>``/``<statement>``/``<snippet>`` layout the scripted grader
(tests/helpers/longcite_grader.py) reads. Point ``INSPECT_CITE_LONGCITE_DIR`` at the folder.
"""

from pathlib import Path

ONE_SHOT = """Answer the question from the numbered document. Put each claim in \
<statement>...</statement> and the chunk ranges it uses in <cite>[a-b]</cite>.

[Document]
<<context>>
[End of document]

Question: <<question>>

Answer:
"""

AUTO_SCORER = '''"""A grader file in LongCite's layout, written for the tests."""

need_citation_prompt_template = """Decide whether the sentence below states a fact taken from \
the user's document, so that it should cite it. Answer [[Yes]] or [[No]] first.\\n\\n{}"""

support_prompt_template = """Rate how well the snippet supports the statement: \
[[Fully supported]], [[Partially supported]] or [[No support]]. Rating first.\\n\\n{}"""

relevant_prompt_template = """Say whether the snippet holds a key point of the statement: \
[[Relevant]] or [[Unrelevant]]. Rating first.\\n\\n{}"""


def cat_qa_and_statement(question, answer, statement):
    prompt = f"<question>\\n{question.strip()}\\n</question>\\n\\n<response>\\n{answer.strip()}\\n</response>\\n\\n<sentence>\\n{statement.strip()}\\n</sentence>"
    return prompt


def cat_question_statement_context(question, statement, context):
    prompt = f"<question>\\n{question.strip()}\\n</question>\\n\\n<statement>\\n{statement.strip()}\\n</statement>\\n\\n<snippet>\\n{context.strip()}\\n</snippet>\\n\\n"
    return prompt
'''

EVAL_CORRECT = '''"""A correctness grader file in LongCite's layout, written for the tests."""

system_prompt = "You grade answers."


def gpt_score_qa(prediction, ground_truth, **kwargs):
    prompt_template = """Grade the answer 1, 2 or 3 as [[n]].\\nQ: $Q$\\nReference: $A$\\nAnswer: $P$\\nGrade:"""
    return prompt_template


def gpt_score_summ(prediction, ground_truth, **kwargs):
    prompt_template = """Grade the summary 1 to 5 as [[n]].\\nReference: $A$\\nSummary: $P$\\nGrade:"""
    return prompt_template


def gpt_score_fewshot(prediction, ground_truth, **kwargs):
    prompt_template = """Grade 1 to 10 as [[n]].\\nQ: {}\\nReference: {}\\nA: {}\\nGrade: [[{}]]\\nA: {}\\nGrade: [[{}]]\\nA: {}\\nGrade: [[{}]]\\nNow grade:\\nA: {}\\nGrade: """
    return prompt_template
'''


def write_longcite_files(folder: Path) -> Path:
    """Write the three files under ``folder/LongBench-Cite/``; returns ``folder``."""
    bench = folder / "LongBench-Cite"
    bench.mkdir(parents=True, exist_ok=True)
    (bench / "one_shot_prompt.txt").write_text(ONE_SHOT, encoding="utf-8")
    (bench / "auto_scorer.py").write_text(AUTO_SCORER, encoding="utf-8")
    (bench / "eval_correct.py").write_text(EVAL_CORRECT, encoding="utf-8")
    return folder

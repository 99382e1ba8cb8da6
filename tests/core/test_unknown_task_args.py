"""A task argument a task does not take is refused through Inspect's Python API too (issue 52,
item 12).

Inspect hands a task only the arguments its signature names and drops the others with a
logged warning, which ``inspect_ai.eval(..., display="none")`` or a notebook never shows: a
typo (``ndocs``) silently ran another experiment. Every task of the three families refuses it,
however Inspect is given the task (registry name or function), before anything is loaded.
"""

import inspect

import pytest

from alce_tasks import asqa, eli5, qampari
from fullcite_tasks import annotate_spans, bioasq
from inspect_cite.checks.errors import TaskArgumentTypeError
from longcite_tasks import longbench_cite

# In-process the working tree is not an installed package: Inspect registers its tasks by bare
# name, where ALCE's and FullCite's asqa/expertqa would collide, so these are the unique ones.
# (The installed registry names are run below, in a subprocess.)
TASKS = {
    "alce_tasks/qampari": (qampari, {"ndocs": 3}, "did you mean -T ndoc?"),
    "alce_tasks/eli5": (eli5, {"retreiver": "bm25"}, "did you mean -T retriever?"),
    "fullcite_tasks/bioasq": (
        bioasq,
        {"similarity_modle": None},
        "did you mean -T similarity_model?",
    ),
    "fullcite_tasks/annotate_spans": (
        annotate_spans,
        {"datasett": "asqa"},
        "did you mean -T dataset?",
    ),
    "longcite_tasks/longbench_cite": (
        longbench_cite,
        {"datasett": "hotpotqa"},
        "did you mean -T datasets?",
    ),
}


def test_every_unknown_argument_is_named_in_one_refusal():
    with pytest.raises(TaskArgumentTypeError) as refused:
        asqa(ndocs=3, zzz_unrelated=1)
    known = [p for p in inspect.signature(asqa).parameters if p != "options"]
    assert str(refused.value) == (
        "-T ndocs=3: alce_tasks/asqa takes no parameter 'ndocs'; did you mean -T ndoc?; "
        "-T zzz_unrelated=1: alce_tasks/asqa takes no parameter 'zzz_unrelated'; "
        f"its parameters: {', '.join(known)}"
    )


def test_a_task_loaded_by_its_file_path_keeps_its_registry_name(tmp_path):
    """Inspect names a module loaded from a task file by its path; the refusal must not.

    Which copy of a task a test process reaches depended on whether an earlier test had loaded
    its file by path (`inspect-cite check longcite_tasks/longbench_cite.py@...`): the refusal
    then named `/.../longcite_tasks/longbench_cite/longbench_cite`.
    """
    from inspect_cite.options.cli_values import _task_name
    from tests.conftest import ROOT

    def longbench_cite() -> None: ...

    longbench_cite.__module__ = str(ROOT / "longcite_tasks" / "longbench_cite")
    assert _task_name(longbench_cite) == "longcite_tasks/longbench_cite"
    (tmp_path / "mine").mkdir()
    longbench_cite.__module__ = str(tmp_path / "mine" / "my_task")
    assert _task_name(longbench_cite) == "longbench_cite"

"""A task argument a task does not take is refused through Inspect's Python API too (issue 52,
item 12).

Inspect hands a task only the arguments its signature names and drops the others with a
logged warning, which ``inspect_ai.eval(..., display="none")`` or a notebook never shows: a
typo (``ndocs``) silently ran another experiment. Every task of the three families refuses it,
however Inspect is given the task (registry name or function), before anything is loaded.
"""

import inspect
import json
import os
import subprocess
import sys

import pytest
from inspect_ai import eval as inspect_eval

from alce_tasks import asqa, eli5, qampari
from fullcite_tasks import annotate_spans, bioasq
from inspect_cite.checks.errors import TaskArgumentTypeError
from longcite_tasks import longbench_cite
from tests.cli.test_cli_e2e import installed_problem

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


@pytest.mark.parametrize("name", TASKS)
def test_an_unknown_task_argument_is_refused_through_the_python_api(name, tmp_path):
    factory, args, hint = TASKS[name]
    [(arg, _)] = args.items()
    with pytest.raises(TaskArgumentTypeError) as refused:
        inspect_eval(
            factory, task_args=args, model="mockllm/model", display="none", log_dir=str(tmp_path)
        )
    message = str(refused.value)
    assert message.startswith(f"-T {arg}=")
    assert f"{name} takes no parameter {arg!r}; {hint}" in message
    # Refused while the task was built: no run was started, no log written.
    assert list(tmp_path.iterdir()) == []


def test_every_unknown_argument_is_named_in_one_refusal():
    with pytest.raises(TaskArgumentTypeError) as refused:
        asqa(ndocs=3, zzz_unrelated=1)
    known = [p for p in inspect.signature(asqa).parameters if p != "options"]
    assert str(refused.value) == (
        "-T ndocs=3: alce_tasks/asqa takes no parameter 'ndocs'; did you mean -T ndoc?; "
        "-T zzz_unrelated=1: alce_tasks/asqa takes no parameter 'zzz_unrelated'; "
        f"its parameters: {', '.join(known)}"
    )


SCRIPT = """
import json, sys
from inspect_ai import eval
try:
    eval(sys.argv[1], task_args=json.loads(sys.argv[2]), model="mockllm/model", display="none")
except Exception as e:
    print(f"{type(e).__name__}: {e}")
else:
    print("ran")
"""


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("alce_tasks/asqa", {"ndocs": 3}),
        ("alce_tasks/expertqa", {"ndocs": 3}),
        ("fullcite_tasks/asqa", {"ndocs": 3}),
        ("fullcite_tasks/expertqa", {"ndocs": 3}),
    ],
)
def test_the_installed_tasks_refuse_it_by_registry_name(name, args, tmp_path):
    if (problem := installed_problem()) is not None:
        pytest.skip(problem)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": ""}
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, name, json.dumps(args)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.stdout.strip() == (
        f"TaskArgumentTypeError: -T ndocs=3: {name} takes no parameter 'ndocs'; "
        "did you mean -T ndoc?"
    ), proc.stderr[-2000:]


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

"""``inspect-cite lm-eval-check``: build lm-eval tasks with their ``--metadata``, no model.

``lm_eval run`` loads its model before it builds any task, and offers no hook before that
(lm-evaluation-harness 0.4.13: ``simple_evaluate`` creates the model, then
``TaskManager.load``), so a task's refusal (a missing data file, a bad ``nli``) can only come
after the model has loaded. This command builds the same tasks through lm-eval's own
``TaskManager``, from the folder ``inspect-cite lm-eval-path`` prints, with the same
``--metadata`` and ``--model_args``, and prints ``ok`` or the refusal: run it first, e.g.
``inspect-cite lm-eval-check --tasks alce_asqa --metadata nli=... && lm_eval run ...``.
"""

import argparse
import json
import logging
from typing import Any

from inspect_cite.checks.errors import PreflightError


def parse_args_dict(values: list[str] | None, flag: str) -> dict[str, Any]:
    """``--metadata``/``--model_args`` values as ``lm_eval run`` reads them: JSON or key=value.

    Args:
        values: The flag's values (a JSON object, or ``key=value[,key=value]`` each).
        flag: The flag, for messages.

    Raises:
        PreflightError: A value that is neither.

    """
    from lm_eval.utils import simple_parse_args_string

    merged: dict[str, Any] = {}
    for value in values or []:
        text = value.strip()
        if text.startswith("{"):
            try:
                parsed = json.loads(text)
            except json.JSONDecodeError as e:
                raise PreflightError(f"{flag} {value}: not a JSON object ({e})") from None
            if not isinstance(parsed, dict):
                raise PreflightError(f"{flag} {value}: not a JSON object")
            merged |= parsed
            continue
        if any("=" not in part for part in text.split(",") if part):
            raise PreflightError(f"{flag} {value}: expected a JSON object or key=value")
        merged |= simple_parse_args_string(text)
    return merged


def check_lm_eval_tasks(tasks: list[str], metadata: dict[str, Any], include_path: str) -> list[str]:
    """Build lm-eval tasks as ``lm_eval run`` does, without a model; a line per task.

    Args:
        tasks: Task names (``alce_asqa``).
        metadata: ``--model_args`` and ``--metadata`` merged, as ``lm_eval run`` merges them.
        include_path: The task folder (``inspect-cite lm-eval-path``).

    Raises:
        PreflightError: lm-eval is not installed, a task is unknown, or a task refuses its
            options (its own message, naming each ``--metadata`` key).

    """
    try:
        from lm_eval.tasks import TaskManager
    except ImportError:
        raise PreflightError(
            "lm-eval is not installed: pip install 'inspect-cite[lm-eval]'"
        ) from None
    # lm-eval's own warnings (its advice on --metadata) would bury the answer.
    logging.getLogger("lm_eval").setLevel(logging.ERROR)
    manager = TaskManager(include_path=include_path, include_defaults=False, metadata=metadata)
    known = sorted(manager.all_tasks)
    unknown = [t for t in tasks if t not in known]
    if unknown:
        raise PreflightError(
            f"--tasks: no task {', '.join(unknown)} in {include_path}; its tasks: "
            f"{', '.join(known)}"
        )
    lines = []
    for name, task in manager.load(tasks)["tasks"].items():
        shots = task.dump_config().get("num_fewshot")
        lines.append(f"ok: {name}: {len(task.eval_docs)} samples, n-shot {shots}")
    return lines


def add_parser(sub: Any) -> None:
    """The ``lm-eval-check`` subcommand's options, on ``inspect-cite``'s subparsers."""
    chk = sub.add_parser(
        "lm-eval-check",
        help="build lm-eval tasks with their --metadata and no model: print ok or what stops "
        "the run",
        description=__doc__.split("\n\n")[1] if __doc__ else None,
        allow_abbrev=False,  # `--model hf` is not `--model_args hf` (see cli.py)
    )
    chk.add_argument("--tasks", required=True, metavar="TASK[,TASK]", help="as lm_eval run --tasks")
    chk.add_argument(
        "--metadata", nargs="+", action="extend", metavar="ARGS",
        help="as lm_eval run --metadata: a JSON object, or key=value",
    )  # fmt: skip
    chk.add_argument(
        "--model_args", nargs="+", action="extend", metavar="ARGS",
        help="as lm_eval run --model_args (pretrained, tokenizer, max_length: the prompts' "
        "tokens are counted with them)",
    )  # fmt: skip


def main(args: argparse.Namespace, include_path: str) -> list[str]:
    """The lines ``inspect-cite lm-eval-check`` prints for parsed arguments.

    Args:
        args: The parsed ``lm-eval-check`` arguments.
        include_path: The task folder (``inspect-cite lm-eval-path``).

    Raises:
        PreflightError: What stops the run.

    """
    metadata = parse_args_dict(args.model_args, "--model_args") | parse_args_dict(
        args.metadata, "--metadata"
    )
    tasks = [t for t in args.tasks.split(",") if t]
    return check_lm_eval_tasks(tasks, metadata, include_path)

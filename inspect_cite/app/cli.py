"""The ``inspect-cite`` console command."""

import argparse
import inspect
import logging
import os
import re
import signal
import sys
import tempfile
import threading
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

# Private: the error Inspect raises for what a user must fix (no such task, a missing
# package); PreflightError is one. No public import exists in inspect_ai 0.3.285.
from inspect_ai._util.error import PrerequisiteError
from rich.text import Text

from inspect_cite.app import calibrate, lm_eval_check
from inspect_cite.app.report import terminal_table, write_report
from inspect_cite.app.roles import parse_roles, role_problems
from inspect_cite.checks.errors import Refusals, TaskArgumentTypeError
from inspect_cite.checks.run import declared_model, declared_roles
from inspect_cite.downloads.http_client import redact_text
from inspect_cite.options.cli_values import cli_value, unknown_parameter_problem

# Stands in for every model while a task is checked: nothing is loaded or called.
CHECK_MODEL = "mockllm/model"


LM_EVAL_CONFIGS = "inspect_cite.lm_eval_configs"
"""The entry point group naming the folder of lm-evaluation-harness task configs.

The package that holds the configs declares it (``pyproject.toml``), as Inspect's own
``inspect_ai`` group declares the packages to register: the core names no task package.
"""


def lm_eval_config_dir() -> Path:
    """The folder of the lm-evaluation-harness task configs, as its package declares it."""
    declared = entry_points(group=LM_EVAL_CONFIGS)
    if not declared:
        raise SystemExit(
            f"inspect-cite lm-eval-path: no installed package declares a {LM_EVAL_CONFIGS} "
            "entry point (run `pip install .`)"
        )
    return Path(next(iter(declared)).load()).resolve()


def _pairs(values: list[str], flag: str) -> dict[str, str]:
    pairs = {}
    for value in values:
        key, sep, rest = value.partition("=")
        if not sep or not key:
            raise SystemExit(f"inspect-cite check: {flag} {value}: expected NAME=VALUE")
        pairs[key.replace("-", "_")] = rest
    return pairs


def check_task(
    task: str,
    task_args: dict[str, Any],
    roles: list[str] | None = None,
    *,
    model: str | None = None,
) -> str:
    """Build a task as ``inspect eval`` does, with no model, so that its preflight runs.

    Inspect loads the model under test, then each role's model, before it builds the task;
    this builds the task alone (every model is Inspect's ``mockllm``), so a wrong ``-T`` value,
    a missing file, an unusable NLI model or role model is reported in seconds. Each
    ``--model-role`` is read as ``inspect eval`` reads it and its model checked without loading
    it (:mod:`inspect_cite.app.roles`); the task's own role checks see the models given. The
    data and prompt files are fetched (and cached) as the run would. A ``-T`` parameter the
    task does not take is refused alone, before anything else (:class:`UnusedTaskArgs`).

    Args:
        task: A registry name (``alce_tasks/asqa``) or a task file (``my_task.py[@name]``).
        task_args: The ``-T`` values, parsed as ``inspect eval`` parses them.
        roles: The ``--model-role`` values the run will give (``grader=openai/gpt-4o``).
        model: The ``--model`` the run will give (``openai/gpt-4o``): the task's checks of the
            model under test read it (:func:`~inspect_cite.checks.run.declared_model`); the
            task is still built with the stand-in, so nothing is loaded or called.

    Returns:
        What was checked, e.g. ``ok: alce_tasks/asqa (948 samples)``.

    Raises:
        PreflightError: The refusal the run would stop with; several in one message.

    """
    from inspect_ai import eval as inspect_eval

    role_models, refused = parse_roles(roles or [])
    refusals = Refusals()
    for error in [*refused, *role_problems(role_models)]:
        with refusals.check():
            raise error
    logs = []
    with (
        tempfile.TemporaryDirectory(prefix="inspect-cite-check-") as log_dir,
        UnusedTaskArgs() as unused,
        declared_roles(role_models),
        declared_model(model),
    ):
        try:
            with refusals.check(passing=(TaskArgumentTypeError,)):
                logs = inspect_eval(
                    task,
                    task_args=task_args,
                    model=CHECK_MODEL,
                    model_roles=dict.fromkeys(role_models, CHECK_MODEL),
                    run_samples=False,
                    display="none",
                    log_dir=log_dir,
                )
        except PrerequisiteError:
            # A misspelt parameter is reported alone, before what the build lacks: the
            # refusal may only be its consequence (-T dataset_paht=... on BioASQ).
            unused.raise_any(task_args)
            raise
    unused.raise_any(task_args, taken={name for log in logs for name in log.eval.task_args_passed})
    refusals.raise_any()
    counts = []
    for log in logs:
        n = log.eval.dataset.samples or 0
        counts.append(f"{log.eval.task_registry_name or log.eval.task}: {n} sample{'s' * (n != 1)}")
    return f"ok: {', '.join(counts)}"


class UnusedTaskArgs(logging.Handler):
    """Collects the ``-T`` parameters a task does not take, while Inspect builds it.

    ``inspect eval`` drops such a parameter with a warning (``param 'ndocs' not used by task
    'alce_tasks/asqa'``) and runs with the default, so a typo silently runs another
    experiment. Used as a context manager around the build, this reads those warnings, whether
    the build then succeeds or fails.
    """

    _WARNING = re.compile(r"param '(?P<param>.+)' not used by task '(?P<task>.+)'$")
    # Inspect's task registry, which warns.
    _LOGGER = "inspect_ai._eval.registry"

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.unused: dict[str, list[str]] = {}

    def emit(self, record: logging.LogRecord) -> None:
        """Keep one of Inspect's warnings about a parameter a task does not use."""
        match = self._WARNING.match(record.getMessage())
        if match is not None:
            self.unused.setdefault(match["param"], []).append(match["task"])

    def __enter__(self) -> "UnusedTaskArgs":
        logging.getLogger(self._LOGGER).addHandler(self)
        return self

    def __exit__(self, *exc: object) -> None:
        logging.getLogger(self._LOGGER).removeHandler(self)

    def raise_any(self, task_args: dict[str, Any], taken: set[str] | None = None) -> None:
        """Refuse, in one line, the parameters no task took, naming each one's close match.

        Args:
            task_args: The ``-T`` values given.
            taken: Parameters some task took (a file's other task may take what one does not).

        Raises:
            TaskArgumentTypeError: ``-T ndocs=3: alce_tasks/asqa takes no parameter 'ndocs';
                did you mean -T ndoc?``

        """
        problems = []
        for name, tasks in self.unused.items():
            if name not in task_args or name in (taken or set()):
                continue
            known = sorted({p for t in tasks for p in task_parameters(t)})
            owner = ", ".join(dict.fromkeys(tasks))
            problems.append(unknown_parameter_problem(name, task_args[name], owner, known))
        if problems:
            raise TaskArgumentTypeError("; ".join(problems))


def task_parameters(name: str) -> list[str]:
    """The parameters of the registered task ``name`` (empty when it cannot be found)."""
    # Private: no public lookup of a registered object by name exists in inspect_ai 0.3.285.
    from inspect_ai._util.registry import registry_lookup
    from inspect_ai.util import registry_info

    found = registry_lookup("task", name)
    if not callable(found):
        return []
    params = registry_info(found).metadata.get("params", [])
    # A task's **options (this project's tasks take every -T there, to refuse the unknown
    # ones) is not a parameter to offer.
    takes = inspect.signature(found).parameters
    return [p for p in params if p not in takes or takes[p].kind is not takes[p].VAR_KEYWORD]


def refusal_text(error: PrerequisiteError) -> str:
    """What a refusal says, as plain text.

    Its message is console markup (this project's escaped as such), read without emoji codes,
    or ``-T nli=bogus:x: ...`` would show one.

    Args:
        error: This project's refusal or Inspect's (no such task, a missing package).

    """
    message = error.message if isinstance(error.message, str) else str(error)
    return Text.from_markup(message, emoji=False).plain.strip()


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``inspect-cite``: its subcommands (``check``, ``report``, ...)."""
    previous = None
    if threading.current_thread() is threading.main_thread():
        # A judge stuck in a worker thread (a python: function that hangs) would keep the
        # process alive after a KeyboardInterrupt: asyncio and Python's exit both wait for
        # such threads. Ctrl-C ends the command at once; the NLI disk cache keeps every
        # decision committed so far.
        previous = signal.signal(signal.SIGINT, _interrupted)
    try:
        return _run(argv)
    except BrokenPipeError:
        # The reader went away (`inspect-cite report DIR | head`): what was asked for is
        # written already. Python's own advice: point stdout at devnull so that the flush at
        # exit does not raise a second time.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)


def _interrupted(signum: int, frame: Any) -> None:
    print("inspect-cite: interrupted", file=sys.stderr)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(130)


def _run(argv: list[str] | None) -> int:
    # allow_abbrev=False, here and on every subcommand: argparse would otherwise read a flag
    # it does not know as the abbreviation of one it does (`check --model X` as `--model-role
    # X`, `lm-eval-check --model hf` as `--model_args hf`) and fail on the wrong flag.
    parser = argparse.ArgumentParser(
        prog="inspect-cite", description="inspect-cite utilities", allow_abbrev=False
    )
    sub = parser.add_subparsers(dest="command", required=True)
    chk = sub.add_parser(
        "check",
        help="build a task with its -T arguments and no model: print ok or what stops the run",
        allow_abbrev=False,
    )
    chk.add_argument("task", help="a task name (alce_tasks/asqa) or file (my_task.py[@name])")
    chk.add_argument("-T", dest="task_args", action="append", default=[], metavar="NAME=VALUE")
    chk.add_argument(
        "--model-role", dest="roles", action="append", default=[], metavar="ROLE=MODEL",
        help="a model role the run binds, as inspect eval takes it (its model is checked, "
        "not loaded)",
    )  # fmt: skip
    chk.add_argument(
        "--model", default=None, metavar="MODEL",
        help="the model under test, as inspect eval takes it (provider/name): what depends on "
        "it is checked (its provider, a HELMET row's tokenizer), its weights are not loaded",
    )  # fmt: skip
    rep = sub.add_parser(
        "report", help="tables and charts comparing the runs in a log directory", allow_abbrev=False
    )
    rep.add_argument("log_dir", help="a directory of Inspect logs (e.g. an eval-set directory)")
    rep.add_argument("--out", default=None, help="output directory (default: LOG_DIR/report)")
    sub.add_parser(
        "lm-eval-path",
        help="print the directory to pass to lm_eval run --include_path",
        allow_abbrev=False,
    )
    lm_eval_check.add_parser(sub)
    calibrate.add_parser(sub)
    args = parser.parse_args(argv)
    if args.command == "calibrate":
        return calibrate.main(args)
    if args.command == "check":
        task_args = {k: cli_value(v) for k, v in _pairs(args.task_args, "-T").items()}
        try:
            print(check_task(args.task, task_args, args.roles, model=args.model))
        except PrerequisiteError as e:
            # This project's refusals, and Inspect's own (no such task, a missing package).
            print(refusal_text(e), file=sys.stderr)
            return 1
        except NotImplementedError:
            # Inspect's task loader globs the file name: an absolute path fails there, in
            # `inspect eval` as here.
            print(
                f"inspect-cite check: {args.task}: Inspect takes a task file by a path relative "
                "to the current folder (`inspect eval` fails on this one too); run from its "
                "folder, or give a relative path",
                file=sys.stderr,
            )
            return 1
        return 0
    if args.command == "lm-eval-path":
        print(lm_eval_config_dir())
        return 0
    if args.command == "lm-eval-check":
        try:
            lines = lm_eval_check.main(args, str(lm_eval_config_dir()))
        except PrerequisiteError as e:
            print(refusal_text(e), file=sys.stderr)
            return 1
        print("\n".join(lines))
        return 0

    out = Path(args.out) if args.out else Path(args.log_dir) / "report"
    try:
        report = write_report(args.log_dir, out)
    except ValueError as e:
        # The message may quote the log directory given, credentials in a URL included.
        print(f"inspect-cite report: {redact_text(str(e))}", file=sys.stderr)
        return 2
    # The tables and skipped runs are redacted as they are read; the paths written are not.
    print(terminal_table(report.runs))
    for line in report.unscored:
        print(f"no scored sample in {line}")
    for run in report.skipped:
        print(f"skipped {run.describe()}")
    for path in report.written:
        print(f"wrote {redact_text(str(path))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

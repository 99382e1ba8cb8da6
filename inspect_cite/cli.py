"""The ``inspect-cite`` console command."""

import argparse
import importlib.util
import sys
from pathlib import Path

from inspect_cite import calibrate
from inspect_cite.http_client import redact_text
from inspect_cite.report import terminal_table, write_report


def lm_eval_config_dir() -> Path:
    """The folder of the lm-evaluation-harness task configs (``alce_tasks/lm_eval``).

    Located, not imported: the core imports no task package, and the configs are files.
    """
    spec = importlib.util.find_spec("alce_tasks")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("inspect-cite lm-eval-path: the alce_tasks package is not installed")
    return Path(next(iter(spec.submodule_search_locations))).resolve() / "lm_eval"


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``inspect-cite``: ``report``, ``calibrate`` and ``lm-eval-path``."""
    parser = argparse.ArgumentParser(prog="inspect-cite", description="inspect-cite utilities")
    sub = parser.add_subparsers(dest="command", required=True)
    rep = sub.add_parser("report", help="tables and charts comparing the runs in a log directory")
    rep.add_argument("log_dir", help="a directory of Inspect logs (e.g. an eval-set directory)")
    rep.add_argument("--out", default=None, help="output directory (default: LOG_DIR/report)")
    sub.add_parser("lm-eval-path", help="print the directory to pass to lm_eval run --include_path")
    calibrate.add_parser(sub)
    args = parser.parse_args(argv)
    if args.command == "calibrate":
        return calibrate.main(args)
    if args.command == "lm-eval-path":
        print(lm_eval_config_dir())
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
    for run in report.skipped:
        print(f"skipped {run.describe()}")
    for path in report.written:
        print(f"wrote {redact_text(str(path))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

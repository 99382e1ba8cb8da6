"""Run every benchmark, one after another, and print their tables.

Each script measures its ratios within its own single process (the baseline and the
optimised path on the same machine, model and data); this runner only sequences them.
The default settings are small (minutes on 2 CPU cores); ``--full`` uses each script's own
defaults, the settings behind the README table.

Run from the repository root::

    python bench/run_all.py [--full] [--only nli,align,calibrate,minicheck]

``alce_eval`` runs ALCE's own eval.py: it needs a checkout of princeton-nlp/ALCE in
``$ALCE_DIR`` and is skipped, with a line saying so, without one.
"""

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SMALL: dict[str, list[str]] = {
    "nli": ["--samples", "60", "--tiny-baseline", "20", "--small-samples", "12",
            "--small-baseline", "4"],
    "constrained": ["--vocab", "32768", "--tokens", "64", "--rounds", "3", "--samples", "2"],
    "align": ["--citations", "100"],
    "scoring": ["--t5-sizes", "100", "--python-sizes", "100,1000,10000"],
    "calibrate": ["--pairs", "120", "--baseline", "30"],
    "stress": ["--pairs", "100"],
    "minicheck": ["--pairs", "80", "--baseline", "20"],
    "verbatim": ["--sizes", "10000,20000,50000", "--old-max", "20000"],
    "helmet_prompts": ["--items", "20", "--repeats", "3"],
    "longcite": ["--sizes", "62500,125000,250000", "--zh-sizes", "100000,200000,400000"],
    "alce_eval": ["--items", "20", "--doc-words", "25"],
    "cpu_peak": ["--pairs", "8", "--repeats", "1", "--families", "seq2seq,classifier,minicheck"],
    "report": ["--logs", "100"],
}  # fmt: skip
"""Small settings per benchmark (``bench/bench_<name>.py``)."""

NEEDS_ENV = {
    "align": ("INSPECT_CITE_REFERENCE_DIR", "the reference files"),
    "alce_eval": ("ALCE_DIR", "a checkout of princeton-nlp/ALCE"),
}
"""Benchmarks that read third-party files (the FullCite authors' documents, ALCE's eval.py)
from the folder a variable names; skipped, with a line saying so, when it is unset."""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--full", action="store_true", help="each script's default settings")
    parser.add_argument("--only", default="", help="comma-separated subset of " + ",".join(SMALL))
    args = parser.parse_args()
    names = [n for n in args.only.split(",") if n] or list(SMALL)
    unknown = sorted(set(names) - set(SMALL))
    if unknown:
        parser.error(f"unknown benchmark(s) {unknown}; choose from {list(SMALL)}")
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    )
    failed = []
    for name in names:
        variable, what = NEEDS_ENV.get(name, ("", ""))
        if variable and not os.environ.get(variable):
            print(f"\n# {name}: skipped (set {variable} to {what})")
            if args.only:
                failed.append(name)
            continue
        script = ROOT / "bench" / f"bench_{name}.py"
        command = [sys.executable, str(script), *([] if args.full else SMALL[name])]
        print(f"\n# {name}: {' '.join(command[1:])}\n", flush=True)
        start = time.perf_counter()
        result = subprocess.run(command, cwd=ROOT, env=env, check=False)
        print(
            f"\n({name}: {time.perf_counter() - start:.0f}s, exit {result.returncode})", flush=True
        )
        if result.returncode != 0:
            failed.append(name)
    if failed:
        print(f"\nFailed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

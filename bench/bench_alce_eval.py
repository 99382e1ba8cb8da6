"""Benchmark: ``alce-eval`` vs ALCE's eval.py, whole processes, on distinct and repeated pairs.

Both score the same ASQA result file (``--citations``, with ROUGE and STR-EM as by default)
with the same random TRUE-format T5 judge, each as a whole process started from the shell
(imports, model load, scoring, writing ``.score``), timed by wall clock:

- eval.py: ALCE's own code (a checkout of princeton-nlp/ALCE given by ``--alce-dir`` or
  ``$ALCE_DIR``), run by ``bench/eval_py_runner.py``, which only points it at the local model
  and loads it in float32; one unbatched ``generate`` per pair, every pair judged;
- alce-eval: ``python -m alce_tasks.eval_cli --nli seq2seq:<dir>`` (batched, each distinct
  pair judged once, no disk cache).

Two files are scored:

1. distinct pairs: every item's documents are its own (retitled, lengthened with words drawn
   for that item and document), so no NLI pair repeats and nothing can be saved by judging a
   pair once: the batched path against eval.py's loop;
2. repeated pairs: :func:`bench.alce_synthetic.synthetic_items`, which cycles over the three
   fixture items, so many pairs repeat: what judging each distinct pair once saves.

The two processes of a file run in turn, ``--repeats`` times, alternating which goes first;
the median wall time of each is kept and the ratio eval.py / alce-eval printed (above 1:
alce-eval is faster). The scores must be equal (ROUGE-Lsum aside: both bootstrap it with
numpy's unseeded random state).

The judge has the size of t5-small (``--d-model 512 --layers 6``: 44M parameters with its
byte vocabulary) and a byte-level tokenizer, about 6 tokens a word: documents of 25 words
(``--doc-words``) give about the token length of ALCE's 100-word passages in T5's own
SentencePiece tokens.

Run from the repository root::

    PYTHONPATH=. python bench/bench_alce_eval.py --alce-dir /path/to/ALCE [--items 60]
"""

import argparse
import copy
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.alce_synthetic import synthetic_items, synthetic_output
from bench.fixtures import load_fixture

ROOT = Path(__file__).resolve().parents[1]
RUNNER = Path(__file__).resolve().parent / "eval_py_runner.py"
# ROUGE-Lsum is bootstrapped with numpy's unseeded random state, in eval.py as in alce-eval.
COMPARED = ("length", "str_em", "str_hit", "citation_rec", "citation_prec")
# --nli-alone: (label, rows, padded tokens, min length ratio, torch threads; 0: torch's default).
# The first, one unpadded pass per pair as eval.py makes them, is the baseline of the others.
NLI_CONFIGS = (
    ("one pair at a time", 1, 1_000_000, 0.0, 0),
    ("65,536 tokens within 80% (the CPU default before)", 32, 65536, 0.8, 0),
    ("4,096 tokens within 95%", 32, 4096, 0.95, 0),
    ("2,048 tokens within 95%", 32, 2048, 0.95, 0),
    ("1,024 tokens within 95% (the CPU default)", 32, 1024, 0.95, 0),
    ("1,024 tokens within 95%, one thread", 32, 1024, 0.95, 1),
)


def distinct_items(
    dataset: str,
    n: int,
    *,
    seed: int = 0,
    ndoc: int = 5,
    doc_words: int = 25,
    statements: tuple[int, int] = (1, 5),
) -> list[dict[str, Any]]:
    """``n`` result items in which no document, and so no NLI pair, occurs twice.

    Item ``k`` starts from fixture item ``k mod 3``; each of its documents gets a title of its
    own and is lengthened to ``doc_words`` words with words of the fixtures' vocabulary drawn
    for it. The output (``statements``: how many, an inclusive range) is then written from these
    documents (:func:`synthetic_output`), so its statements differ too.
    """
    rng = random.Random(seed)
    base = load_fixture(f"alce_{dataset}.json")
    texts = [d["text"] for item in base for d in item["docs"]]
    vocabulary = sorted({w.strip(".,;:?!()").lower() for t in texts for w in t.split()} - {""})
    items = []
    for k in range(n):
        item = copy.deepcopy(base[k % len(base)])
        item["docs"] = item["docs"][:ndoc]
        for j, doc in enumerate(item["docs"]):
            words = doc["text"].split()
            extra = [rng.choice(vocabulary) for _ in range(doc_words - len(words))]
            doc["title"] = f"{doc['title']} ({k}.{j})"
            doc["text"] = " ".join(words + extra).rstrip(".") + "."
        item["output"] = synthetic_output(item, dataset, rng, statements)
        items.append(item)
    return items


def compared(dataset: str) -> tuple[str, ...]:
    """The score keys both must agree on for ``dataset``'s files."""
    if dataset == "qampari":  # eval.py computes no ROUGE for QAMPARI
        keys = ("num_preds", "qampari_prec", "qampari_rec", "qampari_f1", "qampari_f1_top5")
        return ("length", "str_em", *keys, "citation_rec", "citation_prec")
    return (*COMPARED, "claims_nli") if dataset == "eli5" else COMPARED


def metrics_of(dataset: str) -> list[str]:
    """The NLI metrics both are asked for."""
    return ["--citations", *(["--claims_nli"] if dataset == "eli5" else [])]


def build_judge(root: Path, items: list[dict[str, Any]], d_model: int, layers: int) -> Path:
    """A random TRUE-format T5 whose answers vary over these items' pairs."""
    from inspect_cite.nli.seq2seq import TRUE_TEMPLATE
    from inspect_cite.testing.tiny_t5 import build_tiny_t5, vary_t5_outputs

    calibration = [
        TRUE_TEMPLATE.format(premise=item["docs"][0]["text"], hypothesis=item["output"])
        for item in items[:60]
    ]
    raw = build_tiny_t5(root / "t5-raw", d_model=d_model, layers=layers)
    return vary_t5_outputs(raw, root / "t5-judge", calibration)


def run(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """Wall and CPU (user + system) seconds of a whole process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return seconds, cpu


def compare_file(
    name: str, items: list[dict[str, Any]], args: argparse.Namespace, judge: Path, tmp: Path
) -> dict[str, Any]:
    """Time eval.py and alce-eval (and a baseline checkout's) on one result file.

    Their scores must be equal.
    """
    env = dict(os.environ, TOKENIZERS_PARALLELISM="false")
    env.pop("INSPECT_CITE_NLI_CACHE", None)  # every pair judged by the model, no disk cache
    if args.threads:
        env["OMP_NUM_THREADS"] = str(args.threads)
    projects = {"eval.py": ROOT, "alce-eval": args.project}
    if args.baseline_project:
        projects["alce-eval (baseline)"] = args.baseline_project
    pairs_file = tmp / f"{name}-pairs.json"
    metrics = metrics_of(args.dataset)
    cmds, files = {}, {}
    for k, who in enumerate(projects):
        # One file each: each process writes <file>.score next to it.
        # eval.py (and alce-eval) take a file for QAMPARI's when "qampari" is in its name.
        slug = name.replace(", ", "-").replace(" ", "-")
        path = tmp / str(k) / f"{args.dataset}-{slug}-{len(items)}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"args": {}, "data": items}))
        files[who] = path
        if who == "eval.py":
            cmd = [sys.executable, str(RUNNER), str(args.alce_dir), str(judge), "--f", str(path)]
            cmds[who] = [*cmd, *metrics]
        else:
            cmds[who] = [
                *(sys.executable, "-m", "alce_tasks.eval_cli", "--f", str(path)),
                *(*metrics, "--nli", f"seq2seq:{judge}"),
            ]
    times: dict[str, list[float]] = {who: [] for who in cmds}
    cpus: dict[str, list[float]] = {who: [] for who in cmds}
    for rep in range(args.repeats):
        # Each process goes first in turn: a drift in the machine's load hits them alike.
        order = list(cmds)[rep % len(cmds) :] + list(cmds)[: rep % len(cmds)]
        for who in order:
            run_env = dict(env, PYTHONPATH=str(projects[who]))
            if who == "eval.py":
                run_env["EVAL_PY_PAIRS"] = str(pairs_file)
            seconds, cpu = run(cmds[who], run_env, projects[who])
            times[who].append(seconds)
            cpus[who].append(cpu)
            print(
                f"  {name}: {who} run {rep + 1}: {seconds:.1f} s wall, {cpu:.1f} s CPU "
                f"(load average {os.getloadavg()[0]:.1f})",
                flush=True,
            )
    scores = {who: json.loads(Path(f"{files[who]}.score").read_text()) for who in cmds}
    for who in scores:
        differ = {k: (scores["eval.py"].get(k), scores[who].get(k)) for k in compared(args.dataset)}
        differ = {k: v for k, v in differ.items() if v[0] != v[1]}
        if differ:
            raise SystemExit(f"{name}: scores differ (eval.py, {who}): {differ}")
    pairs = [tuple(p) for p in json.loads(pairs_file.read_text())]
    row: dict[str, Any] = {
        "file": name,
        "items": len(items),
        "pairs": len(pairs),
        "distinct": len(set(pairs)),
        "wall": {who: statistics.median(ts) for who, ts in times.items()},
        "cpu": {who: statistics.median(ts) for who, ts in cpus.items()},
        "runs": {who: [round(t, 1) for t in ts] for who, ts in times.items()},
        "scores": {k: scores["alce-eval"][k] for k in compared(args.dataset)},
    }
    if args.nli_alone and name != "repeated":
        row["nli_alone"] = nli_alone(judge, sorted(set(pairs)), args.nli_alone)
    return row


def nli_alone(judge: Path, pairs: list[tuple[str, str]], repeats: int) -> list[dict[str, Any]]:
    """The NLI path alone, in this process: the engine's decisions on ``pairs`` under each
    NLI_CONFIGS row.

    One model, loaded once and handed to a fresh engine per run (no cache between runs); the
    decisions must be those of one pair at a time.
    """
    import torch
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

    from inspect_cite.nli.seq2seq import Seq2SeqNLI

    tok = AutoTokenizer.from_pretrained(judge)
    model = AutoModelForSeq2SeqLM.from_pretrained(judge, dtype=torch.float32)
    default_threads = torch.get_num_threads()
    rows, expected = [], None
    for label, batch, tokens, ratio, threads in NLI_CONFIGS:
        torch.set_num_threads(threads or default_threads)
        times = []
        for _ in range(repeats):
            engine = Seq2SeqNLI(str(judge), batch_size=batch, max_batch_tokens=tokens)
            engine.preload(tokenizer=tok, model=model)
            engine.min_length_ratio = ratio
            t = time.perf_counter()
            decisions = engine(pairs)
            times.append(time.perf_counter() - t)
            if expected is None:
                expected = decisions
            elif decisions != expected:
                raise SystemExit(f"NLI alone, {label}: decisions differ from one pair at a time")
        rows.append({"config": label, "seconds": statistics.median(times)})
        print(f"  NLI alone, {label}: {[round(t, 2) for t in times]} s", flush=True)
    torch.set_num_threads(default_threads)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--alce-dir",
        type=Path,
        default=os.environ.get("ALCE_DIR"),
        help="checkout of princeton-nlp/ALCE holding eval.py and utils.py (default: $ALCE_DIR)",
    )
    parser.add_argument("--items", type=int, default=60, help="items per file")
    parser.add_argument(
        "--dataset",
        choices=("asqa", "qampari", "eli5"),
        default="asqa",
        help="the fixtures the items start from (eli5: --claims_nli too)",
    )
    parser.add_argument(
        "--statements",
        default="1,5",
        help="statements per output, an inclusive range (MIN,MAX) drawn per item",
    )
    parser.add_argument("--ndoc", type=int, default=5, help="documents per item")
    parser.add_argument(
        "--doc-words",
        default="0,25",
        help="distinct files to score, by words per document (0: the fixtures' own, ~13); "
        "comma-separated",
    )
    parser.add_argument("--no-repeated", action="store_true", help="skip the repeated-pair file")
    parser.add_argument("--d-model", type=int, default=512)
    parser.add_argument("--layers", type=int, default=6)
    parser.add_argument("--repeats", type=int, default=1, help="runs of each process per file")
    parser.add_argument(
        "--threads", type=int, default=0, help="OMP_NUM_THREADS of every process (0: default)"
    )
    parser.add_argument(
        "--project",
        type=Path,
        default=ROOT,
        help="run alce-eval from this checkout of inspect-cite (default: this one)",
    )
    parser.add_argument(
        "--baseline-project",
        type=Path,
        default=None,
        help="also run alce-eval from this checkout (e.g. an older commit's), in the same rotation",
    )
    parser.add_argument(
        "--nli-alone",
        type=int,
        default=0,
        metavar="RUNS",
        help="also time the NLI path alone, in one process, on each distinct file's distinct "
        "pairs, under each batching setting (NLI_CONFIGS), RUNS times each (median)",
    )
    parser.add_argument("--json", type=Path, default=None, help="also write the rows here")
    args = parser.parse_args()
    if args.alce_dir is None or not (Path(args.alce_dir) / "eval.py").is_file():
        raise SystemExit(
            "--alce-dir (or $ALCE_DIR): a checkout of princeton-nlp/ALCE holding eval.py and "
            "utils.py is needed (git clone https://github.com/princeton-nlp/ALCE)"
        )
    # eval.py splits sentences with nltk's punkt_tab: prepared offline, as alce-eval does.
    from inspect_cite.text.punkt import ensure_punkt

    ensure_punkt()
    import nltk

    os.environ["NLTK_DATA"] = os.pathsep.join(nltk.data.path)
    low, _, high = args.statements.partition(",")
    statements = (int(low), int(high or low))
    files: dict[str, list[dict[str, Any]]] = {}
    for words in (int(w) for w in args.doc_words.split(",") if w):
        label = f"distinct, {words}-word docs" if words else "distinct, fixture docs"
        files[label] = distinct_items(
            args.dataset,
            args.items,
            seed=11,
            ndoc=args.ndoc,
            doc_words=words,
            statements=statements,
        )
    if not args.no_repeated:
        files["repeated"] = synthetic_items(args.dataset, args.items, seed=11, ndoc=args.ndoc)
    rows = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        judge = build_judge(tmp, next(iter(files.values())), args.d_model, args.layers)
        for k, (name, items) in enumerate(files.items()):
            rows.append(compare_file(name, items, args, judge, tmp / str(k)))
    threads = f"OMP_NUM_THREADS={args.threads}" if args.threads else "default threads"
    print(
        f"\n{args.dataset.upper()}, {' '.join(metrics_of(args.dataset))} (with the default "
        f"metrics), {args.statements} statements an output, {args.ndoc} docs an item, "
        f"random T5 judge d_model {args.d_model}, "
        f"{args.layers}+{args.layers} layers, CPU ({os.cpu_count()} cores, {threads}, load "
        f"average {os.getloadavg()[0]:.1f} at the end); median of {args.repeats} run(s) each\n"
    )
    others = [who for who in rows[0]["wall"] if who != "eval.py"]
    print(
        "| file | NLI pairs (distinct) | eval.py s (CPU s) | "
        + " | ".join(f"{who} s (CPU s) | eval.py / {who}" for who in others)
        + " |"
    )
    print("|---|---|---|" + "---|---|" * len(others))
    for r in rows:
        wall, cpu = r["wall"], r["cpu"]
        cells = [
            f"{wall[who]:.1f} ({cpu[who]:.0f}) | **{wall['eval.py'] / wall[who]:.2f}x**"
            for who in others
        ]
        print(
            f"| {r['file']} | {r['pairs']} ({r['distinct']}) "
            f"| {wall['eval.py']:.1f} ({cpu['eval.py']:.0f}) | " + " | ".join(cells) + " |"
        )
    print(f"\nScores equal ({', '.join(compared(args.dataset))}) in every file.")
    for r in rows:
        if "nli_alone" in r:
            base = r["nli_alone"][0]["seconds"]
            print(
                f"\nNLI alone, {r['file']}, its {r['distinct']} distinct pairs (median of "
                f"{args.nli_alone}; same decisions in every setting):\n"
            )
            print("| passes of | s | one pair at a time / this |\n|---|---|---|")
            for n in r["nli_alone"]:
                print(f"| {n['config']} | {n['seconds']:.2f} | {base / n['seconds']:.2f}x |")
    for r in rows:
        if r["file"] == "repeated":
            print(
                f"Repeated pairs: eval.py judged {r['pairs']} pairs, {r['distinct']} of them "
                f"distinct ({r['pairs'] - r['distinct']} judged again), which is all alce-eval "
                "judges."
            )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()

"""Time of ``align_snippet`` per citation on a 1,000-word document (target: under 10 ms).

The document is 1,000 words of the FullCite authors' released documents, joined. Snippets are
spans of it of 10-60 words, (a) verbatim, (b) reworded (each word replaced by a random
document word with probability 0.15, then some words dropped or inserted), (c) unrelated
(words drawn from anywhere, so usually no window reaches 0.7). Times are reported with the
document's word index cold (first citation of a document: the index is built) and warm (later
citations of the same document reuse it, as in one answer).

Run from the repository root, with the third-party reference files::

    INSPECT_CITE_REFERENCE_DIR=... python bench/bench_align.py [--citations 300] [--words 1000]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
# The third-party reference files (the FullCite authors' released outputs), as the tests read them.
REFERENCE_ENV = "INSPECT_CITE_REFERENCE_DIR"


def reference_documents() -> list[str]:
    import os

    reference = os.environ.get(REFERENCE_ENV, "")
    if not reference or not Path(reference).is_dir():
        sys.exit(f"bench_align.py reads the FullCite authors' documents: set {REFERENCE_ENV}")
    docs: dict[str, str] = {}
    for name in ("human_eval_2.json", "human_evaluation_data.json"):
        for record in json.loads((Path(reference) / "fullcite" / "incite" / name).read_text()):
            for c in record["citations"]:
                docs.setdefault(c["doc_id"], c["full_document"])
    return list(docs.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--citations", type=int, default=300)
    parser.add_argument("--words", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    from inspect_cite.text import alignment, verbatim
    from solvers.posthoc import align_snippet

    rng = random.Random(args.seed)
    words = " ".join(reference_documents()).split()
    document = " ".join(words[: args.words])
    doc_words = document.split()

    def reworded(span: list[str]) -> str:
        out = [rng.choice(doc_words) if rng.random() < 0.15 else w for w in span]
        if len(out) > 5 and rng.random() < 0.5:
            del out[rng.randrange(len(out))]
        if rng.random() < 0.5:
            out.insert(rng.randrange(len(out) + 1), rng.choice(doc_words))
        return " ".join(out)

    cases: dict[str, list[str]] = {"verbatim": [], "reworded": [], "unrelated": []}
    for _ in range(args.citations):
        length = rng.randint(10, 60)
        start = rng.randrange(len(doc_words) - length)
        span = doc_words[start : start + length]
        cases["verbatim"].append(" ".join(span))
        cases["reworded"].append(reworded(span))
        cases["unrelated"].append(" ".join(rng.choice(words) for _ in range(length)))

    print(f"document: {len(doc_words)} words, {len(document)} characters")
    print(f"{'case':<10} {'index':<5} {'mean ms':>8} {'median':>8} {'p95':>8} {'max':>8} aligned")
    for name, snippets in cases.items():
        for cold in (True, False):
            times = []
            aligned = 0
            for snippet in snippets:
                if cold:
                    alignment._index.cache_clear()
                    verbatim.document_index.cache_clear()
                else:
                    alignment._index(document)
                start = time.perf_counter()
                result = align_snippet(snippet, document)
                times.append((time.perf_counter() - start) * 1000)
                aligned += result is not None
            times.sort()
            print(
                f"{name:<10} {'cold' if cold else 'warm':<5} {statistics.mean(times):8.3f} "
                f"{statistics.median(times):8.3f} {times[int(0.95 * len(times))]:8.3f} "
                f"{times[-1]:8.3f} {aligned}/{len(snippets)}"
            )
    print("target: < 10 ms per citation")


if __name__ == "__main__":
    main()

"""Small human-labelled files in each format ``inspect-cite calibrate`` reads, in this project's
own words: AttributionBench JSON Lines, ExpertQA JSON Lines, ALCE's human-evaluation JSON, the
FullCite authors' evaluation folder, and a user's own JSON Lines. Field names and label values
are those of the released files; the texts are made up."""

import json
from pathlib import Path
from typing import Any

# (claim, references, label, source): a word-overlap judge gets most right and some wrong.
ATTRIBUTIONBENCH_ROWS = [
    ("The bridge opened in 1932.", ["Title: Bridge\n\nThe bridge opened in 1932."], 1, "LFQA"),
    ("The bridge is made of wood.", ["Title: Bridge\n\nThe bridge is steel."], 0, "LFQA"),
    ("Otters eat fish daily.", ["Otters eat fish daily in rivers.", "Otters swim."], 1, "ExpertQA"),
    ("Otters fly south.", ["Otters swim in rivers."], 0, "ExpertQA"),
    ("Tea grows on hills.", ["Tea is grown on cool hills."], 1, "ExpertQA"),
    ("Salt melts ice on roads.", [], 0, "AttributedQA"),
    ("Rain falls in April.", ["Rain falls in April and May."], 0, "AttributedQA"),
]


def attributionbench_row(claim: str, refs: list[str], label: int, source: str, i: int) -> dict:
    """One line as OSU-NLP-Group/AttributionBench's data/*.jsonl writes it."""
    return {
        "question": f"question {i}?",
        "claim": claim,
        "claim_raw_string": claim,
        "response": claim,
        "references": refs,
        "citation_links": [],
        "webpage_references": [],
        "attribution_label": "attributable" if label else "not attributable",
        "src_dataset": source,
        "id": f"{source}_{i}",
    }


def write_jsonl(path: Path, rows: list[Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def write_attributionbench(path: Path) -> Path:
    rows = [attributionbench_row(*r, i) for i, r in enumerate(ATTRIBUTIONBENCH_ROWS)]
    return write_jsonl(path, rows)


def expertqa_claim(text: str, evidence: list[str], support: str | None) -> dict:
    return {
        "claim_string": text,
        "evidence": evidence,
        "support": support,
        "reason_missing_support": None,
        "correctness": None,
    }


def write_expertqa(path: Path) -> Path:
    """Two questions, two systems; labels Complete / Missing / Incomplete and one unlabelled."""
    rows = [
        {
            "question": "How do otters keep warm?",
            "annotator_id": "synthetic",
            "answers": {
                "rr_gs_gpt4": {
                    "answer_string": "Otters have dense fur [1]. Otters are fish [2].",
                    "claims": [
                        expertqa_claim(
                            "Otters have dense fur [1].",
                            ["[1] https://example.org/otters\n\nOtters have dense fur."],
                            "Complete",
                        ),
                        expertqa_claim(
                            "Otters are fish [2].",
                            ["[2] https://example.org/fish\n\nOtters are mammals."],
                            "Missing",
                        ),
                        expertqa_claim(
                            "Otters nap [3].", ["[3] https://example.org/nap"], "Missing"
                        ),
                    ],
                }
            },
            "metadata": {"field": "Biology", "question_type": "synthetic"},
        },
        {
            "question": "Why is tea bitter?",
            "annotator_id": "synthetic",
            "answers": {
                "post_hoc_gs_gpt4": {
                    "answer_string": "Tea holds tannins [1][2].",
                    "claims": [
                        expertqa_claim(
                            "Tea holds tannins and caffeine [1][2].",
                            [
                                "[1] https://example.org/tea\n\nTea holds tannins.",
                                "[2] https://example.org/leaf\n\nLeaves are green.",
                            ],
                            "Incomplete",
                        ),
                        expertqa_claim(
                            "Tea is a leaf [1].",
                            ["[1] https://example.org/tea\n\nTea is a leaf."],
                            None,
                        ),
                    ],
                }
            },
            "metadata": {"field": "Food", "question_type": "synthetic"},
        },
    ]
    return write_jsonl(path, rows)


def alce_sentence(text: str, docs: list[tuple[str, str, int]], recall: int) -> dict:
    """A sentence with its cited documents (title, text, human citation score)."""
    return {
        "text": text,
        "citations": [
            {"title": title, "text": body, "citation_precision_score": score}
            for title, body, score in docs
        ],
        "sentence_recall_score": recall,
        "sentence_precision_score": recall,
    }


def alce_item(
    qid: str, sentences: list[dict], auto: list[int], auto_cites: list[list[int]]
) -> dict:
    return {
        "id": qid,
        "question": f"question {qid}?",
        "output": " ".join(s["text"] for s in sentences),
        "sentences": sentences,
        "overall_recall_score": 0.5,
        "overall_precision_score": 0.5,
        "automatic_recall_scores": auto,
        "automatic_precision_scores": auto,
        "automatic_citation_precision_scores": auto_cites,
    }


def write_alce_human(path: Path) -> Path:
    """ASQA and ELI5, one system each, as ALCE's human_eval_citations_completed.json nests them."""
    river = ("River", "The river floods in spring.", 2)
    town = ("Town", "The town has a bridge.", 0)
    lake = ("Lake", "The lake is deep and cold.", 1)
    content = {
        "asqa": {
            "asqa-system-a.json": {
                "q1": alce_item(
                    "q1",
                    [
                        alce_sentence("The river floods in spring [1][2].", [river, town], 1),
                        alce_sentence("The town is old.", [], 0),
                    ],
                    [1, 0],
                    [[2, 0], []],
                ),
                "q2": alce_item(
                    "q2",
                    [alce_sentence("The lake is warm [1].", [lake], 0)],
                    [1],
                    [[1]],
                ),
                "overall_results": {"citation_rec": 50.0, "citation_prec": 50.0},
            }
        },
        "eli5": {
            "eli5-system-b.json": {
                "e1": alce_item(
                    "e1",
                    [alce_sentence("The lake is deep [1].", [lake], 1)],
                    [0],
                    [[0]],
                ),
            }
        },
    }
    path.write_text(json.dumps(content, indent=1), encoding="utf-8")
    return path


def write_fullcite_human(folder: Path) -> Path:
    """``human_evaluation_data.json`` and one ratings file, as anaryegen/incite-manual-eval."""
    folder.mkdir(parents=True, exist_ok=True)
    records = [
        {
            "question": "What do otters eat?",
            "source": "bioasq",
            "generated_answer": 'Otters eat fish [doc:1 snippet:"Otters eat fish."]. They also '
            'eat crabs [doc:2 snippet:"Crabs are food."].',
            "citations": [
                {"doc_id": "1", "snippet": "Otters eat fish.", "full_document": "Otters eat fish."},
                {"doc_id": "2", "snippet": "Crabs are food.", "full_document": "Crabs live here."},
            ],
        },
        {
            "question": "Where is the lake?",
            "source": "asqa",
            "generated_answer": 'The lake is north [doc:lake snippet:"north of town"].',
            "citations": [
                {"doc_id": "lake", "snippet": "north of town", "full_document": ""},
            ],
        },
    ]
    (folder / "human_evaluation_data.json").write_text(json.dumps(records, indent=2))
    responses = {
        "userId": "tester",
        "timestamp": "2026-01-01T00:00:00Z",
        "responses": [
            {
                "question": "What do otters eat?",
                "citationIndex": 0,
                "docId": "1",
                "q1_support": "yes",
                "q2_relevance": "yes",
            },
            {
                "question": "What do otters eat?",
                "citationIndex": 1,
                "docId": "2",
                "q1_support": "no",
                "q2_relevance": "yes",
            },
            {
                "question": "Where is the lake?",
                "citationIndex": 0,
                "docId": "lake",
                "q1_support": "yes",
                "q2_relevance": "no",
            },
        ],
    }
    (folder / "responses.json").write_text(json.dumps(responses, indent=2))
    return folder


def write_user_jsonl(path: Path) -> Path:
    rows = [
        {"evidence": ["Cats purr.", "Cats sleep."], "claim": "Cats purr.", "label": True},
        {"evidence": ["Dogs bark."], "claim": "Dogs meow.", "label": False, "subset": "dogs"},
    ]
    return write_jsonl(path, rows)


# English claims with names, titles, places, numbers and dates, as AttributionBench's are.
_PEOPLE = [
    "Toby Keith",
    "Marty Robbins",
    "Ada Lovelace",
    "Nina Simone",
    "Louis Armstrong",
    "Grace Hopper",
    "Miles Davis",
    "Ella Fitzgerald",
    "Alan Turing",
    "Marie Curie",
    "Johnny Cash",
    "Dolly Parton",
]
_PLACES = ["Paris", "Toronto", "Nairobi", "Lisbon", "Denver", "Osaka", "Glasgow", "Quito"]
_TOPICS = [
    ("song", "sang the song '{t}' in {y}", "'{t}' is a song recorded by {p} in {y}."),
    ("river", "crossed the {t} river near {c}", "{p} crossed the {t} river near {c} in {y}."),
    ("book", "wrote the book '{t}' in {c}", "The book '{t}' was written by {p} in {c}."),
    ("prize", "won {n} prizes in {y}", "In {y}, {p} won {n} prizes at a ceremony in {c}."),
]
_TITLES = [
    "Blue Morning Rain",
    "Songs of the Valley",
    "The Quiet Harbour",
    "A Winter Road",
    "Light over Water",
    "The Long Table",
    "Stone and Salt",
    "Open Fields Tonight",
]
_FILLER = [
    "Critics praised the work for its careful detail.",
    "The archive keeps a copy of the original notes.",
    "Several later editions added a short preface.",
    "Local newspapers covered the event at length.",
]


def english_attributionbench_rows(n: int = 260, seed: int = 3) -> list[dict]:
    """AttributionBench-format rows of English claims (most supported, some with 2 references)."""
    import random

    rng = random.Random(seed)
    rows = []
    for i in range(n):
        person, place = rng.choice(_PEOPLE), rng.choice(_PLACES)
        title, year, count = rng.choice(_TITLES), rng.randint(1900, 2020), rng.randint(2, 40)
        topic, claim_form, evidence_form = _TOPICS[i % len(_TOPICS)]
        values = {"p": person, "c": place, "t": title, "y": year, "n": count}
        claim = f"{person} {claim_form.format(**values)}."
        if i % 5 == 0:
            claim = f"{person} did not stay in {place} after {year}."
            evidence_form = "{p} did not stay in {c} after {y}, and moved away."
        evidence = (
            f"Title: {title}\n\n" + evidence_form.format(**values) + " " + rng.choice(_FILLER)
        )
        refs = [evidence] + (
            [rng.choice(_FILLER) + " " + rng.choice(_FILLER)] if i % 3 == 0 else []
        )
        label = 1 if i % 7 else 0
        rows.append(attributionbench_row(claim, refs, label, rng.choice(["LFQA", "ExpertQA"]), i))
    return rows


def citecheck_row(idx: int, quote: str, statement: str, label: int, method: str) -> dict:
    """One line as xzy-xzy/CiteCheck's dataset/*.jsonl writes it."""
    return {
        "idx": idx,
        "query": "问题？",
        "answer": statement,
        "statement": statement,
        "quote": quote,
        "label": label,
        "method": method,
    }

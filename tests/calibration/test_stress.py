"""``inspect-cite calibrate --stress`` and ``--data citecheck``.

Perturbations are deterministic and never leave a pair unchanged; every judged line is the
judge's own answer on that line's evidence and claim; a judge that always (never) says
"supported" detects none (all) of the unsupported pairs; CiteCheck's confusion counts equal an
independent count.
"""

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from inspect_cite.app.cli import main
from inspect_cite.app.human_labels import EVIDENCE_SEPARATOR, HumanDataError, load_human_data
from inspect_cite.app.perturb import (
    INVARIANT_TYPES,
    KIND,
    MAX_PER_PAIR,
    NO_CONTENT,
    NUMBER_MARKERS_ONLY,
    TYPES,
    UNCHANGED,
    UNSUPPORTED_TYPES,
    change_number,
    entities,
    entity_pool,
    language,
    negate,
    swap_entity,
)
from inspect_cite.app.stress import perturb_data
from tests.helpers import nli_fns
from tests.helpers.human_label_files import (
    citecheck_row,
    english_attributionbench_rows,
    write_jsonl,
)

JUDGE = "python:tests.helpers.nli_fns:claim_overlap"
ALWAYS = "python:tests.helpers.nli_fns:always_supported"
NEVER = "python:tests.helpers.nli_fns:never_supported"


@pytest.fixture
def english(tmp_path: Path) -> Path:
    return write_jsonl(tmp_path / "dev.jsonl", english_attributionbench_rows())


def run(tmp_path: Path, *args: str) -> tuple[dict, list[dict], dict]:
    out = tmp_path / "out"
    assert main(["calibrate", *args, "--out", str(out)]) == 0
    lines = [json.loads(x) for x in (out / "stress.jsonl").read_text().splitlines()]
    return (
        json.loads((out / "stress.json").read_text()),
        lines,
        json.loads((out / "calibration.json").read_text()),
    )


def test_perturbations_are_deterministic_and_never_unchanged(english):
    data = load_human_data("attributionbench", str(english))
    first, again = perturb_data(data, seed=0), perturb_data(data, seed=0)
    assert first.pairs == again.pairs
    assert perturb_data(data, seed=1).pairs != first.pairs
    per_source: Counter[int] = Counter()
    for p in first.pairs:
        source = data.pairs[p.position]
        assert source.label
        per_source[p.position] += 1
        assert (p.evidence, p.claim) != (source.evidence_texts, source.claim)
        if p.type in ("misattribution", "evidence_order"):
            assert p.claim == source.claim and p.evidence != source.evidence_texts
        else:
            assert p.claim != source.claim, p
        if p.type == "misattribution":
            assert not set(p.evidence) & set(source.evidence_texts)
    assert max(per_source.values()) <= MAX_PER_PAIR
    counts = Counter(p.type for p in first.pairs)
    assert sum(counts[t] >= 100 for t in UNSUPPORTED_TYPES) >= 5, counts
    assert sum(counts[t] >= 100 for t in INVARIANT_TYPES) >= 2, counts


def test_rules_change_what_they_name():
    assert negate("The bridge is old.", "en") == "The bridge is not old."
    assert negate("The bridge is not old.", "en") == "The bridge is old."
    assert negate("Otters swim.", "en") == "It is not the case that Otters swim."
    assert negate("他是医生。", "zh") == "他不是医生。"
    assert negate("Le pont est vieux.", "other") is None
    import random

    changed = change_number("It opened in 1932 with 40 lanes.", "en", random.Random(0))
    assert changed != "It opened in 1932 with 40 lanes." and changed is not None
    assert change_number("It may open in May.", "en", random.Random(0)).startswith("It may")
    assert change_number("No number here.", "en", random.Random(0)) is None
    # The evidence holds every year but 1936: the change is never a year it names.
    years = " ".join(f"{y}" for y in range(1930, 1940) if y != 1936)
    for seed in range(5):
        assert change_number("It opened in 1932.", "en", random.Random(seed), years) == (
            "It opened in 1936."
        )
    found = {(e.text, e.type) for e in entities("The Beatles played in Paris for Sony Records.")}
    assert found == {("Beatles", "other"), ("Paris", "place"), ("Sony Records", "organisation")}
    assert [e.type for e in entities("He sang 'Blue Morning Rain' twice.")] == ["title"]
    # A capitalised common word opening a sentence is no name; a name seen mid-sentence is.
    text = "Meanwhile, Milira sang. However, it rained in Quito."
    named = {e.text for e in entities(text, frozenset({"however"}), frozenset({"Milira"}))}
    assert named == {"Milira", "Quito"}
    assert (language("The bridge is old."), language("他是医生。")) == ("en", "zh")


def test_a_perturbation_that_changes_nothing_is_counted_not_made(tmp_path):
    rows = [
        {"evidence": ["all lower case here."], "claim": "all lower case here.", "label": True},
        {"evidence": ["Other words entirely."], "claim": "Other words entirely.", "label": False},
    ]
    data = load_human_data("jsonl", str(write_jsonl(tmp_path / "own.jsonl", rows)))
    made = perturb_data(data, seed=0)
    casing = [p for p in made.pairs if p.type == "casing"]
    assert [p.claim for p in casing] == ["ALL LOWER CASE HERE."]
    assert made.skipped["evidence_order"]["one evidence text"] == 1
    same = [{"evidence": ["a b"], "claim": "1234", "label": True}]
    only = perturb_data(
        load_human_data("jsonl", str(write_jsonl(tmp_path / "n.jsonl", same))), seed=0
    )
    assert only.skipped["casing"] == Counter({"no letter case": 1})
    assert UNCHANGED  # the reason exists for types that would repeat their source


def test_every_line_is_the_judges_answer_on_its_own_evidence_and_claim(
    tmp_path, fresh_nli, english
):
    stress, lines, calibration = run(
        tmp_path,
        "--nli",
        JUDGE,
        "--data",
        "attributionbench",
        "--data-path",
        str(english),
        "--stress",
    )
    assert lines
    for line in lines:
        premise = EVIDENCE_SEPARATOR.join(line["evidence"])
        assert line["decision"] == nli_fns.claim_overlap(premise, line["claim"]), line
        assert line["kind"] == KIND[line["type"]]
        assert isinstance(line["evidence"], list) and all(
            isinstance(e, str) for e in line["evidence"]
        )
        assert {"judge", "data", "index", "probability"} <= set(line)
    [judge] = stress["judges"]
    rows = {r["type"]: r for r in judge["types"]}
    assert list(rows) == list(TYPES)
    for type_, row in rows.items():
        mine = [x for x in lines if x["type"] == type_]
        if row["kind"] == "unsupported":
            hits = sum(not x["decision"] for x in mine)
        else:
            hits = sum(x["decision"] == x["source_decision"] for x in mine)
        assert (row["n"], row["hits"]) == (len(mine), hits)
        if row["kind"] == "unsupported":
            took = [x for x in mine if x["source_decision"]]
            assert row["n_source_supported"] == len(took)
            if took:
                share = 100 * sum(not x["decision"] for x in took) / len(took)
                assert row["rate_source_supported"] == pytest.approx(share, abs=1e-3)
        if row["n"]:
            assert row["rate"] == pytest.approx(100 * hits / len(mine), abs=1e-3)
            assert row["rate_ci"][0] <= row["rate"] <= row["rate_ci"][1]
            measure = row["measure"]
            assert (row[measure], row[f"{measure}_ci"]) == (row["rate"], row["rate_ci"])
    # The source decisions are the judge's decisions on the unperturbed pairs.
    rows_by_index = {}
    for line in lines:
        rows_by_index.setdefault(line["index"], line["source_decision"])
    source = [json.loads(x) for x in english.read_text().splitlines()]
    for index, decision in rows_by_index.items():
        row = source[index]
        premise = EVIDENCE_SEPARATOR.join(row["references"])
        assert decision == nli_fns.claim_overlap(premise, row["claim"])
    assert calibration["judges"][0]["datasets"][0]["n"] == 260
    assert (tmp_path / "out" / "stress.png").is_file()
    assert "Can the judge be fooled?" in (tmp_path / "out" / "stress.md").read_text()
    speed = judge["speed"]["attributionbench"]
    assert speed["pairs"] == len(lines) and speed["pairs_per_s"] > 0


def test_always_and_never_supported_judges(tmp_path, fresh_nli, english):
    stress, lines, _ = run(
        tmp_path,
        "--nli",
        ALWAYS,
        "--nli",
        NEVER,
        "--data",
        "attributionbench",
        "--data-path",
        str(english),
        "--stress",
    )
    always, never = ({r["type"]: r for r in j["types"]} for j in stress["judges"])
    for type_ in UNSUPPORTED_TYPES:
        assert always[type_]["n"] > 0
        assert (always[type_]["detected"], never[type_]["detected"]) == (0.0, 100.0)
        # Where the judge accepted the source: everything (always), nothing (never).
        assert always[type_]["n_source_supported"] == always[type_]["n"]
        assert always[type_]["rate_source_supported"] == 0.0
        assert never[type_]["n_source_supported"] == 0
        assert never[type_]["rate_source_supported"] is None
    for type_ in INVARIANT_TYPES:
        assert (always[type_]["kept"], never[type_]["kept"]) == (100.0, 100.0)
    assert len(lines) == 2 * sum(r["n"] for r in always.values())


def test_stress_reuses_the_nli_cache(tmp_path, fresh_nli, english):
    from inspect_cite.nli import reset_nli

    cache = tmp_path / "nli.sqlite"
    args = ["--nli", JUDGE, "--data", "attributionbench", "--data-path", str(english)]
    first, _, _ = run(tmp_path, *args, "--stress", "--nli-cache", str(cache))
    assert first["judges"][0]["speed"]["attributionbench"]["nli_calls"] > 0
    reset_nli()
    again, _, _ = run(tmp_path, *args, "--stress", "--nli-cache", str(cache))
    assert again["judges"][0]["speed"]["attributionbench"]["nli_calls"] == 0
    assert again["judges"][0]["types"] == first["judges"][0]["types"]


# CiteCheck -------------------------------------------------------------------------------------

CITECHECK_ROWS = [
    ("[1] 特斯拉在2023年上半年的份额为21.7%。", "特斯拉在2023年上半年的份额为21.7%。", 1, "none"),
    ("[1] 比亚迪同期销售61万辆。", "比亚迪同期销售90万辆。", 0, "ch"),
    ("[1] 有理数和无理数统称为实数。", "有理数和无理数统称为实数。", 1, "none"),
    ("[1] 大众排名第三，占有率7.6%。", "大众排名第三，占有率为7.6%，上汽第四。", 0, "del"),
    ("[1] 吉利排名第五。", "吉利排名第五。", 1, "del"),
    ("[1] 北京是中国的首都。", "上海是中国的首都。", 0, "ch"),
    ("", "没有引文。", 1, "none"),
]


def citecheck_file(path: Path) -> Path:
    rows = [citecheck_row(i, *r) for i, r in enumerate(CITECHECK_ROWS)]
    return write_jsonl(path, rows)


def test_citecheck_counts_equal_an_independent_count(tmp_path, fresh_nli):
    path = citecheck_file(tmp_path / "test.jsonl")
    judge = "python:tests.helpers.nli_fns:char_overlap"
    stress, lines, calibration = run(
        tmp_path, "--nli", judge, "--data", "citecheck", "--data-path", str(path), "--stress"
    )
    expected: Counter = Counter()
    for row in map(json.loads, path.read_text().splitlines()):
        if not row["quote"].strip():
            continue
        verdict = nli_fns.char_overlap(row["quote"], row["statement"])
        cell = ("tp" if verdict else "fn") if row["label"] == 1 else ("fp" if verdict else "tn")
        expected[(row["method"], cell)] += 1
        expected[("all", cell)] += 1
    [data] = calibration["data"]
    assert data["skipped"] == {"no evidence: an empty premise, nothing for the judge to read": 1}
    rows = calibration["judges"][0]["datasets"]
    assert {r["subset"] for r in rows} == {"all", "none", "ch", "del"}
    for row in rows:
        for cell in ("tp", "fp", "tn", "fn"):
            assert row[cell] == expected[(row["subset"], cell)], (row["subset"], cell)
    # Chinese: no casing, no entity recogniser; both skipped with a count.
    [made] = stress["data"]
    assert made["languages"] == {"zh": 3}
    assert made["skipped"]["casing"] == {"not for language zh": 3}
    assert made["skipped"]["entity"] == {"not for language zh": 3}
    assert {x["type"] for x in lines} >= {"negation", "number", "partial", "whitespace"}
    for line in lines:
        premise = EVIDENCE_SEPARATOR.join(line["evidence"])
        assert line["decision"] == nli_fns.char_overlap(premise, line["claim"])


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda r: r.update(label=2), "label"),
        (lambda r: r.update(label="yes"), "label"),
        (lambda r: r.update(method=""), "method"),
        (lambda r: r.update(method="swap"), "method"),
        (lambda r: r.pop("quote"), "quote"),
        (lambda r: r.update(statement=3), "statement"),
    ],
)
def test_a_malformed_citecheck_record_names_its_line_and_field(tmp_path, change, field):
    rows = [citecheck_row(i, *r) for i, r in enumerate(CITECHECK_ROWS)]
    change(rows[1])
    path = write_jsonl(tmp_path / "test.jsonl", rows)
    with pytest.raises(HumanDataError, match=rf'{path}:2: field "{field}"'):
        load_human_data("citecheck", str(path))


def test_citecheck_is_pinned_to_its_test_split_verified_and_cached(
    cache_root, monkeypatch, tmp_path
):
    from inspect_cite.app import human_labels
    from inspect_cite.downloads import hub_files
    from inspect_cite.downloads.download import git_blob_sha1
    from tests.helpers.http_servers import RecordingServer, Reply

    assert human_labels.CITECHECK_FILES["test"].path == "dataset/test.jsonl"
    assert human_labels.CITECHECK_FILES["test"].commit.startswith("a76b3ec")
    path = citecheck_file(tmp_path / "test.jsonl")
    real = human_labels.CITECHECK_FILES["test"]
    pin = hub_files.PinnedGitHubFile(real.repo, real.commit, real.path, git_blob_sha1(path))
    monkeypatch.setitem(human_labels.CITECHECK_FILES, "test", pin)
    content = path.read_bytes()
    url = f"/{pin.repo}/{pin.commit}/{pin.path}"

    def server(body: bytes) -> RecordingServer:
        return RecordingServer(
            lambda seen: Reply(200, body) if seen.path == url else Reply(404, b"")
        )

    with server(content) as served:
        monkeypatch.setattr(hub_files, "GITHUB_RAW_URL", served.url + "/{repo}/{commit}/{path}")
        data = load_human_data("citecheck")
        assert len(data.pairs) == len(CITECHECK_ROWS) - 1
        assert data.sources[0]["git_blob"] == pin.git_blob and "sha256" in data.sources[0]
        load_human_data("citecheck")  # cached: no second request
        assert len(served.requests) == 1
    for cached in cache_root.glob("calibration/*/*/test.jsonl"):
        cached.unlink()
    with server(content + b"\n") as served:
        monkeypatch.setattr(hub_files, "GITHUB_RAW_URL", served.url + "/{repo}/{commit}/{path}")
        with pytest.raises(HumanDataError, match="expected git blob"):
            load_human_data("citecheck")


def test_misattribution_never_takes_the_same_claim_or_an_evidence_text(tmp_path):
    rows = [
        {"evidence": ["Otters eat fish in rivers."], "claim": "Otters eat fish.", "label": True},
        {"evidence": ["Rivers feed otters fish."], "claim": "Otters eat fish.", "label": True},
        {"evidence": ["Otters eat fish in rivers."], "claim": "Otters eat crabs.", "label": False},
        {"evidence": ["Seals eat fish at sea."], "claim": "Seals eat fish.", "label": False},
    ]
    data = load_human_data("jsonl", str(write_jsonl(tmp_path / "own.jsonl", rows)))
    made = perturb_data(data, seed=0)
    taken = {p.position: p.evidence for p in made.pairs if p.type == "misattribution"}
    assert taken == {0: ("Seals eat fish at sea.",), 1: ("Seals eat fish at sea.",)}


@pytest.mark.parametrize(
    "claim",
    [
        "Otters eat fish [5].",
        "Otters eat fish [1, 2].",
        "4. Turn the knob left.",
        "Open it: 1) turn the knob.",
        "Step 5. Turn the knob.",
        "包括:1.脑动脉硬化。",
    ],
)
def test_number_leaves_citation_markers_and_list_numbering_alone(claim, tmp_path):
    import random

    assert change_number(claim, language(claim), random.Random(0)) is None
    rows = [{"evidence": ["Otters eat fish."], "claim": claim, "label": True}]
    data = load_human_data("jsonl", str(write_jsonl(tmp_path / "m.jsonl", rows)))
    made = perturb_data(data, seed=0)
    assert not [p for p in made.pairs if p.type == "number"]
    assert made.skipped["number"] == Counter({NUMBER_MARKERS_ONLY: 1})
    # A real number beside a marker is still the one changed.
    changed = change_number("It rose 40 points [4].", "en", random.Random(0))
    assert changed is not None and changed.endswith("points [4].") and "40" not in changed


def test_a_year_changes_its_last_digit_whatever_follows():
    import random

    for seed in range(5):
        changed = change_number("In 1990, the dam opened.", "en", random.Random(seed))
        assert (
            changed is not None
            and changed.startswith("In 199")
            and changed[7:] == (", the dam opened.")
        )


def test_negation_reads_auxiliaries_not_their_spellings():
    assert negate("The can is red.", "en") == "The can is not red."
    assert negate("His will was read.", "en") == "His will was not read."
    assert negate("He shan't go.", "en") == "He shall go."
    assert negate("They didn't win.", "en") == "They did win."
    # No rule makes these a clean negation: skipped, never half-negated.
    assert negate("Never has the team lost.", "en") is None
    assert negate("It is not only big but tall.", "en") is None
    assert negate("他是否去过北京。", "zh") is None
    assert negate("他是否是医生。", "zh") == "他是否不是医生。"


def test_casing_keeps_acronyms_and_mixed_case_words(tmp_path):
    rows = [
        {"evidence": ["e"], "claim": "The US joined WHO with an iPhone.", "label": True},
        {"evidence": ["e"], "claim": "US NBA IT", "label": True},
    ]
    data = load_human_data("jsonl", str(write_jsonl(tmp_path / "c.jsonl", rows)))
    made = perturb_data(data, seed=0)
    assert [p.claim for p in made.pairs if p.type == "casing"] == [
        "the US joined WHO with an iPhone."
    ]
    assert made.skipped["casing"] == Counter({UNCHANGED: 1})


def test_misattribution_never_borrows_evidence_that_holds_the_claim(tmp_path):
    rows = [
        {"evidence": ["Otters eat fish."], "claim": "Otters eat fish in rivers.", "label": True},
        # Every content word of the claim: may still support it.
        {"evidence": ["In rivers otters eat fish."], "claim": "Otters eat fish.", "label": False},
        # The claim word for word.
        {"evidence": ["Yes: otters eat fish in rivers."], "claim": "Otters eat.", "label": False},
        # Another language, sharing the topic only through a year.
        {
            "evidence": ["水獭1990年吃鱼。"],
            "claim": "Otters 1990 fish rivers 水獭吃鱼。",
            "label": False,
        },
        {"evidence": ["Seals eat fish at sea."], "claim": "Otters eat crabs.", "label": False},
    ]
    data = load_human_data("jsonl", str(write_jsonl(tmp_path / "m.jsonl", rows)))
    made = perturb_data(data, seed=0)
    taken = [p.evidence for p in made.pairs if p.type == "misattribution"]
    assert taken == [("Seals eat fish at sea.",)]
    alone = rows[:4]
    made = perturb_data(
        load_human_data("jsonl", str(write_jsonl(tmp_path / "a.jsonl", alone))), seed=0
    )
    assert not [p for p in made.pairs if p.type == "misattribution"]
    assert sum(made.skipped["misattribution"].values()) == 1


def test_partners_share_the_language_and_content_free_claims_are_skipped(tmp_path):
    rows = [
        {
            "evidence": ["Otters eat fish in the lake. They swim well."],
            "claim": "Otters eat fish [1].",
            "label": True,
        },
        {"evidence": ["Yes, it is."], "claim": "Yes, it is.", "label": True},
        {"evidence": ["北京是中国的首都。长城很长。"], "claim": "长城很长[2]。", "label": False},
        {
            "evidence": ["Bridges span wide gorges. Steel cables hold decks [3]."],
            "claim": "Steel bridges span gorges [3].",
            "label": False,
        },
    ]
    data = load_human_data("jsonl", str(write_jsonl(tmp_path / "p.jsonl", rows)))
    made = perturb_data(data, seed=0)
    for p in made.pairs:
        if p.type in ("partial", "stitched"):
            assert p.position == 0 and not re.search(r"[\u4e00-\u9fff]", p.claim), p
            # The partner's markers point at nothing here: stripped.
            assert "[2]" not in p.claim and "[3]" not in p.claim, p
    assert {p.type for p in made.pairs if p.position == 0} >= {"partial", "stitched"}
    for type_ in ("partial", "misattribution", "stitched"):
        assert made.skipped[type_][NO_CONTENT] == 1


def test_data_without_supported_pairs_still_has_each_judges_rows(tmp_path, fresh_nli):
    rows = [{"evidence": ["Otters eat fish."], "claim": "Seals eat crabs.", "label": False}]
    path = write_jsonl(tmp_path / "none.jsonl", rows)
    stress, lines, _ = run(
        tmp_path, "--nli", ALWAYS, "--data", "jsonl", "--data-path", str(path), "--stress"
    )
    assert lines == []
    [judge] = stress["judges"]
    assert judge["nli"] == ALWAYS and [r["type"] for r in judge["types"]] == list(TYPES)
    for row in judge["types"]:
        assert (row["n"], row["rate"], row["reason"]) == (
            0,
            None,
            "no human-supported pair in the data",
        )
    md = (tmp_path / "out" / "stress.md").read_text()
    assert f"## {ALWAYS}" in md and "| jsonl | unsupported | negation | 0 | 0 | detected nan" in md


def test_chart_labels_keep_the_start_of_a_judges_name():
    from inspect_cite.app.stress import LABEL_WIDTH, chart_label

    row = {"data": "attributionbench", "type": "negation", "measure": "detected"}
    judge = "classifier:MoritzLaurer/DeBERTa-v3-large-mnli-fever-anli-ling-wanli-extra-long-name"
    label = chart_label(judge, row).split("\n")
    assert label[0].startswith("classifier:") and label[-1] == (
        "attributionbench negation (detected)"
    )
    assert all(len(line) <= LABEL_WIDTH for line in label[:-1])
    assert "".join(label[:-1]).rstrip(".") in judge and label[-2].endswith("...")
    assert chart_label("true", row) == "true\nattributionbench negation (detected)"


def test_entity_swaps_only_within_a_strict_type_and_never_inside_a_quote():
    import random

    def typed(text: str) -> set[tuple[str, str]]:
        return {(e.text, e.type) for e in entities(text)}

    assert typed("Toby Keith signed the UN Charter in New York City.") == {
        ("Toby Keith", "person"),
        ("UN Charter", "other"),
        ("New York City", "place"),
    }
    assert typed("Barack Obama won the Nobel Peace Prize.") == {
        ("Barack Obama", "person"),
        ("Nobel Peace Prize", "award"),
    }
    common = frozenset({"quality", "control"})
    assert {(e.text, e.type) for e in entities("Jim Gilmore led Quality Control.", common)} == {
        ("Jim Gilmore", "person"),
        ("Quality Control", "other"),
    }
    # A quote is never cut: 'to speak' is no title, and nothing inside a quote is a name.
    assert typed("He said 'to speak' and sang \"Don't Stop Believin' Now\".") == set()
    assert typed("The British Shorthair lives in Russian homes.") == {
        ("British Shorthair", "other"),
        ("Russian", "other"),
    }
    # "The Beatles" is no person, "UN Charter" no candidate for one, "Europe" a place only
    # after a place cue: nothing to swap; a person of as many words is taken.
    pool = entity_pool(
        ["The UN Charter met The Europe.", "Work of Neil Diamond Young."], *_no_words()
    )
    new, why = swap_entity("The Beatles met Toby Keith.", "", pool, random.Random(0))
    assert new is None and why.startswith("no other entity of its type"), new
    pool = entity_pool(["It was sung by Neil Young."], *_no_words())
    new, _ = swap_entity("The Beatles met Toby Keith.", "", pool, random.Random(0))
    assert new == "The Beatles met Neil Young."


def _no_words() -> tuple[frozenset[str], None]:
    return frozenset(), None

import logging
import unicodedata

import llguidance
import pytest
from inspect_ai import Task, eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import get_model

from inspect_cite.citations import parse_citations
from solvers import constrained as constrained_module
from solvers.constrained import (
    answer_format,
    claim_chars_for_budget,
    constrained_citations,
    trim_to_last_citation,
    validate_alce,
    validate_fullcite,
)
from solvers.constrained_hf import compile_matcher, llg_tokenizer
from solvers.grammar import AnswerLimits, GrammarError, alce_grammar, fullcite_grammar
from tests.conftest import load_fixture
from tests.helpers.scripted_models import scripted_model

DOCS = [
    {"id": "a1", "title": "A", "text": "Paris is the capital of France. It is large."},
    {"id": "b:2", "title": "B", "text": 'He said "hi" \\ back {x} // not a comment %ignore'},
    {"id": "c3", "title": "", "text": "Ünïcode 漢字 text with 0.5 mg; done."},
]


def fullcite_samples(n: int | None = None) -> list[Sample]:
    items = load_fixture("fullcite_samples.json")[:n]
    return [
        Sample(
            id=it["id"],
            input=it["question"],
            metadata={"question": it["question"], "docs": it["docs"], "source": it["source"]},
        )
        for it in items
    ]


def run(samples, solver, model, **kwargs):
    [log] = eval(
        Task(dataset=MemoryDataset(samples), solver=solver),
        model=model,
        display="none",
        log_dir=str(kwargs.pop("log_dir")),
        **kwargs,
    )
    return log


def assert_valid_fullcite(text: str, docs: list[dict]) -> None:
    texts = {d["id"]: d["text"] for d in docs}
    parsed = parse_citations(text, doc_ids=texts)
    assert parsed.problems == [], (text, parsed.problems)
    assert parsed.citations, text
    for c in parsed.citations:
        assert c.doc_id in texts
        assert c.snippet.strip() and c.snippet in texts[c.doc_id], (c.doc_id, c.snippet)


# --- grammar -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def lltok(tiny_qwen3_30k):
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(tiny_qwen3_30k)
    assert len(tok) >= 30000
    return llg_tokenizer(tok)


def accepts(lltok, grammar: str, text: str) -> bool:
    matcher = compile_matcher(lltok, grammar)
    return matcher.consume_tokens(lltok.tokenize_str(text)) and matcher.is_accepting()


@pytest.mark.parametrize(
    "text,ok",
    [
        ("Paris is big {doc_id: a1, snippet: Paris is the capital}", True),
        ("Paris is big {doc_id: a1, snippet: Paris is the capital}.", True),
        ("One {doc_id: a1, snippet: It is large.} {doc_id: c3, snippet: 0.5 mg;}. Two", False),
        ("One {doc_id: a1, snippet: It is large.} {doc_id: c3, snippet: 0.5 mg;}.", True),
        ('Quote {doc_id: b:2, snippet: He said "hi" \\ back}', True),
        ("Lark {doc_id: b:2, snippet: // not a comment %ignore}", True),
        ("Uni {doc_id: c3, snippet: Ünïcode 漢字 text}", True),
        # Snippets: words of the cited document only, whole words, non-empty, no braces.
        ("Wrong doc {doc_id: c3, snippet: Paris is the capital}", False),
        ("Part word {doc_id: a1, snippet: Paris is the cap}", False),
        ("Empty {doc_id: a1, snippet: }", False),
        ("Brace {doc_id: b:2, snippet: back {x}}", False),
        ("Unknown {doc_id: zz, snippet: Paris}", False),
        # Claims: some letter or digit, no braces; at least one citation.
        (" . {doc_id: a1, snippet: Paris}", False),
        ("No citation at all.", False),
    ],
)
def test_fullcite_grammar(lltok, text, ok):
    grammar = fullcite_grammar(
        DOCS, AnswerLimits(max_claims=3, max_claim_chars=60, max_citations=2)
    )
    assert accepts(lltok, grammar, text) is ok
    if ok:
        assert_valid_fullcite(text, DOCS)


def test_fullcite_grammar_bounds(lltok):
    grammar = fullcite_grammar(
        DOCS, AnswerLimits(max_claims=2, max_claim_chars=60, max_citations=2)
    )
    cite = "{doc_id: a1, snippet: Paris}"
    assert accepts(lltok, grammar, f"A {cite} {cite} B {cite}")
    assert not accepts(lltok, grammar, f"A {cite} {cite} {cite}")
    assert not accepts(lltok, grammar, f"A {cite} B {cite} C {cite}")
    assert not accepts(lltok, grammar, "x" * 61 + f" {cite}")


def test_fullcite_grammar_rejects_bad_ids_and_empty_docs():
    with pytest.raises(GrammarError, match="docs"):
        fullcite_grammar([{"id": "a}b", "title": "", "text": "words here"}])
    with pytest.raises(GrammarError, match="no document"):
        fullcite_grammar([{"id": "1", "title": "", "text": "  ...  "}])
    with pytest.raises(ValueError, match="max_claims must be a positive integer"):
        AnswerLimits(max_claims=0)
    # From the solver's options, before any sample is generated.
    with pytest.raises(ValueError, match="max_claims must be a positive integer"):
        constrained_citations(max_claims=0)
    with pytest.raises(TypeError, match="limits must be an AnswerLimits"):
        fullcite_grammar(DOCS, 8)  # type: ignore[arg-type]


def test_alce_grammar(lltok):
    grammar = alce_grammar(
        ["1", "2", "3"], AnswerLimits(max_claims=3, max_claim_chars=80, max_citations=2)
    )
    assert accepts(lltok, grammar, "Paris is the capital [1][2]. It is large [3].")
    assert accepts(lltok, grammar, "Paris is the capital [1]")
    assert not accepts(lltok, grammar, "Paris [4].")
    assert not accepts(lltok, grammar, "[1] Paris.")
    assert not accepts(lltok, grammar, "No citation.")
    assert not accepts(lltok, grammar, "Too many [1][2][3].")
    with pytest.raises(GrammarError):
        alce_grammar(["1 ]"])
    with pytest.raises(GrammarError, match="use -S format=fullcite"):
        alce_grammar(["31000001", "31000002"])


def test_validators_and_trimming():
    assert validate_fullcite("Paris {doc_id: a1, snippet: Paris is the capital}", DOCS) == []
    assert validate_fullcite("No citation.", DOCS) == ["no citation"]
    assert "snippet is not verbatim" in validate_fullcite("P {doc_id: a1, snippet: Rome}", DOCS)[0]
    assert validate_fullcite("P {doc_id: zz, snippet: Paris}", DOCS)[0].startswith("unknown_doc_id")
    # Verbatim up to canonical equivalence: a decomposed document cited precomposed.
    nfd = [{"id": "d", "title": "", "text": unicodedata.normalize("NFD", "Zoë ate crème brûlée.")}]
    assert validate_fullcite("Z {doc_id: d, snippet: Zoë ate crème brûlée}", nfd) == []
    assert validate_fullcite("Z {doc_id: d, snippet: Zoe ate creme brulee}", nfd) != []
    assert validate_alce("A [1][2]. B [3].", ["1", "2", "3"]) == []
    assert validate_alce("A [4].", ["1", "2", "3"]) == ["[4] is not one of the shown documents"]
    assert validate_alce("[1] A.", ["1"]) == ["citation follows no statement"]
    assert validate_alce("A [1] ] b", ["1"]) == ["unbalanced brackets"]
    assert trim_to_last_citation(
        "A {doc_id: a1, snippet: x} B half {doc_id: a1, sni", "fullcite"
    ) == ("A {doc_id: a1, snippet: x}")
    assert trim_to_last_citation("no citation yet", "fullcite") == ""
    assert trim_to_last_citation("A [1]. B [2", "alce") == "A [1]"
    assert claim_chars_for_budget(600, None) == 600
    assert claim_chars_for_budget(600, 64) == 64
    assert claim_chars_for_budget(600, 4) == 16
    assert claim_chars_for_budget(600, 2048) == 600
    assert answer_format({"dataset": "asqa"}) == "alce"
    assert answer_format({"dataset": "bioasq"}) == "fullcite"
    assert answer_format({"dataset": "asqa"}, "fullcite") == "fullcite"


# --- hf/ backend: the acceptance criterion --------------------------------------------------


def test_hf_constrained_20_fixture_samples_all_valid(tiny_qwen3_30k, tmp_path):
    samples = fullcite_samples(20)
    assert len(samples) == 20 and all(3 <= len(s.metadata["docs"]) <= 5 for s in samples)
    model = get_model("hf/tiny", model_path=str(tiny_qwen3_30k), device="cpu", memoize=False)
    # Default solver settings; the claim bound follows the token budget (1 char per token).
    log = run(samples, constrained_citations(), model, max_tokens=64, log_dir=tmp_path)
    assert log.status == "success", log.error
    assert len(log.samples) == 20
    for sample in log.samples:
        meta = sample.metadata["constrained"]
        assert meta["backend"] == "hf" and meta["decoding"] == "constrained"
        assert meta["valid"], meta["attempts"]
        assert meta["max_claim_chars"] == 64
        assert_valid_fullcite(sample.output.completion, sample.metadata["docs"])
        # A normal ModelOutput: the assistant message is the output, and a model event exists.
        assert sample.messages[-1].role == "assistant"
        assert sample.messages[-1].text == sample.output.completion
        assert [m.role for m in sample.messages].count("assistant") == 1
        assert any(e.event == "model" for e in sample.events)
        assert sample.output.usage is not None and sample.output.usage.output_tokens > 0


def test_hf_constrained_alce_format(tiny_qwen3_30k, tmp_path):
    samples = []
    for i, item in enumerate(load_fixture("alce_asqa.json")[:3]):
        docs = [
            {"id": str(j + 1), "title": d["title"], "text": d["text"]}
            for j, d in enumerate(item["docs"][:3])
        ]
        prompt = "Answer with [1]-[3] citations.\n" + item["question"]
        samples.append(
            Sample(
                id=i,
                input=prompt,
                metadata={"dataset": "asqa", "question": item["question"], "docs": docs},
            )
        )
    model = get_model("hf/tiny", model_path=str(tiny_qwen3_30k), device="cpu", memoize=False)
    log = run(
        samples,
        constrained_citations(max_claims=3, max_claim_chars=80),
        model,
        max_tokens=48,
        temperature=0.7,
        log_dir=tmp_path,
    )
    assert log.status == "success", log.error
    for sample in log.samples:
        meta = sample.metadata["constrained"]
        assert meta["format"] == "alce" and meta["valid"], meta
        assert validate_alce(sample.output.completion, ["1", "2", "3"]) == []
        # The ALCE prompt is kept (with ALCE's system message), not replaced.
        assert sample.messages[0].role == "system"
        assert sample.messages[1].text.startswith("Answer with [1]-[3] citations.")


# --- vllm/ and OpenAI-compatible servers: the request shape --------------------------------


VALID = "Paris is the capital {doc_id: a1, snippet: Paris is the capital of France.}"


def test_extra_body_backend_sends_grammar_and_retries(tmp_path):
    model, script = scripted_model(["An unconstrained reply.", VALID])
    log = run(
        [Sample(input="Q?", metadata={"docs": DOCS, "question": "Q?"})],
        constrained_citations(backend="extra_body", temperature_step=0.25),
        model,
        temperature=0.4,
        extra_body={"other": 1},
        log_dir=tmp_path,
    )
    sample = log.samples[0]
    meta = sample.metadata["constrained"]
    assert meta["backend"] == "extra_body" and meta["decoding"] == "constrained"
    assert [a["valid"] for a in meta["attempts"]] == [False, True]
    assert [a["temperature"] for a in meta["attempts"]] == [0.4, 0.65]
    assert len(script.configs) == 2
    for config in script.configs:
        assert config.extra_body["other"] == 1
        assert set(config.extra_body["structured_outputs"]) == {"grammar"}
        assert "guided_grammar" not in config.extra_body
        grammar = config.extra_body["structured_outputs"]["grammar"]
        assert grammar == fullcite_grammar(DOCS)
        assert llguidance.LLMatcher.validate_grammar(grammar) == ""
    assert [c.temperature for c in script.configs] == [0.4, 0.65]
    # The invalid attempt's message was replaced, not kept.
    assert [m.role for m in sample.messages] == ["user", "assistant"]
    assert sample.output.completion == VALID
    # The retry sent the same prompt again.
    assert [m.text for m in script.inputs[1]] == [m.text for m in script.inputs[0]]


def test_vllm_and_openai_api_use_extra_body():
    class FakeModel:
        def __init__(self, name):
            self.name = name
            self.api = object()

        def __str__(self):
            return self.name

    # ModelName parses "<provider>/<name>" from str(model).
    assert constrained_module.detect_backend(FakeModel("vllm/qwen")) == "extra_body"
    assert constrained_module.detect_backend(FakeModel("openai-api/local/qwen")) == "extra_body"
    assert constrained_module.detect_backend(FakeModel("anthropic/claude")) == "unconstrained"
    # hf/ needs the loaded model and tokenizer on the provider.
    assert constrained_module.detect_backend(FakeModel("hf/tiny")) == "unconstrained"


# --- any other provider: validate and retry, or refuse with strict -------------------------


def test_unconstrained_provider_retries_with_rising_temperature(tmp_path, caplog):
    bad = "No citations here."
    model, script = scripted_model([bad, bad, VALID, VALID])
    caplog.set_level(logging.WARNING, logger="solvers.constrained")
    constrained_module._warned_unconstrained.clear()
    log = run(
        [
            Sample(id=1, input="Q?", metadata={"docs": DOCS, "question": "Q?"}),
            Sample(id=2, input="Q?", metadata={"docs": DOCS, "question": "Q?"}),
        ],
        constrained_citations(),
        model,
        max_connections=1,
        log_dir=tmp_path,
    )
    assert log.status == "success", log.error
    by_id = {s.id: s for s in log.samples}
    metas = [by_id[1].metadata["constrained"], by_id[2].metadata["constrained"]]
    assert all(m["decoding"] == "unconstrained" and m["backend"] == "unconstrained" for m in metas)
    attempts = sorted((m["attempts"] for m in metas), key=len)
    assert [a["valid"] for a in attempts[1]] == [False, False, True]
    assert [a["temperature"] for a in attempts[1]] == [None, 1.3, 1.6]
    assert [a["valid"] for a in attempts[0]] == [True]
    for s in log.samples:
        assert [m.role for m in s.messages] == ["user", "assistant"]
        assert s.output.completion == VALID
    warnings = [r for r in caplog.records if "cannot enforce the citation grammar" in r.message]
    assert len(warnings) == 1


def test_retries_exhausted_keeps_last_answer(tmp_path):
    answers = ["first bad", "second bad", "third bad", "fourth bad"]
    model, script = scripted_model(answers)
    log = run(
        [Sample(input="Q?", metadata={"docs": DOCS})],
        constrained_citations(),
        model,
        log_dir=tmp_path,
    )
    meta = log.samples[0].metadata["constrained"]
    assert not meta["valid"] and len(meta["attempts"]) == 4
    assert all(a["problems"] == ["no citation"] for a in meta["attempts"])
    assert log.samples[0].output.completion == "fourth bad"
    assert [m.role for m in log.samples[0].messages] == ["user", "assistant"]
    assert script.answers == []


def test_truncated_answer_is_trimmed_to_last_citation(tmp_path):
    truncated = VALID + " And then a half claim {doc_id: a1, snip"
    model, _ = scripted_model([(truncated, "max_tokens")])
    log = run(
        [Sample(input="Q?", metadata={"docs": DOCS})],
        constrained_citations(),
        model,
        log_dir=tmp_path,
    )
    sample = log.samples[0]
    assert sample.metadata["constrained"]["attempts"][0]["trimmed"]
    assert sample.output.completion == VALID == sample.messages[-1].text


def test_strict_refuses_unconstrained_provider(tmp_path):
    model, script = scripted_model([VALID])
    log = run(
        [Sample(input="Q?", metadata={"docs": DOCS})],
        constrained_citations(strict=True),
        model,
        log_dir=tmp_path,
    )
    assert log.status == "error"
    assert "strict=false" in log.error.message
    assert script.configs == []


def test_solver_arguments_are_checked():
    with pytest.raises(ValueError):
        constrained_citations(format="json")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        constrained_citations(backend="magic")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        constrained_citations(template="no fields")

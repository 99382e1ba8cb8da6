"""The batched seq2seq path decodes only until each answer is decided, and decides as eval.py."""

import subprocess
import sys
from pathlib import Path

import pytest
import torch

from bench.alce_synthetic import synthetic_items
from inspect_cite.nli import get_nli, reset_nli
from inspect_cite.nli.greedy import UntilDecided, may_still_be_entailed
from inspect_cite.nli.hf import BATCH_SIZE_ENV, CPU_BATCH, GPU_BATCH, LazyModel
from inspect_cite.nli.seq2seq import TRUE_TEMPLATE, Seq2SeqNLI
from inspect_cite.testing.tiny_t5 import vary_t5_outputs
from tests.helpers.nli_models import per_pair_generate

ROOT = Path(__file__).resolve().parents[2]


def many_pairs() -> list[tuple[str, str]]:
    """ALCE-format pairs: passages against output sentences, from all three datasets."""
    pairs = [("", ""), ("a", "b"), ("1", "1")]
    for ds in ("asqa", "qampari", "eli5"):
        for item in synthetic_items(ds, 12, seed=3):
            for doc in item["docs"][:2]:
                pairs.append((f"Title: {doc['title']}\n{doc['text']}", item["output"][:150]))
    return list(dict.fromkeys(pairs))


@pytest.fixture(scope="module")
def varied(tiny_t5, tmp_path_factory) -> Path:
    """Answers "1</s>" for about half of the pairs, "0..." (ten tokens) for the others."""
    texts = [TRUE_TEMPLATE.format(premise=p, hypothesis=h) for p, h in many_pairs()[:24]]
    return vary_t5_outputs(tiny_t5, tmp_path_factory.mktemp("varied"), texts)


@pytest.fixture(scope="module")
def one_then_more(varied, tmp_path_factory) -> Path:
    """Answers that begin with "1" and go on ("10...", "11..."): never exactly "1"."""
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(varied)
    model = AutoModelForSeq2SeqLM.from_pretrained(varied)
    with torch.no_grad():
        model.lm_head.weight[tok.eos_token_id] = 0.0
    out = tmp_path_factory.mktemp("one-then-more")
    model.save_pretrained(out)
    tok.save_pretrained(out)
    return out


@pytest.mark.parametrize("which", ["tiny_t5", "varied", "one_then_more"])
def test_decisions_equal_eval_py_generate_across_many_pairs(which, request):
    model_dir = request.getfixturevalue(which)
    pairs = many_pairs()
    expected = per_pair_generate(model_dir, pairs)  # eval.py: one full generate per pair
    engine = Seq2SeqNLI(str(model_dir), batch_size=8)
    decided = [r.entailed for r in engine(pairs)]  # type: ignore[union-attr]
    assert decided == [text == "1" for text in expected]

    # Decoding stopped early where the answer could no longer be "1"; what was decoded is
    # the beginning of the whole answer, and the whole answer wherever it is "1".
    answers, whole = engine.answers(pairs), engine.generate(pairs)
    assert all(w.startswith(a) for a, w in zip(answers, whole, strict=True))
    assert all(a == w for a, w in zip(answers, whole, strict=True) if w == "1")
    stopped_early = sum(len(a) < len(w) for a, w in zip(answers, whole, strict=True))
    if which == "tiny_t5":
        # A random T5 answers with padding only: "" could still become "1", so all ten steps run.
        assert set(whole) == {""} and stopped_early == 0
    else:
        assert stopped_early > len(pairs) // 4
    if which == "varied":
        assert 0 < sum(decided) < len(pairs), "the model must give both decisions"
    if which == "one_then_more":
        assert sum(t.startswith("1") and len(t) > 1 for t in expected) > len(pairs) // 4


def test_unbatched_decisions_are_eval_py_calls(varied):
    pairs = many_pairs()[:12]
    expected = per_pair_generate(varied, pairs)
    engine = Seq2SeqNLI(str(varied), batch_size=1)
    assert engine.generate(pairs) == expected
    assert [r.entailed for r in engine(pairs)] == [t == "1" for t in expected]  # type: ignore[union-attr]


def test_until_decided_stops_rows_whose_answer_cannot_be_one():
    from transformers import ByT5Tokenizer

    tok = ByT5Tokenizer()
    pad = tok.pad_token_id

    def row(text: str, width: int = 3) -> list[int]:
        ids = [pad] + tok(text, add_special_tokens=False).input_ids
        return ids + [pad] * (width - len(ids))

    rows = torch.tensor([row(""), row("1"), row("0"), row("11"), row("1 "), row(" ")])
    stop = UntilDecided(tok)
    assert stop(rows, None).tolist() == [False, False, True, True, True, True]
    assert stop.steps == 1
    assert [may_still_be_entailed(t) for t in ("", "1", "10", " 1", "1.")] == [
        True,
        True,
        False,
        False,
        False,
    ]


def test_batch_limits_follow_the_device(monkeypatch):
    from transformers import T5Config

    class Model:  # T5-11B's shape, for the memory budget
        device = torch.device("cuda")
        dtype = torch.bfloat16
        config = T5Config(
            d_model=1024, d_ff=65536, num_layers=24, num_heads=128, d_kv=128, vocab_size=32128
        )

        def eval(self):
            return self

    free = {"bytes": 200e9}
    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda device: (free["bytes"], 280e9))
    monkeypatch.setattr(torch.cuda, "memory_reserved", lambda device: 0)
    monkeypatch.setattr(torch.cuda, "memory_allocated", lambda device: 0)
    monkeypatch.delenv(BATCH_SIZE_ENV, raising=False)

    def limits(**kwargs):
        engine = Seq2SeqNLI("some/model", **kwargs)
        engine.preload(tokenizer=None, model=Model())
        return engine

    assert limits().batch_limits() == GPU_BATCH
    assert limits().min_length_ratio == 0.8  # a GPU pass must be large to keep the device busy
    # Cross-attention keys and values: 24 layers x 2 x 16384 x 2 bytes a token, plus d_ff.
    per_token = 24 * 2 * 16384 * 2 + 2 * 65536 * 2
    assert limits().bytes_per_token(Model()) == per_token
    free["bytes"] = 40e9  # a pass may plan on half of what the weights leave free
    assert limits().batch_limits() == (GPU_BATCH[0], int(20e9) // per_token)
    assert limits(batch_size=8, max_batch_tokens=1000).batch_limits() == (8, 1000)
    Model.device = torch.device("cpu")
    engine = limits()
    assert engine.batch_limits() == CPU_BATCH == (32, 1024)
    assert engine.min_length_ratio == 0.95
    engine.shrink_batch(5)  # after an out-of-memory
    assert engine.batch_limits() == (5, CPU_BATCH[1])
    monkeypatch.setenv(BATCH_SIZE_ENV, "1")
    assert limits(max_batch_tokens=1000).batch_limits() == (1, 1000)
    reset_nli()
    queue = get_nli("seq2seq:some/model").queue
    assert queue is not None and queue.max_batch == LazyModel.queue_batch
    reset_nli()


def test_cpu_batches_are_small_and_of_one_length(varied, monkeypatch):
    """On CPU a pass holds at most 1,024 padded tokens, of rows within 95% of its longest.

    A CPU gains nothing from large padded passes (bench/README.md, "alce-eval vs eval.py"):
    the default buckets keep each pass near the cost of its rows run one by one, and the
    decisions stay eval.py's.
    """
    monkeypatch.delenv(BATCH_SIZE_ENV, raising=False)
    pairs = many_pairs()
    engine = Seq2SeqNLI(str(varied))
    tok, model = engine.load()
    widths: list[list[int]] = []
    real = model.generate

    def generate(**kwargs):
        mask = kwargs["attention_mask"]
        widths.append(mask.sum(dim=1).tolist() + [mask.shape[1]])
        return real(**kwargs)

    monkeypatch.setattr(model, "generate", generate)
    answers = engine.generate(pairs)
    assert answers == per_pair_generate(varied, pairs)
    assert len(widths) > 1 and sum(len(w) - 1 for w in widths) == len(pairs)
    for *rows, padded in widths:
        assert padded == max(rows)
        assert len(rows) == 1 or padded * len(rows) <= 1024
        assert min(rows) >= 0.95 * padded


def test_model_backends_import_without_inspect():
    """A GPU machine with torch and transformers alone runs bench/bench_nli_gpu.py.

    Packages that machine's image lacks are made unimportable, as they are there.
    """
    code = (
        "import sys\n"
        "class Absent:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('inspect_ai', 'nltk', 'tenacity'):\n"
        "            raise ModuleNotFoundError(name)\n"
        "sys.meta_path.insert(0, Absent())\n"
        "import inspect_cite.nli, inspect_cite.nli.seq2seq, inspect_cite.nli.classifier\n"
        "inspect_cite.nli.get_nli('seq2seq:/nonexistent')\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, timeout=120)

"""Options a TRUST-SCORE run does not read are refused, in one line naming the flag.

docs/alce.md promises "refused in one line naming the flag": ``-T retriever=dpr``,
``-T diagnose=true``, ``qa_model``, ``mauve_model``, ``mauve_seeds`` and ``retrieval_model``
passed ``inspect-cite check`` and the task, and the run silently ignored them. ``-T corrected``
is TRUST-SCORE's own switch (``-S corrected=true`` is Inspect's solver flag and changed nothing).
A Trust-Score file given without ``-T trust=true`` is named as one.
"""

import json

import pytest

from alce_tasks import asqa, eli5, expertqa, qampari
from tests.trust.helpers import FIXTURES, items

REFUSED = [
    ("retriever=dpr", "-T retriever=dpr: not read by a TRUST-SCORE run"),
    ("diagnose=true", "-T diagnose=true: not read by a TRUST-SCORE run (-T trust=true); drop it"),
    ("qa_model=x", "-T qa_model=x: not read by a TRUST-SCORE run"),
    ("mauve_model=x", "-T mauve_model=x: not read by a TRUST-SCORE run"),
    ("mauve_seeds=3", "-T mauve_seeds=3: not read by a TRUST-SCORE run"),
    ("retrieval_model=x", "-T retrieval_model=x: not read by a TRUST-SCORE run"),
]


@pytest.mark.parametrize(("option", "message"), REFUSED)
def test_the_task_refuses_them_before_reading_anything(option, message, tmp_path):
    name, value = option.split("=")
    given = {name: {"true": True, "3": 3}.get(value, value)}
    # Nothing is read before the refusal: no data file, no prompt file, no judge.
    with pytest.raises(ValueError) as e:
        asqa(trust=True, dataset_path=str(tmp_path / "absent.json"), nli="nope", **given)
    assert str(e.value).startswith(message), str(e.value)


def test_an_alce_datasets_own_retriever_is_not_refused(tmp_path):
    # The task's default retriever (ELI5: bm25) is what every TRUST-SCORE run gets.
    for task, retriever in ((asqa, "gtr"), (qampari, "gtr"), (eli5, "bm25")):
        with pytest.raises(ValueError) as e:
            task(trust=True, retriever=retriever, dataset_path=str(tmp_path / "absent.json"))
        assert "retriever" not in str(e.value) and "absent.json" in str(e.value)


def test_corrected_needs_trust():
    with pytest.raises(ValueError) as e:
        qampari(corrected=True)
    assert str(e.value) == (
        "-T corrected=true: corrects trust-eval's defects, so it needs -T trust=true "
        "(a TRUST-SCORE run); drop it"
    )


def test_expertqa_offers_no_helmet_or_alce_only_option():
    for name in (
        "context",
        "nocite",
        "tokenizer",
        "diagnose",
        "qa_model",
        "mauve_seeds",
        "retrieval_model",
    ):
        with pytest.raises(TypeError, match=f"'{name}'"):
            expertqa(**{name: "x"})


@pytest.mark.parametrize("task", [asqa, qampari, eli5])
def test_a_trust_file_without_trust_says_what_it_is(task, tmp_path):
    # ASQA's and ELI5's ALCE fields are absent from every record: one line, not one per field.
    # (A QAMPARI Trust-Score file holds ALCE QAMPARI's fields: it is not refused.)
    path = FIXTURES / "trust_asqa.json"
    with pytest.raises(ValueError) as e:
        task(dataset_path=str(path), nli="nope", prompt_file=str(tmp_path / "absent.json"))
    message = str(e.value)
    line = (
        f"dataset file {path} (-T dataset_path) is a TRUST-SCORE file (records with "
        '"answers" and documents marked "answers_found"), not ALCE\'s: add -T trust=true'
    )
    if task is qampari:
        assert line not in message
    else:
        assert line in message and "missing" not in message, message


def test_an_alce_file_with_a_wrong_field_is_not_called_a_trust_file(tmp_path):
    records = items("trust_asqa.json")
    del records[3]["docs"][0]["answers_found"]
    path = tmp_path / "data.json"
    path.write_text(json.dumps(records))
    with pytest.raises(ValueError) as e:
        asqa(dataset_path=str(path), nli="nope", prompt_file=str(tmp_path / "absent.json"))
    assert "TRUST-SCORE file" not in str(e.value) and ":0:answer: missing" in str(e.value)


def test_every_option_a_trust_run_ignores_is_named_at_once(tmp_path):
    # One refusal per try made a user with four such options try four times.
    with pytest.raises(ValueError) as e:
        asqa(
            trust=True,
            retriever="dpr",
            diagnose=True,
            qa_model="x",
            mauve_seeds=2,
            dataset_path=str(tmp_path / "absent.json"),
        )
    assert str(e.value) == (
        "4 problems stop this run:\n"
        "1. -T retriever=dpr: not read by a TRUST-SCORE run (-T trust=true reads the authors' "
        "Trust-Score documents); drop it\n"
        "2. -T qa_model=x: not read by a TRUST-SCORE run (-T trust=true); drop it\n"
        "3. -T mauve_seeds=2: not read by a TRUST-SCORE run (-T trust=true); drop it\n"
        "4. -T diagnose=true: not read by a TRUST-SCORE run (-T trust=true); drop it"
    )


def test_helmet_options_without_helmet_join_the_list():
    with pytest.raises(ValueError) as e:
        asqa(trust=True, qa_model="x", nocite=True, tokenizer="t")
    message = str(e.value)
    assert message.startswith("3 problems stop this run:\n1. -T qa_model=x"), message
    assert "2. -T nocite=true: HELMET's no-citation control needs -T context" in message
    assert "3. -T tokenizer=t: only HELMET's rows (-T context) cut by tokens" in message


def test_inspects_python_api_names_every_ignored_option(tmp_path):
    from inspect_ai import eval as inspect_eval

    with pytest.raises(ValueError) as e:
        inspect_eval(
            qampari,
            task_args={"trust": True, "diagnose": True, "retrieval_model": "x"},
            model="mockllm/model",
            log_dir=str(tmp_path),
            display="none",
        )
    assert str(e.value).startswith("2 problems stop this run:\n1. -T retrieval_model=x"), str(
        e.value
    )


@pytest.mark.parametrize("dataset", ["asqa", "qampari", "eli5"])
def test_an_alce_file_with_trust_says_what_it_is(dataset, tmp_path):
    # The mirror of a Trust-Score file without -T trust=true: not 'record 0: needs "answers"'.
    from tests.alce.test_dataset_fields import alce_examples

    path = tmp_path / "alce.json"
    path.write_text(json.dumps(alce_examples()[dataset]))
    task = {"asqa": asqa, "qampari": qampari, "eli5": eli5}[dataset]
    with pytest.raises(ValueError) as e:
        task(trust=True, dataset_path=str(path), nli="nope")
    line = (
        f"{dataset} dataset file {path} (-T dataset_path) is an ALCE file (no documents "
        'marked "answers_found"), not TRUST-SCORE\'s: drop -T trust=true'
    )
    assert line in str(e.value) and "record 0" not in str(e.value), str(e.value)


def test_a_broken_trust_file_is_not_called_an_alce_file(tmp_path):
    records = items("trust_asqa.json")
    del records[3]["docs"][0]["answers_found"]
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(records))
    with pytest.raises(ValueError) as e:
        asqa(trust=True, dataset_path=str(path), nli="nope")
    assert "ALCE file" not in str(e.value) and "record 3" in str(e.value), str(e.value)


def test_a_truncated_trust_file_names_the_flag(tmp_path):
    path = tmp_path / "cut.json"
    path.write_text((FIXTURES / "trust_asqa.json").read_text()[:500])
    with pytest.raises(ValueError) as e:
        asqa(trust=True, dataset_path=str(path), nli="nope")
    assert f"dataset file {path} is not valid JSON: " in str(e.value), str(e.value)
    assert "(-T dataset_path)" in str(e.value), str(e.value)


def test_expertqa_takes_trust_true_and_refuses_false(tmp_path):
    # docs/alce.md calls expertqa "always a TRUST-SCORE run": -T trust=true is not unknown.
    absent = str(tmp_path / "absent.json")
    with pytest.raises(ValueError) as e:
        expertqa(trust=True, dataset_path=absent)
    assert "absent.json" in str(e.value), str(e.value)
    with pytest.raises(ValueError) as e:
        expertqa(trust=False, dataset_path=absent)
    assert str(e.value) == (
        "-T trust=false: alce_tasks/expertqa is TRUST-SCORE's ExpertQA, always a TRUST-SCORE "
        "run (ALCE has no ExpertQA); drop it"
    )


def test_expertqas_strategy_refusal_does_not_quote_a_flag_never_given():
    with pytest.raises(ValueError) as e:
        expertqa(strategy="summ")
    assert str(e.value).startswith(
        "-T strategy=summ: alce_tasks/expertqa (a TRUST-SCORE run) answers from the authors' "
        "refusal-instructed prompt; use one of vanilla, prompt"
    ), str(e.value)

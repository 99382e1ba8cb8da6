"""The context cut and numbered as LongCite's code cuts it (inspect_cite/longcite/chunks.py).

Expected sentences and passages are LongCite's own ``text_split_by_punctuation`` and
``pred_one_shot.process`` run on tests/fixtures/longcite/longbench_cite.json (English and
Chinese contexts, a context split at blank lines, trailing whitespace): see
tests/fixtures/longcite/make_expected.py (LongCite d7d772e, nltk 3.8.1; the project's nltk
splits these texts identically).
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspect_cite.longcite.chunks import (
    chunk_docs,
    chunk_texts,
    citation_texts,
    numbered_passage,
    split_sentences,
)
from tests.longcite.fixtures import expected, items

ITEMS = items()
EXPECTED = expected()["items"]


@pytest.mark.parametrize("item", ITEMS, ids=lambda i: f"{i['idx']}-{i['dataset']}")
def test_sentences_equal_longcites(item):
    got = [[s.text, s.start, s.end] for s in split_sentences(item["context"])]
    assert got == EXPECTED[str(item["idx"])]["sentences"]


@pytest.mark.parametrize("item", ITEMS, ids=lambda i: f"{i['idx']}-{i['dataset']}")
def test_passage_equals_the_one_longcites_prompt_shows(item):
    docs = chunk_docs(item["context"])
    assert [d["id"] for d in docs] == [str(i) for i in range(len(docs))]
    assert numbered_passage([d["text"] for d in docs]) == EXPECTED[str(item["idx"])]["passage"]


def test_chinese_marks_end_sentences_and_stay_with_them():
    text = "第一句。第二句！第三句？还有；最后 English part. 尾巴"
    assert [s.text for s in split_sentences(text)] == [
        "第一句。",
        "第二句！",
        "第三句？",
        "还有；",
        "最后 English part.",
        "尾巴",
    ]


def test_a_text_punkt_leaves_whole_is_split_at_blank_lines():
    text = "one line\n\n  two line  \n\n\n\nthree"
    sentences = split_sentences(text)
    assert [s.text for s in sentences] == ["one line", "two line", "three"]
    assert [text[s.start : s.end] for s in sentences] == ["one line", "two line", "three"]
    # The prompt's chunks keep what lies between sentences; the last one runs to the end.
    assert chunk_texts(text, sentences) == ["one line\n\n  ", "two line  \n\n\n\n", "three"]


def test_untrained_punkt_splits_after_abbreviations_as_longcite_does():
    assert [s.text for s in split_sentences("Dr. Voss came. The U.S. team left.")] == [
        "Dr.",
        "Voss came.",
        "The U.S.",
        "team left.",
    ]


def test_an_empty_context_has_no_chunks():
    assert split_sentences("") == []
    assert chunk_docs("   \n") == []
    assert numbered_passage([]) == ""


_TEXT = st.lists(
    st.sampled_from(
        ["Alpha", "beta.", "Gamma!", "d?", "茶。", "叶；", "\n\n", " ", "  ", "e.g.", "x"]
    ),
    max_size=30,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(_TEXT)
def test_chunks_cover_the_text_and_citations_end_with_the_last_sentence(text):
    sentences = split_sentences(text)
    chunks = chunk_texts(text, sentences)
    if not sentences:
        assert not text.strip()
        return
    # The prompt loses only the whitespace before the first sentence.
    assert "".join(chunks) == text[sentences[0].start :]
    assert not text[: sentences[0].start].strip()
    # What follows the last sentence is whitespace, so a citation's last chunk is its sentence.
    assert citation_texts(chunks)[-1] == sentences[-1].text
    assert citation_texts(chunks)[:-1] == chunks[:-1]

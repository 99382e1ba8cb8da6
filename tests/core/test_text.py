from inspect_cite.citations.alce import alce_postprocess, alce_scoring_output, remove_citations
from inspect_cite.text.sentences import sent_tokenize
from inspect_cite.text.squad import normalize_answer
from inspect_cite.text.think import strip_think


def test_normalize_answer_matches_squad_rules():
    assert normalize_answer("The  Eiffel-Tower, in Paris!") == "eiffeltower in paris"
    assert normalize_answer("An apple a day") == "apple day"
    # Articles are removed only as whole words.
    assert normalize_answer("Theatre thereafter") == "theatre thereafter"


def test_remove_citations_keeps_alce_quirks():
    assert remove_citations("Paris is big [1][2].") == "Paris is big."
    assert remove_citations("Paris [1, 2] is big.") == "Paris, 2 is big."
    assert remove_citations("A [12] | B") == "A B"
    assert remove_citations("x[3]y") == "xy"


def test_sent_tokenize_offline():
    assert sent_tokenize("Dr. Smith went home [1]. He was tired. It is 3.5 m.") == [
        "Dr. Smith went home [1].",
        "He was tired.",
        "It is 3.5 m.",
    ]
    assert sent_tokenize("") == []


def test_strip_think():
    assert strip_think("<think>\nplan\n</think>\n\nAnswer [1].") == "\n\nAnswer [1]."
    assert strip_think("<think>never closed") == ""
    assert strip_think("no think") == "no think"


def test_alce_postprocess_and_first_line():
    assert alce_postprocess("Answer [1]. End.") == "Answer [1]. "
    assert alce_postprocess("Answer<|im_end|>  \n") == "Answer"
    assert (
        alce_scoring_output("<think>x</think>\n First line [1].\nSecond line.") == "First line [1]."
    )
    assert alce_scoring_output("") == ""


def test_highlight_markdown_bolds_citations_and_escapes_the_rest():
    from inspect_cite.citations.alce import marker_spans
    from inspect_cite.text.markdown import highlight_markdown

    text = "A *bold* claim [1][2]. Next [3]."
    assert highlight_markdown(text, marker_spans(text)) == (
        r"A \*bold\* claim **[1][2]**. Next **[3]**."
    )
    assert highlight_markdown("x_y", []) == r"x\_y"


def test_sentence_splitting_imports_neither_scikit_learn_nor_scipy():
    """nltk's own import pulls in scikit-learn and SciPy when installed (~1.5 s of CPU a
    process, bench/README.md); splitting sentences needs neither, and both stay importable."""
    import subprocess
    import sys

    code = (
        "import importlib, importlib.util, sys\n"
        "from inspect_cite.text.sentences import sent_tokenize\n"
        "split = sent_tokenize('Dr. Smith went home. He was tired.')\n"
        "loaded = [m for m in ('sklearn', 'scipy') if m in sys.modules]\n"
        "later = [m for m in ('sklearn', 'scipy.stats') if importlib.util.find_spec(m.split('.')[0])]\n"
        "print(split, loaded, all(importlib.import_module(m) for m in later))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['Dr. Smith went home.', 'He was tired.'] [] True"


def test_every_nltk_user_imports_it_without_scikit_learn_or_scipy():
    """LongCite's chunks, BM25's stemmer and MiniCheck's sentences reach nltk first in some
    processes (no ALCE splitter before them): each goes through inspect_cite.text.punkt."""
    import subprocess
    import sys

    calls = {
        "inspect_cite.longcite.chunks": "m._punkt()",
        "inspect_cite.nli.minicheck": "m.claim_sentences('A claim. Another.')",
    }
    for module, call in calls.items():
        code = (
            f"import importlib, sys\nm = importlib.import_module({module!r})\n{call}\n"
            "print([n for n in ('sklearn', 'scipy') if n in sys.modules])\n"
        )
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip().splitlines()[-1] == "[]", module

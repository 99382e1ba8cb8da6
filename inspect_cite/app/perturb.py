"""Perturbed (evidence, claim) pairs for ``inspect-cite calibrate --stress``.

From a human-supported pair, each perturbation makes one new pair of a named type:

- **unsupported by construction** (a judge should say "not supported"):
  ``negation`` (the claim negated, or its negation removed), ``number`` (a number, a month
  or a number word changed), ``entity`` (a name swapped for another of the same type from
  the same data), ``partial`` (the claim joined to a clause: another pair's claim on another
  topic), ``misattribution`` (the claim with the evidence of another pair on a similar topic),
  ``stitched`` (the claim replaced by a quote of two sentences: one from the pair's evidence,
  one from the evidence of a pair on another topic);
- **meaning-preserving** (the decision should not change): ``evidence_order`` (the evidence
  texts reordered), ``whitespace`` (spacing and line breaks), ``casing`` (the claim lower-cased,
  but for all-caps and mixed-case words: US, WHO, iPhone).

Everything is deterministic: choices come from ``random.Random`` seeded with the run's seed,
the source pair's position and the type, over candidates in data order. A perturbation that
cannot apply (no number in the claim, one evidence text, a language without letter case) or
that would leave the pair unchanged is skipped and counted with its reason, never emitted.

Languages (:func:`language`, from the script of the claim and its evidence's start): ``en``
(Latin script with English function words) gets every type; ``zh`` (CJK characters) gets
``negation`` (不是/是 and 并非), ``number`` (Arabic digits, then 二..九), ``partial``
(joined with "，并且"), ``misattribution``, ``stitched`` (sentences end at 。！？),
``evidence_order`` and ``whitespace``; it has no ``entity`` (no recogniser for Chinese names
here) and no ``casing``. Any ``other`` language gets ``number`` (digits only),
``misattribution``, ``stitched``, ``evidence_order``, ``whitespace`` and ``casing`` where its
script has case.

The entity recogniser is a rule, not a model. Candidates: a quoted title ('...' or "..." of 2
to 12 words, in title case: first word capitalised, at least half of its words over 3 letters
capitalised, no citation marker), and runs of capitalised words (joined by ``of``, ``the``,
``de``) outside any quote, leaving out function words, conjunctions (However, While), months
and weekdays, a single word the data also writes in lower case, and a single word opening a
sentence unless the data or the pair's evidence writes it capitalised inside a sentence. Types,
first that applies: ``title`` (quoted); ``award`` (2+ words ending in Award, Prize, Medal, Cup,
Trophy, Championship, Olympics, Games, Bowl, Festival; or Oscar, Grammy, Emmy); ``organisation``
(ending in University, Inc, Party, Band, Records, ...); ``place`` (ending in City, River,
County, Island, State, ...; or 1 to 3 title-case words right after in, at, near, into, across,
throughout, outside, not a lone demonym such as "Russian"); ``person`` (2 or 3 title-case
words, not after "the", none of them an organisation, place, award or document word (Charter,
Treaty, Tour, ...) nor a descriptive word (New, Royal, British, ...) nor a word the data's
claims write in lower case ("Quality Control")); anything else is
``other`` and never swapped. A swap takes a name of the same type that the data's claims name
and the pair never does: one of as many words first, then (not for a person) any of the type;
none such: skipped with a count.
"""

import random
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

UNSUPPORTED = "unsupported"
INVARIANT = "invariant"
UNSUPPORTED_TYPES = ("negation", "number", "entity", "partial", "misattribution", "stitched")
INVARIANT_TYPES = ("evidence_order", "whitespace", "casing")
TYPES = UNSUPPORTED_TYPES + INVARIANT_TYPES
KIND = {t: UNSUPPORTED for t in UNSUPPORTED_TYPES} | {t: INVARIANT for t in INVARIANT_TYPES}
MAX_PER_PAIR = 12
"""At most this many perturbed pairs per source pair (one per type: 9)."""

LANGUAGE_TYPES = {
    "en": TYPES,
    "zh": (
        "negation",
        "number",
        "partial",
        "misattribution",
        "stitched",
        "evidence_order",
        "whitespace",
    ),
    "other": ("number", "misattribution", "stitched", "evidence_order", "whitespace", "casing"),
}
"""The types each language gets; the others are skipped with a count."""

UNCHANGED = "would leave the pair unchanged"

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LETTER = re.compile(r"[^\W\d_]")
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_ENGLISH = frozenset(
    "the a an of and or to in on at is are was were be been has have had it its this that "
    "by for with as from not which who".split()
)
_STOPWORDS = _ENGLISH | frozenset(
    "he she they we you i his her their our your them him there these those what when where "
    "how also can could may might will would should does do did than then into about after "
    "before over under such some many most more other only yes not none".split()
)


def language(text: str) -> str:
    """``zh`` (a third or more of its letters CJK), ``en`` (English function words), ``other``."""
    letters = _LETTER.findall(text)
    if letters and len(_CJK.findall(text)) * 3 >= len(letters):
        return "zh"
    words = [w.lower() for w in _WORD.findall(text)]
    ascii_letters = sum(c.isascii() for c in letters)
    if any(w in _ENGLISH for w in words) and ascii_letters >= 0.9 * len(letters):
        return "en"
    return "other"


def topic_words(text: str) -> frozenset[str]:
    """Content words (lower-cased, no function words) and CJK character bigrams of ``text``."""
    words = {w.lower() for w in _WORD.findall(text) if not _CJK.search(w)}
    words = {w for w in words if len(w) > 2 and w not in _STOPWORDS}
    for run in re.findall(r"[\u3400-\u9fff\uf900-\ufaff]+", text):
        words.update(run[i : i + 2] for i in range(len(run) - 1))
    return frozenset(words)


@dataclass(frozen=True)
class Source:
    """A human-supported pair to perturb.

    Attributes:
        position: Its place among the dataset's pairs.
        evidence: Its evidence texts, as its record gives them.
        claim: Its claim.

    """

    position: int
    evidence: tuple[str, ...]
    claim: str


def source_language(source: Source) -> str:
    """A pair's :func:`language`: of its claim and its evidence's first 1,000 characters."""
    # The claim and the start of its evidence: a Chinese claim may be mostly Latin letters.
    return language(source.claim + "\n" + "\n".join(source.evidence)[:1000])


def _script(source: Source, lang: str) -> str:
    # Partners are matched by this: ``en`` and a short Latin-script ``other`` (no function
    # word in "Bridges span gorges.") are one; Chinese and other scripts are their own.
    if lang == "zh":
        return "zh"
    letters = _LETTER.findall(source.claim + "".join(source.evidence)[:1000])
    return "latin" if sum(c.isascii() for c in letters) >= 0.9 * len(letters) else lang


HOLDS_CLAIM = 0.8
"""Evidence holding this share of a claim's content words is never borrowed for it."""


@dataclass(frozen=True)
class Perturbed:
    """One perturbed pair: its source's position, type, the evidence texts and the claim."""

    position: int
    type: str
    evidence: tuple[str, ...]
    claim: str

    @property
    def kind(self) -> str:
        """``unsupported`` or ``invariant``."""
        return KIND[self.type]


@dataclass
class Perturbations:
    """A dataset's perturbed pairs, what was skipped and the languages of its source pairs."""

    pairs: list[Perturbed] = field(default_factory=list)
    skipped: dict[str, Counter[str]] = field(default_factory=dict)
    languages: Counter[str] = field(default_factory=Counter)
    sources: int = 0

    def skip(self, type_: str, reason: str) -> None:
        """Count a perturbation of ``type_`` that was not made, under ``reason``."""
        self.skipped.setdefault(type_, Counter())[reason] += 1


# Sentences -------------------------------------------------------------------------------------

_SENTENCE_END = re.compile(r"(?<=[.!?])[\"'”’)\]]*\s+|(?<=[。！？])|\n+")


def sentences(text: str, lang: str) -> list[str]:
    """Sentences of ``text`` worth quoting: 4+ words (8+ characters in Chinese), no headers."""
    out = []
    for part in _SENTENCE_END.split(text):
        part = part.strip()
        if not part or part.lower().startswith(("title:", "section:")):
            continue
        long_enough = len(part) >= 8 if lang == "zh" else len(part.split()) >= 4
        if long_enough and part[-1] in ".!?。！？\"'”":
            out.append(part)
    return out


def _end(text: str, lang: str) -> str:
    text = text.rstrip()
    if lang == "zh":
        return text if text.endswith(("。", "！", "？")) else text + "。"
    return text if text.endswith((".", "!", "?", '"', "'")) else text + "."


def _lower_first(text: str) -> str:
    # "The river ..." / "However, ..." read on as "the river ..." / "however, ..."; a name
    # ("Paris ...") keeps its capital.
    text = text.strip()
    first = text.split(" ", 1)[0]
    lower = first.lower() in _STOPWORDS or (first.endswith(",") and first[:-1].isalpha())
    return text[0].lower() + text[1:] if lower and text else text


# Negation --------------------------------------------------------------------------------------

_AUXILIARIES = "is|are|was|were|can|could|will|would|should|has|have|had|does|do|did|must|may|might"
_NEGATED = re.compile(rf"\b({_AUXILIARIES}) not\b", re.I)
_CONTRACTED = {
    "can't": "can",
    "won't": "will",
    "shan't": "shall",
    "cannot": "can",
    "ain't": "is",
}
_NT = re.compile(
    r"\b(is|are|was|were|could|would|should|has|have|had|does|do|did|must|need|might)n['’]t\b",
    re.I,
)
_AUXILIARY = re.compile(rf"\b({_AUXILIARIES})\b")
# A determiner before an auxiliary's spelling makes it a noun: "The can is red", "his will".
_DETERMINERS = frozenset("the a an his her its this that their my our your".split())
# "Never has the team lost": an inverted negation; no rule here makes it positive.
_INVERTED = re.compile(
    rf"^\W*(never|nor|neither|not only|no sooner|seldom|rarely)\s+({_AUXILIARIES})\b", re.I
)
_ZH_IS = re.compile(r"(?<![但于还就可只总要凡若而不])是(?!否)")


def negate(claim: str, lang: str) -> str | None:
    """The claim negated (or its negation removed); None where no rule here applies.

    None for a language without a rule, for an English claim opening with an inverted
    negation ("Never has ...") or holding "not only", and for a Chinese one whose only 是 is
    是否 (whether).
    """
    if lang == "zh":
        if "不是" in claim:
            return claim.replace("不是", "是", 1)
        if claim.startswith("并非"):
            return claim[2:]
        match = _ZH_IS.search(claim)
        if match:
            return claim[: match.start()] + "不" + claim[match.start() :]
        # "是否" (whether) asks; "并非" before it does not negate what is asked.
        return None if "是否" in claim else "并非" + claim
    # "not only ... but": removing or adding a "not" breaks the construction.
    if lang != "en" or _INVERTED.search(claim) or re.search(r"\bnot only\b", claim, re.I):
        return None
    if match := _NEGATED.search(claim):
        return claim[: match.end(1)] + claim[match.end() :]
    for word, positive in _CONTRACTED.items():
        if match := re.search(rf"\b{word}\b", claim, re.I):
            positive = positive.capitalize() if match.group()[0].isupper() else positive
            return claim[: match.start()] + positive + claim[match.end() :]
    if match := _NT.search(claim):
        return claim[: match.start()] + match.group(1) + claim[match.end() :]
    if match := re.search(r"\bnever\b", claim):
        return claim[: match.start()] + "at some time" + claim[match.end() :]
    for match in _AUXILIARY.finditer(claim):
        before = claim[: match.start()].split()[-1:]
        if not before or before[0].lower() not in _DETERMINERS:
            return claim[: match.end()] + " not" + claim[match.end() :]
    return "It is not the case that " + _lower_first(claim)


# Numbers and dates -----------------------------------------------------------------------------

# Thousands separated by commas ("1,200"), never a comma after the number ("In 1990, ...").
_NUMBER = re.compile(r"(?<![\w.])\d+(?:,\d{3})*(?:\.\d+)?(?![\d])")
_CITATION_MARKER = re.compile(r"\[\s*\d+(?:\s*[,;\-–]\s*\d+)*\s*\]")
# A list or step enumerator: "4. Turn", "1) Open", "(2)", "Step 5", "包括:1.脑动脉"; a number
# at the text's or a line's start, or after a colon, semicolon or sentence end, followed by
# "." ")" or "、"; any number in parentheses alone; or after "step"/"item"/"no.".
_ENUMERATOR = re.compile(
    r"(?:(?:^|(?<=[\n:：;；.。!?！？])|(?<=[\n:：;；.。!?！？]\s))\s*(\d{1,2})(?:[.)、](?!\d)|\s*）))"
    r"|(?<![\w(])\((\d{1,2})\)|(?<!\w)\d{1,2}(?=\)\s)|\b(?:step|item|no\.?|number)\s*#?(\d+)",
    re.I | re.M,
)
NUMBER_MARKERS_ONLY = "only numbers of citation markers or list numbering"


def _marker_spans(claim: str) -> list[tuple[int, int]]:
    spans = [m.span() for m in _CITATION_MARKER.finditer(claim)]
    for match in _ENUMERATOR.finditer(claim):
        group = next((g for g in (1, 2, 3) if match.group(g)), 0)
        spans.append(match.span(group))
    return spans


def numbers(claim: str) -> list[re.Match[str]]:
    """The numbers of ``claim`` a ``number`` perturbation may change.

    Not one inside a citation marker ("[5]", "[1, 2]") or a list or step enumerator ("4.
    Turn", "1)", "Step 5"): changing those leaves the claim as supported as it was.
    """
    spans = _marker_spans(claim)
    return [
        m
        for m in _NUMBER.finditer(claim)
        if not any(s <= m.start() and m.end() <= e for s, e in spans)
    ]


_MONTHS = (
    "January February March April May June July August September October November December"
).split()
_NUMBER_WORDS = "two three four five six seven eight nine ten eleven twelve".split()
_ORDINALS = "second third fourth fifth sixth seventh eighth ninth tenth".split()
_ZH_DIGITS = "二三四五六七八九"


def _other(options: Sequence[str], current: str, rng: random.Random) -> str:
    return rng.choice([o for o in options if o != current])


def change_number(claim: str, lang: str, rng: random.Random, evidence: str = "") -> str | None:
    """The claim with one number, month or number word changed; None where it holds none.

    A changed number is one the evidence does not hold where a digit allows it.
    """
    found_numbers = numbers(claim)
    if found_numbers:
        match = rng.choice(found_numbers)
        text = match.group()
        digits = [i for i, c in enumerate(text) if c.isdigit()]
        # A year changes in its last digit (1932 -> 1937), any other number in its first.
        year = len(text) == 4 and text.isdigit() and 1000 <= int(text) <= 2100
        at = digits[-1] if year else digits[0]
        pool = [d for d in ("0123456789" if year or len(digits) == 1 else "123456789")]
        rng.shuffle(pool)
        options = [text[:at] + d + text[at + 1 :] for d in pool if d != text[at]]
        new = next((o for o in options if o not in evidence), options[0])
        return claim[: match.start()] + new + claim[match.end() :]
    if lang == "zh":
        found = [m for m in re.finditer(f"[{_ZH_DIGITS}]", claim)]
        if not found:
            return None
        match = rng.choice(found)
        return (
            claim[: match.start()] + _other(_ZH_DIGITS, match.group(), rng) + claim[match.end() :]
        )
    if lang != "en":
        return None
    for words in (_MONTHS, _NUMBER_WORDS, _ORDINALS):
        pattern = r"\b(" + "|".join(words) + r")\b"
        # Months only capitalised: "may" is a verb; number words in either case.
        found = list(re.finditer(pattern, claim, 0 if words is _MONTHS else re.I))
        if found:
            match = rng.choice(found)
            old = match.group()
            new = _other(words, old.capitalize() if words is _MONTHS else old.lower(), rng)
            new = new.capitalize() if old[0].isupper() else new.lower()
            return claim[: match.start()] + new + claim[match.end() :]
    return None


# Entities --------------------------------------------------------------------------------------

_CAP = r"[A-Z][\w'’.-]*"
_JOINS = ("of", "the", "de")
_ENTITY = re.compile(rf"{_CAP}(?:\s+(?:(?:of|the|de)\s+)?{_CAP})*")
_QUOTED = re.compile(r"(?<!\w)([\"“'‘])([^\"“”'‘’\n]{2,120}?)[\"”'’](?!\w)")
_ORGANISATION = frozenset(
    "Inc Inc. Corp Corp. Corporation Company Co. Ltd Ltd. LLC University College Institute "
    "School Association Party Bank Group Council Committee Agency Foundation Society Church "
    "Club Records Band Academy Ministry Department Court Army Navy Museum Hospital League "
    "Union Organization Organisation Times News Airlines".split()
)
_PLACE_CUES = frozenset("in at near into across throughout outside".split())
_PLACE_WORDS = frozenset(
    "City River County Island Islands Mountain Mountains Lake State Province Valley Bay Sea "
    "Ocean Street Avenue Road Park District Region Coast Peninsula Desert Forest Kingdom "
    "Republic".split()
)
_AWARD_WORDS = frozenset(
    "Award Awards Prize Prizes Medal Cup Trophy Championship Championships Olympics Games Bowl "
    "Festival".split()
)
_AWARD_NAMES = frozenset("Oscar Oscars Grammy Grammys Emmy Emmys".split())
# Words that open a place or a group, never a person's name or a place alone ("British
# Shorthair", "New Kingdom", "in Russian").
_DESCRIPTIVE = frozenset(
    "New North South East West Northern Southern Eastern Western Central Upper Lower Great "
    "United Royal National International Old Ancient Modern Holy American British English "
    "French German Spanish Italian Russian Chinese Japanese Indian European African Asian "
    "Australian Canadian Mexican Irish Scottish Welsh Dutch Greek Roman Egyptian Persian Arab "
    "Arabic Turkish Korean Brazilian Jewish Christian Muslim Catholic Protestant".split()
)
# Words no person's name holds: documents, events, groups ("UN Charter", "Beatles Tour").
_NOT_PERSON = (
    _ORGANISATION
    | _PLACE_WORDS
    | _AWARD_WORDS
    | frozenset(
        "Charter Treaty Act Declaration Convention Constitution Agreement Tour Album Show War "
        "Battle Revolution Empire Church Cathedral Temple Bridge Tower Station Airport "
        "Stadium Hall Center Centre Library Prize Day Week Year Age Era".split()
    )
)
_PERSON_WORD = re.compile(r"(?:[A-Z][a-z]+(?:['’-][A-Z]?[a-z]+)*|[A-Z]\.)")
SWAPPED_TYPES = ("title", "award", "organisation", "place", "person")
"""The entity types ``entity`` swaps; any other run of capitals (type ``other``) is left."""
# Double quotes hold titles that hold apostrophes ("Don't Stop Believin'"): nothing inside a
# quote is ever swapped on its own.
_DOUBLE_QUOTED = re.compile(r"\"[^\"\n]{1,300}\"|“[^”\n]{1,300}”")
_NOT_NAMES = frozenset(w.capitalize() for w in _STOPWORDS) | frozenset(
    _MONTHS
    + "Monday Tuesday Wednesday Thursday Friday Saturday Sunday I Although While Though "
    "Because Since If Unless Whereas However Meanwhile Moreover Furthermore Thus Therefore "
    "Yet So But Nor Yes No".split()
)


@dataclass(frozen=True)
class Entity:
    """A recognised entity: where it is in its text, its words and its type."""

    start: int
    end: int
    text: str
    type: str


def lowercase_words(texts: Sequence[str]) -> frozenset[str]:
    """Words the texts write in lower case: a capitalised one of them is no name ("However")."""
    return frozenset(w for text in texts for w in _WORD.findall(text) if w.islower())


def midsentence_names(texts: Sequence[str]) -> frozenset[str]:
    """Capitalised words the texts write inside a sentence (not after its end): names."""
    names = set()
    for text in texts:
        words = text.split()
        for before, word in zip(words, words[1:], strict=False):
            if word[:1].isupper() and not before.endswith(_SENTENCE_ENDS):
                names.add(word.strip(_PUNCTUATION))
    return frozenset(names)


_SENTENCE_ENDS = (".", "!", "?", ":", "•", "*", "-")
_PUNCTUATION = ".,;:!?'\"’”()[]"


def entities(
    text: str, common: frozenset[str] = frozenset(), named: frozenset[str] | None = None
) -> list[Entity]:
    """The entities :mod:`this module's <inspect_cite.app.perturb>` rule recognises, in order.

    Args:
        text: A claim.
        common: Words the data writes in lower case (:func:`lowercase_words`): one of them
            alone, capitalised ("Meanwhile", "If" starting a sentence), is not a name.
        named: Words seen capitalised inside a sentence (:func:`midsentence_names`): a single
            word opening a sentence is a name only if it is one of them (None: any).

    """
    found: list[Entity] = []
    taken: list[tuple[int, int]] = [m.span() for m in _DOUBLE_QUOTED.finditer(text)]
    for match in _QUOTED.finditer(text):
        inner = match.group(2).strip()
        taken.append((match.start(), match.end()))
        # A title is in title case: "I Dreamed a Dream", not 'to speak' or a quoted question.
        long_words = [w for w in inner.split() if len(w) > 3]
        title_case = inner[:1].isupper() and (
            sum(w[:1].isupper() for w in long_words) * 2 >= len(long_words)
        )
        if 2 <= len(inner.split()) <= 12 and title_case and not _CITATION_MARKER.search(inner):
            start = match.start(2) + match.group(2).index(inner)
            found.append(Entity(start, start + len(inner), inner, "title"))
    for match in _ENTITY.finditer(text):
        tokens = [
            (match.start() + m.start(), match.start() + m.end(), m.group())
            for m in re.finditer(r"\S+", match.group())
        ]
        # Leading common words ("The", "In") and connectors are not part of a name.
        while tokens and (tokens[0][2].rstrip(".,") in _NOT_NAMES or tokens[0][2] in _JOINS):
            tokens.pop(0)
        while tokens and tokens[-1][2] in _JOINS:
            tokens.pop()
        if not tokens:
            continue
        start = tokens[0][0]
        name = text[start : tokens[-1][1]].rstrip(".,;:'\"’”)")
        end = start + len(name)
        if len(name) < 2 or name in _NOT_NAMES or any(s < end and start < e for s, e in taken):
            continue
        if " " not in name:
            opening = not text[:start].rstrip() or text[:start].rstrip().endswith(_SENTENCE_ENDS)
            if name.lower() in common or (opening and named is not None and name not in named):
                continue
        found.append(Entity(start, end, name, _entity_type(text, start, name, common)))
    return sorted(found, key=lambda e: e.start)


def _entity_type(text: str, start: int, name: str, common: frozenset[str]) -> str:
    """``award``, ``organisation``, ``place``, ``person`` or ``other`` (see the module doc)."""
    words = [w.rstrip(".,;:") for w in name.split()]
    before = text[:start].split()[-1:]
    before_word = before[0].lower().strip("(\"'“‘") if before else ""
    title_case = all(_PERSON_WORD.fullmatch(w) for w in name.split())
    if (len(words) >= 2 and words[-1] in _AWARD_WORDS) or name in _AWARD_NAMES:
        return "award"
    if words[-1] in _ORGANISATION:
        return "organisation"
    if words[-1] in _PLACE_WORDS or (
        before_word in _PLACE_CUES
        and len(words) <= 3
        and title_case
        and not (len(words) == 1 and name in _DESCRIPTIVE)
        and not any(w in _NOT_PERSON - _PLACE_WORDS for w in words)
    ):
        return "place"
    person = (
        2 <= len(words) <= 3
        and before_word != "the"
        and title_case
        and not any(w in _NOT_PERSON or w in _DESCRIPTIVE for w in words)
        # "Quality Control", "Get Smart": a word the data writes in lower case is no name's.
        and not any(w.lower() in common for w in words)
    )
    return "person" if person else "other"


def entity_pool(
    claims: Sequence[str], common: frozenset[str], named: frozenset[str]
) -> dict[str, list[str]]:
    """Every entity the claims of a dataset name, each once in first-seen order.

    Keyed by type (``name``) and by type and word count (``name/2``).
    """
    pool: dict[str, dict[str, None]] = {}
    for claim in claims:
        for entity in entities(claim, common, named):
            for key in (entity.type, f"{entity.type}/{len(entity.text.split())}"):
                pool.setdefault(key, {})[entity.text] = None
    return {key: list(names) for key, names in pool.items()}


_DRAWS = 50
"""Random draws for a replacement the pair never names, before the next candidate list."""


def swap_entity(
    claim: str,
    evidence: str,
    pool: dict[str, list[str]],
    rng: random.Random,
    common: frozenset[str] = frozenset(),
    named: frozenset[str] | None = None,
) -> tuple[str | None, str]:
    """The claim with one entity swapped for another of its type that the pair never names.

    A replacement of the same word count is drawn first, then any of the type.

    Returns:
        The new claim (or None) and why none was made.

    """
    if named is not None:
        # A name the pair's own evidence writes inside a sentence ("by Milira") is one.
        named = named | midsentence_names([evidence])
    found = [e for e in entities(claim, common, named) if e.type in SWAPPED_TYPES]
    if not found:
        return None, "no named entity of a type it swaps (" + ", ".join(SWAPPED_TYPES) + ")"
    lowered = (claim + "\n" + evidence).lower()
    # Swap a name the evidence holds (what supported the claim), else the first one.
    found.sort(key=lambda e: e.text.lower() not in evidence.lower())
    for entity in found:
        alike = f"{entity.type}/{len(entity.text.split())}"
        # A person for a person of as many words; others of the same word count first.
        fallback = [] if entity.type == "person" else pool.get(entity.type, [])
        for candidates in (pool.get(alike, []), fallback):
            for _ in range(min(_DRAWS, len(candidates))):
                new = rng.choice(candidates)
                if new.lower() not in lowered:
                    return claim[: entity.start] + new + claim[entity.end :], ""
    return None, "no other entity of its type (and word count, for a person) in the data"


# Choosing other pairs ---------------------------------------------------------------------------


class Neighbours:
    """Other pairs of a dataset by topic: word overlap of claims, deterministic.

    Args:
        sources: Every pair of the dataset (position, evidence texts, claim), in data order.

    """

    def __init__(self, sources: Sequence[Source]) -> None:
        self.sources = list(sources)
        self.words = [topic_words(s.claim) for s in self.sources]
        # A partner is always of the pair's own language: no Chinese clause on an English claim.
        self.languages = [source_language(s) for s in self.sources]
        self.scripts = [
            _script(s, lang) for s, lang in zip(self.sources, self.languages, strict=True)
        ]
        self.evidence_words: dict[int, frozenset[str]] = {}
        self.index: dict[str, list[int]] = {}
        # Every evidence text a claim is paired with anywhere in the data.
        self.claim_evidence: dict[str, set[str]] = {}
        for source in self.sources:
            self.claim_evidence.setdefault(source.claim.strip(), set()).update(source.evidence)
        for i, words in enumerate(self.words):
            for word in words:
                self.index.setdefault(word, []).append(i)

    def _evidence_words(self, i: int) -> frozenset[str]:
        if i not in self.evidence_words:
            self.evidence_words[i] = topic_words("\n".join(self.sources[i].evidence))
        return self.evidence_words[i]

    def similar(self, i: int) -> int | None:
        """The pair whose claim shares most words with pair ``i``'s, on other evidence.

        Ties go to the pair first in data order; a pair with the same claim, or with an
        evidence text the data pairs with ``i``'s claim anywhere, is never chosen.
        """
        shared: Counter[int] = Counter()
        for word in self.words[i]:
            postings = self.index[word]
            # A word in most claims says nothing of the topic.
            if len(postings) <= max(50, len(self.sources) // 100):
                shared.update(j for j in postings if j != i)
        claim = self.sources[i].claim.strip()
        # Evidence the data pairs with this claim anywhere may support it: never "another's".
        mine = self.claim_evidence[claim]
        for j, _ in sorted(shared.items(), key=lambda item: (-item[1], item[0])):
            other = self.sources[j]
            if (
                other.claim.strip() != claim
                and mine.isdisjoint(other.evidence)
                and self.scripts[j] == self.scripts[i]
                and not self._holds_claim(j, i)
            ):
                return j
        return None

    def _holds_claim(self, j: int, i: int) -> bool:
        # Evidence that holds the claim word for word, or most of its content words, may
        # still support it: no misattribution.
        text = " ".join(" ".join(self.sources[j].evidence).split()).lower()
        claim = " ".join(self.sources[i].claim.split()).lower().rstrip(".。!?！？")
        if claim and claim in text:
            return True
        words = self.words[i]
        return len(words & self._evidence_words(j)) >= HOLDS_CLAIM * len(words)

    def unrelated(self, i: int, rng: random.Random, tries: int = 50) -> int | None:
        """A pair drawn at random whose claim shares no word with pair ``i``'s claim or evidence."""
        # A claim without content words ("Yes.") shares none with anything: no topic to leave.
        if not self.words[i]:
            return None
        mine = self.words[i] | self._evidence_words(i)
        texts = set(self.sources[i].evidence)
        for _ in range(min(tries, len(self.sources))):
            j = rng.randrange(len(self.sources))
            if (
                j != i
                and self.words[j]
                and self.scripts[j] == self.scripts[i]
                and not self.words[j] & mine
                and not texts & set(self.sources[j].evidence)
            ):
                return j
        return None


# Perturbing ------------------------------------------------------------------------------------


def _unmarked(text: str) -> str:
    """``text`` without citation markers ("[1]"), whose numbers point nowhere once moved."""
    return re.sub(r"\s+([.,;:!?。，；！？])", r"\1", _CITATION_MARKER.sub("", text)).strip()


_CLAUSE_END = ".!?;,:。！？；，：、 "


def _partial(source: Source, other: Source, lang: str) -> str | None:
    clause = _unmarked(other.claim).strip()
    if lang == "zh":
        return source.claim.rstrip().rstrip(_CLAUSE_END) + "，并且" + _end(clause, lang)
    if lang != "en":
        return None
    return source.claim.rstrip().rstrip(_CLAUSE_END) + ", and " + _end(_lower_first(clause), lang)


def _stitched(source: Source, other: Source, lang: str, rng: random.Random) -> str | None:
    own = [_unmarked(s) for text in source.evidence for s in sentences(text, lang)]
    mine = "\n".join(source.evidence)
    theirs = [
        _unmarked(s) for text in other.evidence for s in sentences(text, lang) if s not in mine
    ]
    if not own or not theirs:
        return None
    claim_words = topic_words(source.claim)
    # The sentence of its own evidence nearest the claim: the part a judge can find.
    first = max(own, key=lambda s: (len(topic_words(s) & claim_words), -own.index(s)))
    joiner = "" if lang == "zh" else " "
    return first + joiner + rng.choice(theirs)


def _whitespace(source: Source) -> tuple[tuple[str, ...], str]:
    evidence = tuple(re.sub(r"(?<=[.!?。！？])[ \t]+", "\n", t) for t in source.evidence)
    claim = "  " + re.sub(r"\s+", "  ", source.claim.strip()) + "\n"
    return evidence, claim


def _keeps_case(word: str) -> bool:
    # An acronym or all-caps word (US, WHO, NBA) or a mixed-case one (iPhone, McDonald) reads
    # as another word lower-cased (us, who): it keeps its case.
    return sum(c.isupper() for c in word) >= 2 or any(c.isupper() for c in word[1:])


def _casing(claim: str) -> str:
    """The claim lower-cased but for acronyms and mixed-case words; upper-cased if no capital."""
    if not any(c.isupper() for c in claim):
        return claim.upper()
    return _WORD.sub(lambda m: m.group() if _keeps_case(m.group()) else m.group().lower(), claim)


def _reordered(evidence: tuple[str, ...]) -> tuple[str, ...] | None:
    if len(evidence) < 2:
        return None
    reordered = evidence[::-1]
    if reordered == evidence:
        reordered = evidence[1:] + evidence[:1]
    return reordered if reordered != evidence else None


NO_CONTENT = "no content word in the claim"
_TOPICAL = ("partial", "misattribution", "stitched")
_SKIP_REASONS = {
    "negation": "no negation rule for the claim (language, Never has ..., not only, 是否)",
    "number": "no number, date or number word",
    "partial": "no pair of its language on another topic, or no rule for the language",
    "misattribution": (
        "no other pair of its language on a similar topic whose evidence lacks the claim"
    ),
    "stitched": "no pair of its language on another topic, or no sentence to quote",
    "evidence_order": "one evidence text",
    "casing": "no letter case",
}


def perturb(
    sources: Sequence[Source],
    supported: Sequence[int],
    *,
    seed: int = 0,
) -> Perturbations:
    """Perturbed pairs of every supported pair, in source order then :data:`TYPES` order.

    Args:
        sources: Every pair of the dataset, in data order (candidates for swaps and joins).
        supported: The places in ``sources`` of the human-supported pairs to perturb.
        seed: Seed of every random choice.

    """
    result = Perturbations()
    neighbours = Neighbours(sources)
    claims = [s.claim for s in sources]
    common, named = lowercase_words(claims), midsentence_names(claims)
    pool = entity_pool(claims, common, named)
    for i in supported:
        source = sources[i]
        lang = neighbours.languages[i]
        result.languages[lang] += 1
        result.sources += 1
        evidence_text = "\n".join(source.evidence)
        made = 0
        for type_ in TYPES:
            if type_ not in LANGUAGE_TYPES[lang]:
                result.skip(type_, f"not for language {lang}")
                continue
            if type_ in _TOPICAL and not neighbours.words[i]:
                # "Yes." has no topic: every pair would count as on another (or the same) one.
                result.skip(type_, NO_CONTENT)
                continue
            rng = random.Random(f"{seed}/{source.position}/{type_}")
            evidence, claim = source.evidence, None
            why = _SKIP_REASONS.get(type_, "")
            if type_ == "negation":
                claim = negate(source.claim, lang)
            elif type_ == "number":
                claim = change_number(source.claim, lang, rng, evidence_text)
                if claim is None and _NUMBER.search(source.claim):
                    why = NUMBER_MARKERS_ONLY
            elif type_ == "entity":
                claim, why = swap_entity(source.claim, evidence_text, pool, rng, common, named)
            elif type_ == "partial":
                j = neighbours.unrelated(i, rng)
                claim = None if j is None else _partial(source, sources[j], lang)
            elif type_ == "misattribution":
                j = neighbours.similar(i)
                if j is not None:
                    evidence, claim = sources[j].evidence, source.claim
            elif type_ == "stitched":
                j = neighbours.unrelated(i, rng)
                claim = None if j is None else _stitched(source, sources[j], lang, rng)
            elif type_ == "evidence_order":
                reordered = _reordered(source.evidence)
                if reordered is not None:
                    evidence, claim = reordered, source.claim
            elif type_ == "whitespace":
                evidence, claim = _whitespace(source)
            elif type_ == "casing":
                claim = _casing(source.claim) if _LETTER.search(source.claim) else None
            if claim is None:
                result.skip(type_, why)
                continue
            # Every type but these two changes the claim; these two change the evidence.
            keeps_claim = type_ in ("misattribution", "evidence_order")
            if (claim == source.claim and not keeps_claim) or (
                evidence == source.evidence and claim == source.claim
            ):
                result.skip(type_, UNCHANGED)
                continue
            if made == MAX_PER_PAIR:
                result.skip(type_, f"more than {MAX_PER_PAIR} perturbations of one pair")
                continue
            result.pairs.append(Perturbed(source.position, type_, tuple(evidence), claim))
            made += 1
    return result

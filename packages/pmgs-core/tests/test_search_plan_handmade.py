"""Query plans checked as data: terms, their paths, the MATCH texts and the query checks.

Every expected plan below is written out by hand from the rules of ADR 0004/0008/0020 (a term
of 3+ characters as typed goes to the trigram index, a folded term of 2+ characters with a
bigram token to the bigram index, anything else to the literal scan; the contract's search
mode is trigram only when every term is). No database is opened, so the file runs in well
under a second and is what the mutation session's ``search`` target runs against
``search/_plan.py`` (issue 34); the end-to-end search tests stay in the suite.
"""

from __future__ import annotations

import pytest

from pmgs_core import PMGSQueryError
from pmgs_core.search import (
    MAX_QUERY_CHARS,
    MAX_TERMS,
    QueryPlan,
    TermPlan,
    check_query,
    covering_trigrams,
    plan_query,
)

TRIGRAM_MODE = "sqlite_fts5_trigram_lexical"
LITERAL_MODE = "sqlite_literal_substring_lexical"


def _plan(query: str) -> QueryPlan:
    plan = plan_query(query)
    assert plan is not None
    return plan


@pytest.mark.parametrize("query", ["", " ", "\t\n", "\u3000 \u3000"])
def test_a_query_without_terms_has_no_plan(query: str) -> None:
    assert plan_query(query) is None
    assert check_query(query) is None


@pytest.mark.parametrize(
    ("query", "terms"),
    [
        # one character: the literal scan
        ("窓", [TermPlan("窓", "窓", "literal")]),
        ("A", [TermPlan("A", "a", "literal")]),
        # two characters holding an ASCII separator have no bigram token: literal
        ("a,", [TermPlan("a,", "a,", "literal")]),
        ("1/", [TermPlan("1/", "1/", "literal")]),
        # two token characters: one bigram token, folded
        ("ドア", [TermPlan("ドア", "ドア", "bigram", ("ドア",))]),
        ("AB", [TermPlan("AB", "ab", "bigram", ("ab",))]),
        ("Ｂ２", [TermPlan("Ｂ２", "b2", "bigram", ("b2",))]),
        # one character that folds to several: bigram, with every token of the folded text
        ("㍻", [TermPlan("㍻", "平成", "bigram", ("平成",))]),
        ("㌀", [TermPlan("㌀", "アパート", "bigram", ("アパ", "パー", "ート"))]),
        ("ß", [TermPlan("ß", "ss", "bigram", ("ss",))]),
        # two characters that fold to one: literal
        ("ｶﾞ", [TermPlan("ｶﾞ", "ガ", "literal")]),
        # three characters as typed: trigram, whatever the folded length
        ("ABC", [TermPlan("ABC", "abc", "trigram")]),
        ("ｶﾞｷﾞ", [TermPlan("ｶﾞｷﾞ", "ガギ", "trigram")]),
        ("開閉装置", [TermPlan("開閉装置", "開閉装置", "trigram")]),
        # terms split on any whitespace (the ideographic space too), repeats dropped, order kept
        (
            " 窓\u3000ドア 開閉装置\t窓 ドア ",
            [
                TermPlan("窓", "窓", "literal"),
                TermPlan("ドア", "ドア", "bigram", ("ドア",)),
                TermPlan("開閉装置", "開閉装置", "trigram"),
            ],
        ),
        # repeats are judged as typed: two spellings of one folded term are two terms
        ("Door door", [TermPlan("Door", "door", "trigram"), TermPlan("door", "door", "trigram")]),
    ],
)
def test_terms_and_their_paths(query: str, terms: list[TermPlan]) -> None:
    plan = _plan(query)
    assert list(plan.terms) == terms
    assert plan.folded_terms == tuple(t.folded for t in terms)
    assert plan.trigram_overrides == ()


@pytest.mark.parametrize(
    ("query", "mode", "index"),
    [
        ("開閉装置", TRIGRAM_MODE, "fts5_trigram"),
        ("開閉装置 ABC", TRIGRAM_MODE, "fts5_trigram"),
        ("ドア", LITERAL_MODE, "fts5_bigram"),
        ("ドア AB", LITERAL_MODE, "fts5_bigram"),
        ("窓", LITERAL_MODE, "substring_scan"),
        ("窓 a,", LITERAL_MODE, "substring_scan"),
        ("開閉装置 ドア", LITERAL_MODE, "mixed"),
        ("開閉装置 窓", LITERAL_MODE, "mixed"),
        ("ドア 窓", LITERAL_MODE, "mixed"),
        ("窓 開閉装置 ドア", LITERAL_MODE, "mixed"),
    ],
)
def test_the_contracts_mode_and_the_index(query: str, mode: str, index: str) -> None:
    plan = _plan(query)
    assert plan.search_mode == mode
    assert plan.index == index


@pytest.mark.parametrize(
    ("query", "trigram", "bigram"),
    [
        ("abc", '"abc"', None),
        ("開閉装置", '("開閉装" AND "閉装置")', None),
        ("abcdefgh", '("abc" AND "def" AND "fgh")', None),
        # the NFKC spelling is a second group when it differs
        ("ＡＢＣＤ", '(("ＡＢＣ" AND "ＢＣＤ") OR ("ABC" AND "BCD"))', None),
        ("ＡＢＣ", '("ＡＢＣ" OR "ABC")', None),
        # ... and left out when it is shorter than a trigram
        ("ｶﾞｷﾞ", '("ｶﾞｷ" AND "ﾞｷﾞ")', None),
        # a double quote is doubled inside the FTS5 string
        ('a"bc', '("a""b" AND """bc")', None),
        ("abc 開閉装置", '"abc" AND ("開閉装" AND "閉装置")', None),
        ("ドア", None, '"ドア"'),
        ("ドア AB", None, '"ドア" AND "ab"'),
        # a token shared by two terms is asked once
        ("㌀ パー", None, '"アパ" AND "パー" AND "ート"'),
        ("窓 開閉装置 ドア", '("開閉装" AND "閉装置")', '"ドア"'),
        ("窓", None, None),
    ],
)
def test_match_texts(query: str, trigram: str | None, bigram: str | None) -> None:
    plan = _plan(query)
    assert plan.trigram_match == trigram
    assert plan.bigram_match == bigram


def test_an_override_replaces_the_trigrams_of_its_folded_term_only() -> None:
    terms = (TermPlan("ABCD", "abcd", "trigram"), TermPlan("xyz", "xyz", "trigram"))
    by_folded = QueryPlan(terms, trigram_overrides=(("abcd", '"bcd"'),))
    assert by_folded.trigram_match == '"bcd" AND "xyz"'
    as_typed = QueryPlan(terms, trigram_overrides=(("ABCD", '"bcd"'),))
    assert as_typed.trigram_match == '("ABC" AND "BCD") AND "xyz"'
    assert QueryPlan(terms).trigram_match == '("ABC" AND "BCD") AND "xyz"'


@pytest.mark.parametrize(
    ("text", "grams"),
    [
        ("abc", ["abc"]),
        ("abcd", ["abc", "bcd"]),
        ("abcdef", ["abc", "def"]),
        ("abcdefg", ["abc", "def", "efg"]),
        ("abcdefgh", ["abc", "def", "fgh"]),
        ("abcdefghi", ["abc", "def", "ghi"]),
        ("abcdefghij", ["abc", "def", "ghi", "hij"]),
        ("aaaaaa", ["aaa"]),
        ("abcabc", ["abc"]),
    ],
)
def test_covering_trigrams(text: str, grams: list[str]) -> None:
    assert covering_trigrams(text) == grams


@pytest.mark.parametrize(
    ("query", "needles"),
    [
        ("a", ("a", "A")),
        ("A", ("A", "a")),
        ("窓", ("窓",)),
        ("Ａ", ("Ａ", "a", "ａ", "A")),
        ("a,", ("a,", "A,")),
        ("ｶﾞ", ("ｶﾞ", "ガ")),
        # the first literal term, whatever comes before it
        ("開閉装置 ドア x 窓", ("x", "X")),
    ],
)
def test_literal_needles(query: str, needles: tuple[str, ...]) -> None:
    assert _plan(query).literal_needles == needles


@pytest.mark.parametrize(
    ("query", "body", "found"),
    [
        ("door open", "Door OPENING device", True),
        ("door closing", "Door OPENING device", False),
        ("ＡＢＣ", "xabcx", True),
        ("abc", "xＡＢＣx", True),
        ("窓 ドア", "ドアと窓", True),
        ("窓 ドア", "ドアのみ", False),
        ("㍻", "平成元年", True),
        ("ss", "Straße", True),
    ],
)
def test_the_final_check_needs_every_folded_term(query: str, body: str, found: bool) -> None:
    assert _plan(query).matches(body) is found


# -- the query argument ------------------------------------------------------------------------


def _refused(query: object) -> PMGSQueryError:
    with pytest.raises(PMGSQueryError) as caught:
        check_query(query)
    assert caught.value.code == "INVALID_QUERY"
    return caught.value


@pytest.mark.parametrize("query", [None, 5, b"door", ["door"]])
def test_a_query_that_is_not_a_string(query: object) -> None:
    error = _refused(query)
    assert error.message == "query must be a string"
    assert error.details == {}


@pytest.mark.parametrize("query", ["a\x00b", "door \ud800"])
def test_a_query_with_a_nul_or_a_lone_surrogate(query: str) -> None:
    error = _refused(query)
    assert error.message == "query must be text without NUL characters or lone surrogates"
    assert error.details == {}


def test_the_length_limit_is_512_characters() -> None:
    assert MAX_QUERY_CHARS == 512
    at_limit = "x" * 512
    plan = check_query(at_limit)
    assert plan is not None
    assert plan.terms == (TermPlan(at_limit, at_limit, "trigram"),)
    error = _refused("x" * 513)
    assert error.message == "query is longer than 512 characters"
    assert error.details == {"max_chars": 512}


def test_the_term_limit_is_16_distinct_terms() -> None:
    assert MAX_TERMS == 16
    sixteen = " ".join(f"t{n:02d}" for n in range(16))
    plan = check_query(sixteen)
    assert plan is not None
    assert len(plan.terms) == 16
    # repeats do not count
    repeated = check_query(sixteen + " t00 t15")
    assert repeated is not None
    assert len(repeated.terms) == 16
    error = _refused(sixteen + " t16")
    assert error.message == "query has more than 16 terms"
    assert error.details == {"max_terms": 16}


def test_a_checked_query_has_the_plan_of_its_terms() -> None:
    assert check_query("窓 ドア") == QueryPlan(
        (TermPlan("窓", "窓", "literal"), TermPlan("ドア", "ドア", "bigram", ("ドア",)))
    )

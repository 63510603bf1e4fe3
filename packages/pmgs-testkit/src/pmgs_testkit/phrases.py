"""Natural phrases and the generated titles they paraphrase: the oracle of issue 39's Find.

Written by hand against the titles :class:`pmgs_testkit.vocabulary.TextMaker` produces
(``合成データ：{a}の{b}{head}``, ``…{a}を用いた{b}{head}``, ``…{a}の{b}を制御するもの``): each
phrase is unspaced, mixes kanji and kana, has particles, and is not a substring of any title,
so that the exact search finds nothing and the any-word search of its words must find the
code. Every title below exists in the reference built at :data:`PHRASE_SCALE` (seed 7) and
at larger scales (checked up to 1.0 when the table was written).

:func:`phrase_targets` turns a title into the codes that carry it (the expected answer);
a page-one hit with one of those (scheme, code) pairs is a pass.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Final

from pmgs_testkit.vocabulary import SYNTHETIC_MARK_JA

__all__ = ["PHRASES", "PHRASE_SCALE", "phrase_targets"]

PHRASE_SCALE: Final = 0.02
"""The scale of the reference the phrase tests build (every title below is in it)."""

PHRASES: Final[tuple[tuple[str, str, tuple[str, ...]], ...]] = (
    # (phrase, the title it paraphrases without the synthetic mark, the words it splits into)
    ("電池を冷却するための装置", "電池の冷却装置", ("電池", "冷却", "装置")),
    ("燃料を用いた歯車の機構", "燃料を用いた歯車機構", ("燃料", "用い", "歯車", "機構")),
    (
        "車両に付いた照明を制御するもの",
        "車両の照明を制御するもの",
        ("車両", "照明", "制御"),
    ),
    ("樹脂の電極を製造すること", "樹脂の電極製造", ("樹脂", "電極", "製造")),
    (
        "半導体を用いて作った基板の構造",
        "半導体を用いた基板構造",
        ("半導体", "用い", "作っ", "基板", "構造"),
    ),
    ("画像の信号を扱うシステム", "画像の信号システム", ("画像", "信号", "扱う", "システム")),
    ("半導体でできた軸受の構造", "半導体の軸受構造", ("半導体", "軸受", "構造")),
    (
        "通信に使う回路を制御するもの",
        "通信の回路を制御するもの",
        ("通信", "使う", "回路", "制御"),
    ),
    ("車両に使われる歯車の構造", "車両の歯車構造", ("車両", "使わ", "歯車", "構造")),
    (
        "化粧料を用いて溶液を作る装置",
        "化粧料を用いた溶液装置",
        ("化粧", "用い", "溶液", "作る", "装置"),
    ),
    ("材料を用いた車両の構造", "材料を用いた車両構造", ("材料", "用い", "車両", "構造")),
    ("燃料を検出する方法", "燃料の検出方法", ("燃料", "検出", "方法")),
    ("扉体にある軸受の制御", "扉体の軸受を制御するもの", ("扉体", "軸受", "制御")),
    ("弁体を用いた容器の構造", "弁体を用いた容器構造", ("弁体", "用い", "容器", "構造")),
    (
        "建築で用いた照明のシステム",
        "建築を用いた照明システム",
        ("建築", "用い", "照明", "システム"),
    ),
    ("歯車における燃料の制御", "歯車の燃料を制御するもの", ("歯車", "燃料", "制御")),
    ("信号を表示する装置", "信号の表示装置", ("信号", "表示", "装置")),
    ("医薬を入れる容器の構造", "医薬の容器構造", ("医薬", "入れる", "容器", "構造")),
    (
        "窓枠を用いて音響を扱うシステム",
        "窓枠を用いた音響システム",
        ("窓枠", "用い", "音響", "扱う", "システム"),
    ),
    ("食品向けの樹脂からなる組成物", "食品の樹脂組成物", ("食品", "樹脂", "組成")),
)


def phrase_targets(db: Path, title: str) -> set[tuple[str, str]]:
    """The (scheme, code) of every canonical code one of whose Japanese texts is ``title``
    (given without the synthetic mark), read straight from SQL."""
    connection = sqlite3.connect(db.resolve().as_uri() + "?mode=ro", uri=True)
    try:
        rows = connection.execute(
            "SELECT c.scheme, c.code FROM text AS t "
            "JOIN revision AS r ON r.id = t.revision_id JOIN concept AS c ON c.id = r.concept_id "
            "WHERE t.body = ? AND t.language = 'ja' AND c.status = 'canonical'",
            [SYNTHETIC_MARK_JA + title],
        ).fetchall()
    finally:
        connection.close()
    return {(str(scheme), str(code)) for scheme, code in rows}

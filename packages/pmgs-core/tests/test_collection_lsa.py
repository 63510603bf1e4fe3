"""The LSA half of the collection's search (ADR 0026), on the hand-written collection of
``lsa_corpus``: paraphrases that share no two-character string are found by the vectors,
never by the words; the same items give the same vectors; writes keep vectors in step.

Oracles: the corpus table itself (which note is whose paraphrase, checked by substring
comparison here) and SQL on the file.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import pytest

from pmgs_core import Collection
from pmgs_core.collection._vectors import MIN_TRAIN_ITEMS, grams

pytest.importorskip("numpy")

# --- the hand-written collection: 40 topics, each with two ways of saying the same thing that
# share no two-character string, and three notes in which the words of both ways appear
# together (what LSA learns from). 200 notes in all.

# (a1, a2, b1, b2, c1, c2, c3): a1/a2 and b1/b2 say the same; c1..c3 are the topic's context.
TOPICS: Final = (
    ("負極", "結着剤", "アノード", "バインダー", "黒鉛", "塗工", "乾燥"),
    ("正極", "集電体", "カソード", "箔材", "コバルト", "圧延", "端子"),
    ("自動車", "運転者", "車両", "ドライバー", "走行", "速度", "道路"),
    ("半導体", "基板", "チップ", "ウエハ", "露光", "洗浄", "配線"),
    ("画像", "撮影", "映像", "カメラ", "解像度", "画素", "圧縮"),
    ("回転軸", "軸受", "シャフト", "ベアリング", "潤滑", "摩耗", "振動"),
    ("冷却", "冷媒", "放熱", "フィン", "温度", "熱交換", "空調"),
    ("樹脂", "成形", "プラスチック", "射出", "金型", "流動性", "充填材"),
    ("容器", "蓋体", "ボトル", "キャップ", "飲料", "密封", "注ぎ口"),
    ("照明", "光源", "ライト", "ランプ", "明るさ", "点灯", "配光"),
    ("通信", "無線", "送受信", "アンテナ", "周波数", "電波", "基地局"),
    ("記憶装置", "書込", "メモリ", "ストレージ", "容量", "読出", "保存"),
    ("表示装置", "画面", "ディスプレイ", "パネル", "輝度", "液晶", "視野角"),
    ("制御部", "演算", "コントローラ", "プロセッサ", "指令", "信号", "処理"),
    ("歯車", "減速", "ギア", "変速", "噛合", "動力", "伝達"),
    ("発光", "蛍光体", "ダイオード", "波長変換", "封止", "色度", "白色"),
    ("洗濯機", "脱水", "ランドリー", "乾燥機", "衣類", "洗剤", "水槽"),
    ("印刷", "用紙", "プリンタ", "インク", "給紙", "搬送", "ノズル"),
    ("医薬", "錠剤", "薬剤", "カプセル", "投与", "患者", "有効成分"),
    ("食品", "調味料", "フード", "ソース", "風味", "加熱", "保存料"),
    ("建物", "屋根", "建築物", "ルーフ", "雨水", "断熱", "外壁"),
    ("電動機", "固定子", "モータ", "ステータ", "巻線", "磁石", "回転子"),
    ("鋼板", "溶接", "金属板", "接合", "強度", "亀裂", "溶融"),
    ("検出器", "測定", "センサ", "計測", "感度", "出力値", "校正"),
    ("農業", "作物", "栽培", "野菜", "収穫", "肥料", "土壌"),
    ("船舶", "船体", "ボート", "艇体", "推進", "波浪", "港湾"),
    ("航空機", "翼", "飛行機", "ウイング", "揚力", "胴体", "離陸"),
    ("電池", "蓄電", "バッテリー", "充電", "放電", "寿命", "残量"),
    ("掃除機", "吸引", "クリーナー", "集塵", "塵埃", "床面", "フィルタ"),
    ("時計", "文字盤", "ウォッチ", "針", "時刻", "竜頭", "ムーブメント"),
    ("靴", "靴底", "シューズ", "ソール", "歩行", "衝撃", "甲革"),
    ("鍵", "施錠", "キー", "ロック", "扉", "錠前", "解錠"),
    ("暗号", "認証", "秘匿", "照合", "鍵情報", "署名", "改ざん"),
    ("車輪", "路面", "タイヤ", "トレッド", "空気圧", "摩擦", "ゴム"),
    ("楽器", "弦", "ギター", "ピック", "演奏", "音色", "共鳴"),
    ("家具", "椅子", "チェア", "座面", "背もたれ", "脚部", "肘掛"),
    ("衛生用品", "吸収体", "ナプキン", "パッド", "不織布", "肌", "漏れ"),
    ("眼鏡", "度数", "アイウェア", "フレーム", "視力", "鼻当て", "屈折"),
    ("玩具", "遊具", "おもちゃ", "ブロック", "子供", "組立", "安全性"),
    ("燃料", "燃焼", "ガソリン", "エンジン", "排気", "点火", "噴射"),
)


def pair(topic: tuple[str, ...]) -> tuple[str, str]:
    """The two notes that say the same thing in different words."""
    a1, a2, b1, b2 = topic[:4]
    return f"{a1}と{a2}", f"{b1}や{b2}"


def notes() -> list[tuple[str, str]]:
    """(path, text) of the 200 notes, topic by topic."""
    out: list[tuple[str, str]] = []
    for number, topic in enumerate(TOPICS):
        a1, a2, b1, b2, c1, c2, c3 = topic
        first, second = pair(topic)
        out += [
            (f"t{number:02}/p.md", first),
            (f"t{number:02}/q.md", second),
            (f"t{number:02}/c1.md", f"{a1}を{c1}し{b2}で{c2}する"),
            (f"t{number:02}/c2.md", f"{b1}の{c3}と{a2}の{c1}"),
            (f"t{number:02}/c3.md", f"{c2}{c3}に関して{a1}{b1}{a2}{b2}"),
        ]
    return out


def _bigrams(text: str) -> set[str]:
    return {text[i : i + 2] for i in range(len(text) - 1)}


def _sql(path: Path, sql: str, *args: object) -> list[tuple[object, ...]]:
    with sqlite3.connect(path) as conn:
        return [tuple(r) for r in conn.execute(sql, args)]


def _fill(path: Path) -> Collection:
    col = Collection(path)
    for logical, text in notes():
        col.put_document(text, logical)
    return col


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Collection]:
    with _fill(tmp_path_factory.mktemp("lsa") / "c.sqlite") as col:
        col.lsa_retrain()
        yield col


def test_corpus_is_what_the_test_claims() -> None:
    texts = [text for _, text in notes()]
    assert len(texts) == 200
    for topic in TOPICS:
        first, second = pair(topic)
        assert not _bigrams(first) & _bigrams(second), (first, second)
        # each paraphrase word appears in some other note beside a word of the other side
        for word in topic[:4]:
            assert sum(word in text for text in texts) >= 3, word


def test_vector_half_finds_paraphrases_lexical_half_does_not(trained: Collection) -> None:
    found = 0
    for number, topic in enumerate(TOPICS):
        query, target = f"t{number:02}/p.md", f"t{number:02}/q.md"
        answer = trained.search_text(pair(topic)[0], limit=5, min_score=0)
        assert answer["vector_search_used"] is True
        hit = next((i for i in answer["items"] if i["path"] == target), None)
        if hit is not None:
            found += 1
            assert hit["match"] == "vector"
            assert hit["matched_terms"] == []
        assert answer["items"][0]["path"] == query
        assert answer["items"][0]["match"] == "lexical"
    assert found >= 0.8 * len(TOPICS), found
    # the lexical half alone never finds a paraphrase
    trained.vectors_available = False
    try:
        for number, topic in enumerate(TOPICS):
            answer = trained.search_text(pair(topic)[0], limit=100, min_score=0)
            assert answer["vector_search_used"] is False
            assert f"t{number:02}/q.md" not in {i["path"] for i in answer["items"]}
            assert {i["match"] for i in answer["items"]} == {"lexical"}
    finally:
        trained.vectors_available = True


def test_similarity_is_the_larger_half_and_min_score_cuts(trained: Collection) -> None:
    answer = trained.search_text("負極と結着剤", limit=20, min_score=0)
    similarities = [i["similarity"] for i in answer["items"]]
    assert similarities == sorted(similarities, reverse=True)
    assert all(0 < s <= 1 for s in similarities)
    floor = similarities[3]
    cut = trained.search_text("負極と結着剤", limit=20, min_score=floor)["items"]
    assert [i["similarity"] for i in cut] == [s for s in similarities if s >= floor]
    assert (
        trained.search_text("負極と結着剤")["items"]
        == [i for i in answer["items"] if i["similarity"] >= 0.3][:5]
    )


def test_category_filter_applies_to_the_vector_half(tmp_path: Path) -> None:
    with _fill(tmp_path / "c.sqlite") as col:
        col.put_document("アノードやバインダー", "x/q.md", category="電池メモ")
        col.lsa_retrain()
        items = col.search_text("負極と結着剤", limit=10, min_score=0, category="電池メモ")
        assert [i["path"] for i in items["items"]] == ["x/q.md"]
        assert items["items"][0]["match"] == "vector"


def test_same_items_same_vectors_and_answers(tmp_path: Path, trained: Collection) -> None:
    with _fill(tmp_path / "again.sqlite") as col:
        col.lsa_retrain()
        for topic in TOPICS[:10]:
            assert col.search_text(pair(topic)[0], limit=5, min_score=0) == trained.search_text(
                pair(topic)[0], limit=5, min_score=0
            )
        ours = _sql(col.path, "SELECT item_id, vector FROM item_vectors ORDER BY item_id")
        theirs = _sql(trained.path, "SELECT item_id, vector FROM item_vectors ORDER BY item_id")
        assert ours == theirs
        assert len(ours) == 200


def test_small_collection_answers_lexically(tmp_path: Path) -> None:
    with Collection(tmp_path / "c.sqlite") as col:
        for n in range(MIN_TRAIN_ITEMS - 1):
            col.put_document(f"電池の記録 {n}", f"n{n}.md")
        assert col.lsa_retrain()["dimensions"] == 0
        answer = col.search_text("電池", limit=3)
        assert answer["vector_search_used"] is False
        assert [i["match"] for i in answer["items"]] == ["lexical"] * 3
        assert col.model_info()["dimensions"] == 0
        col.put_document("電池の記録 最後", "last.md")  # the 20th item: search trains
        assert col.search_text("電池", limit=3)["vector_search_used"] is True
        assert _sql(col.path, "SELECT count(*) FROM item_vectors") == [(MIN_TRAIN_ITEMS,)]


def test_writes_keep_vectors_in_step(tmp_path: Path) -> None:
    with _fill(tmp_path / "c.sqlite") as col:
        col.lsa_retrain()
        before = col.model_info()
        added = col.add_item_text("アノードとバインダーの乾燥", "new.md")
        item = added["item_ids"][0]
        # folded in at once, in the current space (no retraining)
        assert _sql(col.path, "SELECT count(*) FROM item_vectors WHERE item_id = ?", item) == [(1,)]
        assert col.model_info() == before
        hits = col.search_text("負極と結着剤", limit=10, min_score=0)["items"]
        assert "new.md" in {i["path"] for i in hits}
        old = _sql(col.path, "SELECT vector FROM item_vectors WHERE item_id = ?", item)
        col.update_item(item, "ギアや変速")
        new = _sql(col.path, "SELECT vector FROM item_vectors WHERE item_id = ?", item)
        assert new
        assert new != old
        col.delete_item(item)
        assert _sql(col.path, "SELECT count(*) FROM item_vectors WHERE item_id = ?", item) == [(0,)]
        orphans = "SELECT count(*) FROM item_vectors WHERE item_id NOT IN (SELECT id FROM items)"
        assert _sql(col.path, orphans) == [(0,)]
        assert _sql(col.path, "SELECT count(*) FROM item_vectors") == [(200,)]


def test_heal_refills_missing_vectors_and_fts(tmp_path: Path) -> None:
    with _fill(tmp_path / "c.sqlite") as col:
        col.lsa_retrain()
        with sqlite3.connect(col.path) as conn:
            conn.execute("DELETE FROM item_vectors WHERE item_id % 2 = 0")
            conn.execute("INSERT INTO items_fts(items_fts) VALUES ('delete-all')")
        assert col.heal() == 200
        assert _sql(col.path, "SELECT count(*) FROM item_vectors") == [(200,)]
        assert [i["path"] for i in col.search_text("コバルト", limit=1)["items"]] == ["t01/c1.md"]


def test_grams_table() -> None:
    assert grams("負極と結着剤") == ["負極", "極と", "と結", "結着", "着剤"]
    assert grams("翼 a bc") == ["翼", "a", "bc"]
    assert grams("") == []


_HOLD = """
import sys, time
from pmgs_core import Collection
col = Collection(sys.argv[1])
with col.tracking("lsa_retrain", total=None):
    print("ready", flush=True)
    sys.stdin.readline()
"""


def test_indexing_status_says_training_across_processes(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    Collection(path).close()
    with subprocess.Popen(
        [sys.executable, "-c", _HOLD, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as child:
        assert child.stdout is not None
        assert child.stdin is not None
        assert child.stdout.readline().strip() == "ready"
        with Collection(path) as col:
            status = col.indexing_status()
            assert status["status"] == "training"
            assert status.get("task") == "lsa_retrain"
            child.stdin.write("\n")
            child.stdin.flush()
            assert child.wait(timeout=30) == 0
            deadline = time.monotonic() + 10
            while col.indexing_status()["status"] != "idle" and time.monotonic() < deadline:
                time.sleep(0.05)
            assert col.indexing_status() == {"status": "idle"}

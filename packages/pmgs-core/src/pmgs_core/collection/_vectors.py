"""LSA vectors of the collection (ADR 0026): TF-IDF over the character bigrams of the folded
text, reduced by a truncated SVD computed from the collection itself (no model file, no
download), deterministic. numpy and scipy come with the ``pmgs-core[vectors]`` extra; without
them :func:`available` is false and search stays lexical.

The space (vocabulary, idf, components) and one float32 vector per item live in the
collection file (``lsa_model``, ``item_vectors``); items written after a training are folded
into the current space at once.
"""

from __future__ import annotations

import importlib.util
import json
import sqlite3
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

__all__ = [
    "DIMENSIONS",
    "MIN_TRAIN_ITEMS",
    "Space",
    "Vectors",
    "available",
    "fold_in",
    "load_space",
    "load_vectors",
    "nearest",
    "train",
]

DIMENSIONS: Final = 128
"""The most dimensions a space has (fewer in a small collection: one for every 8 items)."""
MIN_TRAIN_ITEMS: Final = 20
"""Below this many items no space is trained and search is lexical only."""
MAX_FEATURES: Final = 50_000
"""The most frequent bigrams kept (by document frequency, then the bigram itself)."""


def available() -> bool:
    """Whether the ``vectors`` extra (numpy, scipy) is installed."""
    return all(importlib.util.find_spec(name) is not None for name in ("numpy", "scipy"))


def grams(folded: str) -> list[str]:
    """Character bigrams within each whitespace-separated word (a one-character word is
    itself): Japanese has no spaces, so the bigram is the smallest unit that carries a word."""
    out: list[str] = []
    for word in folded.split():
        if len(word) == 1:
            out.append(word)
        out.extend(word[i : i + 2] for i in range(len(word) - 1))
    return out


@dataclass(frozen=True)
class Space:
    """A trained space: bigram → column, its idf, and the components (features × k)."""

    generation: int
    vocabulary: dict[str, int]
    idf: NDArray[np.float64]
    components: NDArray[np.float64]

    @property
    def dimensions(self) -> int:
        return int(self.components.shape[1])

    def embed(self, folded_texts: list[str]) -> NDArray[np.float32]:
        """Unit vectors of ``folded_texts`` in this space (zero where no bigram is known)."""
        import numpy as np

        matrix = _tfidf(folded_texts, self.vocabulary, self.idf)
        vectors = np.asarray(matrix @ self.components, dtype=np.float64)
        return _unit(vectors).astype(np.float32)


def _tfidf(folded_texts: list[str], vocabulary: dict[str, int], idf: NDArray[np.float64]) -> Any:
    """Rows of sublinear tf × idf, each of unit length (a scipy CSR matrix)."""
    import numpy as np
    from scipy.sparse import csr_matrix  # type: ignore[import-untyped]

    indptr = [0]
    indices: list[int] = []
    values: list[float] = []
    for text in folded_texts:
        counts = Counter(g for g in grams(text) if g in vocabulary)
        columns = sorted(vocabulary[g] for g in counts)
        by_column = {vocabulary[g]: n for g, n in counts.items()}
        row = np.array([(1 + np.log(by_column[c])) * idf[c] for c in columns], dtype=np.float64)
        norm = float(np.linalg.norm(row)) if len(row) else 0.0
        indices.extend(columns)
        values.extend((row / norm).tolist() if norm else row.tolist())
        indptr.append(len(indices))
    return csr_matrix(
        (np.array(values, dtype=np.float64), np.array(indices, dtype=np.int64), indptr),
        shape=(len(folded_texts), len(vocabulary)),
    )


def _unit(vectors: NDArray[np.float64]) -> NDArray[np.float64]:
    import numpy as np

    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    result: NDArray[np.float64] = np.divide(
        vectors, norms, out=np.zeros_like(vectors), where=norms > 0
    )
    return result


def _svd(matrix: Any, k: int) -> NDArray[np.float64]:
    """The top ``k`` right singular vectors (features × k), signs fixed so that each
    column's largest entry is positive: the same items give the same space on every run."""
    import numpy as np
    from scipy.sparse.linalg import svds  # type: ignore[import-untyped]

    rows, columns = matrix.shape
    if min(rows, columns) <= 2 * k + 1 or rows * columns <= 4_000_000:
        _, values, vt = np.linalg.svd(matrix.toarray(), full_matrices=False)
        order = np.argsort(-values, kind="stable")[:k]
    else:
        start = np.ones(min(rows, columns), dtype=np.float64) / np.sqrt(min(rows, columns))
        _, values, vt = svds(matrix, k=k, v0=start, solver="arpack")
        order = np.argsort(-values, kind="stable")
    components = np.asarray(vt[order].T, dtype=np.float64)
    peaks = np.argmax(np.abs(components), axis=0)
    signs = np.sign(components[peaks, np.arange(components.shape[1])])
    signs[signs == 0] = 1
    result: NDArray[np.float64] = components * signs
    return result


def train(conn: sqlite3.Connection, trained_at: str) -> int:
    """Build the space from every item and store it with every item's vector, inside the
    caller's transaction. Returns the dimensions (0: too few items, vectors cleared)."""
    import numpy as np

    rows = conn.execute("SELECT id, folded FROM items ORDER BY id").fetchall()
    conn.execute("DELETE FROM item_vectors")
    previous = conn.execute("SELECT generation FROM lsa_model WHERE id = 1").fetchone()
    conn.execute("DELETE FROM lsa_model")
    if len(rows) < MIN_TRAIN_ITEMS:
        return 0
    frequency: Counter[str] = Counter()
    for row in rows:
        frequency.update(set(grams(row[1])))
    kept = sorted((g for g, n in frequency.items() if n >= 2), key=lambda g: (-frequency[g], g))[
        :MAX_FEATURES
    ]
    if len(kept) < 2:
        return 0
    kept.sort()
    vocabulary = {g: i for i, g in enumerate(kept)}
    total = len(rows)
    idf = np.array([np.log((1 + total) / (1 + frequency[g])) + 1 for g in kept], dtype=np.float64)
    matrix = _tfidf([row[1] for row in rows], vocabulary, idf)
    k = max(1, min(DIMENSIONS, total // 8, len(kept) - 1))
    space = Space(
        generation=(int(previous[0]) + 1) if previous else 1,
        vocabulary=vocabulary,
        idf=idf,
        components=_svd(matrix, k),
    )
    conn.execute(
        "INSERT INTO lsa_model (id, generation, dimensions, vocabulary, idf, components, "
        "trained_items, trained_at) VALUES (1, ?, ?, ?, ?, ?, ?, ?)",
        (
            space.generation,
            space.dimensions,
            json.dumps(kept, ensure_ascii=False),
            idf.tobytes(),
            space.components.tobytes(),
            total,
            trained_at,
        ),
    )
    _store(conn, [int(row[0]) for row in rows], space.embed([row[1] for row in rows]))
    return space.dimensions


def _store(conn: sqlite3.Connection, ids: list[int], vectors: NDArray[np.float32]) -> None:
    conn.executemany(
        "INSERT OR REPLACE INTO item_vectors (item_id, vector) VALUES (?, ?)",
        ((item_id, vector.tobytes()) for item_id, vector in zip(ids, vectors, strict=True)),
    )


def load_space(conn: sqlite3.Connection, cached: Space | None) -> Space | None:
    """The stored space (``cached`` when its generation is still the stored one)."""
    import numpy as np

    head = conn.execute("SELECT generation, dimensions FROM lsa_model WHERE id = 1").fetchone()
    if head is None:
        return None
    if cached is not None and cached.generation == head[0]:
        return cached
    row = conn.execute("SELECT vocabulary, idf, components FROM lsa_model WHERE id = 1").fetchone()
    kept = json.loads(row[0])
    return Space(
        generation=int(head[0]),
        vocabulary={g: i for i, g in enumerate(kept)},
        idf=np.frombuffer(row[1], dtype=np.float64),
        components=np.frombuffer(row[2], dtype=np.float64).reshape(len(kept), int(head[1])),
    )


def fold_in(conn: sqlite3.Connection, space: Space, item_ids: list[int]) -> None:
    """Give ``item_ids`` their vectors in the current space (inside the caller's transaction)."""
    if not item_ids:
        return
    placeholders = ",".join("?" * len(item_ids))
    rows = conn.execute(
        f"SELECT id, folded FROM items WHERE id IN ({placeholders}) ORDER BY id",  # noqa: S608
        item_ids,
    ).fetchall()
    _store(conn, [int(r[0]) for r in rows], space.embed([r[1] for r in rows]))


def load_vectors(conn: sqlite3.Connection, dimensions: int) -> Vectors:
    """Every stored vector as one matrix, rows in item id order."""
    import numpy as np

    rows = conn.execute("SELECT item_id, vector FROM item_vectors ORDER BY item_id").fetchall()
    ids = np.array([int(r[0]) for r in rows], dtype=np.int64)
    matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32)
    return Vectors(ids, matrix.reshape(len(rows), dimensions))


@dataclass(frozen=True)
class Vectors:
    """The stored vectors in memory (kept by the collection until the file changes)."""

    ids: NDArray[np.int64]
    matrix: NDArray[np.float32]


def nearest(
    conn: sqlite3.Connection,
    space: Space,
    vectors: Vectors,
    folded_query: str,
    category: str | None,
    floor: float = 0.0,
) -> dict[int, float]:
    """Every vectored item (of ``category``) whose cosine to the query is above 0 and at
    least ``floor``, the cosine clipped to 1 (a negative or zero cosine is no similarity at
    all); empty when no query bigram is known."""
    import numpy as np

    query = space.embed([folded_query])[0]
    if not query.any() or not len(vectors.ids):
        return {}
    # einsum, not BLAS: one matrix-vector product is faster on one thread than on a shared
    # pool (5-15 ms against 0.3-0.9 ms for 10,000 × 128 on the benchmark machine).
    scores = np.einsum("ij,j->i", vectors.matrix, query)
    keep = (scores > 0) & (scores >= floor)
    if category is not None:
        members = np.array(
            [
                int(row[0])
                for row in conn.execute(
                    "SELECT i.id FROM items i JOIN documents d ON d.id = i.document_id "
                    "WHERE d.category = ?",
                    (category,),
                )
            ],
            dtype=np.int64,
        )
        keep &= np.isin(vectors.ids, members)
    return {
        int(item_id): min(1.0, float(score))
        for item_id, score in zip(vectors.ids[keep].tolist(), scores[keep].tolist(), strict=True)
    }

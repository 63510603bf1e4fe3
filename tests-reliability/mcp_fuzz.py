"""Requests for fuzzing the MCP server: tool calls generated from each tool's own input schema,
and malformed JSON-RPC.

The generator reads the ``inputSchema`` that ``tools/list`` returned (the keywords pmgs uses:
``type`` (one or a list), ``enum``, ``minLength``/``maxLength``, ``minimum``/``maximum``,
``items``, ``minItems``/``maxItems``, ``uniqueItems``, ``required``,
``additionalProperties: false``), so a tool or argument added later is fuzzed without a change
here. For each call it draws valid arguments (seeded with codes and document ids the package
really holds, so some calls reach deep into the store) and then, most of the time, spoils
some of them: a value just past a bound, a wrong type, an unknown or missing argument, a huge
string, odd Unicode (NUL, lone surrogates, bidi controls, combining marks, non-characters),
deep nesting. Beside tool calls it writes malformed JSON-RPC: bad ids, unknown methods,
batches, responses sent to the server, wrong versions, truncated frames, text that is not
JSON, invalid UTF-8.

A :class:`Frame` is the exact bytes of one message (one stdio line, one HTTP body) and the id
an answer must carry, if the frame is a request whose id the server can read.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

ODD_TEXT: tuple[str, ...] = (
    "\x00",
    "A\x00B",
    "\ud800",
    "\udfff",
    "x\udc80y",
    "\u202e\u2066evil\u2069",  # bidi override / isolate
    "e\u0301\u0301\u0301\u0301",  # stacked combining marks
    "\ufeff",  # BOM
    "\uffff\ufffe",  # non-characters
    "\U0001f600\U0001f4a9",
    "\u3000\u00a0\u2028\u2029",  # ideographic space, NBSP, line/paragraph separators
    "Ｇ０６Ｆ３／０４８",  # fullwidth code
    "\t\r\n\x0b\x0c",
    "\x1b[31m",  # terminal escape
    "' OR 1=1 --",
    '"; DROP TABLE document; --',
    "%s%n%x",
    "../../../../etc/passwd",
    "NEAR(a b)",
    'fts5 "phrase" * ^ :',
    "*",
    "",
    " ",
)
"""Strings that have broken text handling somewhere; used as valid and invalid values."""

VALID_IDS_MAX = 2**53 - 1


@dataclass(frozen=True)
class Frame:
    """One message as sent: ``raw`` (no newline) and the id its answer must carry."""

    raw: bytes
    kind: str
    answer_id: str | int | None = None
    tool: str | None = None

    @property
    def expects_answer(self) -> bool:
        """Whether the server must answer under :attr:`answer_id`."""
        return self.answer_id is not None


def _types(schema: Mapping[str, Any]) -> list[str]:
    declared = schema.get("type", "string")
    return list(declared) if isinstance(declared, list) else [declared]


class SchemaFuzzer:
    """Valid and just-invalid values for the JSON Schemas of one server's tools."""

    def __init__(self, rng: random.Random, seeds: Sequence[str]) -> None:
        self.rng = rng
        self.seeds = [s for s in seeds if s]

    # --- valid values ---------------------------------------------------------------------

    def text(self, schema: Mapping[str, Any]) -> str:
        low = int(schema.get("minLength", 0))
        high = int(schema.get("maxLength", 64))
        roll = self.rng.random()
        if roll < 0.5 and self.seeds:
            value = self.rng.choice(self.seeds)
        elif roll < 0.65:
            value = self.rng.choice(ODD_TEXT)
        elif roll < 0.8:
            alphabet = "AGHBF0123456789/,@ 電池樹脂制御するものabcxyz"
            value = "".join(self.rng.choice(alphabet) for _ in range(self.rng.randint(1, 12)))
        else:
            seed = self.rng.choice(self.seeds) if self.seeds else "x"
            cut = self.rng.randint(0, len(seed))
            value = seed[:cut] + self.rng.choice(ODD_TEXT) + seed[cut:]
        if len(value) < low:
            value = value + "x" * (low - len(value))
        return value[:high]

    def integer(self, schema: Mapping[str, Any]) -> int:
        low = int(schema.get("minimum", -(2**31)))
        high = int(schema.get("maximum", 2**31))
        candidates = [low, high, low + 1, max(low, min(high, 0)), max(low, min(high, 3))]
        if self.rng.random() < 0.5:
            return self.rng.choice([c for c in candidates if low <= c <= high])
        return self.rng.randint(low, min(high, low + 1000))

    def valid(self, schema: Mapping[str, Any]) -> Any:
        types = _types(schema)
        if "null" in types and self.rng.random() < 0.3:
            return None
        if "enum" in schema:
            options = [v for v in schema["enum"] if v is not None] or [None]
            return self.rng.choice(options)
        kind = self.rng.choice([t for t in types if t != "null"] or ["null"])
        if kind == "string":
            return self.text(schema)
        if kind == "integer":
            return self.integer(schema)
        if kind == "array":
            items = schema.get("items", {})
            options = list(items.get("enum") or [])
            low = int(schema.get("minItems", 0))
            high = int(schema.get("maxItems", 4))
            if options:
                count = self.rng.randint(min(low, len(options)), min(high, len(options)))
                return self.rng.sample(options, count)
            return [self.valid(items) for _ in range(self.rng.randint(low, high))]
        if kind == "boolean":
            return self.rng.random() < 0.5
        if kind == "object":
            return self.arguments(schema)[0]
        return None

    def arguments(self, schema: Mapping[str, Any]) -> tuple[dict[str, Any], bool]:
        """Valid arguments: every required property and a random part of the others."""
        properties: Mapping[str, Any] = schema.get("properties", {})
        required = set(schema.get("required", ()))
        args = {}
        for name, sub in properties.items():
            if name in required or self.rng.random() < 0.35:
                args[name] = self.valid(sub)
        return args, True

    # --- just-invalid values ----------------------------------------------------------------

    def deep(self, depth: int) -> Any:
        value: Any = "x"
        for _ in range(depth):
            value = [value] if self.rng.random() < 0.5 else {"a": value}
        return value

    def invalid(self, schema: Mapping[str, Any]) -> Any:
        types = _types(schema)
        options: list[Any] = []
        if "string" in types:
            high = int(schema.get("maxLength", 64))
            options += [
                "x" * (high + 1),
                "界" * (high + 1),
                "y" * self.rng.choice([10_000, 100_000]),
            ]
            if schema.get("minLength", 0) >= 1:
                options.append("")
            if "enum" in schema:
                options += ["FI", "cpc", " fi", "ja ", "", "\x00"]
        if "integer" in types:
            if "minimum" in schema:
                options.append(int(schema["minimum"]) - 1)
            if "maximum" in schema:
                options.append(int(schema["maximum"]) + 1)
            options += [2**63, -(2**63) - 1, 10**40, 1.5, float("1e308"), True, "1", "0x10"]
        if "array" in types:
            items = schema.get("items", {})
            enum = list(items.get("enum") or ["x"])
            options += [
                [],
                [enum[0], enum[0]],
                enum * 3,
                ["nope"],
                [None],
                [[enum[0]]],
                enum[0],
            ]
        if "null" not in types:
            options.append(None)
        options += [
            {"nested": "object"},
            [1, 2, 3],
            False,
            3.25,
            self.deep(self.rng.choice([20, 200, 800])),
        ]
        return self.rng.choice(options)

    def spoiled(self, schema: Mapping[str, Any]) -> tuple[Any, bool]:
        """Arguments with one to three faults (or not an object at all)."""
        args, _ = self.arguments(schema)
        properties: Mapping[str, Any] = schema.get("properties", {})
        faults = self.rng.randint(1, 3)
        for _ in range(faults):
            roll = self.rng.random()
            if roll < 0.6 and properties:
                name = self.rng.choice(sorted(properties))
                args[name] = self.invalid(properties[name])
            elif roll < 0.75:
                args[self.rng.choice(["unknown", "Code", "query ", "", "\x00", "🙂"])] = 1
            elif roll < 0.9 and schema.get("required"):
                args.pop(self.rng.choice(list(schema["required"])), None)
            else:
                return self.rng.choice([None, [], "args", 42, [args], self.deep(500)]), False
        return args, False


class FrameGenerator:
    """Frames for one server: tool calls on its listed tools and malformed JSON-RPC."""

    def __init__(
        self, rng: random.Random, tools: Sequence[Mapping[str, Any]], seeds: Sequence[str]
    ) -> None:
        self.rng = rng
        self.tools = list(tools)
        self.schema = SchemaFuzzer(rng, seeds)
        self._next_id = 0

    def new_id(self) -> str | int:
        self._next_id += 1
        if self.rng.random() < 0.5:
            return self._next_id
        return f"fz-{self._next_id}-{self.rng.choice(['', 'é', '電', ' '])}"

    @staticmethod
    def encode(message: Any) -> bytes:
        # ensure_ascii: lone surrogates travel as \\udXXX escapes (raw ones cannot be UTF-8).
        return json.dumps(message, ensure_ascii=True, allow_nan=True).encode("ascii")

    def tool_call(self) -> Frame:
        tool = self.rng.choice(self.tools)
        schema = tool["inputSchema"]
        if self.rng.random() < 0.3:
            args, valid = self.schema.arguments(schema)
        else:
            args, valid = self.schema.spoiled(schema)
        request_id = self.new_id()
        message = {
            "jsonrpc": "2.0",
            "id": request_id,
            "method": "tools/call",
            "params": {"name": tool["name"], "arguments": args},
        }
        kind = "tool-valid-schema" if valid else "tool-spoiled"
        return Frame(self.encode(message), kind, request_id, tool["name"])

    def malformed(self) -> Frame:
        rid = self.new_id()
        name = self.rng.choice(self.tools)["name"]
        good = {"jsonrpc": "2.0", "id": rid, "method": "tools/list"}
        choice = self.rng.randrange(16)
        if choice == 0:
            return Frame(
                self.encode(
                    {
                        **good,
                        "method": self.rng.choice(
                            [
                                "tools/nope",
                                "",
                                "x" * 5000,
                                "resources/list",
                                "prompts/get",
                                "\x00",
                                "rpc.x",
                            ]
                        ),
                    }
                ),
                "rpc-unknown-method",
                rid,
            )
        if choice == 1:
            bad = self.rng.choice([None, True, 1.5, [1], {"a": 1}, 2**80, "x" * 10_000])
            answer = bad if isinstance(bad, str) else None
            return Frame(self.encode({**good, "id": bad}), "rpc-bad-id", answer)
        if choice == 2:
            batch = [{**good, "id": self.new_id()} for _ in range(self.rng.randint(0, 3))]
            return Frame(self.encode(batch), "rpc-batch")
        if choice == 3:
            return Frame(self.encode({"jsonrpc": "2.0", "id": rid, "result": {}}), "rpc-response")
        if choice == 4:
            version = self.rng.choice(["1.0", "3.0", 2, None])
            return Frame(self.encode({**good, "jsonrpc": version}), "rpc-bad-version", rid)
        if choice == 5:
            full = self.encode({**good, "method": "tools/call", "params": {"name": name}})
            cut = self.rng.randint(1, len(full) - 1)
            return Frame(full[:cut], "rpc-truncated")
        if choice == 6:
            junk = self.rng.choice(
                [
                    b"hello",
                    b"{",
                    b"}",
                    b"[]",
                    b"null",
                    b"42",
                    b'"str"',
                    b"{'single': 1}",
                    b"\xff\xfe\xfd",
                    b"\xc3\x28",
                    b"\xed\xa0\x80",
                    b'{"a":\xff}',
                    b" ",
                ]
            )
            return Frame(junk, "rpc-not-json")
        if choice == 7:
            depth = self.rng.choice([100, 1000, 5000])
            body = b"[" * depth + b"]" * depth
            return Frame(body, "rpc-deep-json")
        if choice == 8:
            params = self.rng.choice(["oops", 1, [], None, [1, 2]])
            frame = {**good, "method": "tools/call", "params": params}
            return Frame(self.encode(frame), "rpc-bad-params", rid)
        if choice == 9:
            tool = self.rng.choice(["nope", "", "LOOKUP_CLASSIFICATION", "\ud800", name + " "])
            frame = {**good, "method": "tools/call", "params": {"name": tool, "arguments": {}}}
            return Frame(self.encode(frame), "rpc-unknown-tool", rid)
        if choice == 10:
            frame = {**good, "method": "tools/call", "params": {"name": 5, "arguments": {}}}
            return Frame(self.encode(frame), "rpc-bad-tool-name", rid)
        if choice == 11:
            method = self.rng.choice(["notifications/nope", "notifications/cancelled"])
            params = self.rng.choice([{}, {"requestId": "zz"}, {"requestId": rid}])
            frame = {"jsonrpc": "2.0", "method": method, "params": params}
            return Frame(self.encode(frame), "rpc-notification")
        if choice == 12:
            return Frame(self.encode({**good, "method": "ping"}), "rpc-ping", rid)
        if choice == 13:
            frame = {**good, "params": {"cursor": self.rng.choice(["x", "\ud800", 5])}}
            return Frame(self.encode(frame), "rpc-list-cursor", rid)
        if choice == 14:
            frame = {**good, "method": "initialize", "params": {"protocolVersion": "1999-01-01"}}
            return Frame(self.encode(frame), "rpc-bad-initialize", rid)
        frame = {**good, "extra": self.schema.deep(50), "method": "tools/list"}
        return Frame(self.encode(frame), "rpc-extra-member", rid)

    def frames(self, count: int, malformed_share: float = 0.25) -> Iterator[Frame]:
        for _ in range(count):
            if self.rng.random() < malformed_share:
                yield self.malformed()
            else:
                yield self.tool_call()

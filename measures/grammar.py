"""The measure language's canonical grammar (spec anchor ``ndcg.grammar``,
``spec/grammar.yaml``): a measure string, canonical, full, or a preset name with overrides and
``@k``, read into a `Config`; trec_eval's and ir_measures' names are read by
``ndcgspec.measures.dialects``."""

from __future__ import annotations

import re
from functools import cache

from ndcgspec.reference.config import MEASURE_NAME, Config, preset_config, shown
from ndcgspec.reference.errors import ConfigError
from ndcgspec.spec import load_grammar

MeasureValue = str | list[tuple[str, str]]
"""A value of a measure string: an atom, or the ``{key:value,...}`` pairs of a map."""


@cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """An atom, and a token (an atom or punctuation) after white space: compiled when a
    measure is first read in this grammar, not by a start that reads another tool's name."""
    tokens = load_grammar().tokens
    punctuation = f"[{re.escape(tokens.punctuation)}]"
    token = rf"\s*(?:(?P<atom>{tokens.atom})|(?P<punct>{punctuation}))"
    return re.compile(tokens.atom), re.compile(token)


def _tokens(text: str) -> list[str]:
    tokens, pos = [], 0
    _, token_pattern = _patterns()
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        match = token_pattern.match(text, pos)
        if not match:
            raise ConfigError(
                f"measure {shown(text)}: unexpected character {text[pos:].lstrip()[0]!r}"
            )
        tokens.append(match.group("atom") or match.group("punct"))
        pos = match.end()
    return tokens


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _tokens(text)
        self.pos = 0

    def fail(self, message: str) -> ConfigError:
        return ConfigError(f"measure {shown(self.text)}: {message}")

    def peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if token is None:
            raise self.fail(f"ends early; expected {expected or 'more'}")
        if expected is not None and token != expected:
            raise self.fail(f"expected {expected!r}, found {shown(token)}")
        self.pos += 1
        return token

    def atom(self) -> str:
        token = self.peek()
        if token is None or not _patterns()[0].fullmatch(token):
            raise self.fail(f"expected a name or value, found {shown(token or 'the end')}")
        self.pos += 1
        return token

    def value(self) -> MeasureValue:
        if self.peek() != "{":
            return self.atom()
        self.take("{")
        pairs: list[tuple[str, str]] = []
        while self.peek() != "}":
            if pairs:
                self.take(",")
            key = self.atom()
            self.take(":")
            pairs.append((key, self.atom()))
        self.take("}")
        return pairs

    def measure(self) -> tuple[str, dict[str, MeasureValue]]:
        head = self.atom()
        values: dict[str, MeasureValue] = {}
        if self.peek() == "(":
            self.take("(")
            seen: set[str] = set()
            while self.peek() != ")":
                if seen:
                    self.take(",")
                name = self.atom()
                if name in seen:
                    raise self.fail(f"{shown(name)} is given twice")
                seen.add(name)
                self.take("=")
                values[name] = self.value()
            self.take(")")
        if self.peek() == "@":
            self.take("@")
            values["cutoff"] = self.atom()
        if self.peek() is not None:
            raise self.fail(f"unexpected {shown(self.peek())} after the measure")
        return head, values


def parse_measure(text: str) -> Config:
    """Parse a measure string: canonical, full, or a preset name with overrides and ``@k``;
    or a trec_eval or ir_measures name (``ndcgspec.measures.dialects``). An installation
    without the presets file refuses a preset's name as a ConfigError, not a crash."""
    try:
        return _parsed_measure(text)
    except FileNotFoundError:
        raise ConfigError(
            f"measure {text!r}: presets are not available in this installation "
            "(spec/presets.yaml is missing); write the measure as nDCG(...)"
        ) from None


def _parsed_measure(text: str) -> Config:
    from ndcgspec.measures.dialects import dialect_config
    from ndcgspec.measures.trec_eval_names import AMBIGUOUS

    if text.strip() in AMBIGUOUS:
        raise ConfigError(AMBIGUOUS[text.strip()])
    translated = dialect_config(text)
    if translated is not None:
        return translated
    head, values = _Parser(text).measure()
    try:
        if head.lower() == MEASURE_NAME.lower():
            return Config.from_mapping(values)
        return preset_config(head).replace(**values)
    except ConfigError as error:
        raise ConfigError(f"measure {shown(text)}: {error}") from None

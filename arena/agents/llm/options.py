"""Checking a model seat's options, and the prices and budget they set.

Every check raises a :class:`~arena.errors.ConfigError` that names the option
(``options.temperature must be ...``), so a mistake is found when the seat is built,
before the match, and the registry adds the seat's key to the message. Pure: no I/O.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from arena.agents.llm.providers import ApiKind, Preset, Structured, preset
from arena.agents.reports import Usage
from arena.errors import ConfigError
from arena.secrets import register_secret, variable_name
from protocol import MAX_JSON_INT

__all__ = [
    "STANDIN",
    "Budget",
    "Prices",
    "check_choice",
    "check_count",
    "check_number",
    "check_text",
    "check_url",
    "parse_budget",
    "parse_prices",
    "read_key",
    "seat_preset",
    "seat_structured",
]

STANDIN: Final = "standin"
"""``budget.then`` for "give the seat to its stand-in" (anything else names a model)."""


def check_url(value: object) -> str:
    """An http(s) base URL, without its trailing slash."""
    if not isinstance(value, str) or not re.match(r"https?://[^/\s]+", value):
        raise ConfigError(
            f"options.base_url must be an http(s) URL such as 'https://api.example.com/v1', "
            f"not {value!r}"
        )
    return value.rstrip("/")


def check_number(value: object, option: str, low: float, high: float) -> float | None:
    """A number within ``[low, high]``, or None when not given."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise ConfigError(
            f"options.{option} must be a number from {low:g} to {high:g}, not {value!r}"
        )
    return float(value)


def check_count(value: object, option: str, least: int = 1, most: int = MAX_JSON_INT) -> int | None:
    """A whole number from ``least`` to ``most``, or None when not given."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not least <= value <= most:
        raise ConfigError(
            f"options.{option} must be a whole number from {least} to {most}, not {value!r}"
        )
    return value


def check_choice(value: object, option: str, choices: Sequence[str]) -> str:
    """One of ``choices``."""
    if value not in choices:
        raise ConfigError(f"options.{option} must be one of {', '.join(choices)}, not {value!r}")
    assert isinstance(value, str)
    return value


def check_text(value: object, option: str) -> str | None:
    """Text, or None when not given or empty."""
    if value is not None and not isinstance(value, str):
        raise ConfigError(f"options.{option} must be text, not {type(value).__name__}")
    return value or None


@dataclass(frozen=True, slots=True)
class Prices:
    """What a million input and output tokens cost (output includes reasoning tokens,
    as both OpenAI and Anthropic bill them)."""

    input: float
    output: float
    currency: str = "USD"

    def cost(self, usage: Usage) -> float:
        """The cost of one call's tokens."""
        return (usage.input_tokens * self.input + usage.output_tokens * self.output) / 1e6


def _table(value: object, option: str, keys: tuple[str, ...]) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        example = ", ".join(f"{k} = ..." for k in keys)
        raise ConfigError(f"options.{option} must be a table such as {{{example}}}, not {value!r}")
    unknown = sorted(str(k) for k in value if k not in keys)
    if unknown:
        raise ConfigError(
            f"options.{option} has unknown keys: {', '.join(unknown)} (it takes: {', '.join(keys)})"
        )
    return value


def _amount(value: object, option: str) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or value < 0
        or not math.isfinite(value)
    ):
        raise ConfigError(f"options.{option} must be a number of at least 0, not {value!r}")
    return float(value)


def parse_prices(value: object, option: str = "prices") -> Prices | None:
    """``{input = 0.15, output = 0.6, currency = "USD"}``: per million tokens."""
    if value is None:
        return None
    found = _table(value, option, ("input", "output", "currency"))
    for key in ("input", "output"):
        if key not in found:
            raise ConfigError(f"options.{option}.{key} is required: the price per 1M {key} tokens")
    currency = found.get("currency", "USD")
    if not isinstance(currency, str) or not currency.strip():
        raise ConfigError(f"options.{option}.currency must be a currency code, not {currency!r}")
    return Prices(
        input=_amount(found["input"], f"{option}.input"),
        output=_amount(found["output"], f"{option}.output"),
        currency=currency.strip(),
    )


@dataclass(frozen=True, slots=True)
class Budget:
    """A match's limit on tokens and/or cost, and what happens once it is spent:
    ``then`` is :data:`STANDIN` or the name of a cheaper model to switch to, which plays
    the rest of the match with no further limit, its calls costed at ``then_prices``
    (None: at the seat's own prices)."""

    tokens: int | None
    cost: float | None
    then: str
    then_prices: Prices | None = None

    def spent(self, tokens: int, cost: float) -> bool:
        """Whether this much use reaches either limit."""
        return (self.tokens is not None and tokens >= self.tokens) or (
            self.cost is not None and cost >= self.cost
        )

    def limits(self) -> dict[str, Any]:
        """The limits that are set, for a notice."""
        return {
            key: value
            for key, value in (("tokens", self.tokens), ("cost", self.cost))
            if value is not None
        }


def parse_budget(value: object, prices: Prices | None, model: str) -> Budget | None:
    """``{tokens = 200000, cost = 0.5, then = "standin" | "<cheaper model>",
    then_prices = {input = ..., output = ...}}``.

    Either limit may be given (at least one); ``then`` defaults to the stand-in. A cost
    limit needs the seat's ``prices`` (without them nothing has a cost); ``then_prices``,
    the cheaper model's, needs ``then`` to name a model and the seat's ``prices`` (same
    currency, which it takes when it names none).
    """
    if value is None:
        return None
    found = _table(value, "budget", ("tokens", "cost", "then", "then_prices"))
    tokens = check_count(found.get("tokens"), "budget.tokens")
    cost = found.get("cost")
    if cost is not None:
        cost = _amount(cost, "budget.cost")
        if prices is None:
            raise ConfigError(
                "options.budget.cost needs options.prices = {input = ..., output = ...} "
                "(per 1M tokens): without prices nothing has a cost"
            )
    if tokens is None and cost is None:
        raise ConfigError("options.budget needs a limit: tokens = N and/or cost = X")
    then = found.get("then", STANDIN)
    if not isinstance(then, str) or not then.strip():
        raise ConfigError(
            f"options.budget.then must be {STANDIN!r} or a cheaper model's name, not {then!r}"
        )
    then = then.strip()
    if then == model:
        raise ConfigError(
            f"options.budget.then names the seat's own model {model!r}: name a cheaper "
            f"one, or {STANDIN!r}"
        )
    given = found.get("then_prices")
    then_prices = parse_prices(given, "budget.then_prices")
    if then_prices is not None:
        if then == STANDIN:
            raise ConfigError(
                "options.budget.then_prices are the cheaper model's prices: set "
                "options.budget.then to its name"
            )
        if prices is None:
            raise ConfigError(
                "options.budget.then_prices needs options.prices (the first model's) too"
            )
        if isinstance(given, Mapping) and "currency" not in given:
            then_prices = replace(then_prices, currency=prices.currency)
        if then_prices.currency != prices.currency:
            raise ConfigError(
                f"options.budget.then_prices.currency ({then_prices.currency}) must be "
                f"options.prices' ({prices.currency})"
            )
    return Budget(tokens=tokens, cost=cost, then=then, then_prices=then_prices)


def seat_preset(name: object, api: ApiKind, type_name: str) -> Preset:
    """The ``provider`` option's preset, which must speak the seat type's API."""
    if not isinstance(name, str):
        raise ConfigError(f"options.provider must be a provider name, not {name!r}")
    try:
        found = preset(name)
    except ConfigError as exc:
        raise ConfigError(f"options.provider: {exc}") from None
    if found.api != api:
        raise ConfigError(
            f"options.provider {name!r} speaks the {found.api} API, not "
            f"{type_name}'s: use type = {found.api!r}"
        )
    return found


def seat_structured(
    value: object, found: Preset, supported: Sequence[Structured], type_name: str
) -> Structured:
    """The ``structured`` option (the preset's default when not given): a mode the seat
    type implements and the provider supports."""
    chosen = found.structured if value is None else value
    if chosen not in supported:
        raise ConfigError(
            f"options.structured must be one of {', '.join(supported)} "
            f"for type {type_name!r}, not {chosen!r}"
        )
    if chosen not in found.structured_modes:
        modes = [m for m in found.structured_modes if m in supported]
        raise ConfigError(
            f"options.structured {chosen!r} is not supported by provider "
            f"{found.name!r} (it supports: {', '.join(modes)})"
        )
    return chosen


def read_key(api_key_env: object, found: Preset) -> tuple[str | None, str]:
    """The key's variable and the key, from the environment (a local server's placeholder
    when it needs none), registered to be masked; a ConfigError names the variable,
    never a value."""
    if api_key_env is not None:
        api_key_env = variable_name(
            api_key_env,
            "options.api_key_env",
            example=found.api_key_env or "OPENAI_API_KEY",
            secret="the key",
        )
    variable = api_key_env if api_key_env is not None else found.api_key_env
    if variable is None:
        assert found.placeholder_key is not None
        return None, found.placeholder_key
    key = os.environ.get(variable, "")
    if not key.strip():
        raise ConfigError(
            f"the environment variable {variable} is not set or empty: it must hold "
            f"the {found.name} API key (options.api_key_env names another)"
        )
    register_secret(key.strip(), variable)
    return variable, key.strip()

"""Building messages from values the arena made itself, without validation (private).

The table builds thousands of requests per second from engine state it has already
checked; validating them again would cost more than the rest of a turn. :func:`trusted`
and :func:`trusted_fields` write a model's instance slots directly, through pydantic's
private machinery, so they are tied to the pydantic version and are no part of the public
API: only the arena's hot paths use them, never for data from an agent.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel

__all__ = ["adopt_fields", "trusted", "trusted_fields"]


class _Builder:
    """How :func:`trusted` fills one model class: its defaults, split by mutability."""

    __slots__ = ("all_fields", "fixed", "fresh")

    def __init__(self, cls: type[BaseModel]) -> None:
        self.all_fields = set(cls.model_fields)
        self.fixed: dict[str, Any] = {}
        self.fresh: dict[str, Callable[[], Any]] = {}
        for name, info in cls.model_fields.items():
            if info.is_required():
                continue
            default = info.get_default(call_default_factory=True)
            if isinstance(default, list | dict | set):
                # a new container per message, as validation would give
                self.fresh[name] = type(default)
            else:
                self.fixed[name] = default


_BUILDERS: dict[type[BaseModel], _Builder] = {}
_new_object = object.__new__
_set_dict = object.__setattr__
# BaseModel's slot descriptors: setting through them skips pydantic's __setattr__ checks.
_set_fields_set: Callable[[object, Any], None] = vars(BaseModel)["__pydantic_fields_set__"].__set__
_set_extra: Callable[[object, Any], None] = vars(BaseModel)["__pydantic_extra__"].__set__
_set_private: Callable[[object, Any], None] = vars(BaseModel)["__pydantic_private__"].__set__

R = TypeVar("R", bound=BaseModel)


def _builder_of(cls: type[BaseModel]) -> _Builder:
    builder = _BUILDERS.get(cls)
    if builder is None:
        builder = _BUILDERS[cls] = _Builder(cls)
    return builder


def trusted(cls: type[R], **values: Any) -> R:
    """Build a message (or record) from values the engine made itself, without validation.

    The table builds thousands of requests per second from engine state it has already
    checked; validating them again would cost more than the rest of a turn. This is what
    ``model_construct`` does, minus its per-field alias handling; never use it for data
    from an agent. Missing fields take their defaults.
    """
    builder = _builder_of(cls)
    fields_set = set(values)
    if builder.fixed:
        values = {**builder.fixed, **values}
    for name, make in builder.fresh.items():
        if name not in fields_set:
            values[name] = make()
    message = _new_object(cls)
    _set_dict(message, "__dict__", values)
    _set_fields_set(message, fields_set)
    _set_extra(message, None)
    _set_private(message, None)
    return message


def trusted_fields(cls: type[R], fields: dict[str, Any]) -> R:
    """:func:`trusted` for a dict that names every field; the dict becomes the message's.

    For the table's hottest requests, built by merging per-round constants with the few
    fields that change each turn: no defaults to merge, no keyword arguments to unpack.
    The caller hands over ``fields`` and must not touch it afterwards.
    """
    builder = _builder_of(cls)
    if fields.keys() != builder.all_fields:
        missing = sorted(builder.all_fields - fields.keys())
        extra = sorted(fields.keys() - builder.all_fields)
        raise ValueError(f"{cls.__name__}: missing fields {missing}, unknown fields {extra}")
    return adopt_fields(cls, fields)


def adopt_fields(cls: type[R], fields: dict[str, Any]) -> R:
    """:func:`trusted_fields` without the check of the field names, for a caller that
    builds the same keys every time and checked them with :func:`trusted_fields` once
    (comparing twenty names costs more than the rest of building a request)."""
    builder = _builder_of(cls)
    message = _new_object(cls)
    _set_dict(message, "__dict__", fields)
    # Shared: pydantic copies the set before it ever changes one (model_copy).
    _set_fields_set(message, builder.all_fields)
    _set_extra(message, None)
    _set_private(message, None)
    return message

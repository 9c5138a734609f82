"""JSON Schemas of a game's wire messages and public events, for agent authors who do not
write Python and for readers of the feeds.

The schemas are generated from the pydantic models, so they cannot drift from what the
game's reader accepts (cross-field checks such as "a PASS carries no cards" are
documented in docs/protocol.md rather than expressed in the schema). Each function takes
the game's models by ``type`` tag (a game lists them: ``arena.games.base.Wire``).
``arena schema DIR`` calls :func:`write_schemas`, then :func:`write_event_schemas` for
``DIR/events``: the events' ``data``, one file per event type, and the envelope, each
marked with the events' schema version.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Final, Union

from pydantic import Field, TypeAdapter
from pydantic.json_schema import models_json_schema

from protocol.events import EVENT_SCHEMA_VERSION, EventData, EventEnvelope
from protocol.messages import Message

Messages = Mapping[str, type[Message]]
Events = Mapping[str, type[EventData]]

__all__ = [
    "ENVELOPE_SCHEMA_NAME",
    "UNION_SCHEMA_NAME",
    "VERSION_KEY",
    "envelope_schema",
    "event_json_schemas",
    "json_schemas",
    "union_schema",
    "write_event_schemas",
    "write_schemas",
]

_DIALECT: Final = "https://json-schema.org/draft/2020-12/schema"

#: File name of the schema that accepts any message (a ``oneOf`` keyed on ``type``).
UNION_SCHEMA_NAME: Final = "messages.schema.json"

#: File name of the events' envelope schema (its ``data`` checked against the event type's).
ENVELOPE_SCHEMA_NAME: Final = "envelope.schema.json"

#: The key that carries :data:`~protocol.events.EVENT_SCHEMA_VERSION` in an event schema
#: (an annotation: validators ignore unknown keywords).
VERSION_KEY: Final = "x-event-schema-version"


def _with_dialect(schema: dict[str, Any]) -> dict[str, Any]:
    return {"$schema": _DIALECT, **schema}


def json_schemas(messages: Messages) -> dict[str, dict[str, Any]]:
    """Each message's JSON Schema (validation side), keyed by its ``type`` tag."""
    return {name: _with_dialect(model.model_json_schema()) for name, model in messages.items()}


def union_schema(messages: Messages, title: str) -> dict[str, Any]:
    """One JSON Schema accepting any of ``messages``, discriminated on ``type``."""
    models = tuple(messages.values())
    union = Annotated[Union[models], Field(discriminator="type")]  # type: ignore[valid-type]  # noqa: UP007 (built at run time)
    schema = TypeAdapter(union).json_schema()
    return _with_dialect({"title": f"{title}Message", **schema})


def _write(path: Path, schema: dict[str, Any]) -> Path:
    path.write_text(json.dumps(schema, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return path


def write_schemas(directory: Path, messages: Messages, title: str) -> list[Path]:
    """Write ``<TYPE>.schema.json`` per message and the union (``<title>Message``);
    return the paths written.

    The directory is created if missing; existing files of the same names are replaced.
    """
    directory.mkdir(parents=True, exist_ok=True)
    written = [
        _write(directory / f"{name}.schema.json", schema)
        for name, schema in json_schemas(messages).items()
    ]
    written.append(_write(directory / UNION_SCHEMA_NAME, union_schema(messages, title)))
    return written


def _event_schema(schema: dict[str, Any]) -> dict[str, Any]:
    return {"$schema": _DIALECT, VERSION_KEY: EVENT_SCHEMA_VERSION, **schema}


def event_json_schemas(events: Events) -> dict[str, dict[str, Any]]:
    """Each event type's ``data`` JSON Schema, keyed by the event type."""
    return {name: _event_schema(model.model_json_schema()) for name, model in events.items()}


def envelope_schema(events: Events, title: str) -> dict[str, Any]:
    """The envelope's JSON Schema; its ``data`` must match the schema of its ``type``.

    Self-contained: every data model is in ``$defs``, chosen by one ``if``/``then`` per type.
    """
    refs, defs = models_json_schema(
        [(model, "validation") for model in events.values()],
        ref_template="#/$defs/{model}",
    )
    schema = EventEnvelope.model_json_schema(ref_template="#/$defs/{model}")
    schema["properties"]["type"]["enum"] = list(events)  # the game's event types
    schema["$defs"] = {**schema.get("$defs", {}), **defs.get("$defs", {})}
    schema["allOf"] = [
        {
            "if": {"properties": {"type": {"const": name}}, "required": ["type"]},
            "then": {"properties": {"data": refs[(model, "validation")]}},
        }
        for name, model in events.items()
    ]
    return _event_schema({**schema, "title": f"{title}Event"})


def write_event_schemas(directory: Path, events: Events, title: str) -> list[Path]:
    """Write ``<event type>.schema.json`` per event type and the envelope (``<title>Event``);
    return the paths.

    The directory is created if missing; existing files of the same names are replaced.
    """
    directory.mkdir(parents=True, exist_ok=True)
    written = [
        _write(directory / f"{name}.schema.json", schema)
        for name, schema in event_json_schemas(events).items()
    ]
    written.append(_write(directory / ENVELOPE_SCHEMA_NAME, envelope_schema(events, title)))
    return written

"""JSON Schemas of the wire messages, for agent authors who do not write Python.

The schemas are generated from the pydantic models, so they cannot drift from what
:func:`protocol.parse_message` accepts (cross-field checks such as "a PASS carries no
cards" are documented in docs/protocol.md rather than expressed in the schema).
``arena schema DIR`` calls :func:`write_schemas`, then :func:`write_event_schemas` for
``DIR/events``: the public events' ``data`` (:mod:`protocol.events`), one file per event
type, and the envelope, each marked with the events' schema version.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

from pydantic import TypeAdapter
from pydantic.json_schema import models_json_schema

from protocol.events import EVENT_DATA, EVENT_SCHEMA_VERSION, EventEnvelope
from protocol.messages import MESSAGE_TYPES, AnyMessage

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


def json_schemas() -> dict[str, dict[str, Any]]:
    """Each message's JSON Schema (validation side), keyed by its ``type`` tag."""
    return {name: _with_dialect(model.model_json_schema()) for name, model in MESSAGE_TYPES.items()}


def union_schema() -> dict[str, Any]:
    """One JSON Schema accepting any message, discriminated on ``type``."""
    schema = TypeAdapter(AnyMessage).json_schema()
    return _with_dialect({"title": "DouDizhuArenaMessage", **schema})


def _write(path: Path, schema: dict[str, Any]) -> Path:
    path.write_text(json.dumps(schema, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return path


def write_schemas(directory: Path) -> list[Path]:
    """Write ``<TYPE>.schema.json`` per message and the union; return the paths written.

    The directory is created if missing; existing files of the same names are replaced.
    """
    directory.mkdir(parents=True, exist_ok=True)
    written = [
        _write(directory / f"{name}.schema.json", schema) for name, schema in json_schemas().items()
    ]
    written.append(_write(directory / UNION_SCHEMA_NAME, union_schema()))
    return written


def _event_schema(schema: dict[str, Any]) -> dict[str, Any]:
    return {"$schema": _DIALECT, VERSION_KEY: EVENT_SCHEMA_VERSION, **schema}


def event_json_schemas() -> dict[str, dict[str, Any]]:
    """Each event type's ``data`` JSON Schema, keyed by the event type."""
    return {name: _event_schema(model.model_json_schema()) for name, model in EVENT_DATA.items()}


def envelope_schema() -> dict[str, Any]:
    """The envelope's JSON Schema; its ``data`` must match the schema of its ``type``.

    Self-contained: every data model is in ``$defs``, chosen by one ``if``/``then`` per type.
    """
    refs, defs = models_json_schema(
        [(model, "validation") for model in EVENT_DATA.values()],
        ref_template="#/$defs/{model}",
    )
    schema = EventEnvelope.model_json_schema(ref_template="#/$defs/{model}")
    schema["$defs"] = {**schema.get("$defs", {}), **defs.get("$defs", {})}
    schema["allOf"] = [
        {
            "if": {"properties": {"type": {"const": name}}, "required": ["type"]},
            "then": {"properties": {"data": refs[(model, "validation")]}},
        }
        for name, model in EVENT_DATA.items()
    ]
    return _event_schema({**schema, "title": "DouDizhuArenaEvent"})


def write_event_schemas(directory: Path) -> list[Path]:
    """Write ``<event type>.schema.json`` per event type and the envelope; return the paths.

    The directory is created if missing; existing files of the same names are replaced.
    """
    directory.mkdir(parents=True, exist_ok=True)
    written = [
        _write(directory / f"{name}.schema.json", schema)
        for name, schema in event_json_schemas().items()
    ]
    written.append(_write(directory / ENVELOPE_SCHEMA_NAME, envelope_schema()))
    return written

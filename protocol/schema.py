"""JSON Schemas of the wire messages, for agent authors who do not write Python.

The schemas are generated from the pydantic models, so they cannot drift from what
:func:`protocol.parse_message` accepts (cross-field checks such as "a PASS carries no
cards" are documented in docs/protocol.md rather than expressed in the schema).
``arena schema DIR`` calls :func:`write_schemas`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

from pydantic import TypeAdapter

from protocol.messages import MESSAGE_TYPES, AnyMessage

__all__ = ["UNION_SCHEMA_NAME", "json_schemas", "union_schema", "write_schemas"]

_DIALECT: Final = "https://json-schema.org/draft/2020-12/schema"

#: File name of the schema that accepts any message (a ``oneOf`` keyed on ``type``).
UNION_SCHEMA_NAME: Final = "messages.schema.json"


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

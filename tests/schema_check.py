"""A small JSON Schema checker for the keywords pydantic emits in ``arena schema``'s files.

No extra dependency: the schemas use few keywords (``$ref``, ``anyOf``, ``type``,
``const``, ``enum``, ``pattern``, sizes and bounds, ``properties``,
``additionalProperties``), and each is checked the way draft 2020-12 says.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from typing import Any

__all__ = ["schema_errors"]

_LIMITS: dict[str, tuple[Callable[[Any], Any], Callable[[Any, Any], bool]]] = {
    "minLength": (len, operator.ge),
    "maxLength": (len, operator.le),
    "minItems": (len, operator.ge),
    "maxItems": (len, operator.le),
    "minimum": (lambda v: v, operator.ge),
    "maximum": (lambda v: v, operator.le),
    "exclusiveMinimum": (lambda v: v, operator.gt),
}


def schema_errors(value: Any, schema: dict[str, Any], defs: dict[str, Any], at: str) -> list[str]:
    """A small JSON Schema checker for the keywords pydantic emits here (no extra dependency)."""
    if "$ref" in schema:
        return schema_errors(value, defs[schema["$ref"].rsplit("/", 1)[-1]], defs, at)
    if "anyOf" in schema:
        options = [schema_errors(value, option, defs, at) for option in schema["anyOf"]]
        return [] if any(not errors for errors in options) else [f"{at}: matches no anyOf"]
    errors: list[str] = []
    kinds: dict[str, type | tuple[type, ...]] = {
        "string": str,
        "integer": int,
        "number": (int, float),
        "boolean": bool,
        "array": list,
        "object": dict,
        "null": type(None),
    }
    kind = schema.get("type")
    if kind and not isinstance(value, kinds[kind]):
        return [f"{at}: not {kind}"]
    if kind in ("integer", "number") and isinstance(value, bool):
        return [f"{at}: not integer"]
    if "const" in schema and value != schema["const"]:
        errors.append(f"{at}: not const")
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{at}: not in enum")
    if "pattern" in schema and not re.search(schema["pattern"], value):
        errors.append(f"{at}: pattern")
    for key, (measure, holds) in _LIMITS.items():
        if key in schema and not holds(measure(value), schema[key]):
            errors.append(f"{at}: {key}")
    if kind == "array" and "items" in schema:
        for index, item in enumerate(value):
            errors += schema_errors(item, schema["items"], defs, f"{at}[{index}]")
    if kind == "object":
        properties = schema.get("properties", {})
        errors += [
            f"{at}.{key}: required" for key in schema.get("required", []) if key not in value
        ]
        for key, item in value.items():
            if key in properties:
                errors += schema_errors(item, properties[key], defs, f"{at}.{key}")
            elif schema.get("additionalProperties") is False:
                errors.append(f"{at}.{key}: additional")
            elif isinstance(schema.get("additionalProperties"), dict):
                errors += schema_errors(item, schema["additionalProperties"], defs, f"{at}.{key}")
    return errors

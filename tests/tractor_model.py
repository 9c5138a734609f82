"""A fake language model that plays Tractor from what its prompt shows, for model-seat tests.

It reads only the prompt the seat sent (the first user message, in English or Chinese):
in a declaration window it passes (or, with ``declare=True``, makes its first listed
declaration); as the banker it buries the kitty's cards as the prompt lists them; to
play it takes the first legal play the prompt lists (the seat's ``legal_moves =
"full"``), or the one play a prompt shows when there are too many to list. It answers as
the request wants it: a call of the forced tool, else JSON text. So a match played
through it is legal only if the prompts show the right things.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from fake_providers import RecordedRequest, Reply, answer

__all__ = ["decision_of", "prompt_of", "tractor_model"]

_LEGAL_HEADER = re.compile(r"^(?:Your legal plays \(\d+\):|你可以出的牌（共\d+种）：)$")
_ONE_OF = re.compile(r"(?:one of them: |其中一种：)(.+)$")
_KITTY = re.compile(r"^(?:You took the kitty \(\d+ cards\): |你拿到了底牌（\d+张）：)(.+)$")
_OPTIONS = re.compile(r"^(?:Your declarations \(weakest first\):|你可以亮的主（由弱到强）：)$")


def prompt_of(recorded: RecordedRequest) -> str:
    """The prompt's user text (the first user message: a retry's reason comes after it)."""
    for message in recorded.body["messages"]:
        content = message.get("content")
        if message["role"] == "user" and isinstance(content, str):
            return content
    raise AssertionError("no user prompt in the request")


def _listed(lines: list[str], header: re.Pattern[str]) -> list[str]:
    """The ``- ...`` lines under the line ``header`` matches."""
    found: list[str] = []
    start = next((i for i, line in enumerate(lines) if header.match(line)), None)
    if start is None:
        return found
    for line in lines[start + 1 :]:
        if not line.startswith("- "):
            break
        found.append(line[2:])
    return found


def decision_of(prompt: str, *, declare: bool = False) -> dict[str, Any]:
    """The decision the fake makes on a prompt (see the module)."""
    lines = prompt.splitlines()
    if '"action":"DECLARE"|"PASS"' in prompt:
        options = _listed(lines, _OPTIONS)
        if declare and options:
            cards = re.split(r"[:：]", options[0], maxsplit=1)[0]
            return {"action": "DECLARE", "cards": cards.split()}
        return {"action": "PASS"}
    for line in lines:
        kitty = _KITTY.match(line)
        if kitty:
            return {"cards": kitty.group(1).split()}
    plays = _listed(lines, _LEGAL_HEADER)
    if plays:
        return {"cards": plays[0].split(": ", 1)[-1].split()}
    for line in lines:
        one = _ONE_OF.search(line)
        if one:
            return {"cards": one.group(1).split()}
    raise AssertionError(f"the prompt shows no legal play:\n{prompt}")


def tractor_model(*, declare: bool = False, **said: Any) -> Callable[[RecordedRequest], Reply]:
    """A provider's ``respond``: the fake's decision on each prompt, with ``said`` (a
    comment, an emotion) added to it."""

    def respond(recorded: RecordedRequest) -> Reply:
        decision = {**decision_of(prompt_of(recorded), declare=declare), **said}
        return answer(recorded, decision)

    return respond

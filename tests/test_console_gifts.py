"""Viewers' gifts on the terminal (issue 11): banners, the queue, and no flood.

An applied gift is a one-line banner naming the viewer, the effect with its Chinese name,
its target, and a CHEER's message quoted; a PEEK says who peeked at whom and never a card.
A rejected or expired gift is a quieter line with the reason in words. A queued gift is
no line: the board shows how many wait and its last few banners; plain lines show one
refusal per reason and table every ``QUIET_EVERY_S`` (10,000 refused gifts must not bury
the game), saying how many were not shown since, telling at the match's end (a replay's:
each round's) those still not shown, and counting every gift. One event may settle many
units of a gift (``units``): shown as ``×9800`` and counted as that many. Viewer text is
shown as text, never parsed as rich markup.
"""

from __future__ import annotations

import dataclasses
import io
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest
from rich.console import Console
from test_console import events_of

from arena.events import Event
from arena.games.ddz.events import parse_event
from arena.games.registry import get_game
from arena.sinks.console import LiveConsoleSink, PlainConsoleSink
from arena.sinks.console_gifts import GIFT_BANNERS, QUIET_EVERY_S, gift_text
from arena.sinks.console_lines import EventLines, describe

NAMES = ("Ann", "Bob", "Cid")
CARD = re.compile(r"[♠♥♦♣]|[大小]王")


def gift(
    status: str,
    effect: str | None = "CHEER",
    target: int | None = 0,
    *,
    reason: str | None = None,
    message: str = "",
    viewer: str = "小明",
    waiting: int = 0,
    table: str = "t1",
    test: bool = False,
    units: int = 1,
    round_no: int = 1,
) -> Event:
    """A ``gift`` event as the table emits it (checked against the contract below); one
    of ``units`` > 1 has the key, as the arena's newer events do (older ones lack it)."""
    data: dict[str, Any] = {
        "id": "twitch:abc#0",
        "event_id": "abc",
        "platform": "twitch",
        "status": status,
        "reason": reason,
        "effect": effect,
        "target": target,
        "viewer": viewer,
        "gift": "小花花",
        "kind": "gift",
        "value": 0,
        "currency": None,
        "message": message,
        "test": test,
        "refund": False,
        "waiting": waiting,
    }
    if units != 1:
        data["units"] = units
    player = NAMES[target] if target is not None else None
    return Event("gift", table, round_no, 100, target, player, data)


def test_the_test_events_are_valid_gift_events() -> None:
    parse_event(gift("applied", message="加油").to_dict())
    parse_event(gift("rejected", "SWAP", 2, reason="cooldown", waiting=7).to_dict())
    parse_event(gift("expired", "ROLE_SWAP", None).to_dict())


# ─── one gift's line ────────────────────────────────────────────────────────────────────


def test_an_applied_cheer_names_viewer_effect_target_and_quotes_the_message() -> None:
    line = describe(gift("applied", "CHEER", 0, message="加油地主！"))
    assert line == "[t1 r1] 🎁 小明 (小花花): CHEER 加油 → Ann “加油地主！”"


@pytest.mark.parametrize(
    ("effect", "name"),
    [
        ("CHEER", "加油"),
        ("EMOTE", "表情"),
        ("PEEK", "偷看牌"),
        ("SWAP", "换牌"),
        ("ADD", "加牌"),
        ("DOUBLE", "翻倍"),
        ("EFFECT", "全场特效"),
        ("ROLE_SWAP", "角色互换"),
        ("RESHUFFLE", "重新洗牌"),
    ],
)
def test_every_effect_is_named_with_its_chinese_name(effect: str, name: str) -> None:
    line = describe(gift("applied", effect, 1))
    assert line is not None
    assert f"{effect} {name}" in line
    assert "Bob" in line
    assert line.count("\n") == 0


def test_a_gift_without_a_target_names_none() -> None:
    assert describe(gift("applied", "DOUBLE", None)) == "[t1 r1] 🎁 小明 (小花花): DOUBLE 翻倍"


def test_a_peek_says_who_peeked_at_whom_and_never_a_card() -> None:
    line = describe(gift("applied", "PEEK", 2, viewer="Eve"))
    assert line == "[t1 r1] 🎁 Eve (小花花): PEEK 偷看牌, peeked at Cid's hand"
    assert not CARD.search(line)


def test_only_a_cheer_quotes_the_message() -> None:
    line = describe(gift("applied", "SWAP", 0, message="take that"))
    assert line is not None
    assert "take that" not in line


@pytest.mark.parametrize(
    ("reason", "words"),
    [
        ("duplicate", "rejected: already received (a duplicate)"),
        ("ranked_mode", "rejected: not in a ranked match"),
        ("queue_full", "rejected: the gift queue is full"),
        ("cooldown", "rejected: on cooldown"),
        ("last_cards", "rejected: too near the end of a hand"),
        ("double_cap", "rejected: the round's doubles are used up"),
        ("unmapped", "rejected: this gift does nothing here"),
        ("unknown_table", "rejected: no such table"),
        (
            "not_offered: tractor: Tractor has no stakes to double",
            "rejected: not offered in this game: tractor: Tractor has no stakes to double",
        ),
        ("unknown_table: t9", "rejected: no such table: t9"),
        ("no_target", "rejected: no seat to aim it at"),
        ("match_over", "rejected: the match is over"),
        ("invalid: count must be at least 1", "rejected: not a valid gift: count must be at"),
        ("error: KeyError: 'seat'", "rejected: failed unexpectedly: KeyError: 'seat'"),
        ("the seat has no card to give", "rejected: the seat has no card to give"),
        ("no_rule: for: this", "rejected: no_rule: for: this"),  # unknown: as it came
    ],
)
def test_a_rejected_gift_is_a_quiet_line_with_its_reason_in_words(reason: str, words: str) -> None:
    event = gift("rejected", "SWAP", 2, reason=reason)
    assert describe(event) is not None
    text = gift_text(event)
    assert text is not None
    assert text.plain.startswith("· 小明 (小花花): SWAP 换牌 → Cid ")
    assert words in text.plain
    assert not text.plain.startswith("🎁")
    assert text.style == "dim"  # quieter than a banner


def test_every_reason_the_docs_name_has_words() -> None:
    docs = (Path(__file__).parents[1] / "docs" / "events.md").read_text(encoding="utf-8")
    listed = docs.split("`reason` why it was rejected (", 1)[1].split("the rules' words)")[0]
    codes = {code.partition(":")[0] for code in re.findall(r"`([^`]+)`", listed)}
    assert {"duplicate", "unknown_table", "invalid", "error", "match_over"} <= codes
    assert len(codes) == 13
    for code in sorted(codes):
        text = gift_text(gift("rejected", reason=f"{code}: detail"))
        assert text is not None
        said = text.plain.split(" rejected: ", 1)[1]
        assert not said.startswith(code), said  # in words, not in code
        assert said.endswith(": detail")  # and the detail kept


def test_an_expired_gift_says_so() -> None:
    assert describe(gift("expired", "ROLE_SWAP", None)) == (
        "[t1 r1] · 小明 (小花花): ROLE_SWAP 角色互换 expired unused"
    )
    line = describe(gift("expired", "RESHUFFLE", None, reason="match_over"))
    assert line is not None
    assert line.endswith("expired: the match is over")


def test_a_queued_gift_is_no_line() -> None:
    assert describe(gift("queued", waiting=3)) is None
    assert EventLines(None).lines(gift("queued", waiting=3)) == []


def test_a_test_gift_says_it_is_one() -> None:
    line = describe(gift("applied", "EMOTE", 0, test=True))
    assert line is not None
    assert line.endswith("(test)")


# ─── plain lines: no flood ──────────────────────────────────────────────────────────────


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def plain(events: Sequence[Event], clock: Clock | None = None) -> list[str]:
    out = io.StringIO()
    sink = PlainConsoleSink(out, clock=clock or Clock())
    for e in events:
        await sink.emit(e)
    await sink.close()
    return out.getvalue().splitlines()


async def test_ten_thousand_refusals_are_a_line_per_reason_and_a_count() -> None:
    clock = Clock()
    out = io.StringIO()
    sink = PlainConsoleSink(out, clock=clock)
    for i in range(10_000):
        reason = ("queue_full", "cooldown")[i % 2]
        await sink.emit(gift("queued", waiting=i))
        await sink.emit(gift("rejected", "SWAP", 1, reason=reason, waiting=i))
    await sink.emit(gift("applied", "CHEER", 0, message="加油"))
    lines = out.getvalue().splitlines()
    assert len(lines) == 3  # one per reason, and the banner
    assert "the gift queue is full" in lines[0]
    assert "on cooldown" in lines[1]
    assert lines[2].startswith("[t1 r1] 🎁")
    clock.now += QUIET_EVERY_S  # later: one more line per reason, counting the rest
    await sink.emit(gift("rejected", "SWAP", 1, reason="cooldown"))
    last = out.getvalue().splitlines()[-1]
    assert last.endswith("rejected: on cooldown (+4,999 more like it since)")
    await sink.close()  # no match_ended: what was not shown, and the count, at the close
    assert out.getvalue().splitlines()[-2:] == [
        "[t1] · 4,999 more rejected: the gift queue is full, not shown",
        "[t1] gifts: 1 applied, 10,001 rejected (5,001 cooldown, 5,000 queue full)",
    ]


async def test_the_match_end_counts_the_tables_gifts() -> None:
    events = await events_of(1)
    ended = events[-1]
    assert ended.type == "match_ended"
    gifts = [
        gift("applied", "DOUBLE", None),
        *(gift("rejected", "DOUBLE", None, reason="double_cap") for _ in range(3)),
        gift("expired", "ROLE_SWAP", None),
    ]
    lines = await plain([*events[:-1], *gifts, ended])
    assert lines[-2:] == [
        "[t1 r1] · 2 more rejected: the round's doubles are used up, not shown",
        "[t1 r1] gifts: 1 applied, 3 rejected (3 double cap), 1 expired",
    ]
    assert sum(line.endswith("rejected: the round's doubles are used up") for line in lines) == 1
    # gifts refused after the match ended are counted at the close
    late = await plain([*events, gift("rejected", reason="match_over")])
    assert late[-1] == "[t1] gifts: 0 applied, 1 rejected (1 match over)"


async def test_each_table_is_limited_on_its_own() -> None:
    lines = await plain(
        [gift("rejected", reason="cooldown", table=t) for t in ("t1", "t2", "t1", "t2")]
    )
    assert [line.split("]")[0] for line in lines[:2]] == ["[t1 r1", "[t2 r1"]
    assert lines[2:] == [
        "[t1] · 1 more rejected: on cooldown, not shown",
        "[t1] gifts: 0 applied, 2 rejected (2 cooldown)",
        "[t2] · 1 more rejected: on cooldown, not shown",
        "[t2] gifts: 0 applied, 2 rejected (2 cooldown)",
    ]


def test_without_a_clock_only_the_first_refusal_per_reason_is_a_line() -> None:
    """A replay's lines (``arena replay``): no clock to space them by."""
    notes = EventLines(None)
    shown = [notes.lines(gift("rejected", reason="cooldown")) for _ in range(50)]
    assert sum(len(s) for s in shown) == 1


# ─── hidden refusals are told, not lost ─────────────────────────────────────────────────


async def test_refusals_within_the_quiet_window_are_told_at_the_matchs_end() -> None:
    """The newcomer's run: 11 bad payloads and 21 gifts expired at the match's end were
    3 lines with no sign of the other 29."""
    events = await events_of(1)
    ended = events[-1]
    bad = [gift("rejected", None, None, reason=f"invalid: bad field {i}") for i in range(11)]
    expired = [gift("expired", "CHEER", 2, viewer="Mia") for _ in range(21)]
    lines = await plain([*events[:-1], *bad, *expired, ended])
    shown = [line for line in lines if " · " in line]
    assert shown == [
        "[t1 r1] · 小明 (小花花): no effect rejected: not a valid gift: bad field 0",
        "[t1 r1] · Mia (小花花): CHEER 加油 → Cid expired unused",
        "[t1 r1] · 10 more rejected: not a valid gift, not shown",
        "[t1 r1] · 20 more expired unused, not shown",
    ]
    assert lines[-1] == "[t1 r1] gifts: 0 applied, 11 rejected (11 invalid), 21 expired"
    assert lines.index(shown[2]) > lines.index(next(x for x in lines if "match over" in x))


async def test_the_next_line_after_the_window_counts_those_hidden_since() -> None:
    clock = Clock()
    out = io.StringIO()
    sink = PlainConsoleSink(out, clock=clock)
    for _ in range(3):
        await sink.emit(gift("rejected", reason="unmapped"))
    clock.now += QUIET_EVERY_S
    await sink.emit(gift("rejected", reason="unmapped"))
    await sink.emit(gift("rejected", reason="unmapped"))
    await sink.close()
    lines = out.getvalue().splitlines()
    assert len(lines) == 4
    assert lines[0].endswith("rejected: this gift does nothing here")
    assert lines[1].endswith("rejected: this gift does nothing here (+2 more like it since)")
    assert lines[2:] == [
        "[t1] · 1 more rejected: this gift does nothing here, not shown",
        "[t1] gifts: 0 applied, 5 rejected (5 unmapped)",
    ]


async def test_nothing_hidden_is_no_extra_line() -> None:
    events = await events_of(1)
    lines = await plain([*events[:-1], gift("rejected", reason="cooldown"), events[-1]])
    assert not any("not shown" in line for line in lines)


def replay_round(events: Sequence[Event]) -> list[str]:
    """A round's lines as ``arena replay`` prints them: no clock, and one ``EventLines``
    per round."""
    notes = EventLines(None)
    return [line for event in events for line in notes.lines(event)]


async def test_a_replay_tells_the_refusals_it_did_not_show_at_each_rounds_end() -> None:
    events = await events_of(2)
    t1 = [e for e in events if e.table == "t1" and e.round == 1]
    result = next(i for i, e in enumerate(t1) if e.type == "round_result")
    refused = [
        gift("rejected", reason="unmapped"),
        gift("rejected", reason="cooldown"),
        gift("rejected", reason="unmapped"),
        gift("rejected", reason="unmapped", units=5),
    ]
    lines = replay_round([*t1[:result], *refused, *t1[result:]])
    assert sum("this gift does nothing here" in line for line in lines) == 2
    at = next(i for i, line in enumerate(lines) if "(bombs " in line)  # the round's result
    assert lines[at + 1] == "[t1 r1] · 6 more rejected: this gift does nothing here, not shown"
    assert not any("more rejected: on cooldown" in line for line in lines)


async def test_a_replays_match_end_tells_them_too() -> None:
    events = await events_of(1)
    lines = replay_round([*events[:-1], *(gift("expired") for _ in range(4)), events[-1]])
    assert "[t1 r1] · 3 more expired unused, not shown" in lines
    notes = EventLines(None)  # and refusals after the round's last line, at the close
    for _ in range(3):
        notes.lines(gift("rejected", reason="unmapped"))
    assert notes.closing_lines() == [
        "[t1] · 2 more rejected: this gift does nothing here, not shown",
        "[t1] gifts: 0 applied, 3 rejected (3 unmapped)",
    ]


# ─── one event, many units ──────────────────────────────────────────────────────────────


def test_an_event_of_many_units_says_how_many() -> None:
    line = describe(gift("rejected", "SWAP", 2, reason="queue_full", units=9800))
    assert line == "[t1 r1] · 小明 (小花花): SWAP 换牌 ×9800 → Cid rejected: the gift queue is full"
    banner = describe(gift("applied", "CHEER", 0, message="加油", units=3))
    assert banner == "[t1 r1] 🎁 小明 (小花花): CHEER 加油 ×3 → Ann “加油”"
    assert "×" not in (describe(gift("applied", "CHEER", 0, units=1)) or "×")
    older = gift("applied", "DOUBLE", None)
    assert "units" not in older.data  # an older event: one unit
    assert describe(older) == "[t1 r1] 🎁 小明 (小花花): DOUBLE 翻倍"


async def test_units_are_counted_in_every_tally() -> None:
    events = await events_of(1)
    gifts = [
        gift("applied", "CHEER", 0, units=2),
        gift("rejected", "SWAP", 1, reason="queue_full", units=9800),
        gift("rejected", "SWAP", 1, reason="queue_full", units=200),
        gift("expired", "ROLE_SWAP", None, units=7),
    ]
    lines = await plain([*events[:-1], *gifts, events[-1]])
    assert lines[-2:] == [
        "[t1 r1] · 200 more rejected: the gift queue is full, not shown",
        "[t1 r1] gifts: 2 applied, 10,000 rejected (10,000 queue full), 7 expired",
    ]
    shown = await board([*events[:20], *gifts])
    assert "gifts: 0 waiting · 2 applied · 10,000 rejected · 7 expired" in shown
    run = await board([*events[:20], *gifts[1:3]])  # a run: the last banner, the rest counted
    assert "SWAP 换牌 ×200 → Bob rejected: the gift queue is full (+9,800 more like it)" in run


# ─── the live board ─────────────────────────────────────────────────────────────────────


async def board(events: Sequence[Event], *, width: int = 100, height: int = 40) -> str:
    out = io.StringIO()
    sink = LiveConsoleSink(Console(file=out, width=width, height=height, color_system=None))
    for e in events:
        await sink.emit(e)
    await sink.close()
    return out.getvalue()


async def test_the_board_shows_the_queue_and_the_last_banners() -> None:
    events = await events_of(1)
    middle = len(events) // 2
    gifts = [
        *(gift("queued", waiting=n) for n in range(1, 6)),
        gift("applied", "CHEER", 0, message="first", waiting=4),
        gift("applied", "CHEER", 0, message="加油！", waiting=3),
        gift("applied", "PEEK", 1, viewer="Eve", waiting=2),
        gift("rejected", "SWAP", 2, reason="last_cards", waiting=2),
        gift("queued", waiting=3),
    ]
    shown = await board([*events[:middle], *gifts])
    assert "gifts: 3 waiting · 3 applied · 1 rejected" in shown
    assert "🎁 小明 (小花花): CHEER 加油 → Ann “加油！”" in shown
    assert "🎁 Eve (小花花): PEEK 偷看牌, peeked at Bob's hand" in shown
    assert "· 小明 (小花花): SWAP 换牌 → Cid rejected: too near the end of a hand" in shown
    assert "first" not in shown  # only the last GIFT_BANNERS
    assert GIFT_BANNERS == 3


async def test_a_run_of_refusals_is_one_banner_with_a_count() -> None:
    events = await events_of(1)
    gifts = [
        gift("applied", "CHEER", 0, message="加油！"),
        *(gift("rejected", "SWAP", 2, reason="cooldown") for _ in range(1000)),
    ]
    shown = await board([*events[:20], *gifts])
    assert "加油！" in shown  # not pushed out by the refusals
    assert "rejected: on cooldown (+999 more like it)" in shown
    assert "1,000 rejected" in shown


async def test_a_board_without_gifts_has_no_gift_line() -> None:
    shown = await board(await events_of(1))
    assert "gifts:" not in shown
    assert "🎁" not in shown


async def test_viewer_text_is_shown_as_text_never_as_markup() -> None:
    events = await events_of(1)
    sneaky = [
        gift("applied", "CHEER", 0, viewer="[/]", message="[bold red]BIG[/] [link=x]y"),
        gift("rejected", "SWAP", 1, viewer="[blink]me", reason="cooldown"),
    ]
    shown = await board([*events[:20], *sneaky])  # "[/]" as markup would raise
    assert "🎁 [/] (小花花): CHEER 加油 → Ann “[bold red]BIG[/] [link=x]y”" in shown
    assert "· [blink]me (小花花)" in shown
    lines = await plain(sneaky)
    assert "[t1 r1] 🎁 [/] (小花花): CHEER 加油 → Ann “[bold red]BIG[/] [link=x]y”" in lines


async def test_boards_with_gifts_still_fit_the_terminal() -> None:
    events = await events_of(2)
    gifts = [gift("applied", "CHEER", 0, message="加油", table=t) for t in ("t1", "t2")] * 3
    shown = (await board([*events[:40], *gifts], width=80, height=24)).splitlines()
    titles = [line for line in shown if "斗地主 Arena · t" in line]
    assert len(titles) == 2
    assert len(shown) <= 24 + 1  # the frame, and the closing line break


async def test_the_compact_rows_show_how_many_gifts_wait() -> None:
    events = await events_of(8)
    shown = await board([*events[:100], gift("queued", waiting=42)], width=80, height=24)
    row = next(line for line in shown.splitlines() if line.startswith("t1 "))
    assert "🎁42" in row


async def test_a_transfer_moves_a_card_between_the_seats_counts() -> None:
    events = await events_of(1)
    chosen = next(i for i, e in enumerate(events) if e.type == "landlord_chosen")
    landlord = events[chosen].seat
    assert landlord is not None
    other = (landlord + 1) % 3
    transfer = Event(
        "effect_applied",
        "t1",
        1,
        500,
        data={"effect": "transfer", "seats": [other, landlord], "cards_moved": 1},
    )
    shown = await board([*events[: chosen + 1], transfer])
    names = events[0].data["players"]
    cards = dict(re.findall(rf"({'|'.join(names)})\s+(?:地主|农民)\s+(\d+)", shown))
    assert cards[names[landlord]] == "21"
    assert cards[names[other]] == "16"


async def test_gifts_ended_between_matches_are_counted_when_the_next_begins() -> None:
    events = await events_of(1)
    lines = await plain([*events, gift("rejected", reason="match_over"), *events[:1]])
    assert lines[-2].startswith("[t1 r0] match: ")
    assert lines[-1] == "[t1] gifts: 0 applied, 1 rejected (1 match over)"


class _GiftlessConsole:
    """The terminal part of a game with no gift of its own (all a gift line reads)."""

    gift_names: Mapping[str, str] = MappingProxyType({})
    gift_reasons: Mapping[str, str] = MappingProxyType({})


def test_a_games_own_effects_and_refusals_are_named_by_its_console(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 26: 翻倍 and a spent double are Dou Dizhu's words, from its console; a game
    without them shows the codes, and every game's effects keep their names."""
    giftless = dataclasses.replace(get_game("ddz"), name="giftless", console=_GiftlessConsole)
    found = {"ddz": get_game("ddz"), "giftless": giftless}
    monkeypatch.setattr("arena.sinks.game_console.get_game", found.__getitem__)
    monkeypatch.setattr("arena.sinks.game_console._CONSOLES", {})

    def of(event: Event) -> str | None:
        text = gift_text(event._replace(game="giftless"))
        return None if text is None else text.plain

    assert of(gift("applied", "DOUBLE", None)) == "🎁 小明 (小花花): DOUBLE"
    assert of(gift("applied", "CHEER", None)) == "🎁 小明 (小花花): CHEER 加油"
    refused = of(gift("rejected", "DOUBLE", None, reason="double_cap"))
    assert refused is not None
    assert refused.endswith("rejected: double_cap")
    spent = gift_text(gift("rejected", "DOUBLE", None, reason="double_cap"))
    assert spent is not None
    assert "the round's doubles are used up" in spent.plain  # Dou Dizhu's, as before

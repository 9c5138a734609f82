"""The gift queue (issue 11): one gift at a time, windows, cooldowns, every gift settled.

Driven with explicit times and explicit moments (what the table shows at a safe point),
as the table will drive it.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gifts.events import GiftEffect, GiftEvent
from gifts.queue import GiftQueue, Moment, Outcome, QueueSettings, others_involved

PLAY = Moment(phase="play", to_act=0, leading=False, hand_sizes=(15, 17, 17))
LEAD_0 = Moment(phase="play", to_act=0, leading=True, hand_sizes=(15, 17, 17))
BETWEEN = Moment(phase="between_rounds", to_act=None, leading=False, hand_sizes=(0, 0, 0))


def gift(event_id: str, *, viewer: str = "v1", **fields: Any) -> GiftEvent:
    return GiftEvent(event_id=event_id, platform="test", viewer_id=viewer, **fields)


def quiet(**changes: Any) -> QueueSettings:
    """No cooldowns unless asked: each rule tested alone."""
    cooldowns = dict.fromkeys(GiftEffect, 0.0)
    return QueueSettings(
        **{
            "effect_cooldown_s": cooldowns,
            "viewer_cooldown_s": 0.0,
            "strong_cooldown_s": 0.0,
            **changes,
        }
    )


def apply_all(queue: GiftQueue, moment: Moment, now: float) -> list[str]:
    """Apply every gift that may go now, one at a time, as the table would."""
    applied = []
    while (pending := queue.next(moment, now)) is not None:
        queue.settle(pending, now)
        applied.append(pending.id)
    return applied


def test_a_duplicate_delivery_is_rejected_before_any_cooldown_is_counted() -> None:
    queue = GiftQueue(quiet(viewer_cooldown_s=100.0))
    queue.submit(gift("e1"), GiftEffect.CHEER, target=0, now=0)
    queue.submit(gift("e1"), GiftEffect.CHEER, target=0, now=1)
    assert [(o.status, o.reason) for o in queue.outcomes] == [("rejected", "duplicate")]
    assert apply_all(queue, PLAY, now=2) == ["test:e1#0"]


def test_a_gift_of_count_n_is_n_gifts() -> None:
    queue = GiftQueue(quiet())
    queue.submit(gift("e1", count=3), GiftEffect.EMOTE, target=None, now=0)
    assert apply_all(queue, PLAY, now=1) == ["test:e1#0", "test:e1#1", "test:e1#2"]


def test_a_streaks_running_update_is_no_gift_and_its_last_event_is() -> None:
    queue = GiftQueue(quiet())
    queue.submit(
        gift("t1", streak_id="s", streak_final=False, count=2), GiftEffect.CHEER, target=0, now=0
    )
    queue.submit(
        gift("t2", streak_id="s", streak_final=True, count=3), GiftEffect.CHEER, target=0, now=0
    )
    assert apply_all(queue, PLAY, now=1) == ["test:t2#0", "test:t2#1", "test:t2#2"]


def test_a_streaks_final_event_sharing_its_updates_id_is_no_duplicate() -> None:
    """A platform may give a streak's updates and its final event one id: the updates
    are not gifts, so they must not make the final one a duplicate."""
    queue = GiftQueue(quiet())
    running = gift("s1", streak_id="s", streak_final=False, count=1)
    queue.submit(running, GiftEffect.CHEER, target=0, now=0)
    queue.submit(running, GiftEffect.CHEER, target=0, now=0)
    final = gift("s1", streak_id="s", streak_final=True, count=2)
    queue.submit(final, GiftEffect.CHEER, target=0, now=0)
    assert apply_all(queue, PLAY, now=1) == ["test:s1#0", "test:s1#1"]
    queue.submit(final, GiftEffect.CHEER, target=0, now=2)  # the final one again: a duplicate
    assert [(o.id, o.reason) for o in queue.outcomes][-1] == ("test:s1#dup1", "duplicate")


def test_ranked_mode_rejects_what_can_change_a_result_at_once() -> None:
    queue = GiftQueue(quiet(mode="ranked"))
    for n, effect in enumerate(GiftEffect):
        queue.submit(gift(f"e{n}"), effect, target=0, now=0)
    rejected = {o.effect for o in queue.outcomes if o.reason == "ranked_mode"}
    assert rejected == {
        GiftEffect.SWAP,
        GiftEffect.ADD,
        GiftEffect.DOUBLE,
        GiftEffect.ROLE_SWAP,
        GiftEffect.RESHUFFLE,
    }
    assert queue.waiting == 4  # CHEER, EMOTE, PEEK, EFFECT


def test_a_full_queue_rejects_the_newcomer() -> None:
    queue = GiftQueue(quiet(queue_size=2))
    for n in range(3):
        queue.submit(gift(f"e{n}"), GiftEffect.CHEER, target=0, now=0)
    assert [(o.id, o.reason) for o in queue.outcomes] == [("test:e2#0", "queue_full")]


def test_a_gift_waits_for_its_window_and_does_not_hold_up_the_others() -> None:
    queue = GiftQueue(quiet())
    queue.submit(gift("swap"), GiftEffect.SWAP, target=0, now=0)
    queue.submit(gift("cheer"), GiftEffect.CHEER, target=1, now=0)
    queue.submit(gift("reshuffle"), GiftEffect.RESHUFFLE, target=None, now=0)
    assert apply_all(queue, PLAY, now=1) == ["test:cheer#0"]  # seat 0 follows: no swap
    assert apply_all(queue, LEAD_0, now=2) == ["test:swap#0"]
    assert apply_all(queue, BETWEEN, now=3) == ["test:reshuffle#0"]


def test_a_gift_past_its_time_to_live_expires() -> None:
    queue = GiftQueue(quiet(ttl_s=10.0))
    queue.submit(gift("swap"), GiftEffect.SWAP, target=0, now=0)
    assert apply_all(queue, PLAY, now=5) == []
    assert apply_all(queue, LEAD_0, now=11) == []
    assert [(o.status, o.id) for o in queue.outcomes] == [("expired", "test:swap#0")]


def test_on_cooldown_a_gift_waits_by_default_or_is_rejected_if_set() -> None:
    waits = GiftQueue(
        quiet(effect_cooldown_s={**dict.fromkeys(GiftEffect, 0.0), GiftEffect.PEEK: 10.0})
    )
    for n in range(2):
        waits.submit(gift(f"p{n}", viewer=f"v{n}"), GiftEffect.PEEK, target=1, now=0)
    assert apply_all(waits, PLAY, now=0) == ["test:p0#0"]
    assert apply_all(waits, PLAY, now=9) == []
    assert apply_all(waits, PLAY, now=10) == ["test:p1#0"]
    rejects = GiftQueue(
        quiet(
            on_cooldown="reject",
            effect_cooldown_s={**dict.fromkeys(GiftEffect, 0.0), GiftEffect.PEEK: 10.0},
        )
    )
    for n in range(2):
        rejects.submit(gift(f"p{n}", viewer=f"v{n}"), GiftEffect.PEEK, target=1, now=0)
    assert apply_all(rejects, PLAY, now=0) == ["test:p0#0"]
    assert [(o.id, o.reason) for o in rejects.outcomes if o.status == "rejected"] == [
        ("test:p1#0", "cooldown")
    ]


def test_a_viewer_cools_down_across_effects_and_strong_ones_share_a_global_cooldown() -> None:
    queue = GiftQueue(quiet(viewer_cooldown_s=5.0, strong_cooldown_s=30.0))
    queue.submit(gift("a", viewer="ada"), GiftEffect.CHEER, target=0, now=0)
    queue.submit(gift("b", viewer="ada"), GiftEffect.EMOTE, target=0, now=0)
    queue.submit(gift("c", viewer="bo"), GiftEffect.SWAP, target=0, now=0)
    queue.submit(gift("d", viewer="cy"), GiftEffect.ADD, target=0, now=0)
    assert apply_all(queue, LEAD_0, now=0) == ["test:a#0", "test:c#0"]
    assert apply_all(queue, LEAD_0, now=5) == ["test:b#0"]  # ada again; ADD still cooling
    assert apply_all(queue, LEAD_0, now=30) == ["test:d#0"]


def test_strong_effects_are_refused_near_the_end_of_a_hand() -> None:
    queue = GiftQueue(quiet())
    short = Moment(phase="play", to_act=0, leading=True, hand_sizes=(5, 17, 17))
    others_short = Moment(phase="play", to_act=0, leading=True, hand_sizes=(9, 4, 5))
    one_other = Moment(phase="play", to_act=0, leading=True, hand_sizes=(9, 4, 6))
    queue.submit(gift("s1", viewer="a"), GiftEffect.SWAP, target=0, now=0)
    assert apply_all(queue, short, now=0) == []
    queue.submit(gift("s2", viewer="b"), GiftEffect.ADD, target=0, now=0)
    assert apply_all(queue, others_short, now=0) == []
    queue.submit(gift("s3", viewer="c"), GiftEffect.ADD, target=0, now=0)
    assert apply_all(queue, one_other, now=0) == ["test:s3#0"]
    assert others_involved(0, one_other) == [2]
    assert [o.reason for o in queue.outcomes if o.status == "rejected"] == ["last_cards"] * 2


def test_doubles_stop_at_the_cap() -> None:
    # the game's rules refuse it (Dou Dizhu's cap: arena.games.ddz.gifts), with its reason
    queue = GiftQueue(quiet())
    queue.submit(gift("d1", viewer="a"), GiftEffect.DOUBLE, target=None, now=0)
    capped = Moment(
        phase="bidding",
        to_act=1,
        leading=False,
        hand_sizes=(17, 17, 17),
        refused={"DOUBLE": "double_cap"},
    )
    assert apply_all(queue, capped, now=0) == []
    assert queue.outcomes[-1].reason == "double_cap"


def test_a_gift_the_engine_refuses_is_rejected_with_its_reason() -> None:
    queue = GiftQueue(quiet())
    queue.submit(gift("s"), GiftEffect.SWAP, target=0, now=0)
    pending = queue.next(LEAD_0, now=0)
    assert pending is not None
    outcome = queue.settle(pending, 0, refused="seat 2 would be left with no cards")
    assert (outcome.status, outcome.reason) == ("rejected", "seat 2 would be left with no cards")


def test_at_the_end_every_waiting_gift_expires() -> None:
    queue = GiftQueue(quiet())
    queue.submit(gift("r"), GiftEffect.ROLE_SWAP, target=1, now=0)
    queue.close(now=5)
    assert [(o.id, o.status) for o in queue.outcomes] == [("test:r#0", "expired")]


moments = st.builds(
    Moment,
    phase=st.sampled_from(["bidding", "doubling", "play", "between_rounds", "over"]),
    to_act=st.one_of(st.none(), st.integers(0, 2)),
    leading=st.booleans(),
    hand_sizes=st.tuples(st.integers(0, 20), st.integers(0, 20), st.integers(0, 20)),
    refused=st.sampled_from([{}, {"DOUBLE": "double_cap"}]),
)
arrivals = st.lists(
    st.tuples(
        st.integers(0, 30),  # event id: repeats are duplicates
        st.sampled_from(list(GiftEffect)),
        st.one_of(st.none(), st.integers(0, 2)),  # target
        st.integers(1, 3),  # count
        st.sampled_from(["a", "b", "c"]),  # viewer
        st.booleans(),  # a streak's final event?
    ),
    max_size=40,
)


@settings(max_examples=200, deadline=None)
def units_of(outcome: Outcome) -> list[str]:
    """The unit ids an outcome settles: its id, or each of ``...#first-last``."""
    if outcome.units == 1:
        return [outcome.id]
    key, _, span = outcome.id.rpartition("#")
    first, last = (int(n) for n in span.split("-"))
    assert last - first + 1 == outcome.units
    return [f"{key}#{unit}" for unit in range(first, last + 1)]


@given(
    arrivals=arrivals,
    steps=st.lists(moments, max_size=30),
    mode=st.sampled_from(["show", "ranked"]),
    reject=st.booleans(),
)
def test_every_gift_ends_in_exactly_one_outcome(
    arrivals: list[tuple[int, GiftEffect, int | None, int, str, bool]],
    steps: list[Moment],
    mode: str,
    reject: bool,
) -> None:
    queue = GiftQueue(
        QueueSettings(
            mode=mode,  # type: ignore[arg-type]
            queue_size=25,
            on_cooldown="reject" if reject else "wait",
            ttl_s=20,
        )
    )
    expected: Counter[str] = Counter()
    duplicates = 0
    seen: set[int] = set()
    now = 0.0
    for n, (event, effect, target, count, viewer, final) in enumerate(arrivals):
        # a streak's running update is no gift and is not remembered: only gifts that
        # count make a later delivery with their id a duplicate
        if final and event in seen:
            duplicates += 1
        elif final:
            expected.update(f"test:e{event}#{unit}" for unit in range(count))
            seen.add(event)
        queue.submit(
            gift(
                f"e{event}",
                viewer=viewer,
                count=count,
                streak_final=final,
                streak_id=None if final else "s",
            ),
            effect,
            target=target,
            now=now,
        )
        if n < len(steps):
            now += 3
            apply_all(queue, steps[n], now)
    queue.close(now + 1)
    settled = Counter(u for o in queue.outcomes if o.reason != "duplicate" for u in units_of(o))
    assert settled == expected  # each unit once, none lost, none twice
    assert sum(o.reason == "duplicate" for o in queue.outcomes) == duplicates
    assert queue.waiting == 0
    for outcome in queue.outcomes:
        assert outcome.status in ("applied", "rejected", "expired")
        assert (outcome.status == "rejected") == (outcome.reason is not None)
        if mode == "ranked" and outcome.status == "applied":
            assert outcome.effect not in {
                GiftEffect.SWAP,
                GiftEffect.ADD,
                GiftEffect.DOUBLE,
                GiftEffect.ROLE_SWAP,
                GiftEffect.RESHUFFLE,
            }


def test_one_gift_at_a_time_the_next_waits_for_the_last_to_be_settled() -> None:
    queue = GiftQueue(quiet())
    queue.submit(gift("a", viewer="a"), GiftEffect.CHEER, target=0, now=0)
    queue.submit(gift("b", viewer="b"), GiftEffect.CHEER, target=0, now=0)
    first = queue.next(PLAY, now=0)
    assert first is not None
    with pytest.raises(RuntimeError, match="settle the gift in hand"):
        queue.next(PLAY, now=0)
    queue.settle(first, 0)
    assert queue.next(PLAY, now=0) is not None

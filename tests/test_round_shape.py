"""What a table reads of Dou Dizhu's round: its result, and when a seat can only pass."""

from arena.games.ddz.engine import DECK, DealtCards, Phase, Round


def test_a_finished_round_exposes_scores_and_a_dict() -> None:
    rnd = Round(seed=2, landlord=0, call_score=1)
    while rnd.phase is not Phase.FINISHED:
        seat = rnd.to_act
        assert seat is not None
        if rnd.phase is Phase.DOUBLING:
            rnd.double(seat, False)
        else:
            rnd.play(seat, min(rnd.legal_plays(), key=lambda m: (m.is_pass, m.main_rank)))
    assert rnd.result is not None
    assert sum(rnd.result.scores) == 0
    assert rnd.result.to_dict()["landlord"] == 0


def test_must_pass_only_when_following_with_nothing_that_beats() -> None:
    """Seat 0 takes both jokers from the bottom and plays the rocket: nothing beats it."""
    rnd = Round(seed=3, deal=DealtCards.from_order(list(DECK)), landlord=0, call_score=1)
    while rnd.phase is Phase.DOUBLING:
        assert rnd.to_act is not None
        rnd.double(rnd.to_act, False)
    assert not rnd.must_pass()  # the landlord leads
    rnd.play(0, ["小王", "大王"])
    assert rnd.to_act == 1
    assert rnd.must_pass()
    rnd.pass_turn(1)
    rnd.pass_turn(2)
    assert not rnd.must_pass()  # the landlord leads again

"""A match: rounds until a team wins by the level rule (or a round limit), and a driver
that plays a whole match from a seed with random legal agents (tests, benchmarks,
bots' sparring).

Between rounds the match carries the levels and the banker (§12); each round's seed is
drawn from the match's, so a match replays from its seed and its actions.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from arena.errors import SetupError
from arena.games.tractor.engine.legal import fill_follow, random_lead
from arena.games.tractor.engine.round import Phase, Round
from arena.games.tractor.engine.rules import DEFAULT_RULES, TractorRules
from arena.games.tractor.engine.scoring import RoundScore, match_winner, team_of

__all__ = ["Match", "play_match", "play_random_round", "round_seed"]


def round_seed(match_seed: int, round_no: int) -> int:
    """Round ``round_no``'s (1-based) seed in the match of ``match_seed``."""
    return random.Random(f"tractor:{match_seed}:{round_no}").getrandbits(63)


@dataclass
class Match:
    """The state a match carries between rounds."""

    rules: TractorRules = DEFAULT_RULES
    seed: int = 0
    levels: tuple[int, int] = (2, 2)
    banker: int | None = None
    """The next round's banker (None before the first round: declaring decides)."""
    previous_banker: int | None = None
    scores: list[RoundScore] = field(default_factory=list)
    points: list[int] = field(default_factory=lambda: [0, 0])
    """Each team's points as defenders over the match (the round limit's tie-break)."""
    over: bool = False
    winner: int | None = None
    """The winning team once over (None: a draw at the round limit)."""

    def new_round(self) -> Round:
        """The next round, dealt from its seed."""
        if self.over:
            raise SetupError("the match is over")
        return Round(
            self.rules,
            seed=round_seed(self.seed, len(self.scores) + 1),
            levels=self.levels,
            banker=self.banker,
            tie_after=self.previous_banker,
        )

    def record(self, finished: Round) -> RoundScore:
        """Carry a finished round's score into the match."""
        score = finished.result
        if score is None:
            raise SetupError("the round is not finished")
        self.scores.append(score)
        self.points[1 - team_of(score.banker)] += score.defender_points
        self.levels = score.levels_after
        self.previous_banker = score.banker
        self.banker = score.next_banker
        winner = match_winner(score, self.rules)
        if winner is not None:
            self.over, self.winner = True, winner
        elif self.rules.round_limit is not None and len(self.scores) >= self.rules.round_limit:
            self.over, self.winner = True, self._leader()
        return score

    def _leader(self) -> int | None:
        for ours, theirs in ((self.levels[0], self.levels[1]), tuple(self.points)):
            if ours != theirs:
                return 0 if ours > theirs else 1
        return None


def play_random_round(round_: Round, rng: random.Random, *, declare_chance: float = 0.3) -> None:
    """Play ``round_`` to its end with random legal decisions drawn from ``rng``."""
    while round_.phase is Phase.DECLARING:
        replies: dict[int, tuple[int, ...] | None] = {}
        for asked in range(round_.players):
            options = round_.declaration_options(asked)
            if options and rng.random() < declare_chance:
                replies[asked] = rng.choice(options).cards
        round_.declare(replies)
    if round_.phase is Phase.BURYING and round_.banker is not None:
        round_.bury(rng.sample(round_.hands[round_.banker], len(round_.kitty)))
    trump = round_.trump
    assert trump is not None
    while round_.phase is Phase.PLAYING:
        seat = round_.to_act
        assert seat is not None
        hand = round_.hands[seat]
        lead = round_.lead
        if lead is None:
            round_.play(seat, random_lead(hand, trump, rng))
        else:
            round_.play(seat, fill_follow(hand, lead, trump, rng))


def play_match(rules: TractorRules = DEFAULT_RULES, *, seed: int, max_rounds: int = 500) -> Match:
    """A whole match played from ``seed`` by random legal agents."""
    match = Match(rules, seed)
    rng = random.Random(seed)
    while not match.over and len(match.scores) < max_rounds:
        round_ = match.new_round()
        play_random_round(round_, rng)
        match.record(round_)
    return match

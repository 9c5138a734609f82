"""What a Dou Dizhu round is played for: what a seat that forfeits a tournament round
loses (``tournaments.forfeits``), or its own result if that is worse.

The round's stakes are what the landlord's side plays for, both farmers' ``call ×
2^exponent`` together (each farmer's own exponent: competition scoring doubles per
farmer), the most any seat can lose in the round. So a forfeiting seat never scores
above another seat at its table in that round, whichever side it sat on: an agent that
never bids (its fallback) and forfeits only as a farmer would otherwise lose half of
what a landlord risks, and could outrank agents that play. Casual scoring has no
doubling: ``2M`` with ``M = call × 2^(bombs + rockets + spring)``.
"""

from __future__ import annotations

from arena.games.ddz.engine.records import Settlement

__all__ = ["stake"]


def stake(result: Settlement) -> int:
    """Both farmers' ``call × 2^exponent`` together: what the landlord pays when it
    loses, the most any seat can (see the module)."""
    call, exponents = result.call_score, result.exponents
    return sum(
        int(call * 2 ** exponents[farmer]) for farmer in range(3) if farmer != result.landlord
    )

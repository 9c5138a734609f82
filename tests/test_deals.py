"""The deal key shared by a duplicate table's seatings."""

import pytest

from tournaments.deals import deal_table, seating_table_id


def test_a_seating_deals_from_its_base_table() -> None:
    assert seating_table_id("s1t2", 3) == "s1t2.3"
    assert deal_table(seating_table_id("s1t2", 3)) == "s1t2"


def test_a_plain_table_deals_from_itself() -> None:
    assert deal_table("s4t1") == "s4t1"


def test_seatings_count_from_one() -> None:
    with pytest.raises(ValueError, match="from 1"):
        seating_table_id("s1t1", 0)

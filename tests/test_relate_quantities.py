"""A statement that gives a new number for what an older one counted supersedes it; one
that counts something else, or says more besides, does not."""

import pytest

from memories.models import Status
from memories.services.write.changes import quantity_changed as _quantity_changed

CHANGED = [
    ("I have two grandchildren.", "I have three grandchildren now, little Oliver was born."),
    ("I'd like to start investing £200 a month.", "I'd like to invest £300 a month now."),
    ("I want to retire at 62.", "I want to retire at 60 now."),
    ("I own two bakeries in Belfast.", "I own three bakeries now."),
    ("Ho 180.000 euro di mutuo residuo sulla casa.", "Ho 150.000 euro di mutuo residuo adesso."),
    ("Possiedo 20 ettari di agrumeto.", "Possiedo 32 ettari adesso."),
    ("Tengo cuatro nietos.", "Tengo cinco nietos ahora."),
    ("Tengo dos pisos en alquiler en Las Palmas.", "Tengo tres pisos en alquiler ahora."),
]
NOT_CHANGED = [
    ("I have two sons.", "I have three daughters."),
    ("I pay £200 a month for rent.", "I pay £300 a month for the nursery."),
    ("I want to retire at 62.", "I can't access my workplace pension before 57."),
    ("My son is 12 years old.", "My daughter is 9 years old."),
    ("My son Tom is 12.", "My son Luke is 9."),
    ("I have two cars.", "I have two cars and a boat."),
    ("I have £10,000 in my ISA.", "I have £5,000 in my current account."),
    ("I prefer email.", "I prefer phone calls."),
]


@pytest.mark.parametrize(("old", "new"), CHANGED)
def test_a_new_count_of_the_same_thing_is_a_change(old, new):
    assert _quantity_changed(old, new) is True


@pytest.mark.parametrize(("old", "new"), NOT_CHANGED)
def test_another_thing_counted_is_not_a_change(old, new):
    assert _quantity_changed(old, new) is False


@pytest.mark.django_db
def test_a_new_count_supersedes_the_old_memory(personas, said_later):
    old, new = "I own two bakeries in Belfast.", "I own three bakeries now."
    assert said_later(old, new) == ("updated", Status.SUPERSEDED)

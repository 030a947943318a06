"""A later decision that decides otherwise about the same thing supersedes the earlier
one; a decision about something else does not."""

import pytest

from memories.models import Memory, Status
from memories.services.write.changes import decision_changed as _decision_changed

CHANGED = [
    (
        "I have decided to sell the buy-to-let flat in Salford.",
        "I have decided to keep the Salford flat after all.",
    ),
    (
        "I have decided to take the Danske Bank loan for the Bangor shop.",
        "I have decided to take the Ulster Bank loan instead.",
    ),
    ("I have decided to sell the car.", "I have decided to keep the car."),
    ("Ho deciso di vendere la casa di Bari.", "Ho deciso di tenere la casa di Bari."),
    (
        "He decidido mantener el fondo de pensiones de la empresa.",
        "He decidido cancelar el fondo de pensiones de la empresa.",
    ),
    (
        "He decidido abrir una cuenta en Santander.",
        "He decidido abrir la cuenta en BBVA en cambio.",
    ),
]
NOT_CHANGED = [
    ("I have decided to sell the car.", "I have decided to sell the boat."),
    ("I have decided to buy a house in Leeds.", "I have decided to sell the car."),
    ("I have decided to open an ISA.", "I have decided to close the current account."),
    ("I have decided to sell.", "I have decided to keep."),  # keep what? nothing to compare
    ("Ho deciso di vendere la casa di Bari.", "Ho deciso di vendere la barca."),
    ("He decidido cancelar el seguro del coche.", "He decidido cancelar la tarjeta de crédito."),
    ("I have decided to retire at 60.", "I have decided to move to Spain instead of Portugal."),
]


@pytest.mark.parametrize(("old", "new"), CHANGED)
def test_deciding_otherwise_about_the_same_thing_is_a_change(old, new):
    assert _decision_changed(old, new) is True


@pytest.mark.parametrize(("old", "new"), NOT_CHANGED)
def test_a_decision_about_something_else_is_not_a_change(old, new):
    assert _decision_changed(old, new) is False


@pytest.mark.django_db
def test_a_reversed_decision_supersedes_the_old_one(personas, said_later):
    old = "I have decided to sell the buy-to-let flat in Salford."
    new = "I have decided to keep the Salford flat after all."
    assert said_later(old, new) == ("updated", Status.SUPERSEDED)


@pytest.mark.django_db
def test_a_decision_about_another_thing_leaves_the_first_alone(personas, said_later):
    action, status = said_later(
        "I have decided to sell the car.", "I have decided to sell the boat."
    )
    assert action != "updated"
    assert status == Status.ACTIVE


@pytest.mark.django_db
def test_a_preference_for_it_is_kept_with_what_it_stands_for(personas, post_event):
    """ "I prefer it…" names nothing of its own. Said of two trackers a month apart, each is
    kept with the sentence that names its tracker; neither repeats nor replaces the other."""
    post_event("We tried the SORT tracker. I prefer it due to its simplicity.", days_ago=30)
    post_event("Then we tried DeepSORT. I prefer it due to its flexibility.")
    live = Memory.objects.filter(status=Status.ACTIVE).values_list("content", flat=True)
    assert any("SORT tracker" in c and "simplicity" in c for c in live)
    assert any("DeepSORT" in c and "flexibility" in c for c in live)

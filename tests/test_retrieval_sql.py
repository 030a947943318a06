"""The ranking statement's fragments (``retrieval/sql.py``) keep each parameter with the text
it stands in: composed, the parameters come in the order the text names them."""

import pytest

from memories.services.retrieval.sql import Sql, sql


def test_a_fragment_holds_as_many_values_as_placeholders():
    with pytest.raises(ValueError):
        Sql("m.tier = ANY(%s) AND m.kind = ANY(%s)", (["core"],))


def test_parameters_follow_the_text_whatever_order_they_are_given_in():
    where = sql("m.tier = ANY({tier})", tier=["core"])
    statement = sql(
        "SELECT 1 WHERE {where} AND m.created_at BETWEEN {first} AND {last} LIMIT {k}",
        k=5,
        last="2024-12-31",
        first="2024-01-01",
        where=where,
    )
    assert statement == Sql(
        "SELECT 1 WHERE m.tier = ANY(%s) AND m.created_at BETWEEN %s AND %s LIMIT %s",
        (["core"], "2024-01-01", "2024-12-31", 5),
    )


def test_a_name_used_twice_binds_its_value_twice():
    assert sql("{d}::date - {n}::int, {d}::date", d="2024-01-01", n=3).params == (
        "2024-01-01",
        3,
        "2024-01-01",
    )


def test_join_and_add_keep_each_parts_values():
    parts = [Sql("a = %s", (1,)), Sql("b"), Sql("c = %s", (3,))]
    assert Sql(" AND ").join(parts) + Sql(" LIMIT %s", (9,)) == Sql(
        "a = %s AND b AND c = %s LIMIT %s", (1, 3, 9)
    )


@pytest.mark.parametrize(
    ("template", "values"),
    [
        ("m.id = %s AND {x}", {"x": 1}),  # a bare placeholder: its value would be unnamed
        ("m.id = {x}", {"x": 1, "y": 2}),  # a value the text does not name
        ("m.id = {x!r}", {"x": 1}),  # formatting belongs to the parameter's adapter
    ],
)
def test_a_template_names_every_parameter_and_no_other(template, values):
    with pytest.raises(ValueError):
        sql(template, **values)

"""What a question says about the conversation is not what it asks about."""

import pytest

from memories.services.retrieval.framing import unframed


@pytest.mark.parametrize(
    ("question", "searched"),
    [
        (
            "Can you walk me through the order in which I brought up the steps of my mortgage "
            "application throughout our conversations (mention 4 items in order)?",
            "the steps of my mortgage application?",
        ),
        (
            "Can you give me a detailed summary of the renovation plans?",
            "the renovation plans?",
        ),
        (
            "Could you give me a thorough summary that captures the move to Bristol?",
            "the move to Bristol?",
        ),
        ("How did my discussions about the pension progress?", "How did the pension progress?"),
        ("Did I ever mention my sister's wedding?", "my sister's wedding?"),
        ("Which bank did I mention in our chats?", "Which bank?"),
        ("What did we discuss about her ISA?", "What about her ISA?"),
        (
            "Puoi farmi un riassunto del piano di investimento di cui abbiamo parlato?",
            "piano di investimento?",
        ),
        (
            "¿Puedes darme un resumen de la hipoteca en nuestras conversaciones?",
            "¿la hipoteca?",
        ),
        # Nothing about the conversation: as it is.
        ("What is the login API response time?", "What is the login API response time?"),
        ("She saves in order to buy a flat.", "She saves in order to buy a flat."),
        ("Are her papers in order before the move?", "Are her papers in order before the move?"),
        (
            "Does she want an annual summary of the fees?",
            "Does she want an annual summary of the fees?",
        ),
        ("Which funds are in order of risk?", "Which funds are in order of risk?"),
        # Nothing but the conversation: as it is (there is nothing else to search for).
        ("What did I mention?", "What did I mention?"),
        ("Can you give me a summary?", "Can you give me a summary?"),
    ],
)
def test_a_question_is_searched_without_what_it_says_about_the_conversation(question, searched):
    assert unframed(question) == searched

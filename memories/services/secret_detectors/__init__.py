"""The detectors of secrets said in conversation (``memories.services.secrets`` withholds
what they find): with their name (``named``), as card numbers (``cards``), as keys and
tokens (``keys``), and as the answer to a question for one (``answers``)."""

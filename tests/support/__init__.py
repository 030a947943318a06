"""What tests share and test nothing themselves: factories, the fake Voyage/OpenAI server, a
webhook receiver, a live server, browser fixtures, database snapshots, job and migration
helpers. Test modules are the ``tests/test_*.py`` files, named for what they test."""

#!/usr/bin/env python
import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryhub.settings")
    if sys.argv[1:2] == ["embedded_db"]:
        # It reports on the embedded server, or stops it: loading the settings must not
        # start it first.
        os.environ["MEMORYHUB_EMBEDDED_DB_UNSTARTED"] = "1"
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()

#!/usr/bin/env bash
# The whole test suite (what `make test` runs): the browser tests need Debian's Chromium,
# one test needs a Redis server and the catalogues' checks GNU gettext. They are installed
# when missing and this runs as root with apt-get (as CI does); otherwise those tests say
# they are skipped and why.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium chromium-driver)
command -v redis-server >/dev/null || missing+=(redis-server)
command -v msgfmt >/dev/null || missing+=(gettext)  # the catalogues' checks
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq "${missing[@]}" >/dev/null
    else
        echo "note: ${missing[*]} missing and not installable here (needs root and apt-get):" \
            "the tests that need them will be skipped" >&2
    fi
fi

# A private Redis for tests/test_redis_broker.py, stopped when the suite ends.
if command -v redis-server >/dev/null && [ -z "${MEMORYHUB_TEST_REDIS_URL:-}" ]; then
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    redis-server --bind 127.0.0.1 --port "$port" --daemonize yes --save "" --appendonly no \
        --pidfile "/tmp/memoryhub-test-redis-$port.pid" --logfile /dev/null
    trap 'kill "$(cat /tmp/memoryhub-test-redis-'"$port"'.pid)" 2>/dev/null || true' EXIT
    for _ in $(seq 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
    export MEMORYHUB_TEST_REDIS_URL="redis://127.0.0.1:$port/15"
fi

.venv/bin/pytest "$@"

"""What an answer costs an agent: bytes and tokens per result of a search for 5 and of a
context call, by default and with ``explain``, over the API and as MCP tool results.

    python bench/answer_size.py [--tree DIR ...] [--data FILE] [--clients N] [--json OUT]

Each checkout (``--tree``; default this one: pass an older checkout to compare, e.g.
``git archive <commit> | tar -x -C /tmp/before``) gets a server of its own
(bench/_server.py), the advisor development set in the repository
(``bench/data/advisor_team.json``) posted through the batch API, and each of its questions
asked as ``POST /api/v1/search/`` (``k`` 5), ``POST /api/v1/context/`` (the question as
the message) and the MCP tools ``recall`` and ``get_context`` over Streamable HTTP.
Tokens are counted as one per 4 characters (rounded up), a fixed rule: no tokenizer ships
with the project. A tree that does not take ``explain`` is measured by default alone.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import statistics
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
from _report import report, rows_beside
from _server import Server, add_arguments, configurations, serve

DATA = Path(__file__).resolve().parent / "data" / "advisor_team.json"
CHARS_PER_TOKEN = 4


def tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def events_of(client: dict, now: datetime) -> list[dict]:
    out = []
    for session in client["sessions"]:
        start = now - timedelta(days=session["days_ago"], hours=2)
        for i, event in enumerate(session["events"]):
            out.append(
                {
                    "client": client["ref"],
                    "session": f"{client['ref']}-{session['id']}",
                    "source": event.get("source", "chat"),
                    "speaker": event["speaker"],
                    "content": event["content"],
                    "external_id": f"{client['ref']}-{session['id']}-{i}",
                    "observed_at": (start + timedelta(minutes=i)).strftime("%Y-%m-%dT%H:%M:%SZ"),
                }
            )
    return out


def load(api: httpx.Client, clients: list[dict]) -> None:
    now = datetime.now(UTC)
    for client in clients:
        events = events_of(client, now)
        for i in range(0, len(events), 100):
            api.post(
                "/api/v1/events/batch/", json={"events": events[i : i + 100]}
            ).raise_for_status()


class Tally:
    """Answers of one kind: their bytes, characters and results."""

    def __init__(self) -> None:
        self.sizes: list[tuple[int, int, int]] = []  # (bytes, characters, results)

    def add(self, text: str, results: int) -> None:
        self.sizes.append((len(text.encode()), len(text), results))

    def figures(self) -> dict:
        results = sum(r for _, _, r in self.sizes)
        total = sum(b for b, _, _ in self.sizes)
        return {
            "answers": len(self.sizes),
            "bytes_mean": round(statistics.fmean(b for b, _, _ in self.sizes)),
            "tokens_mean": round(
                statistics.fmean(math.ceil(c / CHARS_PER_TOKEN) for _, c, _ in self.sizes)
            ),
            "results": results,
            "bytes_per_result": round(total / results) if results else None,
            "tokens_per_result": round(
                sum(math.ceil(c / CHARS_PER_TOKEN) for _, c, _ in self.sizes) / results
            )
            if results
            else None,
        }


def _results(call: str, body: dict) -> int:
    return len(body["results"]) if call == "search" else len(body["memories"])


def measure_api(api: httpx.Client, questions: list[tuple[str, str]]) -> dict[str, Tally]:
    tallies: dict[str, Tally] = {}
    explains = True
    for ref, query in questions:
        asked: dict[str, tuple[str, dict[str, Any]]] = {
            "search": ("/api/v1/search/", {"client": ref, "query": query, "k": 5}),
            "context": ("/api/v1/context/", {"client": ref, "message": query}),
        }
        for call, (path, body) in asked.items():
            answer = api.post(path, json=body)
            answer.raise_for_status()
            tallies.setdefault(call, Tally()).add(answer.text, _results(call, answer.json()))
            if not explains:
                continue
            answer = api.post(path, json={**body, "explain": True})
            if answer.status_code == 400:  # a tree from before explain
                explains = False
                continue
            answer.raise_for_status()
            tallies.setdefault(f"{call} explain", Tally()).add(
                answer.text, _results(call, answer.json())
            )
    return tallies


async def measure_mcp(server: Server, questions: list[tuple[str, str]]) -> dict[str, Tally]:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp_types import TextContent

    tallies: dict[str, Tally] = {}
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {server.key}"}, timeout=120)
    async with Client(streamable_http_client(f"{server.url}mcp/", http_client=http)) as mcp:
        for ref, query in questions:
            asked: dict[str, dict[str, Any]] = {
                "recall": {"client": ref, "query": query, "k": 5},
                "get_context": {"client": ref, "message": query},
            }
            for tool, arguments in asked.items():
                result = await mcp.call_tool(tool, arguments)
                text = "".join(c.text for c in result.content if isinstance(c, TextContent))
                if result.is_error:
                    raise SystemExit(f"{tool}: {text}")
                body = result.structured_content or {}
                count = _results("search" if tool == "recall" else "context", body)
                tallies.setdefault(f"mcp {tool} text", Tally()).add(text, count)
                tallies.setdefault(f"mcp {tool} structured", Tally()).add(
                    json.dumps(body, ensure_ascii=False), count
                )
    return tallies


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    add_arguments(parser)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--clients", type=int, default=None, help="only the first N clients")
    parser.add_argument("--json", type=Path, help="write every figure to this file")
    args = parser.parse_args()
    clients = json.loads(args.data.read_text())["clients"][: args.clients]
    questions = [(c["ref"], q["query"]) for c in clients for q in c["questions"]]
    out: dict[str, dict] = {}
    for configuration in configurations(args):
        with serve(configuration, tenant="answers") as server:
            headers = {"Authorization": f"Bearer {server.key}"}
            with httpx.Client(base_url=server.url, headers=headers, timeout=120) as api:
                load(api, clients)
                tallies = measure_api(api, questions)
            tallies.update(asyncio.run(measure_mcp(server, questions)))
        out[configuration.label] = {name: t.figures() for name, t in tallies.items()}
    print(f"{len(questions)} questions; tokens: 1 per {CHARS_PER_TOKEN} characters")
    columns = ("bytes_mean", "tokens_mean", "results", "bytes_per_result", "tokens_per_result")
    print(f"{'':<18}{'answer':<26}" + "".join(f"{c.replace('_', ' '):>18}" for c in columns))
    for label, figures in out.items():
        for name, f in figures.items():
            cells = "".join(f"{'-' if f[c] is None else f[c]:>18}" for c in columns)
            print(f"{label:<18}{name:<26}{cells}")
    trees = {c.label: c.tree for c in configurations(args)}
    report(f"answer_size ({len(questions)} questions)", rows_beside(out, trees=trees))
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()

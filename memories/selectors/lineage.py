"""A memory's lineage: the memories linked to it by relations, laid out as a small graph
for the memory page (server-rendered SVG, no script).

Nodes are stacked oldest first, one row each, so the graph reads top to bottom and fits
a phone's width; edges are curves in the left gutter, one lane per overlapping span.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field

from django.db.models import Q, QuerySet

from memories.models import Memory, Relation, RelationType

GRAPH_TYPES = (
    RelationType.UPDATES,
    RelationType.EXTENDS,
    RelationType.DERIVES,
    RelationType.MERGED_INTO,
    RelationType.CONFLICTS_WITH,
)
MAX_NODES = 24

# Geometry of the SVG (user units; the SVG scales to its container).
WIDTH = 380
GUTTER = 64
NODE_W = WIDTH - GUTTER - 4
NODE_H = 58
PITCH = NODE_H + 26
TOP = 8
LANE_STEP = 11
LANES = 5
LINE_CHARS = 40  # at the stylesheet's 14-unit font, what fits in NODE_W


@dataclass
class Node:
    memory: Memory
    y: int
    current: bool
    lines: list[str]

    @property
    def mid(self) -> int:
        return self.y + NODE_H // 2

    @property
    def text(self) -> list[tuple[int, str]]:
        """(baseline, line) of the content: one line sits higher, two fill the box."""
        first = self.y + (20 if len(self.lines) > 1 else 24)
        return [(first + 17 * i, line) for i, line in enumerate(self.lines)]

    @property
    def meta_y(self) -> int:
        return self.y + (52 if len(self.lines) > 1 else 46)


@dataclass
class Edge:
    type: str
    label: str
    source: Node
    target: Node
    path: str = ""


@dataclass
class Lineage:
    nodes: list[Node] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    width: int = WIDTH
    height: int = 0
    gutter: int = GUTTER
    node_w: int = NODE_W
    node_h: int = NODE_H
    truncated: bool = False

    @property
    def types(self) -> list[tuple[str, str]]:
        """The relation types drawn, for the legend."""
        seen = dict.fromkeys(e.type for e in self.edges)
        return [(t, str(RelationType(t).label)) for t in GRAPH_TYPES if t in seen]


def lineage_of(memory: Memory, *, visible: QuerySet[Memory], limit: int = MAX_NODES) -> Lineage:
    """The memories connected to ``memory`` (breadth first, at most ``limit``) that are in
    ``visible``, and the relations among them."""
    seen = {memory.pk}
    frontier = {memory.pk}
    relations: dict[int, Relation] = {}
    truncated = False
    while frontier and not truncated:
        rows = list(
            Relation.objects.filter(type__in=GRAPH_TYPES).filter(
                Q(source_id__in=frontier) | Q(target_id__in=frontier)
            )
        )
        neighbours = {r.source_id for r in rows} | {r.target_id for r in rows}
        allowed = set(visible.filter(pk__in=neighbours - seen).values_list("pk", flat=True))
        if len(seen) + len(allowed) > limit:
            allowed = set(sorted(allowed)[: limit - len(seen)])
            truncated = True
        seen |= allowed
        frontier = allowed
        relations.update({r.pk: r for r in rows if r.source_id in seen and r.target_id in seen})
    memories = list(Memory.objects.filter(pk__in=seen).order_by("created_at", "pk"))
    return layout(memory, memories, list(relations.values()), truncated=truncated)


def layout(current: Memory, memories: list[Memory], relations: list[Relation], **kw) -> Lineage:
    nodes = {
        m.pk: Node(
            memory=m,
            y=TOP + row * PITCH,
            current=m.pk == current.pk,
            lines=_lines(m.content),
        )
        for row, m in enumerate(memories)
    }
    edges = [
        Edge(
            type=r.type,
            label=str(RelationType(r.type).label),
            source=nodes[r.source_id],
            target=nodes[r.target_id],
        )
        for r in sorted(relations, key=lambda r: (r.created_at, r.pk))
    ]
    _route(edges)
    height = TOP * 2 + max(len(nodes), 1) * PITCH - (PITCH - NODE_H)
    return Lineage(nodes=list(nodes.values()), edges=edges, height=height, **kw)


def _lines(text: str, width: int = LINE_CHARS) -> list[str]:
    lines = textwrap.wrap(text, width=width, max_lines=2, placeholder=" …")
    return lines or [""]


def _route(edges: list[Edge]) -> None:
    """Each edge a curve from the source's left side to the target's, bulging into the
    gutter; spans that overlap take different lanes so their curves do not coincide."""
    taken: list[list[tuple[int, int]]] = [[] for _ in range(LANES)]
    for edge in sorted(edges, key=lambda e: abs(e.source.mid - e.target.mid)):
        low, high = sorted((edge.source.mid, edge.target.mid))
        lane = next(
            (i for i, spans in enumerate(taken) if all(high <= a or low >= b for a, b in spans)),
            LANES - 1,
        )
        taken[lane].append((low, high))
        x = GUTTER - 2
        bulge = x - 14 - lane * LANE_STEP
        # Each lane attaches a little further from the middle, so two edges between the
        # same pair (a conflict later settled by an update) keep apart to their arrowheads.
        off = min(6 + 10 * lane, NODE_H // 2 - 4)
        step = off if edge.source.mid < edge.target.mid else -off
        y1, y2 = edge.source.mid + step, edge.target.mid - step
        edge.path = f"M {x} {y1} C {bulge} {y1}, {bulge} {y2}, {x - 4} {y2}"

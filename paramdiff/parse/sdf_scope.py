"""One model's frame graph, resolved as libsdformat resolves it (sdf::FrameSemantics, SDF 1.7+).

Every link, ``<frame>``, joint and nested (or included) model of a model is a frame of its
scope; each frame's pose is relative to another frame of the scope (or ``__model__``, the
model's own frame):

- a link's ``<pose relative_to>``; without one, ``__model__``;
- a ``<frame>``'s ``<pose relative_to>``, else its ``attached_to``, else ``__model__``;
- a joint's ``<pose relative_to>``; without one, its child link (sdformat: "the joint frame
  is the child link frame by default");
- a nested model's, or an ``<include>``'s, ``<pose relative_to>``; without one ``__model__``;
  an include's ``<placement_frame>`` makes its pose that of the named frame of the included
  model instead of the included model's frame;
- a name ``A::B`` is frame B inside the nested model A.

``<include merge="true">`` puts the included model's entities into this scope, unscoped;
what was relative to the included model's frame is relative to a frame
``_merged__NAME__model__`` placed where the include says (libsdformat's own name for it).

An axis ``<xyz expressed_in="F">`` is expressed in frame F of the joint's scope (default: the
joint's frame). Checked against libsdformat 12 itself: tests/sdformat_probe and
tests/golden/sdformat/.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from paramdiff.errors import InputError
from paramdiff.parse.sdf import _line
from paramdiff.parse.sdf_frames import Mat, Pose

MODEL_FRAME = "__model__"


def inverse(pose: Pose) -> Pose:
    """The pose of the outer frame in ``pose``'s frame (the rotation transposed)."""
    rt: Mat = (
        (pose.r[0][0], pose.r[1][0], pose.r[2][0]),
        (pose.r[0][1], pose.r[1][1], pose.r[2][1]),
        (pose.r[0][2], pose.r[1][2], pose.r[2][2]),
    )
    p = Pose(r=rt).rotate(pose.p)
    return Pose((-p[0], -p[1], -p[2]), rt)


class Node(NamedTuple):
    """A frame of a model's scope: what it is, the frame its pose is relative to, the pose."""

    kind: str  # "link", "frame", "joint", "model" (nested or included) or "merged"
    name: str
    base: str  # the frame ``pose`` is relative to
    pose: Pose
    elem: Any  # the element, for the line of an error
    file: str
    own: str = MODEL_FRAME  # what __model__ means here (a merged model: its proxy frame)


def solve(
    nodes: dict[str, Node],
    identity: Pose,
    nested: Callable[[str, tuple[str, ...]], dict[str, Pose]],
    wanted: tuple[str, ...] = (),
) -> dict[str, Pose]:
    """Every node's pose in the model's frame; unknown names and loops are refused at the
    line of the pose that names them. ``nested(name, wanted)``: the poses inside nested model
    ``name``, in its frame. ``wanted``: scoped names (``A::B::C``: an axis's expressed_in, a
    placement frame) placed too when they name a frame, else left for the caller to refuse."""
    done: dict[str, Pose] = {MODEL_FRAME: identity}

    def scoped(name: str) -> Pose | None:
        head, _, rest = name.partition("::")
        node = nodes.get(head)
        if node is None or node.kind != "model":
            return None
        inner = nested(head, (rest,) if "::" in rest else ()).get(rest)
        if inner is None:
            return None
        place(head)
        pose = done[head] * inner
        done[name] = pose
        return pose

    def place(name: str) -> None:
        chain: list[Node] = []
        seen: set[str] = set()
        while name not in done:
            node = nodes.get(name)
            if node is None and "::" in name and scoped(name) is not None:
                break
            if node is None or name in seen:
                where = chain[-1] if chain else None
                raise InputError(
                    f"pose relative_to '{name}' names no frame of this model"
                    if node is None
                    else "poses relative_to each other in a loop ("
                    + " -> ".join([*(n.name for n in chain), name])
                    + ")",
                    "make relative_to (or a joint's child) name a link, frame, joint or model "
                    "of the same model",
                    file=where.file if where else "",
                    line=_line(where.elem) if where else 1,
                )
            chain.append(node)
            seen.add(name)
            name = node.base
        pose = done[name]
        for node in reversed(chain):
            pose = pose * node.pose
            done[node.name] = pose

    for name in nodes:
        place(name)
    for name in wanted:
        if name not in done and "::" in name:
            scoped(name)
    return done

"""An SDF model with its ``<include>``s merged the way Gazebo (libsdformat) merges them.

What the geometry check needs from a model is where each link sits and which way each joint
turns, in the top model's frame (Gazebo: x forward, y left, z up):

- ``<include><uri>model://NAME</uri>`` places model NAME's ``model.sdf`` at the include's
  ``<pose>`` (or, without one, at the included model's own ``<pose>``; ``<placement_frame>``
  puts that frame of the included model there instead); every entity inside is scoped
  ``NAME::entity`` (``<name>`` in the include renames the scope), unless ``merge="true"``
  puts them into the including model unscoped. A nested ``<model>`` scopes the same way.
- each model's frames (links, frames, joints, nested models) and their ``relative_to`` are
  resolved as libsdformat's frame semantics do (parse.sdf_scope);
- a joint's ``<axis><xyz>`` is expressed in the joint frame unless ``expressed_in`` names
  another frame of its model (or, in SDF 1.6, ``<use_parent_model_frame>true``);
- ``<pose>`` is ``x y z roll pitch yaw`` in metres and radians (``degrees="true"``: degrees),
  the rotation being Rz(yaw)·Ry(pitch)·Rx(roll) (parse.sdf_frames).

Where ``model://NAME`` lives is the caller's choice (``Resolver``, in ``sdf_paths``): the
pinned repository at the same commit (``<models dir>/NAME/model.sdf``), or, for a local file,
the sibling folders of the model's folder, then ``GZ_SIM_RESOURCE_PATH``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from paramdiff.errors import InputError, quote
from paramdiff.parse.sdf import _line, _local, _parse_xml
from paramdiff.parse.sdf_frames import Pose, Vec, parse_numbers, parse_pose
from paramdiff.parse.sdf_paths import Resolver, _child, _model_name
from paramdiff.parse.sdf_scope import MODEL_FRAME, Node, inverse, solve


class Link(NamedTuple):
    """A link of the merged model, placed in the top model's frame."""

    name: str  # scoped: iris_with_standoffs::rotor_0
    pose: Pose  # in the top model's frame
    file: str
    line: int


class Joint(NamedTuple):
    """A joint of the merged model: its links and axis in the top model's frame."""

    name: str
    parent: str
    child: str
    axis: Vec  # unit vector in the top model's frame: positive joint motion turns about it
    file: str
    line: int


@dataclass(slots=True)
class ModelTree:
    """Links and joints of a model and everything it includes, in the top model's frame."""

    name: str
    file: str
    links: dict[str, Link] = field(default_factory=dict)
    joints: dict[str, Joint] = field(default_factory=dict)
    includes: list[str] = field(default_factory=list)  # files merged in, in include order


# sdformat merges every <include> it meets, so a model that includes the next one twice, 25
# levels down, is 2^25 merged models from 25 small files. A vehicle merges a few models with a
# few dozen links and joints; past these bounds the merge is refused at the line that crossed
# them, before the time or memory goes.
MERGE_LIMIT = 10_000  # elements (links, joints, frames, models, ...) over every merged copy
NESTING_LIMIT = 32  # models inside models, nested or included
ZERO_AXIS = 1e-6  # sdf::equal's default tolerance, which JointAxis::SetXyz compares the norm with


def load_model(data: bytes, file: str, resolve: Resolver) -> ModelTree:
    """The merged model: every link and joint, includes and nested models applied."""
    root = _parse_xml(data, file)
    model = root if _local(root.tag) == "model" else _child(root, "model")
    if model is None:
        raise InputError("no <model> in this SDF", "pass a model.sdf", file=file, line=1)
    tree = ModelTree(model.get("name", ""), file)
    merger = _Merger(tree, resolve)
    merger.grow(model, file, model, "the model")
    merger.model(model, file, "", Pose(), (file,))
    return tree


class _Merger:
    def __init__(self, tree: ModelTree, resolve: Resolver) -> None:
        self.tree = tree
        self.resolve = resolve
        self.merged = 0  # direct children of every model merged so far (MERGE_LIMIT)
        self.files: dict[tuple[str, str], tuple[str, Any]] = {}  # (NAME, parent) -> model
        self.copies: dict[str, int] = {}  # file -> times merged

    def grow(self, model: Any, file: str, at: Any, what: str) -> None:
        """Count ``model``'s elements into the merge; refuse (at ``at``'s line) past the bound."""
        self.merged += len(model)
        if self.merged > MERGE_LIMIT:
            raise InputError(
                f"{what} makes the merged model larger than {MERGE_LIMIT} elements "
                f"(links, joints, models, ...)",
                "include each model once where the vehicle uses it (a model that includes "
                "another twice doubles the merged model at every level)",
                file=file,
                line=_line(at),
            )

    def model(self, model: Any, file: str, prefix: str, at: Pose, stack: tuple[str, ...]) -> None:
        """Place every entity of ``model`` (its frame at ``at`` in the top frame), then the
        models nested or included in it, each in its own scope."""
        nodes, inner = self._scope(model, file, prefix, stack)
        # An axis may be expressed in a frame inside a nested model (podx::tip), as
        # libsdformat allows: those frames are placed too.
        wanted = tuple(n for n in map(_expressed_in, nodes.values()) if "::" in n)
        local = self._solve(nodes, inner, stack, wanted)
        for node in nodes.values():
            if node.kind == "link":
                name = prefix + node.name
                self.tree.links[name] = Link(
                    name, at * local[node.name], node.file, _line(node.elem)
                )
            elif node.kind == "joint":
                self._joint(node, prefix, at, local)
        for name, sub in inner.items():
            if sub.label:  # an include: counted as Gazebo merges it, depth first
                self.copies[sub.label] = self.copies.get(sub.label, 0) + 1
                what = f"<include> model://{sub.uri} (copy {self.copies[sub.label]})"
            else:
                what = f'<model name="{name}">'
            self.grow(sub.model, sub.file, sub.at, what)
            self.model(
                sub.model, sub.label or sub.file, f"{prefix}{name}::", at * local[name], sub.stack
            )

    def _scope(
        self, model: Any, file: str, prefix: str, stack: tuple[str, ...], merged: str = ""
    ) -> tuple[dict[str, Node], dict[str, Inner]]:
        """The frames of ``model``'s scope (sdf_scope), merged includes expanded into it, and
        the nested or included models to place after it. ``merged``: the frame that stands for
        a merged model's own frame (its entities' default base)."""
        nodes: dict[str, Node] = {}
        inner: dict[str, Inner] = {}
        own = merged or MODEL_FRAME

        def node(kind: str, name: str, base: str, default: str, pose: Pose, elem: Any) -> Node:
            # In a merged model, __model__ is the frame that stands for the merged model.
            based = own if base == MODEL_FRAME else (base or default)
            return Node(kind, name, based, pose, elem, file, own)

        for elem in model:
            tag, name = _local(elem.tag), elem.get("name", "")
            pose_elem = _child(elem, "pose")
            base = (pose_elem.get("relative_to", "") if pose_elem is not None else "").strip()
            if tag in ("link", "frame"):
                if tag == "frame" and not base:
                    base = elem.get("attached_to", "").strip()
                nodes[name] = node(tag, name, base, own, parse_pose(pose_elem, file), elem)
            elif tag == "joint":
                child = _text(_child(elem, "child"))
                pose = parse_pose(pose_elem, file)
                nodes[name] = node("joint", name, base, child or own, pose, elem)
            elif tag == "model":
                self._nest(prefix, elem, file)
                placement = elem.get("placement_frame", "").strip()
                refuse = InputError(
                    f'<model name="{quote(name)}" placement_frame="{quote(placement)}"> names '
                    "no frame of that model",
                    "name a link, frame, joint or nested model's frame of the model",
                    file=file,
                    line=_line(elem),
                )
                pose = parse_pose(pose_elem, file)
                pose = pose * self._placement(placement, elem, file, stack, refuse)
                nodes[name] = node("model", name, base, own, pose, elem)
                inner[name] = Inner(elem, file, "", stack, elem, "")
            elif tag == "include":
                self._include(elem, file, prefix, stack, own, nodes, inner)
        return nodes, inner

    def _placement(
        self, placement: str, model: Any, label: str, stack: tuple[str, ...], refuse: InputError
    ) -> Pose:
        """Where a model's placement frame sits in the model's own frame, as the inverse that
        puts that frame (not the model's) at the model's pose: libsdformat's
        resolveModelPoseWithPlacementFrame (src/FrameSemantics.cc), X_RM = X_RP * inv(X_MP),
        for an ``<include><placement_frame>`` and a ``<model placement_frame="...">`` alike.
        ``refuse``: the error when the name is no frame of the model."""
        if not placement:
            return Pose()
        sub_nodes, sub_inner = self._scope(model, label, "", stack)
        placed = self._solve(sub_nodes, sub_inner, stack, (placement,)).get(placement)
        if placed is None:
            raise refuse
        return inverse(placed)

    def _solve(
        self,
        nodes: dict[str, Node],
        inner: dict[str, Inner],
        stack: tuple[str, ...],
        wanted: tuple[str, ...] = (),
    ) -> dict[str, Pose]:
        """Every frame of a scope in the scope's model frame; ``A::B`` names reach into the
        nested model A (its own frames, in A's frame); ``wanted``: such names to place too."""

        def nested(name: str, deeper: tuple[str, ...]) -> dict[str, Pose]:
            sub = inner[name]
            sub_nodes, sub_inner = self._scope(sub.model, sub.label or sub.file, "", sub.stack)
            return self._solve(sub_nodes, sub_inner, sub.stack, deeper)

        return solve(nodes, Pose(), nested, wanted)

    def _nest(self, prefix: str, elem: Any, file: str) -> None:
        """Refuse a model nested (or included) deeper than NESTING_LIMIT: each level is a
        scope of ``prefix``."""
        if prefix.count("::") >= NESTING_LIMIT:
            raise InputError(
                f"models nest more than {NESTING_LIMIT} deep here",
                "flatten the model (a vehicle nests a few models at most)",
                file=file,
                line=_line(elem),
            )

    def _included(self, name: str, file: str, line: int) -> tuple[str, Any]:
        """model://NAME's file and <model>, resolved and parsed once per including file."""
        key = (name, file)
        if key not in self.files:
            label, data = self.resolve(name, file, line)
            root = _parse_xml(data, label)
            inner = root if _local(root.tag) == "model" else _child(root, "model")
            if inner is None:
                raise InputError(
                    f"model://{name} ({label}) has no <model>",
                    "include a model.sdf",
                    file=file,
                    line=line,
                )
            self.files[key] = (label, inner)
        return self.files[key]

    def _include(
        self,
        elem: Any,
        file: str,
        prefix: str,
        stack: tuple[str, ...],
        own: str,
        nodes: dict[str, Node],
        inner: dict[str, Inner],
    ) -> None:
        """An ``<include>``: a model of this scope placed at the include's pose (or its own),
        its ``placement_frame`` at that pose; with ``merge="true"`` its entities join this
        scope, relative to a ``_merged__NAME__model__`` frame placed there."""
        uri = _child(elem, "uri")
        name = _model_name(((uri.text if uri is not None else "") or "").strip(), file, _line(elem))
        label, inner_model = self._included(name, file, _line(elem))
        if label in stack:
            chain = " -> ".join([*stack, label])
            raise InputError(
                f"<include> model://{name} includes itself ({chain})",
                "remove the include that closes the cycle",
                file=file,
                line=_line(elem),
            )
        self._nest(prefix, elem, file)
        merge = elem.get("merge", "").strip().lower() in ("true", "1")
        if merge:  # part of this scope: counted now
            self.copies[label] = self.copies.get(label, 0) + 1
            what = f"<include> model://{name} (copy {self.copies[label]})"
            self.grow(inner_model, file, elem, what)
        if label not in self.tree.includes:
            self.tree.includes.append(label)
        own_pose, own_file = _child(elem, "pose"), file
        if own_pose is None:
            own_pose, own_file = _child(inner_model, "pose"), label
        base = (own_pose.get("relative_to", "") if own_pose is not None else "").strip()
        base = own if base in ("", MODEL_FRAME) else base
        pose = parse_pose(own_pose, own_file)
        inner_stack = (*stack, label)
        placement_elem = _child(elem, "placement_frame")
        placement = _text(placement_elem) or inner_model.get("placement_frame", "").strip()
        refuse = InputError(
            f"<placement_frame> '{quote(placement)}' names no frame of model://{name}",
            "name a link or frame of the included model",
            file=file,
            line=_line(placement_elem if placement_elem is not None else elem),
        )
        pose = pose * self._placement(placement, inner_model, label, inner_stack, refuse)
        scope = _text(_child(elem, "name")) or inner_model.get("name", "") or name
        if merge:
            proxy = f"_merged__{inner_model.get('name', '') or name}__model__"
            nodes[proxy] = Node("merged", proxy, base, pose, elem, file, own)
            sub_nodes, sub_inner = self._scope(inner_model, label, prefix, inner_stack, proxy)
            nodes.update(sub_nodes)
            inner.update(sub_inner)
            return
        nodes[scope] = Node("model", scope, base, pose, elem, file, own)
        inner[scope] = Inner(inner_model, file, label, inner_stack, elem, name)

    def _joint(self, node: Node, prefix: str, at: Pose, local: dict[str, Pose]) -> None:
        elem, file = node.elem, node.file
        parent, child = _text(_child(elem, "parent")), _text(_child(elem, "child"))
        axis_elem = _child(elem, "axis")
        xyz_elem = _child(axis_elem, "xyz") if axis_elem is not None else None
        xyz: Vec = (0.0, 0.0, 1.0)
        frame = at * local[node.name]
        if xyz_elem is not None:
            x, y, z = parse_numbers(xyz_elem, file, 3, "xyz")
            xyz = (x, y, z)
            legacy = _text(_child(axis_elem, "use_parent_model_frame")).lower() in ("1", "true")
            expressed = _expressed_in(node)
            if legacy:
                frame = at * local[node.own]
            elif expressed:
                expressed = node.own if expressed == MODEL_FRAME else expressed
                if expressed not in local:
                    raise InputError(
                        f'<xyz expressed_in="{quote(expressed)}"> names no frame of this model',
                        "name a link, frame, joint or model of the joint's model",
                        file=file,
                        line=_line(xyz_elem),
                    )
                frame = at * local[expressed]
        v = frame.rotate(xyz)
        n = math.sqrt(v[0] ** 2 + v[1] ** 2 + v[2] ** 2)
        # sdformat refuses an axis whose norm equals 0 within 1e-6 (JointAxis::SetXyz); it is
        # kept as (0, 0, 0) here so the geometry check can say so for the channel.
        axis = (v[0] / n, v[1] / n, v[2] / n) if n > ZERO_AXIS else (0.0, 0.0, 0.0)
        name = prefix + node.name
        self.tree.joints[name] = Joint(
            name, prefix + parent, prefix + child, axis, file, _line(elem)
        )


class Inner(NamedTuple):
    """A model nested or included in a scope, placed after the scope's own entities."""

    model: Any  # its <model> element
    file: str  # the file that nests or includes it
    label: str  # an include: the included file ("" for a nested model)
    stack: tuple[str, ...]  # the files included on the way to it (cycles)
    at: Any  # the element a merge bound is refused at
    uri: str  # an include: model://NAME's NAME


def _expressed_in(node: Node) -> str:
    """A joint's ``<axis><xyz expressed_in>`` ("" for none, or for another kind of node)."""
    axis = _child(node.elem, "axis") if node.kind == "joint" else None
    xyz = _child(axis, "xyz") if axis is not None else None
    return (xyz.get("expressed_in", "") if xyz is not None else "").strip()


def _text(elem: Any) -> str:
    return ((elem.text if elem is not None else "") or "").strip()

"""An SDF model with its ``<include>``s merged the way Gazebo merges them.

What the geometry check needs from a model is where each link sits and which way each joint
turns, in the top model's frame (Gazebo: x forward, y left, z up). Gazebo (sdformat) builds
that frame graph like this, and so do we:

- ``<include><uri>model://NAME</uri>`` places model NAME's ``model.sdf`` at the include's
  ``<pose>`` (or, without one, at the included model's own ``<pose>``); every entity inside is
  scoped ``NAME::entity`` (``<name>`` in the include renames the scope). A nested ``<model>``
  scopes the same way and is placed at its own ``<pose>``.
- a ``<link>``/``<frame>`` pose is relative to the model frame unless ``relative_to`` names
  another link or frame of the same model (SDF 1.7+);
- a joint's frame is its child link's frame (times the joint's own ``<pose>``), and its
  ``<axis><xyz>`` is expressed in the joint frame unless ``expressed_in="__model__"`` (or, in
  SDF 1.6, ``<use_parent_model_frame>true</use_parent_model_frame>``);
- ``<pose>`` is ``x y z roll pitch yaw`` in metres and radians (``degrees="true"``: degrees),
  the rotation being Rz(yaw)·Ry(pitch)·Rx(roll) (fixed axes x, then y, then z).

Where ``model://NAME`` lives is the caller's choice (``Resolver``, in ``sdf_paths``): the
pinned repository at the same commit (``<models dir>/NAME/model.sdf``), or, for a local file,
the sibling folders of the model's folder, then ``GZ_SIM_RESOURCE_PATH``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ..errors import InputError
from .sdf import _line, _local, _parse_xml
from .sdf_frames import Pose, Vec, parse_numbers, parse_pose
from .sdf_paths import (
    Resolver,
    _child,
    _model_name,
)


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
        frames = self._frames(model, file, prefix, at)
        for elem in model:
            tag = _local(elem.tag)
            if tag == "link":
                name = prefix + elem.get("name", "")
                self.tree.links[name] = Link(name, frames[name], file, _line(elem))
            elif tag == "joint":
                self._joint(elem, file, prefix, at, frames)
            elif tag == "model":
                self._nest(prefix, elem, file)
                self.grow(elem, file, elem, f'<model name="{elem.get("name", "")}">')
                inner = at * parse_pose(_child(elem, "pose"), file)
                self.model(elem, file, f"{prefix}{elem.get('name', '')}::", inner, stack)
            elif tag == "include":
                self._include(elem, file, prefix, at, stack)

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

    def _include(self, elem: Any, file: str, prefix: str, at: Pose, stack: tuple[str, ...]) -> None:
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
        self.copies[label] = self.copies.get(label, 0) + 1
        self.grow(inner_model, file, elem, f"<include> model://{name} (copy {self.copies[label]})")
        own_pose, own_file = _child(elem, "pose"), file
        if own_pose is None:
            own_pose, own_file = _child(inner_model, "pose"), label
        scope = (_text(_child(elem, "name")) or inner_model.get("name", "") or name) + "::"
        if label not in self.tree.includes:
            self.tree.includes.append(label)
        self.model(
            inner_model, label, prefix + scope, at * parse_pose(own_pose, own_file), (*stack, label)
        )

    def _frames(self, model: Any, file: str, prefix: str, at: Pose) -> dict[str, Pose]:
        """Pose (in the top frame) of every link and <frame> of this model, relative_to applied."""
        raw: dict[str, tuple[Any, str]] = {}
        for elem in model:
            if _local(elem.tag) in ("link", "frame"):
                pose = _child(elem, "pose")
                base = pose.get("relative_to", "") if pose is not None else ""
                if _local(elem.tag) == "frame" and not base:
                    base = elem.get("attached_to", "")
                raw[elem.get("name", "")] = (elem, base)
        done: dict[str, Pose] = {}
        for name in raw:
            _solve(name, raw, done, prefix, at, file)
        return done

    def _joint(self, elem: Any, file: str, prefix: str, at: Pose, frames: dict[str, Pose]) -> None:
        parent, child = _text(_child(elem, "parent")), _text(_child(elem, "child"))
        child_pose = frames.get(prefix + child, at)
        joint_frame = child_pose * parse_pose(_child(elem, "pose"), file)
        axis_elem = _child(elem, "axis")
        xyz_elem = _child(axis_elem, "xyz") if axis_elem is not None else None
        xyz: Vec = (0.0, 0.0, 1.0)
        frame = joint_frame
        if xyz_elem is not None:
            x, y, z = parse_numbers(xyz_elem, file, 3, "xyz")
            xyz = (x, y, z)
            legacy = _text(_child(axis_elem, "use_parent_model_frame")).lower() in ("1", "true")
            if xyz_elem.get("expressed_in", "") == "__model__" or legacy:
                frame = at
        v = frame.rotate(xyz)
        n = math.sqrt(v[0] ** 2 + v[1] ** 2 + v[2] ** 2)
        # sdformat refuses an axis whose norm equals 0 within 1e-6 (JointAxis::SetXyz); it is
        # kept as (0, 0, 0) here so the geometry check can say so for the channel.
        axis = (v[0] / n, v[1] / n, v[2] / n) if n > ZERO_AXIS else (0.0, 0.0, 0.0)
        name = prefix + elem.get("name", "")
        self.tree.joints[name] = Joint(
            name, prefix + parent, prefix + child, axis, file, _line(elem)
        )


def _solve(
    name: str,
    raw: dict[str, tuple[Any, str]],
    done: dict[str, Pose],
    prefix: str,
    at: Pose,
    file: str,
) -> None:
    """Place ``name`` and every frame its pose is relative_to, walking the chain without
    recursion (a chain as long as the model has links is fine)."""
    chain: list[str] = []  # frames whose pose waits on the next one
    seen: set[str] = set()
    while name not in ("", "__model__") and prefix + name not in done:
        elem, base = raw.get(name, (None, ""))
        if elem is None or name in seen:
            raise InputError(
                f"pose relative_to '{name}' names no link or frame of this model"
                if elem is None
                else f"poses relative_to each other in a loop ({' -> '.join([*chain, name])})",
                "make relative_to name a link or frame of the same model",
                file=file,
                line=_line(raw[chain[-1]][0]) if chain else 1,
            )
        chain.append(name)
        seen.add(name)
        name = base
    pose = at if name in ("", "__model__") else done[prefix + name]
    for waiting in reversed(chain):
        pose = pose * parse_pose(_child(raw[waiting][0], "pose"), file)
        done[prefix + waiting] = pose


def _text(elem: Any) -> str:
    return ((elem.text if elem is not None else "") or "").strip()

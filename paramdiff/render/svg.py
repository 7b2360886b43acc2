"""A top view of the vehicle's actuators as the model places them, for the pull request.

Standard library only and deterministic: the same inputs give the same bytes (fixed number
formatting, no timestamps, channels in order). Drawn in the model's top view: Gazebo x
forward points up the page, y left points left. Each actuator is labelled with its output,
the function SITL runs it as, and its direction (a spin arrow for a rotor, a thrust arrow
for a thruster; a thrust straight up or down is drawn as ⊙ or ⊗). Channels with findings are
red, with the findings' numbers from the report.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from paramdiff.render.safe_text import visible
from paramdiff.simulation.actuators import CCW, CW, Geometry, View


def escape(text: str) -> str:
    """Control characters made visible (safe_text), then ``&``, ``<`` and ``>`` as entities,
    as ``xml.sax.saxutils.escape`` writes them (that module imports urllib.request, and with
    it http.client and ssl, for this one function)."""
    text = visible(text)  # XML 1.0 cannot hold C0 controls; none reaches a viewer either
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


WIDTH, SIZE = 820, 600  # px: the drawing is SIZE high, WIDTH wide (labels sit left/right)
MARGIN = 150  # px above and below the actuators
LEGEND = 80  # px of text under the drawing
OK, BAD, INK, FAINT = "#1f5fbf", "#c62828", "#222222", "#9e9e9e"


def _f(x: float) -> str:
    """Fixed formatting so the bytes never depend on float repr quirks."""
    text = f"{x:.1f}"
    return "0.0" if text == "-0.0" else text


def _bow(views: list[View]) -> tuple[float, float]:
    """A point on the centreline ahead of every actuator and of the model origin (model frame,
    m): the outline's nose, so it shows which way the vehicle faces without claiming a hull
    shape the model's actuators do not give."""
    xs = [0.0, *(v.actuator.position[0] for v in views)]
    ys = [0.0, *(v.actuator.position[1] for v in views)]
    span = max(max(xs) - min(xs), max(ys) - min(ys), 0.2)
    return max(xs) + 0.3 * span, 0.0


def _scale(views: list[View]) -> tuple[float, float, float]:
    """(metres to px, centre x, centre y) fitting every actuator, the model origin and the bow
    marker in the drawing area."""
    bow = _bow(views)
    xs = [0.0, bow[0], *(v.actuator.position[0] for v in views)]
    ys = [0.0, bow[1], *(v.actuator.position[1] for v in views)]
    span = max(max(xs) - min(xs), max(ys) - min(ys), 0.2)
    return (SIZE - 2 * MARGIN) / span, (max(xs) + min(xs)) / 2, (max(ys) + min(ys)) / 2


CX = WIDTH / 2  # the page centre of the drawing


def _screen(view: View, k: float, cx: float, cy: float) -> tuple[float, float]:
    return _page(view.actuator.position[0], view.actuator.position[1], k, cx, cy)


def _page(x: float, y: float, k: float, cx: float, cy: float) -> tuple[float, float]:
    """A model-frame point (m) on the page: x forward up, y left to the left."""
    return CX - (y - cy) * k, SIZE / 2 - (x - cx) * k


def _hull(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Convex hull (monotone chain), counter-clockwise; the vehicle's outline."""
    pts = sorted(set(points))
    if len(pts) < 3:
        return pts

    def cross(o: tuple[float, float], a: tuple[float, float], b: tuple[float, float]) -> float:
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower: list[tuple[float, float]] = []
    upper: list[tuple[float, float]] = []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]


def render_svg(title: str, geometry: Geometry) -> Iterator[str]:
    views = geometry.views
    k, cx, cy = _scale(views)
    yield '<?xml version="1.0" encoding="UTF-8"?>'
    yield (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{SIZE + LEGEND}" '
        f'viewBox="0 0 {WIDTH} {SIZE + LEGEND}" font-family="sans-serif" font-size="12">'
    )
    yield f"<title>{escape(title)}</title>"
    yield f'<rect width="{WIDTH}" height="{SIZE + LEGEND}" fill="#ffffff"/>'
    yield from _outline(views, k, cx, cy)
    yield from _nose()
    for view in views:
        yield from _actuator(view, k, cx, cy)
    yield from _legend(title, geometry)
    yield "</svg>"


def _outline(views: list[View], k: float, cx: float, cy: float) -> Iterator[str]:
    """The convex hull of the actuators and the bow marker, spokes from the model origin."""
    centre = _page(0.0, 0.0, k, cx, cy)  # the model origin
    bow = _page(*_bow(views), k, cx, cy)
    pts = [_screen(v, k, cx, cy) for v in views]
    hull = _hull([*pts, bow])
    if len(hull) >= 3:
        path = " ".join(f"{_f(x)},{_f(y)}" for x, y in hull)
        yield f'<polygon points="{path}" fill="#f3f6fb" stroke="{FAINT}" stroke-width="2"/>'
    yield (
        f'<path d="M {_f(bow[0])},{_f(bow[1] - 10)} l -7,12 h 14 z" fill="{FAINT}"/>'
        f'<text x="{_f(bow[0] + 12)}" y="{_f(bow[1] + 4)}" fill="{FAINT}">bow</text>'
    )
    for x, y in pts:
        yield (
            f'<line x1="{_f(centre[0])}" y1="{_f(centre[1])}" x2="{_f(x)}" y2="{_f(y)}" '
            f'stroke="{FAINT}" stroke-width="3"/>'
        )
    yield f'<circle cx="{_f(centre[0])}" cy="{_f(centre[1])}" r="5" fill="{FAINT}"/>'


def _nose() -> Iterator[str]:
    yield (
        f'<path d="M {CX:.1f},18 l -8,14 h 16 z" fill="{INK}"/>'
        f'<text x="{CX + 14:.1f}" y="30" fill="{INK}">forward (Gazebo +x)</text>'
    )


def _actuator(view: View, k: float, cx: float, cy: float) -> Iterator[str]:
    """The actuator's symbol, and its label pushed outward from the drawing's centre."""
    x, y = _screen(view, k, cx, cy)
    colour = BAD if view.findings else OK
    if view.kind == "rotor":
        yield from _spin_arrow(x, y, view.spin, colour)
    else:
        yield from _thrust_arrow(x, y, view, colour)
    ch = view.actuator.channel
    lines = [f"SERVO{ch.output} · {view.label}", ch.joint.rsplit("::", 1)[-1]]
    if view.expected_label and view.function != view.expected:
        lines.append(f"geometry: {view.expected_label}")
    if view.kind == "rotor":
        lines.append(_spin_text(view))
    if view.findings:
        lines.append("findings " + ", ".join(f"[{n}]" for n in view.findings))
    ox, oy = x - CX, y - SIZE / 2
    norm = math.hypot(ox, oy) or 1.0
    ox, oy = ox / norm, oy / norm
    anchor = "start" if ox > 0.35 else ("end" if ox < -0.35 else "middle")
    lx, ly = x + 40 * ox, y + 40 * oy - 14 * (len(lines) - 1) / 2 + 4
    for i, text in enumerate(lines):
        weight = ' font-weight="bold"' if i == 0 else ""
        yield (
            f'<text x="{_f(lx)}" y="{_f(ly + 14 * i)}" text-anchor="{anchor}" '
            f'fill="{colour}"{weight}>{escape(text)}</text>'
        )


def _spin_text(view: View) -> str:
    """The model's spin, and the frame's where they differ ("CW, expected CCW")."""
    names = {CCW: "CCW", CW: "CW"}
    have = names.get(view.spin, "no spin")
    want = names.get(view.expected_spin or 0)
    return have if want is None or view.spin == view.expected_spin else f"{have}, expected {want}"


def _spin_arrow(x: float, y: float, spin: int, colour: str) -> Iterator[str]:
    """A 300° arc around the rotor; the head shows the turning sense seen from above."""
    r = 26.0
    start, end = math.radians(-60), math.radians(240)
    if spin != CCW:
        start, end = end, start
    sx, sy = x + r * math.cos(start), y - r * math.sin(start)
    ex, ey = x + r * math.cos(end), y - r * math.sin(end)
    sweep = 0 if spin == CCW else 1
    yield f'<circle cx="{_f(x)}" cy="{_f(y)}" r="6" fill="{colour}"/>'
    if spin not in (CCW, CW):
        return  # a rotor that cannot spin: no arrow
    yield (
        f'<path d="M {_f(sx)},{_f(sy)} A {_f(r)},{_f(r)} 0 1 {sweep} {_f(ex)},{_f(ey)}" '
        f'fill="none" stroke="{colour}" stroke-width="2.5"/>'
    )
    # Arrow head tangent to the arc at its end.
    tangent = end + (math.pi / 2 if spin == CCW else -math.pi / 2)
    tx, ty = math.cos(tangent), -math.sin(tangent)
    nx, ny = -ty, tx
    tip = (ex + 7 * tx, ey + 7 * ty)
    a = (ex - 3 * tx + 6 * nx, ey - 3 * ty + 6 * ny)
    b = (ex - 3 * tx - 6 * nx, ey - 3 * ty - 6 * ny)
    yield (
        f'<path d="M {_f(tip[0])},{_f(tip[1])} L {_f(a[0])},{_f(a[1])} L {_f(b[0])},{_f(b[1])} '
        f'z" fill="{colour}"/>'
    )


def _thrust_arrow(x: float, y: float, view: View, colour: str) -> Iterator[str]:
    """The thrust of a command above neutral, projected on the top view (FRD -> page)."""
    fx, fy, fz = view.actuator.thrust(view.reversed)
    yield (
        f'<circle cx="{_f(x)}" cy="{_f(y)}" r="9" fill="#ffffff" stroke="{colour}" '
        'stroke-width="2"/>'
    )
    horizontal = math.hypot(fx, fy)
    if max(abs(fx), abs(fy), abs(fz)) < 1e-9:
        return  # it pushes nothing (multiplier 0 or a zero axis): no arrow
    if horizontal < 0.3:
        # Straight up (FRD -z): a dot, "toward the viewer"; down: a cross.
        if fz < 0:
            yield f'<circle cx="{_f(x)}" cy="{_f(y)}" r="3" fill="{colour}"/>'
        else:
            d = 6.0
            yield (
                f'<path d="M {_f(x - d)},{_f(y - d)} L {_f(x + d)},{_f(y + d)} M {_f(x - d)},'
                f'{_f(y + d)} L {_f(x + d)},{_f(y - d)}" stroke="{colour}" stroke-width="2"/>'
            )
        return
    # FRD x forward is up the page, FRD y right is right on the page.
    ux, uy = fy / horizontal, -fx / horizontal
    ex, ey = x + 40 * ux, y + 40 * uy
    nx, ny = -uy, ux
    yield (
        f'<line x1="{_f(x)}" y1="{_f(y)}" x2="{_f(ex)}" y2="{_f(ey)}" stroke="{colour}" '
        'stroke-width="3"/>'
    )
    yield (
        f'<path d="M {_f(ex + 8 * ux)},{_f(ey + 8 * uy)} L {_f(ex + 6 * nx)},{_f(ey + 6 * ny)} '
        f'L {_f(ex - 6 * nx)},{_f(ey - 6 * ny)} z" fill="{colour}"/>'
    )


def _legend(title: str, geometry: Geometry) -> Iterator[str]:
    bad = sum(1 for v in geometry.views if v.findings)
    lines = [
        title,
        geometry.frame,
        "Top view: Gazebo x forward is up the page, y left is left. "
        + (
            "Spin seen from above."
            if any(v.kind == "rotor" for v in geometry.views)
            else "Arrows: thrust for a command above neutral (⊙ up, ⊗ down)."
        ),
        f"{bad} of {len(geometry.views)} channel(s) with findings (red; numbers as in the report)."
        if bad
        else f"All {len(geometry.views)} channel(s) agree with what SITL runs.",
    ]
    for i, text in enumerate(lines):
        weight = ' font-weight="bold"' if i == 0 else ""
        yield f'<text x="12" y="{SIZE + 4 + 17 * i}" fill="{INK}"{weight}>{escape(text)}</text>'

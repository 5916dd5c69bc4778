"""Text a reader of a PDF cannot see, left out while pypdf extracts a page's text.

A hostile document can carry an instruction ("SYSTEM OVERRIDE: answer …") in text that is drawn
but invisible: white on the white page, or so small it has no size. pypdf hands every operator of a
page's content stream to `visitor_operand_before` just before it interprets it. `HiddenTextFilter`
follows the graphics state through those calls (fill and stroke colour, text render mode, font
size, the transformation matrices, the areas painted so far) and empties the operands of a
text-showing operator whose text would be invisible, so pypdf extracts nothing from it. Emptying
the operator, rather than filtering pypdf's `visitor_text` output, is needed because pypdf reports
text in runs that can join a white piece and the black one after it.

Hidden:
- text whose glyphs are under `MIN_VISIBLE_POINTS` high or wide on the page (size 0 in `Tf`, a
  tiny `Tm`/`cm` scale, `0 Tz`);
- white text (DeviceGray, DeviceRGB or DeviceCMYK white, or nearly) and text in render mode 3
  (not painted at all), unless it starts inside an area the page has already painted in another
  colour or with an image: white on a dark band is a heading a reader sees, and render mode 3 over
  a scanned image is how OCR lays its text layer over the scan.
Not detected: colours in other colour spaces (ICC-based, Separation: their white cannot be told
without the page's resources), text clipped away or placed off the page, text covered by a later
drawing, text coloured like a non-white background.
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass, replace
from typing import Any

from pypdf.generic import ArrayObject, ByteStringObject

MIN_VISIBLE_POINTS = 1.0
"""Glyphs smaller than this on the page (in points, 1/72 inch) are not readable: hidden."""
WHITE = 0.95
"""A colour whose every component is this light (CMYK: this little ink) counts as white."""
MAX_PAINTED_AREAS = 1000
"""Painted areas kept apart per page; beyond, they merge into one box around them all (keeping more white
text, not less), so a chart of many thousands of shapes with white labels stays fast."""

Matrix = tuple[float, float, float, float, float, float]
Box = tuple[float, float, float, float]
IDENTITY: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
_EVERYWHERE: Box = (-math.inf, -math.inf, math.inf, math.inf)

_SHOW_TEXT = {b"Tj": 0, b"'": 0, b'"': 2}  # operator -> index of its string operand (TJ: an array)
_FILL_PATH = {b"f", b"F", b"f*", b"B", b"B*", b"b", b"b*"}
_END_PATH = _FILL_PATH | {b"S", b"s", b"n"}
_DEVICE_SPACES = {"/DeviceGray": 1, "/DeviceRGB": 3, "/DeviceCMYK": 4}
_NOT_PAINTED = 3  # text render mode 3: neither filled nor stroked (7: the same, added to the clip)


@dataclass(frozen=True)
class _State:
    """The part of the PDF graphics state that decides whether text shows (saved by `q`, restored by `Q`)."""

    fill_space: str = "/DeviceGray"
    fill_white: bool = False  # the initial colour is black
    stroke_space: str = "/DeviceGray"
    stroke_white: bool = False
    render_mode: int = 0
    font_size: float | None = None  # no `Tf` yet: a broken page, whose size is not known, so not judged
    horizontal_scale: float = 1.0


class HiddenTextFilter:
    """pypdf visitors that blank invisible text; one instance per document, `start_page()` between pages."""

    def __init__(self) -> None:
        self.hidden_pieces = 0
        """Text-showing operators emptied so far (all pages)."""
        self.start_page()

    def start_page(self) -> None:
        """Every page starts in the default graphics state, on blank paper."""
        self._state = _State()
        self._saved: list[_State] = []
        self._forms: list[tuple[_State, Matrix, int]] = []
        self._form_base = IDENTITY
        self._painted: list[Box] = []
        self._path: list[tuple[float, float]] = []

    def extraction_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for pypdf's `PageObject.extract_text` (PyPDFLoader's `extraction_kwargs`)."""
        return {"visitor_operand_before": self.before, "visitor_operand_after": self.after}

    def before(self, operator: bytes, operands: list[Any], cm: Any, tm: Any) -> None:
        """Follow the state; blank the operands of invisible text before pypdf reads them."""
        # A malformed operator is left to pypdf, which copes with it or skips it; the state stays as it was.
        with contextlib.suppress(TypeError, ValueError, IndexError, OverflowError):
            self._visit(operator, operands, _matrix(cm), _matrix(tm))

    def after(self, operator: bytes, operands: list[Any], cm: Any, tm: Any) -> None:
        """A form XObject (`Do`) restores the graphics state it was drawn in, whatever it changed."""
        if operator == b"Do" and self._forms:
            self._state, self._form_base, depth = self._forms.pop()
            del self._saved[depth:]

    def _visit(self, operator: bytes, operands: list[Any], cm: Matrix, tm: Matrix) -> None:
        if operator in _SHOW_TEXT or operator == b"TJ":
            if self._text_is_hidden(self._on_page(cm), tm):
                _blank(operator, operands)
                self.hidden_pieces += 1
        elif operator in (b"q", b"Q"):
            self._save_or_restore(operator)
        elif operator == b"Do":
            self._enter_xobject(cm)
        elif operator == b"INLINE IMAGE":
            self._paint(_unit_square(self._on_page(cm)))
        elif operator == b"sh":
            self._paint(_EVERYWHERE)  # a shading fills the whole clip area
        elif operator in (b"m", b"l", b"c", b"v", b"y", b"re"):
            self._path.extend(_path_points(operator, operands, self._on_page(cm)))
        elif operator in _END_PATH:
            self._end_path(operator)
        else:
            self._state = _next_state(self._state, operator, operands)

    def _on_page(self, cm: Matrix) -> Matrix:
        """pypdf starts a form's content at the identity matrix: put back the matrix the form was drawn with."""
        return _multiply(cm, self._form_base)

    def _save_or_restore(self, operator: bytes) -> None:
        if operator == b"q":
            self._saved.append(self._state)
        elif self._saved:
            self._state = self._saved.pop()

    def _enter_xobject(self, cm: Matrix) -> None:
        """An image paints its unit square; a form's operators follow (pypdf visits them) and `after` undoes them."""
        on_page = self._on_page(cm)
        self._paint(_unit_square(on_page))
        self._forms.append((self._state, self._form_base, len(self._saved)))
        self._form_base = on_page

    def _end_path(self, operator: bytes) -> None:
        if operator in _FILL_PATH and self._path and not self._state.fill_white:
            xs, ys = [x for x, _ in self._path], [y for _, y in self._path]
            self._paint((min(xs), min(ys), max(xs), max(ys)))
        self._path = []

    def _paint(self, box: Box) -> None:
        self._painted.append(box)
        if len(self._painted) > MAX_PAINTED_AREAS:
            self._painted = [_around(self._painted)]

    def _text_is_hidden(self, on_page: Matrix, tm: Matrix) -> bool:
        rendering = _multiply(tm, on_page)
        if self._too_small(rendering):
            return True
        if not self._unseen_on_paper():
            return False
        origin = (rendering[4], rendering[5])
        return not any(_inside(origin, box) for box in self._painted)

    def _too_small(self, rendering: Matrix) -> bool:
        """Whether the glyphs are under `MIN_VISIBLE_POINTS` high or wide once every matrix is applied."""
        if self._state.font_size is None:
            return False
        size = abs(self._state.font_size)
        height = size * math.hypot(rendering[2], rendering[3])
        width = size * abs(self._state.horizontal_scale) * math.hypot(rendering[0], rendering[1])
        return min(height, width) < MIN_VISIBLE_POINTS

    def _unseen_on_paper(self) -> bool:
        """Whether the text would not show on white paper: unpainted, or painted white."""
        mode = self._state.render_mode % 4
        if mode == _NOT_PAINTED:
            return True
        fill_shows = mode in (0, 2) and not self._state.fill_white
        stroke_shows = mode in (1, 2) and not self._state.stroke_white
        return not (fill_shows or stroke_shows)


def _next_state(state: _State, operator: bytes, operands: list[Any]) -> _State:
    """The state after a colour or text-state operator (any other operator leaves it as it is)."""
    if operator in (b"g", b"rg", b"k"):
        space = {b"g": "/DeviceGray", b"rg": "/DeviceRGB", b"k": "/DeviceCMYK"}[operator]
        return replace(state, fill_space=space, fill_white=_is_white(space, operands))
    if operator in (b"G", b"RG", b"K"):
        space = {b"G": "/DeviceGray", b"RG": "/DeviceRGB", b"K": "/DeviceCMYK"}[operator]
        return replace(state, stroke_space=space, stroke_white=_is_white(space, operands))
    if operator == b"cs":
        return replace(state, fill_space=str(operands[0]), fill_white=False)  # a new space starts at black/full ink
    if operator == b"CS":
        return replace(state, stroke_space=str(operands[0]), stroke_white=False)
    if operator in (b"sc", b"scn"):
        return replace(state, fill_white=_is_white(state.fill_space, operands))
    if operator in (b"SC", b"SCN"):
        return replace(state, stroke_white=_is_white(state.stroke_space, operands))
    if operator == b"Tf":
        return replace(state, font_size=float(operands[1]))
    if operator == b"Tr":
        return replace(state, render_mode=int(operands[0]))
    if operator == b"Tz":
        return replace(state, horizontal_scale=float(operands[0]) / 100)
    return state


def _is_white(space: str, operands: list[Any]) -> bool:
    """Whether the colour is (nearly) white; False for any space but the device ones (not told reliably)."""
    count = _DEVICE_SPACES.get(space)
    if count is None or len(operands) != count:
        return False
    values = [float(value) for value in operands]
    if space == "/DeviceCMYK":
        return all(value <= 1 - WHITE for value in values)
    return all(value >= WHITE for value in values)


def _blank(operator: bytes, operands: list[Any]) -> None:
    """Empty the text of a text-showing operator in place: pypdf then extracts nothing from it."""
    if operator == b"TJ":
        operands[0] = ArrayObject()
    else:
        operands[_SHOW_TEXT[operator]] = ByteStringObject(b"")


def _matrix(values: Any) -> Matrix:
    a, b, c, d, e, f = (float(value) for value in values)
    return (a, b, c, d, e, f)


def _multiply(first: Matrix, second: Matrix) -> Matrix:
    """`first` then `second` (PDF matrices act on row vectors: point × first × second)."""
    a, b, c, d, e, f = first
    a2, b2, c2, d2, e2, f2 = second
    return (
        a * a2 + b * c2,
        a * b2 + b * d2,
        c * a2 + d * c2,
        c * b2 + d * d2,
        e * a2 + f * c2 + e2,
        e * b2 + f * d2 + f2,
    )


def _apply(matrix: Matrix, x: float, y: float) -> tuple[float, float]:
    a, b, c, d, e, f = matrix
    return x * a + y * c + e, x * b + y * d + f


def _path_points(operator: bytes, operands: list[Any], on_page: Matrix) -> list[tuple[float, float]]:
    """Page coordinates of a path operator's points (a rectangle's four corners)."""
    numbers = [float(value) for value in operands]
    if operator == b"re":
        x, y, width, height = numbers[:4]
        corners = [(x, y), (x + width, y), (x, y + height), (x + width, y + height)]
        return [_apply(on_page, px, py) for px, py in corners]
    return [_apply(on_page, numbers[i], numbers[i + 1]) for i in range(0, len(numbers) - 1, 2)]


def _unit_square(on_page: Matrix) -> Box:
    """Where an image lands: the unit square under the current matrix."""
    corners = [_apply(on_page, x, y) for x, y in ((0, 0), (1, 0), (0, 1), (1, 1))]
    xs, ys = [x for x, _ in corners], [y for _, y in corners]
    return min(xs), min(ys), max(xs), max(ys)


def _around(boxes: list[Box]) -> Box:
    return (
        min(box[0] for box in boxes),
        min(box[1] for box in boxes),
        max(box[2] for box in boxes),
        max(box[3] for box in boxes),
    )


def _inside(point: tuple[float, float], box: Box) -> bool:
    x, y = point
    return box[0] <= x <= box[2] and box[1] <= y <= box[3]

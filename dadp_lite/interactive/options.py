"""What a sweep chart draws: :class:`SweepOptions`, the settings of :func:`sweep_chart`,
checked once when they are made."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

__all__ = ["SCALES", "SHAPES", "SweepOptions"]

#: Axis scales a chart offers.
SCALES = ("linear", "log", "symlog")
#: Vega marker shapes, in the order series take them (the static figures' o, s, ^, D, v).
SHAPES = ("circle", "square", "triangle-up", "diamond", "triangle-down", "cross")


def _names(value: str | Sequence[str], what: str) -> tuple[str, ...]:
    names = (value,) if isinstance(value, str) else tuple(value)
    if not all(isinstance(n, str) and n for n in names):
        raise TypeError(f"{what} must be a column name or a sequence of them, got {value!r}")
    return names


@dataclass(frozen=True)
class SweepOptions:
    """The settings of one interactive sweep chart (see :func:`sweep_chart`).

    Parameters
    ----------
    x, y : columns of the horizontal axis and of the plotted value.
    se, interval : the value's uncertainty: a standard-error column (band ``y +- z se``) or
        a pair of (lower, upper) columns; at most one of them.
    series : column(s) naming a line; the first names a registry mechanism (its colour and
        label), the others are appended to the label (``"DP swapping, record"``).
    controls : columns each bound to a dropdown; ``all_option`` lists those that also offer
        "all". A row with no value in a control's column is shown at every setting.
    references : column -> legend label of reference curves (dashed, series colour).
    printed : column of the paper's printed values (crosses).
    rules : column -> label of horizontal yardsticks (grey lines).
    colors : mechanism -> colour, replacing the registry's.
    shapes : a value of a ``series`` column -> Vega marker shape (one of :data:`SHAPES`).
    x_title, y_title : axis titles (default: the column names).
    x_scale, y_scale : one of :data:`SCALES`.
    estimate_label : legend label of the estimate's line (``"ours"``).
    interval_label : tooltip label of the interval (default ``"±z SE"`` or ``"interval"``).
    title, description : the chart's title (drawn above it) and the sentence a screen
        reader says (defaults: derived from the axes, series and controls).
    width, height : ``"container"`` (the chart fits its column) or pixels.
    """

    x: str
    y: str
    se: str | None = None
    interval: tuple[str, str] | None = None
    z: float = 1.0
    series: tuple[str, ...] = ("mechanism",)
    controls: tuple[str, ...] = ("dataset",)
    all_option: tuple[str, ...] = ()
    references: Mapping[str, str] = field(default_factory=dict)
    printed: str | None = None
    rules: Mapping[str, str] = field(default_factory=dict)
    colors: Mapping[str, str] = field(default_factory=dict)
    shapes: Mapping[str, str] = field(default_factory=dict)
    x_title: str | None = None
    y_title: str | None = None
    x_scale: str = "linear"
    y_scale: str = "linear"
    estimate_label: str = "ours"
    interval_label: str | None = None
    title: str | None = None
    description: str | None = None
    width: int | str = "container"
    height: int = 300

    def __post_init__(self) -> None:
        set_ = object.__setattr__  # frozen: normalise the inputs once, here
        set_(self, "series", _names(self.series, "series"))
        set_(self, "controls", _names(self.controls, "controls"))
        set_(self, "all_option", _names(self.all_option, "all_option"))
        for name in ("references", "rules", "colors", "shapes"):
            set_(self, name, dict(getattr(self, name) or {}))
        if self.interval is not None:
            set_(self, "interval", tuple(self.interval))
        self._check()

    def _check(self) -> None:
        if self.se is not None and self.interval is not None:
            raise ValueError("sweep_chart: give se or interval, not both")
        if self.interval is not None and len(self.interval) != 2:
            raise ValueError(f"interval must be (lower, upper) columns, got {self.interval!r}")
        for name in ("x_scale", "y_scale"):
            if getattr(self, name) not in SCALES:
                raise ValueError(f"{name} must be one of {SCALES}, got {getattr(self, name)!r}")
        if not self.series:
            raise ValueError("sweep_chart: series names no column")
        unknown = [c for c in self.all_option if c not in self.controls]
        if unknown:
            raise ValueError(f"all_option names {unknown[0]!r}, which is not a control")
        bad = [v for v in self.shapes.values() if v not in SHAPES]
        if bad:
            raise ValueError(f"shapes: {bad[0]!r} is not one of {list(SHAPES)}")
        if not (self.width == "container" or (isinstance(self.width, int) and self.width > 0)):
            raise ValueError(f"width must be 'container' or a positive int, got {self.width!r}")
        if not (isinstance(self.z, int | float) and self.z > 0):
            raise ValueError(f"z must be a positive number, got {self.z!r}")

    @property
    def columns(self) -> list[str]:
        """Every column of the data the chart reads."""
        bounds = list(self.interval or ()) or ([self.se] if self.se else [])
        extra = [self.printed] if self.printed else []
        named = [*self.series, *self.controls, *self.references, *extra, *self.rules]
        return [self.x, self.y, *bounds, *named]

    @property
    def has_interval(self) -> bool:
        return self.se is not None or self.interval is not None

    @property
    def x_label(self) -> str:
        return self.x_title or self.x

    @property
    def y_label(self) -> str:
        return self.y_title or self.y

    @property
    def band_label(self) -> str:
        """How a tooltip names the interval."""
        if self.interval_label:
            return self.interval_label
        return f"±{self.z:g} SE" if self.se is not None else "interval"

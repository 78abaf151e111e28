"""Sweep grids: the YAML file, its Cartesian product, and every point checked up front."""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from dadp_book.errors import BuildError
from dadp_book.parameters import validate_parameters
from dadp_book.provenance import record_id
from dadp_book.yamlio import load_yaml_file

__all__ = ["MAX_POINTS", "Point", "expand_grid", "load_grid", "plan_points", "tag_value"]

#: More points than this is almost certainly a mistake in the grid file.
MAX_POINTS = 10_000


@dataclass(frozen=True)
class Point:
    """One grid point: its id (a hash of its values) and the values passed to the chapter."""

    point_id: str
    values: dict
    coordinates: dict


def load_grid(path: Path) -> dict[str, list]:
    """Grid YAML: ``NAME: [v1, v2, ...]`` per swept parameter; a scalar is a fixed value."""
    content = load_yaml_file(path, "grid file")
    if not isinstance(content, dict) or not content:
        raise BuildError(
            f"grid file {path} has no points: it must map parameter names to lists of values"
        )
    grid = {}
    for name, axis in content.items():
        axis = list(axis) if isinstance(axis, list) else [axis]
        if not axis:
            raise BuildError(f"grid file {path} has no points: {name} has an empty list")
        grid[str(name)] = axis
    return grid


def expand_grid(grid: Mapping[str, Sequence]) -> list[dict]:
    """Cartesian product of the grid's axes, in the order the grid lists them."""
    names = list(grid)
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*grid.values())]


def tag_value(value: object) -> object:
    """A point's value as a results.csv cell (a one-element list is its element)."""
    if isinstance(value, list | tuple):
        return value[0] if len(value) == 1 else json.dumps(list(value))
    return value


def plan_points(
    root: Path, slug: str, grid: Mapping[str, Sequence], base: Mapping[str, object], source: Path
) -> list[Point]:
    """Every point of the grid, each value checked; the same point twice is refused."""
    total = 1
    for axis in grid.values():
        total *= len(axis)
    if total > MAX_POINTS:
        raise BuildError(f"grid file {source} has {total} points; at most {MAX_POINTS}")
    points, seen = [], {}
    for coordinates in expand_grid(grid):
        values = validate_parameters(root, slug, {**base, **coordinates})
        point_id = record_id(values, 12)
        checked = {name: values[name] for name in coordinates}
        if point_id in seen:
            raise BuildError(
                f"grid file {source} lists the same point twice: {seen[point_id]} and {checked}"
            )
        seen[point_id] = checked
        points.append(Point(point_id, values, checked))
    return points

"""Tests of simulator._style and the registry's styles: one look per system."""

from __future__ import annotations

import itertools

import pytest

from simulator._style import (
    SYSTEM_STYLES,
    VARIANT_COLOURS,
    assign_styles,
    default_styles,
    variant_style,
)
from simulator.systems import STYLES, SYSTEMS, style


def test_every_registered_system_has_one_style() -> None:
    """The registry and its styles name the same systems, each looking different."""
    assert set(STYLES) == set(SYSTEMS)
    assert len({s.colour for s in STYLES.values()}) == len(STYLES)
    assert len({s.name for s in STYLES.values()}) == len(STYLES)
    assert len({(s.marker, s.linestyle) for s in STYLES.values()}) == len(STYLES)
    assert style("lichess").name == "Lichess"
    assert style("classic").name == "old FIDE"
    with pytest.raises(ValueError, match="Unknown rating system 'nope'"):
        style("nope")


def test_variant_palette_stays_distinct_past_ten() -> None:
    """Forty variants differ in colour or line style, none in a registry colour."""
    looks = [variant_style(i, f"v{i}") for i in range(40)]
    assert len({(s.colour, s.linestyle) for s in looks}) == 40
    registry = {s.colour for s in SYSTEM_STYLES.values()}
    assert not registry & set(VARIANT_COLOURS)
    # Neighbours differ in marker too.
    assert all(a.marker != b.marker for a, b in itertools.pairwise(looks))


def test_a_system_keeps_its_style_in_every_run() -> None:
    """Lichess looks the same whatever else a run has, and however configured alone."""
    alone = assign_styles([("lichess", "lichess", True)])["lichess"]
    many = assign_styles(
        [("fide", "fide", True), ("x", "fide", False), ("lichess", "lichess", True)]
    )["lichess"]
    configured = assign_styles([("online", "lichess", False)])["online"]
    assert alone == many
    assert configured.colour == alone.colour
    assert configured.name == "online"


def test_variants_of_one_system_get_the_palette() -> None:
    """The default configuration keeps the registry style; others the palette."""
    s = assign_styles(
        [
            ("cap 350", "fide", False),
            ("fide", "fide", True),
            ("no cap", "fide", False),
        ]
    )
    assert s["fide"] == SYSTEM_STYLES["fide"]
    assert s["cap 350"].colour == VARIANT_COLOURS[0]
    assert s["no cap"].colour == VARIANT_COLOURS[1]
    assert s["no cap"].name == "no cap"


def test_a_label_naming_another_system_says_which_runs() -> None:
    """A sweep that swaps Lichess for Glicko-2 under the label shows both names."""
    s = assign_styles([("lichess", "glicko2", True)])
    assert s["lichess"].name == "lichess (Glicko-2)"
    assert s["lichess"].colour == SYSTEM_STYLES["glicko2"].colour


def test_default_styles_read_registry_names() -> None:
    """Labels that are registry names get the registry's style; others variants."""
    s = default_styles(["glicko2", "mine"])
    assert s["glicko2"] == SYSTEM_STYLES["glicko2"]
    assert s["mine"].colour == VARIANT_COLOURS[0]

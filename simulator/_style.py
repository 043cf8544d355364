"""How each rating system looks in figures and tables: colour, marker, line, name.

One :class:`Style` per registry name (:data:`SYSTEM_STYLES`, re-exported by
the registry, :mod:`simulator.systems`, whose tests hold its keys to
:data:`~simulator.systems.SYSTEMS`), so that Lichess has the same colour in
every report. The table lives in the base layer because the figures
(:mod:`simulator.evaluation`) may not import the systems, yet must draw them.

A system run with its default parameters gets its registry style; other
configurations of a system (variants, labelled by the config) get the
variant palette (:func:`variant_style`): ten colours, none of them a
registry colour, crossed with four line styles and eight markers, so the
first forty variants differ in colour or line style and each neighbour in
marker too. :func:`assign_styles` does both for the systems of a run.

The registry colours are the Okabe-Ito palette, chosen to stay distinct
under the common colour-vision deficiencies (Okabe and Ito, *Color Universal
Design*, 2008); the variant colours are Paul Tol's "muted" scheme.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

__all__ = [
    "SYSTEM_STYLES",
    "VARIANT_COLOURS",
    "Style",
    "assign_styles",
    "default_styles",
    "display_names",
    "variant_style",
]


@dataclass(frozen=True)
class Style:
    """How one system is drawn and named.

    Attributes
    ----------
    name : str
        Display name in figures and tables ("FIDE 2025", "Glicko-2").
    colour : str
        A matplotlib colour (``"#RRGGBB"``).
    marker : str
        A matplotlib marker.
    linestyle : str
        A matplotlib line style (``"-"``, ``"--"``, ``"-."``, ``":"``).
    """

    name: str
    colour: str
    marker: str
    linestyle: str


#: Registry name -> style. Display names follow the rules each implements
#: (docs/rules.md): the FIDE rules from October 2025 and from 2024, FIDE's
#: rules in their historical order (section 7), the FIDE rules before July
#: 2009, Glickman's Glicko-2 and Glicko, Lichess's Glicko-2, plain Elo.
SYSTEM_STYLES: dict[str, Style] = {
    "fide": Style("FIDE 2025", "#0072B2", "o", "-"),
    "fide-2024": Style("FIDE 2024", "#56B4E9", "s", "--"),
    "fide-history": Style("FIDE with history", "#8C564B", "h", "-"),
    "classic": Style("old FIDE", "#000000", "^", "-."),
    "glicko2": Style("Glicko-2", "#009E73", "D", "-"),
    "lichess": Style("Lichess", "#D55E00", "v", "--"),
    "glicko": Style("Glicko-1", "#CC79A7", "P", "-."),
    "elo": Style("Elo", "#E69F00", "X", ":"),
}

#: The variant palette's colours (Tol's muted scheme and its dark red): none
#: is a registry colour, and none is grey, the colour of the other curves
#: behind each panel.
VARIANT_COLOURS = (
    "#332288",
    "#882255",
    "#44AA99",
    "#999933",
    "#AA4499",
    "#117733",
    "#88CCEE",
    "#CC6677",
    "#DDCC77",
    "#661100",
)
_VARIANT_LINESTYLES = ("-", "--", "-.", ":")
_VARIANT_MARKERS = ("o", "s", "^", "D", "v", "<", ">", "p")


def variant_style(i: int, name: str) -> Style:
    """The ``i``-th variant's style, displayed as ``name``.

    Colours cycle fastest, then line styles: variants ``i`` and ``j`` differ
    in colour or line style whenever ``i != j`` and both are below 40.

    >>> variant_style(0, "a") == variant_style(40, "a")
    True
    >>> variant_style(0, "a").colour == variant_style(10, "a").colour
    True
    >>> variant_style(0, "a").linestyle == variant_style(10, "a").linestyle
    False
    """
    n = len(VARIANT_COLOURS)
    return Style(
        name,
        VARIANT_COLOURS[i % n],
        _VARIANT_MARKERS[i % len(_VARIANT_MARKERS)],
        _VARIANT_LINESTYLES[(i // n) % len(_VARIANT_LINESTYLES)],
    )


def _display(label: str, system: str | None) -> str:
    """A label's display name: the registry's for a plain system, else the label."""
    if system is None:
        return label
    base = SYSTEM_STYLES[system].name
    if label == system:
        return base
    if label in SYSTEM_STYLES:
        # A label that names another system (a sweep that swapped the
        # system under it): say which one it is.
        return f"{label} ({base})"
    return label


def assign_styles(
    systems: Iterable[tuple[str, str | None, bool]],
) -> dict[str, Style]:
    """Styles for the systems of a run, by label.

    Parameters
    ----------
    systems : iterable of (label, registry name or None, default parameters)
        Each system as the config names it: its label, the registry name
        it runs (None if unknown) and whether it runs the system's default
        parameters. Labels seen before are skipped.

    Returns
    -------
    dict of str to Style
        Each registry name's style goes to one of its systems: the first with
        default parameters, else the first (so a run with one Lichess, however
        configured, draws it in Lichess's colour); its name is the registry's
        display name where the label is the registry name, else the label.
        Every other system gets the next :func:`variant_style`, in order.

    Examples
    --------
    >>> s = assign_styles(
    ...     [("no cap", "fide", False), ("fide", "fide", True), ("x", None, True)]
    ... )
    >>> s["fide"].name, s["no cap"].name, s["no cap"].colour, s["x"].colour
    ('FIDE 2025', 'no cap', '#332288', '#882255')
    """
    items: list[tuple[str, str | None, bool]] = []
    for label, system, default in systems:
        if label not in {i[0] for i in items}:
            known = system if system in SYSTEM_STYLES else None
            items.append((label, known, default))
    owner: dict[str, str] = {}
    for label, system, default in items:
        if system is not None and default and system not in owner:
            owner[system] = label
    for label, system, _ in items:
        if system is not None and system not in owner:
            owner[system] = label
    out: dict[str, Style] = {}
    n_variants = 0
    for label, system, _ in items:
        if system is not None and owner[system] == label:
            base = SYSTEM_STYLES[system]
            out[label] = Style(
                _display(label, system), base.colour, base.marker, base.linestyle
            )
        else:
            out[label] = variant_style(n_variants, _display(label, system))
            n_variants += 1
    return out


def default_styles(labels: Iterable[str]) -> dict[str, Style]:
    """Styles for labels alone: a registry name is that system at its defaults.

    What a figure uses when the run did not say which system each label is.
    """
    return assign_styles(
        (label, label if label in SYSTEM_STYLES else None, label in SYSTEM_STYLES)
        for label in labels
    )


def display_names(styles: Mapping[str, Style]) -> dict[str, str]:
    """Label -> display name."""
    return {label: s.name for label, s in styles.items()}

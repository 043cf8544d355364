"""Generated input files of the real formats, for tests and benchmarks.

:func:`write_lichess_pgn` writes games shaped as Lichess's database exports
them (database.lichess.org: the tags of a standard game in that order, a
blank line, the movetext on one line with ``[%clk]`` comments for most
games, a blank line), in date order over one month, to any binary stream
(wrap it in a compressor for ``.pgn.zst``). The moves are plausible tokens,
not legal chess: the readers skip the movetext. Players have a hidden
strength, their ``WhiteElo``/``BlackElo`` is that plus noise, and the result
follows the logistic Elo curve with a share of draws.

Everything is drawn from one seeded :class:`numpy.random.Generator`: the
same arguments write the same bytes.
"""

from __future__ import annotations

from typing import IO

import numpy as np

__all__ = ["write_lichess_pgn"]

#: Time controls and their shares in a generated month (roughly Lichess's mix:
#: blitz and bullet dominate), with the Event name of each speed.
_CONTROLS = (
    ("15+0", "UltraBullet", 0.01),
    ("60+0", "Bullet", 0.22),
    ("120+1", "Bullet", 0.08),
    ("180+0", "Blitz", 0.25),
    ("180+2", "Blitz", 0.10),
    ("300+0", "Blitz", 0.12),
    ("300+3", "Blitz", 0.06),
    ("600+0", "Rapid", 0.09),
    ("900+10", "Rapid", 0.04),
    ("1800+0", "Classical", 0.02),
    ("-", "Correspondence", 0.01),
)
_OPENINGS = (
    ("B01", "Scandinavian Defense"),
    ("C00", "French Defense: Normal Variation"),
    ("C20", "King's Pawn Game: Wayward Queen Attack"),
    ("A00", "Van't Kruijs Opening"),
    ("D02", "Queen's Pawn Game: London System"),
    ("C50", "Italian Game: Giuoco Piano"),
    ("B20", "Sicilian Defense"),
)
_TERMINATIONS = ("Normal", "Normal", "Normal", "Time forfeit")
_PIECES = ("", "", "", "N", "B", "R", "Q", "K")
_FILES = "abcdefgh"


def _movetext(rng: np.random.Generator, clocks: bool) -> str:
    """A movetext body (without the result) of 10 to 80 moves."""
    n = int(rng.integers(10, 80))
    seconds = 180
    out = []
    for ply in range(2 * n):
        piece = _PIECES[int(rng.integers(len(_PIECES)))]
        square = f"{_FILES[int(rng.integers(8))]}{int(rng.integers(1, 9))}"
        move = f"{piece}{'x' if rng.random() < 0.2 else ''}{square}"
        number = f"{ply // 2 + 1}{'.' if ply % 2 == 0 else '...'} "
        if not clocks and ply % 2 == 1:
            number = ""
        out.append(f"{number}{move}")
        if clocks:
            seconds = max(seconds - int(rng.integers(0, 6)), 0)
            out.append(f"{{ [%clk 0:{seconds // 60:02d}:{seconds % 60:02d}] }}")
    return " ".join(out)


def write_lichess_pgn(
    out: IO[bytes],
    n_games: int,
    *,
    n_players: int = 200_000,
    seed: int = 0,
    year: int = 2024,
    month: int = 1,
    casual_share: float = 0.1,
    chunk: int = 20_000,
) -> None:
    """Write ``n_games`` Lichess-style games to the binary stream ``out``.

    Parameters
    ----------
    out : binary stream
        Where the PGN text goes (UTF-8).
    n_games : int
        Games, spread evenly over the month in time order.
    n_players : int
        Players drawn from (uniformly): the pool does not grow with the
        file, so memory that grows with ``n_games`` is the reader's.
    seed : int
        The random seed.
    year, month : int
        The month of the games (28 days of it).
    casual_share : float
        Share of casual games.
    chunk : int
        Games drawn and written at a time.

    Examples
    --------
    >>> import io
    >>> buf = io.BytesIO()
    >>> write_lichess_pgn(buf, 2, n_players=10)
    >>> buf.getvalue().decode().count('[Event "')
    2
    """
    if n_games < 0 or n_players < 2:
        raise ValueError(
            f"n_games must be >= 0 and n_players >= 2. Got {n_games}, {n_players}."
        )
    rng = np.random.default_rng(seed)
    strength = rng.normal(1500.0, 300.0, n_players)
    names = [f"player{i:07d}x{int(rng.integers(100))}" for i in range(n_players)]
    bodies = [_movetext(rng, clocks=i % 5 != 0) for i in range(400)]
    shares = np.array([c[2] for c in _CONTROLS])
    shares /= shares.sum()
    seconds_in_month = 28 * 86400
    for lo in range(0, n_games, chunk):
        m = min(chunk, n_games - lo)
        idx = np.arange(lo, lo + m)
        moment = (idx * (seconds_in_month / max(n_games, 1))).astype(np.int64)
        white = rng.integers(0, n_players, m)
        black = (white + rng.integers(1, n_players, m)) % n_players
        shown_w = np.rint(strength[white] + rng.normal(0, 50, m)).clip(400, 3300)
        shown_b = np.rint(strength[black] + rng.normal(0, 50, m)).clip(400, 3300)
        expected = 1.0 / (1.0 + 10.0 ** ((strength[black] - strength[white]) / 400.0))
        u = rng.random(m)
        draw = u < 0.06
        white_wins = ~draw & (rng.random(m) < expected)
        control = rng.choice(len(_CONTROLS), m, p=shares)
        casual = rng.random(m) < casual_share
        opening = rng.integers(0, len(_OPENINGS), m)
        body = rng.integers(0, len(bodies), m)
        diff = rng.integers(1, 12, m)
        site = rng.integers(0, 62**8, m)
        parts = []
        for j in range(m):
            t = int(moment[j])
            day, rest = divmod(t, 86400)
            date = f"{year:04d}.{month:02d}.{day + 1:02d}"
            clock = f"{rest // 3600:02d}:{rest // 60 % 60:02d}:{rest % 60:02d}"
            result = "1/2-1/2" if draw[j] else ("1-0" if white_wins[j] else "0-1")
            tc, speed, _ = _CONTROLS[control[j]]
            kind = "Casual" if casual[j] else "Rated"
            eco, name = _OPENINGS[opening[j]]
            sign = 0 if draw[j] else (1 if white_wins[j] else -1)
            d = int(diff[j])
            parts.append(
                f'[Event "{kind} {speed} game"]\n'
                f'[Site "https://lichess.org/{int(site[j]):x}"]\n'
                f'[Date "{date}"]\n'
                '[Round "-"]\n'
                f'[White "{names[white[j]]}"]\n'
                f'[Black "{names[black[j]]}"]\n'
                f'[Result "{result}"]\n'
                f'[UTCDate "{date}"]\n'
                f'[UTCTime "{clock}"]\n'
                f'[WhiteElo "{int(shown_w[j])}"]\n'
                f'[BlackElo "{int(shown_b[j])}"]\n'
                f'[WhiteRatingDiff "{sign * d:+d}"]\n'
                f'[BlackRatingDiff "{-sign * d:+d}"]\n'
                f'[ECO "{eco}"]\n'
                f'[Opening "{name}"]\n'
                f'[TimeControl "{tc}"]\n'
                f'[Termination "{_TERMINATIONS[j % len(_TERMINATIONS)]}"]\n'
                f"\n{bodies[body[j]]} {result}\n\n"
            )
        out.write("".join(parts).encode())

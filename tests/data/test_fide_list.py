"""FIDE rating lists: both formats read back, and rate/replay seeded from them."""

from __future__ import annotations

import csv
import dataclasses
import gzip
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from simulator.cli import main
from simulator.data.fide_list import (
    FideList,
    ListPlayer,
    fide_list_txt,
    fide_list_xml,
    list_seeds,
    read_fide_list,
)
from simulator.data.records import FormatError
from simulator.data.trf import read_trf
from simulator.tasks import rate

TRF = Path(__file__).with_name("swiss-madrid-2018.trf")


def random_players(n: int, seed: int) -> list[ListPlayer]:
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        rated = rng.random() < 0.8
        out.append(
            ListPlayer(
                fide_id=int(rng.integers(1, 40_000_000)) * 10 + i % 10,
                name=f"Surname{i}, Given {chr(65 + i % 26)}é",
                federation=str(rng.choice(["ESP", "NOR", "IND", "USA"])),
                sex=str(rng.choice(["M", "F"])),
                title=str(rng.choice(["", "", "GM", "IM", "WFM"])),
                rating=int(rng.integers(1400, 2850)) if rated else None,
                games=int(rng.integers(0, 20)),
                k=int(rng.choice([10, 20, 40])) if rated else None,
                birth_year=int(rng.integers(1940, 2015))
                if rng.random() < 0.9
                else None,
                flag=str(rng.choice(["", "", "i", "w", "wi"])),
            )
        )
    return out


@pytest.mark.parametrize("fmt", ["txt", "xml"])
@pytest.mark.parametrize("pack", ["plain", "zip", "gz"])
def test_lists_read_back(tmp_path: Path, seed: int, fmt: str, pack: str) -> None:
    players = random_players(300, seed)
    text = fide_list_txt(players) if fmt == "txt" else fide_list_xml(players)
    data = text.encode()
    path = tmp_path / f"players_list.{fmt}"
    if pack == "zip":
        path = path.with_suffix(".zip")
        with zipfile.ZipFile(path, "w") as z:
            z.writestr(f"players_list_foa.{fmt}", data)
    elif pack == "gz":
        path = path.with_name(path.name + ".gz")
        path.write_bytes(gzip.compress(data))
    else:
        path.write_bytes(data)
    assert list(read_fide_list(path)) == players


def test_txt_columns_come_from_the_header(tmp_path: Path) -> None:
    """A list of one type (month label, Gms, K) and an overflowing OTit line."""
    header = (
        "ID Number      Name                                                         "
        "Fed Sex Tit  WTit OTit           FOA OCT26 Gms K  B-day Flag"
    )
    line = list(" " * len(header))

    def put(at: int, text: str) -> None:
        line[at : at + len(text)] = text

    put(0, "1503014")
    put(15, "Carlsen, Magnus")
    put(76, "NOR")
    put(80, "M")
    put(84, "GM")
    put(113, "2839")
    put(119, "9")
    put(123, "10")
    put(126, "1990")
    row = "".join(line)
    # OTit overflowing into FOA: everything after it one character right.
    long = row[:94] + "SI,FI,LSI,SLI,NA" + row[109:]
    path = tmp_path / "standard_rating_list.txt"
    path.write_text(f"{header}\n{row}\n{long}\n")
    a, b = read_fide_list(path, "blitz")  # a list of one type has its own
    assert (a.rating, a.games, a.k, a.birth_year, a.title) == (2839, 9, 10, 1990, "GM")
    assert dataclasses.replace(b) == a
    bad = tmp_path / "bad.txt"
    bad.write_text("Name Rating\nx 1\n")
    with pytest.raises(FormatError, match="not a FIDE list header"):
        list(read_fide_list(bad))


def test_xml_is_streamed(tmp_path: Path) -> None:
    """Each player is cleared once read: the tree holds one at a time."""
    path = tmp_path / "l.xml"
    path.write_text(fide_list_xml(random_players(50, 1)))
    seen = 0
    for _ in read_fide_list(path):
        seen += 1
    assert seen == 50
    path.write_text("<playerslist><player><fideid>x</fideid></player></playerslist>")
    with pytest.raises(FormatError, match="not a FIDE ID"):
        list(read_fide_list(path))


def _list_for_trf(drop: set[int]) -> tuple[list[ListPlayer], dict[int, ListPlayer]]:
    """A list for the shipped TRF: other ratings, K and birth years than the file's."""
    tournament = read_trf(TRF)
    rng = np.random.default_rng(5)
    players, by_start = [], {}
    for p in tournament.players:
        rated = rng.random() < 0.9
        entry = ListPlayer(
            fide_id=2_200_000 + p.start,
            name=p.name.upper() if p.start % 2 else p.name,  # case does not matter
            federation="POR",
            rating=int(rng.integers(1400, 2300)) if rated else None,
            games=int(rng.integers(0, 9)),
            k=int(rng.choice([10, 20, 40])) if rated else None,
            birth_year=int(rng.integers(1950, 2012)),
            flag="i" if p.start % 7 == 0 else "",
        )
        if p.start not in drop:
            players.append(entry)
            by_start[p.start] = entry
    return players, by_start


@pytest.mark.parametrize("fmt", ["txt", "xml"])
def test_a_list_seeds_rate_with_its_ratings_and_k(
    tmp_path: Path, fmt: str, capsys: pytest.CaptureFixture[str]
) -> None:
    players, by_start = _list_for_trf(drop={5, 17})
    path = tmp_path / f"list.{fmt}"
    path.write_text(fide_list_txt(players) if fmt == "txt" else fide_list_xml(players))
    seeding = rate.seed_tournament(read_trf(TRF), path)
    assert seeding.unmatched == (5, 17)
    result = rate.rate_tournament(read_trf(TRF), "fide", seeding=seeding)
    original = {p.start: p for p in read_trf(TRF).players}
    for p in result.players:
        listed = by_start.get(p.start)
        if listed is None:
            assert p.rating == original[p.start].rating
            continue
        assert p.rating == listed.rating and p.birth_year == listed.birth_year
        if listed.rating is not None:
            assert p.k_list == listed.k
    assert any("Seeded from the FIDE list" in a for a in result.assumptions)
    # The command line: the same K and ratings, in JSON.
    assert main(["rate", str(TRF), "--fide-list", str(path), "--format", "json"]) == 0
    body = json.loads(capsys.readouterr().out)
    rows = body["players"]
    for row in rows:
        listed = by_start.get(row["start"])
        if listed is not None and listed.rating is not None:
            assert (row["rating"], row["k_list"]) == (listed.rating, listed.k)


def test_rate_matches_by_fide_id_first(tmp_path: Path) -> None:
    """A TRF with FIDE IDs: matched by ID even where the names differ."""
    text = TRF.read_text()
    lines = []
    for line in text.splitlines():
        if line.startswith("001"):
            start = int(line[4:8])
            line = line[:57] + f"{2_200_000 + start:>11}" + line[68:]
        lines.append(line)
    trf = tmp_path / "ids.trf"
    trf.write_text("\n".join(lines) + "\n")
    players, by_start = _list_for_trf(drop=set())
    renamed = [dataclasses.replace(p, name=f"Other, {p.fide_id}") for p in players]
    seeding = rate.seed_tournament(read_trf(trf), renamed)
    assert not seeding.unmatched
    assert {how for _, how in seeding.matched.values()} == {"id"}
    assert all(seeding.matched[s][0].fide_id == p.fide_id for s, p in by_start.items())


def test_a_list_seeds_replay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Rating and K from the list: one game, A 2000 K 40 beats B 1900 K 10.

    PD of a 100-point difference is 0.64 (FIDE table 8.1.2): A gains
    40 x 0.36 = 14.4 -> 14, B loses 10 x 0.36 = 3.6 -> 4.
    """
    listed = [
        ListPlayer(111, "Anna, A", rating=2000, k=40, games=3, birth_year=1990),
        ListPlayer(222, "Bert, B", rating=1900, k=10, games=0, birth_year=1980),
    ]
    lst = tmp_path / "l.xml"
    lst.write_text(fide_list_xml(listed))
    pgn = tmp_path / "g.pgn"
    pgn.write_text(
        '[White "Anna, A"]\n[Black "B"]\n[BlackFideId "222"]\n[Result "1-0"]\n'
        '[Date "2024.01.10"]\n\n1. e4 1-0\n\n'
    )
    out = tmp_path / "r.csv"
    argv = ["replay", str(pgn), "--fide-list", str(lst), "--systems", "fide"]
    assert main([*argv, "--quiet", "--ratings-out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "2 of 2 players matched (1 by FIDE ID, 1 by name" in text
    with out.open() as f:
        rows = {r["player"]: float(r["fide"]) for r in csv.DictReader(f)}
    assert rows == {"Anna, A": 2014.0, "B": 1896.0}


def test_list_seeds_arrays() -> None:
    flist = FideList(
        [ListPlayer(1, "A", rating=1800, k=40, games=12, birth_year=1970, flag="i")]
    )
    counts: dict[str, int] = {}
    s = list_seeds(flist, ["x", "A"], {}, 0, 2, year=2024, counts=counts)
    assert s.matched.tolist() == [False, True] and s.k.tolist() == [0, 40]
    assert s.games.tolist() == [0, 12] and np.isnan(s.rating[0])
    assert counts == {"unmatched": 1, "name": 1, "inactive": 1}

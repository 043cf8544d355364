"""Tests of simulator.config: TOML parsing, validation messages, the TOML dump."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from simulator.config import (
    ArenaConfig,
    ConfigError,
    RunConfig,
    ScheduleConfig,
    SeedingConfig,
    SystemSpec,
    default_config,
    dump_config,
    load_config,
    parse_config,
)
from simulator.evaluation.settings import MetricsConfig
from simulator.world.population_config import PopulationConfig

#: A config that sets something in every table, with system tables, labels,
#: "none" parameters and two arenas.
FULL = """
title = "Everything set"
seed = 12345
replicates = 3
start_date = "2023-07-01"
years = 2.5
checkpoint_days = 14
cohort_ages = [20, 40]

[population]
n_players = 321
drift_sd = 0.0
growth_rates = [0, 0, 0, 0, 0, 0, 0]
arrival_rate = 0.1

[population.development]
# drift_sd is the random walk only without the noise by age.
noise_ages = []
noise_sds = []

[[arena]]
name = "otb"
systems = [
    "fide",
    {system = "fide", label = "fide no cap", cap = "none", exempt_from = "none"},
    {system = "elo", label = "elo-k40", k_factor = 40},
    {system = "glicko2", tau = 0.3, period = "quarter"},
]
pairing_rating = "elo-k40"

[arena.schedule]
rounds = [7, 9]
field_size = 30
round_robin_share = 0.0

[arena.seeding]
rating_sd = 200.0
n_games = 30

[[arena]]
name = "online"
systems = ["lichess", {system = "glicko", label = "glicko live", per_game = true}]
pairing_rating = "true"
outcomes = "online"

[arena.schedule]
kind = "online"
participation = 0.4
activity_scale = 50
rounds_per_day = 12
window = 300

[metrics]
thresholds = [10, 20, 40]
calibration_bins = 5
"""


def _error(text: str) -> str:
    """The message of the ConfigError that ``text`` raises."""
    with pytest.raises(ConfigError) as info:
        parse_config(text)
    return str(info.value)


# --------------------------------------------------------------------------
# Parsing


def test_minimal_config_fills_defaults() -> None:
    """An empty config is the default comparison."""
    assert parse_config("") == default_config()


def test_full_config_sets_every_table() -> None:
    """Every table of a config reaches its dataclass, lists become tuples."""
    config = parse_config(FULL)
    assert config.seed == 12345 and config.replicates == 3
    assert config.cohort_ages == (20.0, 40.0)
    assert config.population.n_players == 321
    otb, online = config.arena
    assert [s.label for s in otb.systems] == [
        "fide",
        "fide no cap",
        "elo-k40",
        "glicko2",
    ]
    assert otb.systems[1].params == (("cap", None), ("exempt_from", None))
    assert otb.systems[1].build().cap is None
    assert otb.systems[2].build().k_factor == 40
    assert otb.pairing_rating == "elo-k40"
    assert otb.schedule.rounds == (7, 9)
    assert otb.seeding == SeedingConfig(rating_sd=200.0, n_games=30)
    assert online.schedule.kind == "online"
    assert online.schedule.participation == 0.4
    assert online.systems[1].build().per_game is True
    assert config.metrics.thresholds == (10.0, 20.0, 40.0)


def test_pairing_rating_defaults_to_the_first_system() -> None:
    """Without pairing_rating an arena pairs by its first system's rating."""
    config = parse_config('[[arena]]\nsystems = ["glicko2", "fide"]\n')
    assert config.arena[0].pairing_rating == "glicko2"


def test_curve_defaults_by_preset_and_reaches_the_model() -> None:
    """OTB worlds default to the fitted curve, online ones to the logistic."""
    config = parse_config(
        '[[arena]]\nname = "a"\n[[arena]]\nname = "b"\noutcomes = "online"\n'
        '[[arena]]\nname = "c"\ncurve = "logistic"\n'
        '[[arena]]\nname = "d"\noutcomes = "online"\ncurve = "normal"\n'
    )
    curves = [(a.curve, a.outcome_model().curve) for a in config.arena]
    assert curves == [
        ("fitted", "fitted"),
        ("logistic", "logistic"),
        ("logistic", "logistic"),
        ("normal", "normal"),
    ]
    online = config.arena[3].outcome_model()
    assert online.white_advantage == 11.8
    assert online.draw_intercept == -2.244
    # The resolved curve is written with the config and read back.
    assert parse_config(dump_config(config)) == config


def test_curve_variant_overrides_the_arena() -> None:
    """A [[variant]] sets arena.0.curve through the dotted-key mechanism."""
    from simulator.config import expand

    config = parse_config(
        '[[arena]]\nsystems = ["elo"]\n'
        '[[variant]]\nname = "fitted"\n'
        '[[variant]]\nname = "normal"\nset = { "arena.0.curve" = "normal" }\n'
    )
    points = expand(config)
    assert [p.config.arena[0].curve for p in points] == ["fitted", "normal"]
    bad = '[[arena]]\n[[variant]]\nname = "x"\nset = { "arena.0.curve" = "probit" }\n'
    with pytest.raises(ConfigError, match=r"'x'.*'curve'.*'probit'"):
        expand(parse_config(bad))


def test_reference_defaults_to_the_first_system_and_round_trips() -> None:
    """Without reference an arena compares with its first system; a set one stays."""
    config = parse_config('[[arena]]\nsystems = ["glicko2", "fide"]\n')
    assert config.arena[0].reference == "glicko2"
    config = parse_config(
        '[[arena]]\nsystems = ["glicko2", "fide"]\nreference = "fide"\n'
    )
    assert config.arena[0].reference == "fide"
    assert parse_config(dump_config(config)).arena[0].reference == "fide"


@pytest.mark.parametrize("date", ["2024-02-29", "1999-12-31", "2030-01-01"])
def test_valid_start_dates(date: str) -> None:
    """Real calendar dates in YYYY-MM-DD form are accepted as given."""
    assert parse_config(f'start_date = "{date}"\n').start_date == date


# --------------------------------------------------------------------------
# Errors: each a one-line ConfigError naming the key and the bad value


def _case_id(value: object) -> str:
    """Test id of a bad-config case: the TOML line at fault."""
    return str(value).strip().splitlines()[-1] if isinstance(value, str) else "msg"


def _check_message(message: str, *needles: str) -> None:
    assert "\n" not in message
    for needle in needles:
        assert needle in message, f"{needle!r} not in {message!r}"


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("yeers = 5\n", "'yeers'"),
        ("[population]\nn_player = 5\n", "'population.n_player'"),
        ("[[arena]]\n[arena.schedule]\nkinds = 'swiss'\n", "'arena[0].schedule.kinds'"),
        (
            "[[arena]]\nname = 'a'\n[[arena]]\nname = 'b'\nsystem = ['elo']\n",
            "'arena[1].system'",
        ),
        ("[metrics]\nthreshold = [50]\n", "'metrics.threshold'"),
    ],
    ids=_case_id,
)
def test_unknown_key_names_the_dotted_key(text: str, key: str) -> None:
    """An unknown key is named by its dotted path, with the known keys listed."""
    message = _error(text)
    _check_message(message, f"Unknown key {key}", "Known keys here:")


@pytest.mark.parametrize(
    ("text", "needles"),
    [
        ('years = "five"\n', ("'years'", "'five'", "a number")),
        ("replicates = 2.5\n", ("'replicates'", "2.5", "an int")),
        ("replicates = true\n", ("'replicates'", "True")),
        ("title = 3\n", ("'title'", "3", "a string")),
        ("population = 5\n", ("'population'", "5", "a table")),
        ("[population]\nn_players = '300'\n", ("'population.n_players'", "'300'")),
        (
            "[[arena]]\n[arena.schedule]\nrounds = [5, 7.5]\n",
            ("'arena[0].schedule.rounds[1]'", "7.5"),
        ),
        ("[arena]\nname = 'x'\n", ("'arena'", "[[arena]]")),
        ("[[arena]]\nsystems = 'elo'\n", ("'arena[0].systems'", "'elo'")),
        ("[[arena]]\nsystems = [5]\n", ("'arena[0].systems[0]'", "5")),
        (
            "[[arena]]\nsystems = [{system = 'elo', label = 5}]\n",
            ("'arena[0].systems[0].label'", "5"),
        ),
    ],
    ids=_case_id,
)
def test_wrong_type_names_key_and_value(text: str, needles: tuple[str, ...]) -> None:
    """A value of the wrong type is a one-line error naming the key and the value."""
    _check_message(_error(text), *needles)


@pytest.mark.parametrize(
    ("text", "needles"),
    [
        ("[population]\nn_players = -5\n", ("population", "'n_players'", "-5")),
        ("replicates = 0\n", ("'replicates'", "Got 0")),
        ("years = 0\n", ("'years'", "Got 0")),
        ("seed = -1\n", ("'seed'", "Got -1")),
        (
            "[[arena]]\nsystems = ['fidee']\n",
            ("arena[0].systems[0]", "'system'", "'fidee'", "'glicko2'"),
        ),
        (
            "[[arena]]\nsystems = [{system = 'glicko2', tau = -1}]\n",
            ("arena[0].systems[0]", "'tau'", "Glicko2", "-1"),
        ),
        (
            "[[arena]]\nsystems = [{system = 'glicko2', taux = 1}]\n",
            ("arena[0].systems[0]", "'taux'"),
        ),
        (
            "[[arena]]\nsystems = [{system = 'elo', k_factor = 'none'}]\n",
            ("arena[0].systems[0]", "'k_factor'", "None"),
        ),
        (
            "[[arena]]\nsystems = ['elo', {system = 'elo', k_factor = 40}]\n",
            ("arena[0]", "labels", "unique", "'elo'"),
        ),
        (
            "[[arena]]\nsystems = [{system = 'elo', label = 'a'}, "
            "{system = 'fide', label = 'a'}]\n",
            ("arena[0]", "labels", "'a'"),
        ),
        ("[[arena]]\nsystems = []\n", ("arena[0]", "at least one system")),
        (
            "[[arena]]\nsystems = ['elo']\npairing_rating = 'fide'\n",
            ("arena[0]", "'pairing_rating'", "'fide'", "'elo'", "'true'"),
        ),
        (
            "[[arena]]\nsystems = ['elo', 'fide']\nreference = 'glicko2'\n",
            ("arena[0]", "'reference'", "'glicko2'", "'elo'", "'fide'"),
        ),
        (
            "[[arena]]\nsystems = ['elo']\nreference = 'true'\n",
            ("arena[0]", "'reference'", "'true'", "'elo'"),
        ),
        (
            "[[arena]]\noutcomes = 'blitz'\n",
            ("arena[0]", "'outcomes'", "'blitz'"),
        ),
        (
            "[[arena]]\ncurve = 'sigmoid'\n",
            ("arena[0]", "'curve'", "'sigmoid'", "'fitted'"),
        ),
        (
            "[[arena]]\n[arena.schedule]\nkind = 'arena'\n",
            ("arena[0].schedule", "'kind'", "'arena'"),
        ),
        (
            "[[arena]]\n[arena.schedule]\nparticipation = 0\n",
            ("arena[0].schedule", "'participation'", "0"),
        ),
        (
            "[[arena]]\n[arena.seeding]\nrating_sd = -10\n",
            ("arena[0].seeding", "'rating_sd'", "-10"),
        ),
        ("[[arena]]\nname = 'a'\n[[arena]]\nname = 'a'\n", ("Arena names", "'a'")),
        ("cohort_ages = [45, 25]\n", ("'cohort_ages'", "45")),
        ("[metrics]\nthresholds = [50, 25]\n", ("metrics", "'thresholds'", "50")),
        ('start_date = "2024-13-01"\n', ("'start_date'", "'2024-13-01'")),
        ('start_date = "2023-02-29"\n', ("'start_date'", "'2023-02-29'")),
        ('start_date = "yesterday"\n', ("'start_date'", "'yesterday'")),
        ('start_date = "20240101"\n', ("'start_date'", "'20240101'")),
        ('start_date = "2024"\n', ("'start_date'", "'2024'")),
        ('start_date = "2024-01-01T12:00"\n', ("'start_date'", "'2024-01-01T12:00'")),
    ],
    ids=_case_id,
)
def test_impossible_value_names_key_and_value(
    text: str, needles: tuple[str, ...]
) -> None:
    """An impossible value is a one-line error naming the key and the value."""
    _check_message(_error(text), *needles)


def test_invalid_toml_is_a_config_error() -> None:
    """Text that is not TOML is a one-line ConfigError naming the source."""
    with pytest.raises(ConfigError) as info:
        parse_config("years = = 3\n", source="broken.toml")
    _check_message(str(info.value), "broken.toml", "not valid TOML")


def test_missing_file_is_a_config_error(tmp_path: Path) -> None:
    """A config file that cannot be read is a ConfigError naming the path."""
    path = tmp_path / "absent.toml"
    with pytest.raises(ConfigError) as info:
        load_config(path)
    _check_message(str(info.value), str(path))


def test_load_config_names_the_file_on_bad_toml(tmp_path: Path) -> None:
    """load_config reads a file; bad TOML names that file."""
    good = tmp_path / "good.toml"
    good.write_text(FULL, encoding="utf-8")
    assert load_config(good) == parse_config(FULL)
    bad = tmp_path / "bad.toml"
    bad.write_text("[population\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"bad\.toml"):
        load_config(bad)


def test_config_error_is_a_value_error() -> None:
    """ConfigError is a ValueError, so callers catching ValueError see it."""
    assert issubclass(ConfigError, ValueError)


# --------------------------------------------------------------------------
# The dump


def test_dump_round_trips_the_default() -> None:
    """dump_config of the default config parses back to an equal config."""
    config = default_config()
    assert parse_config(dump_config(config)) == config


def test_dump_round_trips_system_tables_and_none() -> None:
    """Labels, parameters, 'none' values, two arenas and the seed survive the dump."""
    config = parse_config(FULL)
    text = dump_config(config)
    assert 'cap = "none"' in text
    again = parse_config(text)
    assert again == config
    assert again.arena[0].systems[1].params == (("cap", None), ("exempt_from", None))
    assert dump_config(again) == text


def test_dump_round_trips_a_config_built_in_code() -> None:
    """A config built from dataclasses, not TOML, dumps and parses back equal."""
    config = RunConfig(
        title="in code",
        seed=2**100,
        replicates=2,
        years=1.0,
        population=PopulationConfig(n_players=50, arrival_rate=0.0),
        arena=(
            ArenaConfig(
                name="otb",
                systems=(
                    SystemSpec("classic", "classic", (("cap", None),)),
                    SystemSpec("elo", "k10", (("k_factor", 10.0),)),
                ),
                pairing_rating="true",
                schedule=ScheduleConfig(kind="random", rounds_per_day=3),
            ),
        ),
        metrics=MetricsConfig(thresholds=(30.0, 60.0)),
    )
    assert parse_config(dump_config(config)) == config


def test_dump_names_an_unset_seed() -> None:
    """A config without a seed dumps it as "none" and parses back without one."""
    config = dataclasses.replace(default_config(), seed=None)
    text = dump_config(config)
    assert 'seed = "none"' in text.split("[population]")[0]
    assert parse_config(text).seed is None

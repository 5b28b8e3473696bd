import pytest

from ndbsim.errors import InputError
from ndbsim.input.units import parse_byte_rate, parse_bytes, parse_count, parse_duration, parse_per_second

G = 2**30


@pytest.mark.parametrize("text", ["60G", "60GB", "60GiB", "60 G", "60g"])
def test_sizes_are_binary_like_config_ini(text):
    assert parse_bytes(text) == 60 * G


def test_small_sizes():
    assert parse_bytes("512MB") == 512 * 2**20
    assert parse_bytes("200B") == 200
    assert parse_bytes(4096) == 4096


def test_network_bits_are_decimal():
    assert parse_byte_rate("1Gbit/s") == 1e9 / 8
    assert parse_byte_rate("10Gbit/s") == 10e9 / 8


def test_byte_rates_are_binary():
    assert parse_byte_rate("10MB/s") == 10 * 2**20
    assert parse_byte_rate("100M") == 100 * 2**20
    assert parse_byte_rate("1GB/s") == G


def test_durations():
    assert parse_duration("90s") == 90
    assert parse_duration("2m4s") == 124
    assert parse_duration("1h") == 3600
    assert parse_duration("500ms") == 0.5


def test_counts_and_rates():
    assert parse_count("300M") == 3e8
    assert parse_per_second("20000/s") == 20000
    assert parse_per_second("20k/s") == 20000


@pytest.mark.parametrize("bad", ["fast", "10XB", "", "G60", True])
def test_bad_sizes_raise_input_error(bad):
    with pytest.raises(InputError):
        parse_bytes(bad)


@pytest.mark.parametrize("bad", ["soon", "2x", "m"])
def test_bad_durations(bad):
    with pytest.raises(InputError):
        parse_duration(bad)


def test_format_secs_keeps_the_sign_of_a_loss():
    from ndbsim.input.units import format_secs

    assert format_secs(-0.84) == "-1s"
    assert format_secs(-75) == "-1m15s"
    assert format_secs(3725) == "1h02m05s"


def test_counts_read_in_a_dbas_units():
    """1.0B rows, never ``1e+03M``: the suffix is chosen after rounding (999,999,999 rows from
    data.size / data.row_size), K for thousands, and each text reads back to the count it shows."""
    from ndbsim.input.units import format_bytes, format_count

    assert format_count(999_999_999.6) == format_count(1e9) == "1.0B"
    assert [format_count(x) for x in (1.2e9, 300e6, 5.7e6, 20_000, 999_950, 500)] == [
        "1.2B",
        "300M",
        "5.7M",
        "20K",
        "1.0M",
        "500",
    ]
    assert parse_count(format_count(1.2e9)) == 1.2e9 and parse_count(format_count(20_000)) == 20_000
    assert format_bytes(2**40 - 1) == "1.0T" and format_bytes(1024 * G - 2**20) == "1.0T"


def test_a_billion_rows_in_the_run_header():
    from _helpers import ndbsim

    p = ndbsim(
        "run",
        "--set",
        "data.size=1000G",
        "--set",
        "data.row_size=1074",
        "--set",
        "data.rows=null",
        "--set",
        "cluster.config.DataMemory=1100G",
    )
    assert p.returncode == 0, p.stderr
    assert "in 1.0B rows (from data.row_size)" in p.stdout, p.stdout

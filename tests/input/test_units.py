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

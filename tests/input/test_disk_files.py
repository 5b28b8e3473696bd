"""The disk-data files read from a config.ini (InitialTablespace, InitialLogFileGroup) and from an
ndbinfo export (INFORMATION_SCHEMA.FILES), and DiskPageBufferMemory (issue 32)."""

from pathlib import Path

import pytest
import yaml
from _helpers import ndbsim

from ndbsim.errors import InputError
from ndbsim.input.scenario import disk_files
from ndbsim.input.units import parse_bytes

EXPORT_80 = Path(__file__).resolve().parents[1] / "ndbinfo" / "export-8.0.35.tsv"

CONFIG_INI = """\
[ndbd default]
NoOfReplicas=2
DataMemory=96G
DiskPageBufferMemory=16G
InitialTablespace=name=ts1; extent_size=16M; data1.dat:200G; data2.dat:200G  # two files
InitialLogFileGroup=name=lg1; undo_buffer_size=64M; undo1.log:32G
[ndb_mgmd]
HostName=m
[ndbd]
HostName=a
[ndbd]
HostName=b
"""


def test_a_file_list_is_summed():
    assert disk_files.files_bytes("name=ts1; extent_size=8M; d1.dat:2G; d2.dat:512M", "f", Path("x")) == parse_bytes(
        "2.5G"
    )
    with pytest.raises(InputError, match="names no file"):
        disk_files.files_bytes("name=ts1; extent_size=8M", "f", Path("x"))
    with pytest.raises(InputError, match="is not FILE:SIZE"):
        disk_files.files_bytes("name=ts1; d1.dat:2X", "f", Path("x"))


def test_init_config_ini_reads_the_tablespace_the_undo_files_and_the_page_buffer(tmp_path):
    ini = tmp_path / "config.ini"
    ini.write_text(CONFIG_INI)
    out = tmp_path / "s.yaml"
    p = ndbsim("init", "--config-ini", str(ini), "--version", "8.4.3", "-o", str(out))
    assert p.returncode == 0, p.stderr
    text = out.read_text()
    s = yaml.safe_load(text)
    assert parse_bytes(s["data"]["tablespace_size"]) == parse_bytes("400G")
    assert parse_bytes(s["data"]["undo_log_size"]) == parse_bytes("32G")
    assert s["cluster"]["config"]["DiskPageBufferMemory"] == "16G"
    assert "tablespace_size: 400G   # from config.ini" in text
    assert "data.disk_data_size not given" in text  # the files' size is not the data in use


def _with_files(tmp_path, block: str) -> Path:
    text = EXPORT_80.read_text().replace("Ordered index\t30\n", "Data file\t2\nOrdered index\t30\nTablespace\t1\n")
    text = text.replace("ndbsim_table\nconfig_values\n", block + "ndbsim_table\nconfig_values\n")
    path = tmp_path / "export.tsv"
    path.write_text(text)
    return path


def test_init_ndbinfo_reads_the_disk_data_files(tmp_path):
    block = (
        "ndbsim_table\ndisk_data_files\nfile_type\tfiles\tbytes\tused_bytes\n"
        "DATAFILE\t2\t429496729600\t214748364800\nUNDO LOG\t1\t34359738368\tNULL\n"
    )
    out = tmp_path / "s.yaml"
    p = ndbsim("init", "--ndbinfo", str(_with_files(tmp_path, block)), "-o", str(out))
    assert p.returncode == 0, p.stderr
    s = yaml.safe_load(out.read_text())
    assert parse_bytes(s["data"]["disk_data_size"]) == parse_bytes("200G")
    assert parse_bytes(s["data"]["tablespace_size"]) == parse_bytes("400G")
    assert parse_bytes(s["data"]["undo_log_size"]) == parse_bytes("32G")


def test_an_earlier_export_listing_disk_objects_says_their_sizes_are_missing(tmp_path):
    out = tmp_path / "s.yaml"
    p = ndbsim("init", "--ndbinfo", str(_with_files(tmp_path, "")), "-o", str(out))
    assert p.returncode == 0, p.stderr
    assert "lists 1 × tablespace, 2 × data file but the export has no file sizes" in out.read_text()

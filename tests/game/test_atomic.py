"""The one atomic writer: a file is replaced whole or not at all, and a signal that
arrives while it is written waits until the file is in place."""

from __future__ import annotations

import os
import signal
import stat

import pytest

from carcassonne_env.atomic import atomic_open, atomic_path, held_signals, write_json, write_text


def test_a_file_is_written_whole_and_no_temporary_file_stays(tmp_path):
    path = tmp_path / "config.json"
    write_json(path, {"a": 1})
    assert path.read_text(encoding="utf-8") == '{\n "a": 1\n}'
    write_text(path, "second")
    assert path.read_text(encoding="utf-8") == "second"
    assert [p.name for p in tmp_path.iterdir()] == ["config.json"]


def test_a_failed_write_leaves_the_old_file(tmp_path):
    path = tmp_path / "curve.csv"
    path.write_text("old", encoding="utf-8")
    with pytest.raises(RuntimeError, match="disk full"), atomic_open(path) as f:
        f.write("half of the new")
        raise RuntimeError("disk full")
    assert path.read_text(encoding="utf-8") == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["curve.csv"]


def test_the_temporary_path_keeps_the_suffix_and_the_folder(tmp_path):
    with atomic_path(tmp_path / "model.zip") as tmp:
        assert tmp.parent == tmp_path and tmp.suffix == ".zip" and tmp.name.startswith(".")
        tmp.write_bytes(b"PK")
    assert (tmp_path / "model.zip").read_bytes() == b"PK"


def test_a_writer_that_writes_nothing_is_an_error(tmp_path):
    with (
        pytest.raises(FileNotFoundError, match="nothing was written"),
        atomic_path(tmp_path / "x.zip") as tmp,
    ):
        tmp.unlink()
    assert not (tmp_path / "x.zip").exists()


def test_a_replaced_file_keeps_its_permissions_and_a_new_one_gets_the_usual(tmp_path):
    old = tmp_path / "old.txt"
    old.write_text("x", encoding="utf-8")
    old.chmod(0o640)
    write_text(old, "y")
    assert stat.S_IMODE(old.stat().st_mode) == 0o640
    new = tmp_path / "new.txt"
    write_text(new, "z")
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(new.stat().st_mode) == 0o666 & ~umask


@pytest.fixture
def python_ctrl_c():
    """Python's own Ctrl-C handler for the test (a process started in the background by
    a shell without job control inherits SIGINT ignored, and Python then leaves it so)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_a_signal_during_a_write_is_delivered_after_the_file_is_in_place(tmp_path, python_ctrl_c):
    path = tmp_path / "checkpoint.zip"
    with pytest.raises(KeyboardInterrupt):
        with atomic_open(path, "wb") as f:
            f.write(b"first half")
            signal.raise_signal(signal.SIGINT)  # Ctrl-C in the middle of the save
            f.write(b", second half")
    assert path.read_bytes() == b"first half, second half"


def test_held_signals_restores_the_handlers(tmp_path):
    before = signal.getsignal(signal.SIGTERM)
    with held_signals():
        assert signal.getsignal(signal.SIGTERM) is not before
    assert signal.getsignal(signal.SIGTERM) is before

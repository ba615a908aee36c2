import subprocess
import sys
from pathlib import Path

from helpers import config


def test_paths_are_anchored_on_the_package_not_the_working_directory(tmp_path):
    root = Path(__file__).resolve().parents[1]
    assert config.ROOT == root
    assert config.RAW_DIR == root / "data" / "raw" and config.PROCESSED_DIR == root / "data" / "processed"
    out = subprocess.run([sys.executable, "-c", "from helpers import config; print(config.RAW_DIR)"],
                         cwd=tmp_path, capture_output=True, text=True, check=True)
    assert Path(out.stdout.strip()) == config.RAW_DIR


def test_fio_binary_can_be_overridden_for_fault_injection(monkeypatch):
    monkeypatch.setenv("FIO", "/opt/fio-test/fio")
    assert config.fio_binary() == "/opt/fio-test/fio"
    monkeypatch.delenv("FIO")
    assert config.fio_binary() == "fio"

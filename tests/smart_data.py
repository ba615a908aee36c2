"""The SMART / health fixtures of tests/data/smart (real tool outputs, sources in its README) and the one way the
tests derive a later capture from them: the same document with some counters advanced (fault injection: no
public pair of captures of one drive before and after it throttled exists)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

DATA = Path(__file__).parent / "data" / "smart"
NVME_SMART_LOG = "nvme-cli-2.11-smart-log.json"  # nvme-cli 2.11, thm_temp1_trans_count 3, 1474 s in TMT1
NVME_ID_CTRL = "nvme-cli-2-id-ctrl-solidigm.json"  # nvme-cli 2.x, wctemp 343 K / cctemp 353 K
SMARTCTL_73_NVME = "smartctl-7.3-nvme-firecuda530.json"  # no thresholds, no thermal counters in its JSON
SMARTCTL_73_NVME_TEXT = "smartctl-7.3-nvme-sn850.txt"  # smartctl -a text: Warning Comp. Temp. Threshold 84
SMARTCTL_75_NVME = "smartctl-7.5-nvme-teamgroup-mp33.json"  # nvme_composite_temperature_threshold 100/110
SMARTCTL_SATA = "smartctl-7.0-sata-x-860evo.json"  # smartctl -x -j: SCT status op_limit_max 70


def load(name: str) -> dict:
    return json.loads((DATA / name).read_text())


def advanced(doc: dict, **changes) -> dict:
    """A copy of ``doc`` with ``changes`` applied; a key 'a__b' sets doc['a']['b'] (nested smartctl objects)."""
    out = copy.deepcopy(doc)
    for key, value in changes.items():
        *parents, last = key.split("__")
        d = out
        for p in parents:
            d = d[p]
        d[last] = value
    return out


HOT = {"temperature": 341, "thm_temp1_trans_count": 5, "thm_temp1_total_time": 1534, "warning_temp_time": 3}


def fake_nvme(directory: Path) -> Path:
    """A stand-in for nvme-cli on a machine with an NVMe drive (fault injection): ``id-ctrl`` prints the real
    Solidigm id-ctrl (warning 70 °C), the first smart-log the real nvme-cli 2.11 capture (51 °C, 3 transitions,
    1474 s) and every later one that capture with :data:`HOT` applied (68 °C, +2 transitions, +60 s, +3 min
    above the warning temperature)."""
    directory = Path(directory)
    hot = directory / "smart-log-hot.json"
    hot.write_text(json.dumps(advanced(load(NVME_SMART_LOG), **HOT), indent=2))
    state, script = directory / "calls", directory / "fake-nvme.sh"
    script.write_text(f'#!/bin/sh\nif [ "$1" = id-ctrl ]; then cat {DATA / NVME_ID_CTRL}; exit 0; fi\n'
                      f'if [ -f {state} ]; then cat {hot}; else touch {state}; cat {DATA / NVME_SMART_LOG}; fi\n')
    script.chmod(0o755)
    return script

"""What the benchmarks read of the running machine: peak memory and load.

Shared by ``run.py`` and ``lichess_replay.py``; standard library only, so
that importing it adds nothing to the peak it measures.
"""

from __future__ import annotations

import os

__all__ = ["load_average", "peak_kb"]


def peak_kb() -> int | None:
    """Peak resident memory of the running program, in kB, since its exec.

    Linux's ``VmHWM``, the high-water mark of the process's current memory
    map, which ``exec`` makes new. ``ru_maxrss`` (from ``getrusage`` or
    ``wait4``) will not do for a child: Linux carries over into it the peak
    of the memory the child had before ``exec``, the parent's (a child
    running ``python -c pass`` from a parent that had touched 1 GB reports
    981 MB). None where ``/proc`` has no such line.
    """
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def load_average() -> str:
    """The 1-, 5- and 15-minute load averages, as the results tables quote them."""
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"

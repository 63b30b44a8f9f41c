"""The translator's per-user cache folder, private to its owner: nothing another local user can
write is ever read back (issue 33). $C2T_CACHE_DIR, else $XDG_CACHE_HOME/cutile2triton, else
~/.cache/cutile2triton; None (no caching) when it cannot be made private."""
from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Optional


def private_cache_dir() -> Optional[Path]:
    if os.environ.get("C2T_CACHE_DIR"):
        d = Path(os.environ["C2T_CACHE_DIR"])
    else:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        d = Path(base) / "cutile2triton"
    try:
        d.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError:
        return None
    return d if is_private_dir(d) else None


def is_private_dir(d: Path) -> bool:
    """A real folder (not a link), owned by this user, that no one else can write."""
    try:
        st = os.lstat(d)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and not st.st_mode & 0o022


def is_private_file(f: Path) -> bool:
    """A regular file (not a link), owned by this user, that no one else can write."""
    try:
        st = os.lstat(f)
    except OSError:
        return False
    return stat.S_ISREG(st.st_mode) and st.st_uid == os.getuid() and not st.st_mode & 0o022

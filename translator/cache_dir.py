"""The translator's per-user cache folder (the grammar cache, parse.py; the translation check's
results, check.py), private to its owner: nothing another local user can write is ever read back
(issue 33). $C2T_CACHE_DIR, else $XDG_CACHE_HOME/cutile2triton, else ~/.cache/cutile2triton,
created 0700 and used only while it is a real folder of this user that nobody else can write;
files in it are read through the open file (no link followed) under the same rule, and written
under a fresh name (0600) and renamed into place, so no reader sees a partial file."""
from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path
from typing import Optional

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def private_cache_dir(sub: str = "") -> Optional[Path]:
    """The cache folder (or its subfolder `sub`), created if missing; None where it is not safe."""
    if not hasattr(os, "getuid"):
        return None         # no owner to check (Windows)
    explicit = os.environ.get("C2T_CACHE_DIR")
    try:
        if explicit:
            d = Path(explicit)
        else:
            xdg = os.environ.get("XDG_CACHE_HOME")
            root = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
            os.makedirs(root, mode=0o700, exist_ok=True)
            d = root / "cutile2triton"
        for part in [d] + ([d / sub] if sub else []):
            try:
                os.mkdir(part, 0o700)
            except FileExistsError:
                pass
            if not private(os.lstat(part), stat.S_ISDIR):
                return None
    except (OSError, RuntimeError, KeyError):      # no home directory, read-only file system...
        return None
    return d / sub if sub else d


def private(st: os.stat_result, kind) -> bool:
    """Of that kind (a symbolic link is none), the user's own, writable by nobody else."""
    return kind(st.st_mode) and st.st_uid == os.getuid() and not st.st_mode & 0o022


def open_private(path: Path):
    """(the open file (binary) or None, whether `path` may be (re)written): a file that is missing
    may be written; one that is a link, unreadable or not private is left alone and not read."""
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW)
    except FileNotFoundError:
        return None, True
    except OSError:         # a symbolic link (ELOOP), unreadable...
        return None, False
    f = os.fdopen(fd, "rb")
    if not private(os.fstat(f.fileno()), stat.S_ISREG):    # the file opened, not a name
        f.close()
        return None, False
    return f, True


def write_private(path: Path, write) -> None:
    """Write `path` through `write(file)` under a fresh private name, then rename it into place;
    on any failure (a full disk...) nothing is left."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}-{secrets.token_hex(4)}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600)
        with os.fdopen(fd, "wb") as f:
            write(f)
        os.replace(tmp, path)
    except Exception:
        try:
            os.unlink(tmp)
        except OSError:
            pass

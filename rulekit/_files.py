"""Writing a file: atomically, only to a regular file, over an old one only when asked.

Every file rulekit writes (a saved model, an explorer page, the command
line's outputs) goes through :func:`write_atomic`, so each of them

* lands in one step: readers see the old file or the whole new one, never
  a part, and a failed or interrupted write leaves the old file as it was;
* goes only to a regular file, or through a symbolic link to one (the file
  the link points at is written, the link stays).  A directory, a device
  (``/dev/null``), a FIFO, a socket or a link to nothing is refused with a
  ``ValueError`` before anything is written, since replacing it would
  destroy something that is not a file (as root, ``/dev/null`` itself);
* replaces an existing file only with ``overwrite=True``; with
  ``overwrite=False`` an existing file is kept and ``FileExistsError`` raised,
  even when the file appears while the data is being written;
* leaves no temporary file behind.  On Linux the data is written to an
  unnamed file (``O_TMPFILE``) that gets its name only when it is complete:
  a process killed while writing leaves nothing (the kernel frees the unnamed
  file).  Elsewhere, and on file systems without unnamed files, a hidden
  ``.NAME.PID.RANDOM.tmp`` beside the target is used and removed on every
  error and on Ctrl-C; only a process killed outright (``kill -9``) in the
  middle of the write can leave that file.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from pathlib import Path

__all__ = ["write_atomic", "writable_target"]

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
          (stat.S_ISSOCK, "a socket"))


def _kind(mode: int) -> str:
    return next((what for test, what in _KINDS if test(mode)), "not a regular file")


def writable_target(path, *, overwrite: bool = True) -> Path:
    """The file a write to ``path`` would replace or create, checked.

    Follows symbolic links to the file they name.  Nothing is written.

    Raises
    ------
    ValueError
        ``path`` is (or links to) something other than a regular file, or is
        a symbolic link to nothing.
    FileExistsError
        ``path`` exists and ``overwrite`` is false.
    """
    path = Path(path)
    try:
        st = os.stat(path)  # follows links
    except FileNotFoundError:
        if os.path.islink(path):
            raise ValueError(f"refusing to write {path}: it is a symbolic link to "
                             f"{os.readlink(path)!r}, which does not exist; remove the link or "
                             "write to another path") from None
        return path
    if not stat.S_ISREG(st.st_mode):
        link = f" (a symbolic link to {os.path.realpath(path)})" if os.path.islink(path) else ""
        raise ValueError(f"refusing to write {path}{link}: it is {_kind(st.st_mode)}; rulekit "
                         "writes only regular files, so choose a file path")
    if not overwrite:
        raise FileExistsError(errno.EEXIST, "file exists; it was left as it was", str(path))
    return Path(os.path.realpath(path))


def _unnamed(directory: Path):
    """An unnamed file in ``directory`` open for writing, or None where there is none."""
    flag = getattr(os, "O_TMPFILE", None)
    if flag is None or not os.path.isdir("/proc/self/fd"):
        return None
    try:
        return os.open(directory, flag | os.O_WRONLY, 0o666)  # the umask applies
    except OSError as exc:
        if exc.errno in (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL):
            return None  # the file system has no unnamed files
        raise


def _temp_name(directory: Path, target: Path) -> Path:
    # beside the target: the same file system, so the final rename is one step
    return directory / f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    os.fsync(fd)


def write_atomic(path, data, *, overwrite: bool = True) -> Path:
    """Write ``data`` (text as UTF-8, or bytes) to ``path`` in one step; returns ``path``.

    See the module docstring for what is promised.  An existing file keeps its
    permission bits; a new one gets ``0o666`` less the umask, as ``open`` gives.

    Raises
    ------
    ValueError
        ``path`` is not a regular file nor a link to one (nothing is written).
    FileExistsError
        ``path`` exists and ``overwrite`` is false (the file is left as it was).
    OSError
        The write failed (no such folder, no permission, a full disk); whatever
        was at ``path`` is untouched and no temporary file is left.
    """
    payload = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    target = writable_target(path, overwrite=overwrite)
    directory = target.parent
    try:
        mode = os.stat(target).st_mode & 0o7777
    except FileNotFoundError:
        mode = None
    temp = None  # a named temporary file to remove on failure
    fd = _unnamed(directory)
    if fd is None:
        temp = _temp_name(directory, target)
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        try:
            _write_all(fd, payload)
            if mode is not None:
                os.chmod(fd, mode)  # the replaced file keeps its permissions
            if temp is None:
                # name the unnamed file: linkat through /proc follows the magic link
                # (os.link only calls linkat when given a directory descriptor)
                source = f"/proc/self/fd/{fd}"
                if overwrite:
                    # linkat cannot replace a file: a name of its own first, then a rename
                    # (a kill between these two calls is the one moment a name is left)
                    temp = _temp_name(directory, target)
                    _linkat(source, temp)
                else:
                    _linkat(source, target)  # FileExistsError if the name is taken
        finally:
            os.close(fd)
        if temp is not None:
            if overwrite:
                os.replace(temp, target)
            else:
                _link_named(temp, target)
            temp = None
    except BaseException:
        if temp is not None:
            with contextlib.suppress(OSError):
                os.unlink(temp)
        raise
    return Path(path)


def _linkat(source: str, target: Path) -> None:
    """``linkat(AT_FDCWD, source, ..., AT_SYMLINK_FOLLOW)``: name an unnamed file."""
    dfd = os.open(target.parent, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.link(source, target.name, dst_dir_fd=dfd, follow_symlinks=True)
    finally:
        os.close(dfd)


def _link_named(temp: Path, target: Path) -> None:
    """Move the complete ``temp`` to ``target`` unless ``target`` exists (then FileExistsError)."""
    try:
        os.link(temp, target)  # fails if target exists: no check-then-replace race
    except FileExistsError:
        raise
    except OSError:
        # a file system without hard links: check, then rename (a narrow race)
        if os.path.lexists(target):
            raise FileExistsError(errno.EEXIST, "file exists; it was left as it was",
                                  str(target)) from None
        os.replace(temp, target)
        return
    os.unlink(temp)

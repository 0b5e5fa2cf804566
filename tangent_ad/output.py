"""Writing the command's output: to stdout, or to a file atomically.

A reader of the file sees the old file or the new one, never half of one,
and an existing file is replaced only when asked.
"""
import contextlib
import os
import sys
import tempfile


def write_stdout(text):
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:  # e.g. `tangent-ad ... | head`: not our error
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def write_atomically(out, text, force):
    """Write ``text`` to ``out`` so that readers see the old file or the new one.

    The text goes to a temporary file in the same directory (same file system),
    is flushed to disk, then renamed over ``out``. Without ``force`` it is
    hard-linked instead, which fails if ``out`` appeared in the meantime
    (FileExistsError); other failures raise OSError.
    """
    directory = os.path.dirname(os.path.abspath(out))
    mode = _file_mode(out)
    tmp = None
    try:
        with tempfile.NamedTemporaryFile(
                "w", encoding="utf-8", dir=directory, delete=False,
                prefix=f".{os.path.basename(out)}.", suffix=".tmp") as handle:
            tmp = handle.name
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        if force:
            os.replace(tmp, out)
        else:
            _link_no_clobber(tmp, out)
    finally:
        if tmp is not None and os.path.lexists(tmp):
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def _link_no_clobber(tmp, out):
    """Give ``tmp`` the name ``out`` unless ``out`` exists (FileExistsError)."""
    try:
        os.link(tmp, out)
    except FileExistsError:
        raise
    except OSError:  # no hard links on this file system: check, then rename
        if os.path.lexists(out):
            raise FileExistsError(out) from None
        os.replace(tmp, out)


def _file_mode(out):
    """Keep an overwritten file's permissions; new files follow the umask."""
    try:
        return os.stat(out).st_mode & 0o777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask

"""Outputs of the plotting scripts, written whole or not at all: each goes to a
temporary sibling (".NAME.part<pid>", as fastmu's own outputs) renamed into
place; a failed write (a full disk) removes it and ends the script with one
line naming the file."""
import os
import sys


def _temp(path):
    folder, name = os.path.split(path)
    return os.path.join(folder, ".%s.part%d" % (name, os.getpid()))


def _write(path, write):
    tmp = _temp(path)
    try:
        write(tmp)
        os.replace(tmp, path)
    except OSError as e:
        try:
            os.remove(tmp)
        except OSError:
            pass
        sys.exit("cannot write '%s': %s" % (path, e.strerror or e))


def save_figure(fig, path, **kwargs):
    """fig.savefig(path, **kwargs), the format taken from the final name."""
    fmt = os.path.splitext(path)[1][1:].lower() or "png"
    _write(path, lambda tmp: fig.savefig(tmp, format=fmt, **kwargs))


def save_text(path, text):
    def write(tmp):
        with open(tmp, "w") as f:
            f.write(text)
    _write(path, write)

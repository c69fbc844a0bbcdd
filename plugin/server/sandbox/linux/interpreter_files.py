"""Lists what this interpreter reads from outside its standard library (SPEC §7; used by the linux
and seatbelt backends).

Run once per interpreter as `python -I -S -B interpreter_files.py`, unconfined. It loads the
extension modules whose libraries live outside the interpreter's prefix, then reports every file
mapped into the process (the interpreter, libpython, shared libraries, locale data) and the
dynamic loader named in the executable (PT_INTERP, e.g. /lib64/ld-linux-x86-64.so.2), which must
exist at exactly that path for the interpreter to start. Prints one JSON line.
"""

from __future__ import annotations

import importlib
import json
import struct
import sys

# Extension modules that pull in system libraries (zlib, libffi, OpenSSL, liblzma, libbz2, SQLite,
# expat, libmpdec, libuuid) plus the ones every program child loads.
MODULES = (
    "zlib", "_ctypes", "_hashlib", "_ssl", "_lzma", "_bz2", "_sqlite3", "pyexpat", "_decimal",
    "_uuid", "_socket", "select", "_json", "_datetime", "_zoneinfo", "_asyncio", "math", "_struct",
    "binascii", "_random", "_statistics", "_csv", "_bisect", "_heapq", "unicodedata",
)


def program_interpreter(path: str) -> str | None:
    """PT_INTERP of a little-endian 64-bit ELF executable, or None."""
    with open(path, "rb") as f:
        head = f.read(64)
        if len(head) < 64 or head[:4] != b"\x7fELF" or head[4] != 2 or head[5] != 1:
            return None
        (phoff,) = struct.unpack_from("<Q", head, 32)
        phentsize, phnum = struct.unpack_from("<HH", head, 54)
        f.seek(phoff)
        table = f.read(phentsize * phnum)
        for index in range(phnum):
            (kind,) = struct.unpack_from("<I", table, index * phentsize)
            if kind == 3:  # PT_INTERP
                (offset,) = struct.unpack_from("<Q", table, index * phentsize + 8)
                (size,) = struct.unpack_from("<Q", table, index * phentsize + 32)
                f.seek(offset)
                return f.read(size).rstrip(b"\0").decode()
    return None


def mapped_files() -> set[str]:
    """Every file mapped into this process: /proc/self/maps on Linux, dyld's images on macOS."""
    mapped = set()
    if sys.platform == "darwin":
        import ctypes

        libc = ctypes.CDLL(None)
        libc._dyld_get_image_name.restype = ctypes.c_char_p
        for index in range(libc._dyld_image_count()):
            name = libc._dyld_get_image_name(index)
            if name and name.startswith(b"/"):
                mapped.add(name.decode("utf-8", "surrogateescape"))
        return mapped
    with open("/proc/self/maps") as f:
        for line in f:
            fields = line.rstrip("\n").split(None, 5)
            if len(fields) == 6 and fields[5].startswith("/") and not fields[5].endswith(" (deleted)"):
                mapped.add(fields[5])
    return mapped


def main() -> None:
    for name in MODULES:
        try:
            importlib.import_module(name)
        except BaseException:
            pass
    mapped = mapped_files()
    print(json.dumps({
        "executable": sys.executable,
        "interpreter": program_interpreter(sys.executable),
        "mapped": sorted(mapped),
    }))


if __name__ == "__main__":
    main()

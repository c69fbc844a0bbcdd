"""Runs a command where new user namespaces fail as on a host that has them exhausted or off.

A seccomp filter on this process tree (inherited by everything it starts, scoped to it alone,
unlike the global sysctl user.max_user_namespaces): unshare() and clone() with CLONE_NEWUSER fail
with ENOSPC (what the kernel answers when the count is exhausted), and clone3 with ENOSYS (so that
callers fall back to clone, which is judged). Usage: no_userns.py COMMAND [ARGS...]
"""

import ctypes
import errno
import os
import platform
import struct
import sys

CLONE_NEWUSER = 0x10000000
# name -> (x86_64, aarch64)
NUMBERS = {"unshare": (272, 97), "clone": (56, 220), "clone3": (435, 435)}
AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}

LD_W_ABS, JEQ, JSET, RET = 0x20, 0x15, 0x45, 0x06
RET_ALLOW, RET_ERRNO = 0x7FFF0000, 0x00050000


def main() -> None:
    arch = platform.machine()
    column = 0 if arch == "x86_64" else 1
    nr = {name: pair[column] for name, pair in NUMBERS.items()}
    arg0 = 16  # offsetof(struct seccomp_data, args[0]), low 32 bits (little-endian)
    prog = [
        (LD_W_ABS, 0, 0, 4),
        (JEQ, 1, 0, AUDIT_ARCH[arch]),
        (RET, 0, 0, RET_ALLOW),
        (LD_W_ABS, 0, 0, 0),
        (JEQ, 0, 1, nr["clone3"]),
        (RET, 0, 0, RET_ERRNO | errno.ENOSYS),
        (JEQ, 1, 0, nr["unshare"]),
        (JEQ, 0, 3, nr["clone"]),
        (LD_W_ABS, 0, 0, arg0),
        (JSET, 0, 1, CLONE_NEWUSER),
        (RET, 0, 0, RET_ERRNO | errno.ENOSPC),
        (RET, 0, 0, RET_ALLOW),
    ]
    code = b"".join(struct.pack("<HBBI", op, jt, jf, k) for op, jt, jf, k in prog)
    buffer = ctypes.create_string_buffer(code, len(code))

    class Fprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    fprog = Fprog(len(prog), ctypes.addressof(buffer))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
        raise OSError(ctypes.get_errno(), "PR_SET_NO_NEW_PRIVS")
    if libc.prctl(22, 2, ctypes.byref(fprog), 0, 0) != 0:  # PR_SET_SECCOMP, SECCOMP_MODE_FILTER
        raise OSError(ctypes.get_errno(), "PR_SET_SECCOMP")
    os.execvp(sys.argv[1], sys.argv[1:])


if __name__ == "__main__":
    main()

"""The linux backend's confinement (SPEC §7): standard library only, one concern a module.

In a child this directory is the package `_ptc_confine`, registered by the runner's load_module
when it loads confine.py (nothing goes on sys.path); its modules import each other relatively.
Tests import it as `linux` (test/python/_paths.py).

  confine.py      apply(): the layers in their order, for a spawned or forked child
  privileges.py   rlimits, credentials, capabilities
  namespaces.py   the capped tmpfs scratch and the bounds that need namespaces
  landlock.py     the Landlock ruleset; seccomp.py the seccomp policy and its BPF assembler
  kernel.py       the raw calls and the kernel numbers the standard library lacks
  syscalls.py     syscall numbers per architecture
  zygote.py       the fork server (a script; it imports the runner and this package)
  interpreter_files.py  a script: the files the interpreter reads, for the sandbox's rules

Importing this package runs nothing.
"""

"""The runtime of a program child (SPEC §6, §7): standard library only, Python >= 3.10.

A child starts with `python -I -S -B runner.py`: runner.py registers this directory as the package
`_ptc_runner` (its load_package; nothing goes on sys.path, so a program's `import calls` finds
nothing of ours) and its modules import each other relatively. The fork server
(src/sandbox/linux/zygote.py) imports `_ptc_runner.runner` the same way. Tests import the package as
`runner` (test/python/_paths.py).

  runner.py          the bootstrap: channel, rlimits, confinement, then the Runner
  channel.py         the channel's framing (newline-delimited JSON on a socket)
  program.py         the Runner: runs one program in the event loop
  program_habits.py  habitual async Python made to work, or explained
  preflight.py       the check before the run; arguments.py checks a call's arguments
  call_plan.py       the calls a program's text shows, for the question before the run
  calls.py           tool functions and ToolError; helpers.py the program helpers
  output.py, media.py, kept_files.py, session_files.py, errors.py: output, images, ./out/ files,
  store()/load() files, and the error text a program is shown

Importing this package runs nothing: a child pays only for the modules it uses.
"""

"""The fork server's warm-up (runner.py's preload → warm_up.warm_fork_server): a program's paths run
once in the server, leaving no descriptor or event loop behind, and a child forked from it runs a
trivial program's path alone; a spawned child (no fork server) runs them all before `ready`."""

import subprocess
import sys
import textwrap
import unittest

import _paths

SCRIPT = textwrap.dedent(
    """
    import asyncio, os, socket, sys, tempfile
    sys.path.insert(0, {sandbox!r})
    from linux.zygote import import_runner

    runner = import_runner({runner_dir!r})
    import importlib
    program = importlib.import_module("_ptc_runner.program")
    warm = importlib.import_module("_ptc_runner.warm_up")
    fds = lambda: sorted(os.listdir("/proc/self/fd"))
    if {preload!r}:
        before = fds()
        runner.preload({confine!r})
        assert fds() == before, (before, fds())
        assert asyncio.get_event_loop_policy()._local._loop is None
        assert runner.__file__ in runner._runner_files()
    ran = []
    warm.warm_paths = lambda runner: ran.append("all paths")
    warm.warm_program_path = lambda runner: ran.append("the program's path")
    os.chdir(tempfile.mkdtemp())
    mine, _other = socket.socketpair()
    channel = runner.channel_from_fd(os.dup(mine.fileno()))
    warm.warm_up(program.Runner(channel, os.open(os.devnull, os.O_WRONLY), frozenset(), {{}}))
    assert os.path.isdir("session")
    print("warmed" if warm._paths_warmed else "cold", ran)
    """
)


def run(preload):
    script = SCRIPT.format(
        sandbox=str(_paths.SANDBOX),
        runner_dir=str(_paths.EXECUTION / "runner"),
        confine=str(_paths.SANDBOX / "linux" / "confine.py"),
        preload=preload,
    )
    command = [sys.executable, "-I", "-S", "-c", script]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        raise AssertionError(done.stderr)
    return done.stdout.strip()


@unittest.skipUnless(sys.platform == "linux", "the fork server is Linux's")
class ForkServerWarmTest(unittest.TestCase):
    def test_a_child_of_a_warmed_server_runs_the_programs_path_alone(self):
        self.assertEqual(run(preload=True), "warmed [\"the program's path\"]")

    def test_a_spawned_child_runs_them_all_itself(self):
        self.assertEqual(run(preload=False), "cold ['all paths']")


if __name__ == "__main__":
    unittest.main()

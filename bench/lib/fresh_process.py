"""P, SPEC §11's fresh process: this Python, warmed with the runner's imports as the fork server
is, forks a child that reads one line from a pipe, answers one line and exits; the parent reaps it.

  python -I -S -B fresh_process.py <runner.py> <confine.py> <rounds> <pause_ms>

Prints one JSON object: each round's milliseconds (fork to reaped), and the CPU of all rounds
(getrusage: the parent's own, and its reaped children's), in milliseconds per round.
"""

import gc
import importlib
import importlib.util
import json
import os
import resource
import sys
import time
from types import ModuleType


def cpu_ms(who: int) -> float:
    usage = resource.getrusage(who)
    return (usage.ru_utime + usage.ru_stime) * 1000


def one_round() -> float:
    to_child_r, to_child_w = os.pipe()
    to_parent_r, to_parent_w = os.pipe()
    t0 = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        os.close(to_child_w)
        os.close(to_parent_r)
        line = os.read(to_child_r, 4096)
        os.write(to_parent_w, line)
        os._exit(0)
    os.close(to_child_r)
    os.close(to_parent_w)
    os.write(to_child_w, b'{"type":"run","code":"print(1)"}\n')
    answer = os.read(to_parent_r, 4096)
    _, status = os.waitpid(pid, 0)
    elapsed = (time.perf_counter() - t0) * 1000
    os.close(to_child_w)
    os.close(to_parent_r)
    if not answer or status != 0:
        sys.exit("fresh process: the child did not answer")
    return elapsed


def import_runner(runner_path: str) -> ModuleType:
    """`_ptc_runner.runner`, its package registered from the directory's __init__.py, as the fork
    server imports it (src/sandbox/linux/zygote.py)."""
    runner_dir = os.path.dirname(runner_path)
    spec = importlib.util.spec_from_file_location(
        "_ptc_runner", os.path.join(runner_dir, "__init__.py"), submodule_search_locations=[runner_dir]
    )
    assert spec is not None and spec.loader is not None
    package = importlib.util.module_from_spec(spec)
    sys.modules["_ptc_runner"] = package
    spec.loader.exec_module(package)
    return importlib.import_module("_ptc_runner.runner")


def main() -> None:
    runner_path, confine_path, rounds, pause_ms = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    import_runner(runner_path).preload(confine_path)
    gc.collect()
    gc.freeze()
    for _ in range(3):
        one_round()
    parent0, children0 = cpu_ms(resource.RUSAGE_SELF), cpu_ms(resource.RUSAGE_CHILDREN)
    times = []
    for _ in range(rounds):
        if pause_ms > 0:
            time.sleep(pause_ms / 1000)
        times.append(one_round())
    parent = (cpu_ms(resource.RUSAGE_SELF) - parent0) / rounds
    child = (cpu_ms(resource.RUSAGE_CHILDREN) - children0) / rounds
    print(json.dumps({"ms": times, "parentCpuMs": parent, "childCpuMs": child}))


if __name__ == "__main__":
    main()

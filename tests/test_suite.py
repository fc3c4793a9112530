"""The suite's own set-up (tests/conftest.py, pyproject.toml's pytest options)."""

from __future__ import annotations

from pathlib import Path

from conftest import LONGEST_FILES


def test_the_files_started_first_are_there():
    """A file renamed or removed would silently go back to its place in xdist's queue."""
    here = Path(__file__).resolve().parent
    assert [name for name in LONGEST_FILES if not (here / name).is_file()] == []
    assert len(set(LONGEST_FILES)) == len(LONGEST_FILES)


def test_a_process_a_test_stops_stays_stopped_when_the_suites_process_group_is_continued(tmp_path):
    """The kernel continues every member of an orphaned process group that has a stopped one
    (SIGHUP, then SIGCONT: POSIX job control), and the suite's group becomes orphaned when the
    shell that started it in the background ends: a `git gc` a test had stopped ran on, and the
    write it held never waited for it. Processes a test stops are started by
    :func:`conftest.start_to_stop`, in a session of their own. Here a group of its own (a child
    Python, so that nothing else of the suite's is continued) gets the kernel's SIGCONT, and the
    process stopped in it stays stopped."""
    import subprocess
    import sys
    import textwrap

    child = textwrap.dedent(f"""
        import os, signal, sys
        sys.path.insert(0, {str(Path(__file__).resolve().parent)!r})
        from conftest import start_to_stop

        def state(pid):
            with open(f"/proc/{{pid}}/stat") as f:
                return f.read().rsplit(")", 1)[1].split()[0]

        held = start_to_stop(["sleep", "60"])
        os.kill(held.pid, signal.SIGSTOP)
        while state(held.pid) != "T":
            os.sched_yield()
        os.killpg(0, signal.SIGCONT)  # SIGCONT wakes a stopped process when it is sent
        print(state(held.pid))
        held.kill()
        held.wait()
    """)
    done = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=60,
                          process_group=0, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "T"


def test_the_processes_a_test_starts_take_ctrl_c_even_when_the_suite_was_started_ignoring_it(tmp_path):
    """A shell without job control starts a background command (`nohup .ci/run &`) with SIGINT
    ignored, inherited by every process below it: the `vault-mem` a test interrupts with SIGINT
    ignored it (tests/test_daemon_writes.py timed out). The suite's conftest handles SIGINT again
    when it finds it ignored, so what it starts gets the default action. Here a Python started
    with SIGINT ignored imports conftest and starts another: that one has Python's own handler."""
    import subprocess
    import sys
    import textwrap

    child = textwrap.dedent(f"""
        import signal, subprocess, sys
        assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN
        sys.path.insert(0, {str(Path(__file__).resolve().parent)!r})
        import conftest  # noqa: F401
        print(subprocess.run([sys.executable, "-c", "import signal; print(signal.getsignal(signal.SIGINT))"],
                             capture_output=True, text=True, check=True).stdout.strip())
    """)
    ignoring = "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_IGN); os.execv(sys.executable, sys.argv[1:])"
    done = subprocess.run([sys.executable, "-c", ignoring, sys.executable, "-c", child], capture_output=True,
                          text=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "<built-in function default_int_handler>"


def test_a_copied_project_is_what_making_one_gives(project, tmp_path):
    """The ``project`` fixture copies a project made once per worker: what the commands say of
    the copy is what they say of one made here (`git init`, `vault-mem init memory`, a remember),
    its path aside: its memories, its history, a clean `git status`, `doctor`, its hooks."""
    import conftest
    from conftest import cli, git

    copied, _ = project
    (tmp_path / "made").mkdir()
    made, _ = conftest._make_project(tmp_path / "made")
    assert copied != made

    def said(proj: Path) -> dict[str, object]:
        vault, top = str(proj / "memory"), str(proj)
        listed, doctor = cli("--vault", vault, "list"), cli("--vault", vault, "doctor")
        return {"list": (listed.returncode, listed.stdout.replace(top, "P"), listed.stderr.replace(top, "P")),
                "doctor": (doctor.returncode, doctor.stdout.replace(top, "P"), doctor.stderr.replace(top, "P")),
                "log": git(proj, "log", "--format=%an%n%s%n%b"), "status": git(proj, "status", "--porcelain"),
                "hooks": sorted(p.name for p in (proj / ".git" / "hooks").iterdir()),
                "files": sorted(str(p.relative_to(proj)) for p in proj.rglob("*")
                                if ".git" not in p.relative_to(proj).parts[:1])}

    assert said(copied) == said(made)

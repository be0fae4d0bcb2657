"""What the server benchmarks share: a server process started on a free port, and its
resident memory from /proc."""
import pathlib
import subprocess


def start(command):
    """A server process that prints its URI as the last word of its first line; the
    process and the URI."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    return process, line.strip().rsplit(" ", 1)[-1]


def resident_kib(pid, key):
    """A memory figure of /proc/PID/status (`VmRSS:`, `VmHWM:`) in KiB; 0 if absent."""
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key):
            return int(line.split()[1])
    return 0

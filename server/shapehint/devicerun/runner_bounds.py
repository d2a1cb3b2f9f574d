"""The bounds a device run keeps to, beside its output channel: what it prints (`BoundedWriter`)
and what it allocates (`limit_address_space`). A part of runner.py (loaded by path: standard
library only, like the runner)."""
import io


class BoundedWriter(io.TextIOBase):
    """A text stream keeping the first `limit` characters and counting the rest (output floods)."""

    def __init__(self, limit):
        self.limit, self.parts, self.size, self.dropped = limit, [], 0, 0

    def write(self, s):
        s = str(s)
        room = self.limit - self.size
        if room > 0:
            self.parts.append(s[:room])
            self.size += min(len(s), room)
        self.dropped += max(0, len(s) - max(room, 0))
        return len(s)

    def writable(self):
        return True

    def text(self):
        return "".join(self.parts)


def limit_address_space(mb: int) -> None:
    """cpu/meta: a runaway allocation fails as a MemoryError on its own line. The limit is set once
    torch is imported, `mb` above what the process has mapped by then: a CUDA build of torch maps
    gigabytes of libraries even for a CPU run, and a limit counted from zero made its import fail."""
    try:
        import resource
        with open("/proc/self/status") as f:
            mapped = next((int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize:")), 0)
        lim = mapped + mb * 2**20
        resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
    except (ImportError, ValueError, OSError):
        pass  # no /proc (not Linux) or no such limit: the resident-size watchdog still bounds the run

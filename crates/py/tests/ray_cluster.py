"""A two-node Ray cluster of its own on this machine, as tests/ray/sweep.sh sets one up: two
`ray start --block` nodes with their own temp dir and fixed ports (a range found free and
claimed, beside any other cluster of the machine), token authentication with a token of the
cluster's given to every node and driver, and a home holding a user's token file that is not the cluster's (a local `ray.init()`
of Ray 2.60 writes ~/.ray/auth_token, after which a node or driver without the cluster's own
token is refused). Stopping it stops only its own processes: never `ray stop`, which stops
every Ray process of this user."""

from __future__ import annotations

import fcntl
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# A cluster's ports: base (the head), base + 2, base + 10.. (the head's node), base + 300.. (the
# other node), each node's worker ports 100 above its own: base .. base + SPAN - 1.
SPAN = 500


def _node_ports(base: int) -> list[str]:
    """A node's fixed ports, so that two nodes and another cluster never collide."""
    return [
        f"--node-manager-port={base}",
        f"--object-manager-port={base + 1}",
        f"--dashboard-agent-listen-port={base + 2}",
        f"--dashboard-agent-grpc-port={base + 3}",
        f"--runtime-env-agent-port={base + 4}",
        f"--metrics-export-port={base + 5}",
        f"--min-worker-port={base + 100}",
        f"--max-worker-port={base + 199}",
    ]


def claim_ports():
    """A base for a cluster's SPAN ports: each port free now (bound once to try), the base
    claimed against the machine's other test clusters (tests/ray/sweep.sh claims the same way)
    by a lock held while the returned file stays open, and below or above the ports the OS hands
    out to outgoing connections. The base is the first such one: not a random base, which
    collided at random with another cluster's or a connection's ports."""
    lo, hi = (int(x) for x in Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split())
    claims = Path(tempfile.gettempdir()) / "hpo-playground-ray-ports"
    claims.mkdir(exist_ok=True)
    for base in range(20000, 65536 - SPAN, SPAN):
        if base + SPAN > lo and base <= hi:
            continue
        lock = open(claims / f"{base}.lock", "w")
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            lock.close()
            continue
        if all(_free(port) for port in range(base, base + SPAN)):
            return base, lock
        lock.close()
    raise RuntimeError("no free range of ports for a Ray cluster")


def _free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("", port))
        except OSError:
            return False
    return True


class LocalCluster:
    """`with LocalCluster(tmp, cpus_per_node=2) as cluster:` — `cluster.address` and
    `cluster.env` (what a driver process needs) while it runs."""

    def __init__(self, tmp: Path, cpus_per_node: int = 2) -> None:
        self.tmp = Path(tmp)
        self.cpus = cpus_per_node
        self.port, self._claim = claim_ports()
        self.address = f"127.0.0.1:{self.port}"
        home = self.tmp / "home"
        (home / ".ray").mkdir(parents=True, exist_ok=True)
        (home / ".ray/auth_token").write_text(secrets.token_hex(32))  # the user's, not the cluster's
        self.env = {
            **os.environ,
            "HOME": str(home),
            "RAY_AUTH_MODE": "token",
            "RAY_AUTH_TOKEN": secrets.token_hex(32),
            "RAY_USAGE_STATS_ENABLED": "0",
            "RAY_DEDUP_LOGS": "0",
        }
        self.nodes: list[subprocess.Popen] = []
        self.ray = str(Path(sys.executable).parent / "ray")

    def __enter__(self) -> LocalCluster:
        try:
            self._start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def _node(self, args: list[str], log: str) -> subprocess.Popen:
        with open(self.tmp / log, "w") as out:
            node = subprocess.Popen(
                [self.ray, "start", "--block", f"--num-cpus={self.cpus}", *args],
                env=self.env, stdout=out, stderr=subprocess.STDOUT,
            )
        self.nodes.append(node)
        return node

    def _start(self) -> None:
        head = self._node(
            ["--head", f"--port={self.port}", f"--dashboard-port={self.port + 2}", f"--temp-dir={self.tmp / 'ray'}",
             "--include-dashboard=false", "--disable-usage-stats", *_node_ports(self.port + 10)],
            "head.log",
        )
        for _ in range(240):
            if head.poll() is not None:
                raise RuntimeError(f"the Ray head did not start: {(self.tmp / 'head.log').read_text()[-2000:]}")
            if (self.tmp / "ray/ray_current_cluster").exists():
                break
            time.sleep(0.5)
        self._node([f"--address={self.address}", *_node_ports(self.port + 300)], "node.log")
        count = "import ray; ray.init(address='{}', logging_level='ERROR'); print(len([n for n in ray.nodes() if n['Alive']]))"
        for _ in range(60):
            done = subprocess.run([sys.executable, "-c", count.format(self.address)], env=self.env, capture_output=True, text=True)
            if done.stdout.strip() == "2":
                return
            time.sleep(1)
        raise RuntimeError(f"expected a two-node cluster: {(self.tmp / 'node.log').read_text()[-2000:]}")

    def processes(self) -> dict[int, bytes]:
        """Every live process of this cluster (descendants of its two `ray start` processes)
        with its command line."""
        found, frontier = {}, [n.pid for n in self.nodes if n.poll() is None]
        while frontier:
            pid = frontier.pop()
            try:
                found[pid] = _cmdline(pid)
                children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
            except OSError:
                continue
            frontier += [int(c) for c in children]
        return found

    def stop(self) -> None:
        """Stops this cluster's nodes (SIGTERM: `ray start --block` stops its own processes);
        anything of it still alive a minute later is killed."""
        everything = self.processes()
        for node in self.nodes:
            if node.poll() is None:
                node.send_signal(signal.SIGTERM)
        for node in self.nodes:
            try:
                node.wait(timeout=60)
            except subprocess.TimeoutExpired:
                node.kill()
                node.wait()
        for pid, cmdline in everything.items():
            if running(pid, cmdline):  # still that process of this cluster, not a reused pid
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
        # Until the kernel has ended them (a killed process runs on for a moment): the test
        # that nothing outlived the cluster then finds what is so, not what is on its way.
        for _ in range(600):  # a hang guard of a minute
            if not any(running(pid, cmdline) for pid, cmdline in everything.items()):
                break
            time.sleep(0.1)
        self.nodes = []
        self._claim.close()


def _cmdline(pid: int) -> bytes:
    return Path(f"/proc/{pid}/cmdline").read_bytes()


def running(pid: int, cmdline: bytes) -> bool:
    """Whether `pid` is still the process of that command line, and not ended (a zombie, whose
    parent has yet to read its status, has ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        return state != "Z" and _cmdline(pid) == cmdline
    except (OSError, IndexError):
        return False

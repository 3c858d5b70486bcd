"""A Neo4j Community server managed by the project, for machines without Docker.

The server's jars come from Maven Central (`mvn dependency:copy-dependencies` on the pom shipped
beside this module) and it is started by Neo4j's own launcher, `Neo4jCommand start`, which forks
the community entry point and writes its pid file. No custom Java.

Layout under the state folder (INCIDENT_GRAPH_STATE_DIR, default `.incident-graph`):

    neo4j-<version>/lib/        the classpath, resolved once and reused
    server-<port>/conf/         neo4j.conf written by `start`
    server-<port>/data|logs|run the instance's files; run/neo4j.pid is the server's pid
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from incident_graph.config import Settings

# 5.26 is the LTS line and the last that runs on Java 17, the machine's default JDK.
NEO4J_VERSION = "5.26.30"
MINIMUM_JAVA = 17
START_TIMEOUT_S = 120.0
STOP_TIMEOUT_S = 60.0

JVM_OPTIONS = (
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "-Dio.netty.tryReflectionSetAccessible=true",
)


class ServerError(RuntimeError):
    """A managed-server step failed; the message says what is missing and what to do."""


@dataclass(frozen=True)
class ServerLayout:
    state_dir: Path
    port: int
    version: str = NEO4J_VERSION

    @property
    def home(self) -> Path:
        return (self.state_dir / f"neo4j-{self.version}").resolve()

    @property
    def lib(self) -> Path:
        return self.home / "lib"

    @property
    def instance(self) -> Path:
        return (self.state_dir / f"server-{self.port}").resolve()

    @property
    def conf_dir(self) -> Path:
        return self.instance / "conf"

    @property
    def pid_file(self) -> Path:
        return self.instance / "run" / "neo4j.pid"

    @property
    def log_file(self) -> Path:
        return self.instance / "logs" / "neo4j.log"


@dataclass(frozen=True)
class ServerStatus:
    uri: str
    running: bool
    pid: int | None
    managed: bool


def layout_for(settings: Settings) -> ServerLayout:
    return ServerLayout(state_dir=settings.state_dir, port=settings.bolt_port)


# ---------------------------------------------------------------- prerequisites


def java_executable() -> str:
    java_home = os.environ.get("JAVA_HOME")
    if java_home and (Path(java_home) / "bin" / "java").exists():
        return str(Path(java_home) / "bin" / "java")
    found = shutil.which("java")
    if not found:
        raise ServerError(
            "No Java found: Neo4j 5.26 needs Java 17 or 21. Install a JDK "
            "(apt-get install openjdk-17-jre-headless) or set JAVA_HOME."
        )
    return found


def java_major_version(java: str) -> int:
    output = subprocess.run(
        [java, "-version"], capture_output=True, text=True, check=False
    ).stderr
    match = re.search(r'version "(\d+)(?:\.(\d+))?', output)
    if not match:
        raise ServerError(f"Could not read the Java version from `{java} -version`: {output!r}")
    major = int(match.group(1))
    return int(match.group(2)) if major == 1 and match.group(2) else major


def check_java() -> str:
    java = java_executable()
    major = java_major_version(java)
    if major < MINIMUM_JAVA:
        raise ServerError(
            f"Java {major} found at {java}; Neo4j {NEO4J_VERSION} needs Java 17 or 21. "
            "Set JAVA_HOME to a newer JDK."
        )
    return java


def resolve_classpath(layout: ServerLayout) -> Path:
    """Copy Neo4j and its dependencies from Maven Central into the lib folder, once."""
    marker = layout.home / ".resolved"
    if marker.exists():
        return layout.lib
    mvn = shutil.which("mvn")
    if not mvn:
        raise ServerError(
            "Maven (mvn) not found: it resolves Neo4j from Maven Central on first start. "
            "Install it (apt-get install maven) or use Docker: docker compose up."
        )
    layout.home.mkdir(parents=True, exist_ok=True)
    pom = layout.home / "pom.xml"
    pom.write_text(resources.files("incident_graph.graph").joinpath("neo4j-server.pom.xml").read_text())
    command = [
        mvn, "-B", "-q", "-f", str(pom),
        f"-Dneo4j.version={layout.version}",
        "dependency:copy-dependencies",
        f"-DoutputDirectory={layout.lib}",
        "-DincludeScope=runtime",
    ]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        output = (result.stdout + result.stderr)[-2000:]
        if re.search(r"transfer|resolve|UnknownHost|Connect", output, re.IGNORECASE):
            raise ServerError(
                f"Maven could not download org.neo4j:neo4j:{layout.version}: is Maven Central "
                f"reachable (or a mirror set in ~/.m2/settings.xml)?\n{output}"
            )
        raise ServerError(f"mvn failed resolving Neo4j:\n{output}")
    marker.write_text(layout.version + "\n")
    return layout.lib


# ---------------------------------------------------------------- configuration


def write_config(layout: ServerLayout, settings: Settings) -> Path:
    for folder in ("conf", "data", "logs", "run"):
        (layout.instance / folder).mkdir(parents=True, exist_ok=True)
    lines = [
        "# Written by incident-graph; edits are overwritten on start.",
        "server.default_listen_address=127.0.0.1",
        f"server.bolt.listen_address=127.0.0.1:{layout.port}",
        "server.http.enabled=false",
        "server.https.enabled=false",
        f"server.directories.data={layout.instance / 'data'}",
        f"server.directories.logs={layout.instance / 'logs'}",
        f"server.directories.run={layout.instance / 'run'}",
        "dbms.usage_report.enabled=false",
        f"server.memory.heap.initial_size={settings.heap}",
        f"server.memory.heap.max_size={settings.heap}",
        # Always explicit: the default page cache is about half of the machine's memory.
        f"server.memory.pagecache.size={settings.pagecache}",
        *(f"server.jvm.additional={option}" for option in JVM_OPTIONS),
    ]
    conf = layout.conf_dir / "neo4j.conf"
    conf.write_text("\n".join(lines) + "\n")
    return conf


def launcher_env(layout: ServerLayout) -> dict[str, str]:
    env = dict(os.environ)
    env["NEO4J_HOME"] = str(layout.home)
    env["NEO4J_CONF"] = str(layout.conf_dir)
    return env


def run_launcher(layout: ServerLayout, java: str, main_class: str, *args: str) -> str:
    command = [java, "-cp", f"{layout.lib}/*", main_class, *args]
    result = subprocess.run(
        command, capture_output=True, text=True, env=launcher_env(layout), check=False
    )
    output = result.stdout + result.stderr
    if result.returncode != 0:
        raise ServerError(f"{main_class} {' '.join(args[:2])} failed:\n{output[-2000:]}")
    return output


def set_initial_password(layout: ServerLayout, java: str, password: str) -> None:
    """Neo4j reads the initial password only before its first start."""
    if (layout.instance / "data" / "databases").exists():
        return
    run_launcher(
        layout, java, "org.neo4j.server.startup.Neo4jAdminCommand",
        "dbms", "set-initial-password", password,
    )


# ---------------------------------------------------------------- process control


def port_open(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.5)
        return sock.connect_ex((host, port)) == 0


def read_pid(layout: ServerLayout) -> int | None:
    try:
        pid = int(layout.pid_file.read_text().strip())
    except (FileNotFoundError, ValueError):
        return None
    return pid if process_alive(pid) else None


def process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie child still answers kill(0); it is not a server.
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except (FileNotFoundError, IndexError):
        return True
    return state != "Z"


def bolt_ready(settings: Settings) -> bool:
    from incident_graph.graph.connection import server_answers

    return server_answers(settings)


def status(settings: Settings) -> ServerStatus:
    layout = layout_for(settings)
    pid = read_pid(layout)
    return ServerStatus(uri=settings.uri, running=bolt_ready(settings), pid=pid, managed=pid is not None)


def start(settings: Settings, progress: "callable[[str], None]" = lambda message: None) -> ServerStatus:
    """Start the managed server, or reuse one that already answers on the Bolt port."""
    layout = layout_for(settings)
    if read_pid(layout) is not None or port_open(settings.host, settings.bolt_port):
        if bolt_ready(settings):
            return status(settings)
        if read_pid(layout) is None:
            raise ServerError(
                f"Port {settings.bolt_port} on {settings.host} is taken by another process that is "
                "not a Neo4j accepting our credentials. Stop it, or choose another port with "
                "NEO4J_URI=bolt://127.0.0.1:<port>."
            )
    java = check_java()
    if not (layout.home / ".resolved").exists():
        progress(f"Resolving Neo4j {layout.version} from Maven Central (first start only)...")
    resolve_classpath(layout)
    write_config(layout, settings)
    set_initial_password(layout, java, settings.password)
    if read_pid(layout) is None:
        progress(f"Starting Neo4j {layout.version} on {settings.uri}...")
        run_launcher(layout, java, "org.neo4j.server.startup.Neo4jCommand", "start")
    wait_until_ready(settings, layout)
    return status(settings)


def wait_until_ready(settings: Settings, layout: ServerLayout) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if bolt_ready(settings):
            return
        if layout.pid_file.exists() and read_pid(layout) is None:
            raise ServerError(f"Neo4j exited during start-up; see {layout.log_file}:\n{log_tail(layout)}")
        time.sleep(0.5)
    raise ServerError(
        f"Neo4j did not answer on {settings.uri} within {START_TIMEOUT_S:.0f}s; "
        f"see {layout.log_file}:\n{log_tail(layout)}"
    )


def log_tail(layout: ServerLayout, lines: int = 20) -> str:
    try:
        return "\n".join(layout.log_file.read_text(errors="replace").splitlines()[-lines:])
    except FileNotFoundError:
        return "(no log written)"


def stop(settings: Settings) -> bool:
    """Stop the server this project started, by its pid. Returns False when none was running."""
    layout = layout_for(settings)
    pid = read_pid(layout)
    if pid is None:
        layout.pid_file.unlink(missing_ok=True)
        return False
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_TIMEOUT_S
    while process_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    if process_alive(pid):
        os.kill(pid, signal.SIGKILL)
        while process_alive(pid):
            time.sleep(0.1)
    layout.pid_file.unlink(missing_ok=True)
    return True

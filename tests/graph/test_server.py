"""The managed server's lifecycle and its errors."""

import socket

import pytest

from incident_graph.config import Settings
from incident_graph.graph import server


def test_second_start_reuses_the_running_server(neo4j_settings):
    first = server.status(neo4j_settings)
    assert first.running
    again = server.start(neo4j_settings)
    assert again.running and again.pid == first.pid


def test_port_taken_by_another_process_is_a_clear_error(tmp_path):
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        settings = Settings(uri=f"bolt://127.0.0.1:{port}", state_dir=tmp_path)
        with pytest.raises(server.ServerError, match=f"Port {port} .* is taken"):
            server.start(settings)


def test_missing_java_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("JAVA_HOME", raising=False)
    with pytest.raises(server.ServerError, match="No Java found"):
        server.check_java()


def test_missing_maven_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    layout = server.ServerLayout(state_dir=tmp_path, port=1)
    with pytest.raises(server.ServerError, match=r"Maven \(mvn\) not found"):
        server.resolve_classpath(layout)


def test_written_config_listens_on_loopback_with_explicit_memory(tmp_path):
    settings = Settings(uri="bolt://127.0.0.1:7777", state_dir=tmp_path, heap="700m", pagecache="300m")
    conf = server.write_config(server.layout_for(settings), settings).read_text()
    assert "server.bolt.listen_address=127.0.0.1:7777" in conf
    assert "server.default_listen_address=127.0.0.1" in conf
    assert "server.memory.heap.max_size=700m" in conf
    assert "server.memory.pagecache.size=300m" in conf
    assert "--add-opens=java.base/java.nio=ALL-UNNAMED" in conf


def test_stop_without_a_server_says_so(tmp_path):
    assert server.stop(Settings(uri="bolt://127.0.0.1:1", state_dir=tmp_path)) is False

"""Runs a command with a redis-server of its own on a free loopback port,
NVREGALLOC_REMOTE_CACHE naming it, and stops the server after (it saves its
data in DIR on the way out and loads it at the next start, so that RUN lines
apart share it):
    with-redis.py DIR -- COMMAND...
    with-redis.py --down -- COMMAND...   # the URL of a port nothing listens on
Exits with the command's status."""
import os
import socket
import subprocess
import sys
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    split = sys.argv.index("--")
    where, command = sys.argv[1:split], sys.argv[split + 1:]
    port = free_port()
    env = dict(os.environ, NVREGALLOC_REMOTE_CACHE=f"redis://127.0.0.1:{port}")
    if where == ["--down"]:
        return subprocess.call(command, env=env)
    data = os.path.abspath(where[0])
    os.makedirs(data, exist_ok=True)
    server = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--dir", data,
         "--dbfilename", "dump.rdb", "--save", "3600 1", "--appendonly", "no"],
        stdout=subprocess.DEVNULL)
    try:
        deadline = time.time() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.time() > deadline or server.poll() is not None:
                    sys.exit(f"with-redis.py: redis-server did not start on port {port}")
                time.sleep(0.1)
        return subprocess.call(command, env=env)
    finally:
        server.terminate()
        server.wait(20)


if __name__ == "__main__":
    sys.exit(main())

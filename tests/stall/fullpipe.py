#!/usr/bin/env python3
"""fullpipe.py — run a command whose log is a pipe that is full from the
start, for tests/suites/26-symbolize.sh (stall-*, wait-*).

  fullpipe.py HOW LIMIT -- cmd args...

HOW: "stderr" (fd 2 is the full pipe, nobody reads it), "fifo:PATH" (a
FIFO at PATH, full, open for reading but never read: the command is to
be told to write there, log_path or stats_path or report_path; its
stderr is /dev/null), "slow" (fd 2 full, then drained 256 bytes every
20 ms until the command ends: 5 s for the filler alone, longer than the
write deadline).  The command is killed after LIMIT seconds.  Prints "rc R secs S" (R: the exit status, 128+N for signal N,
"hang" when killed), and for "slow" writes what was read, less the
filler, to stdout after that line.
"""
import os, subprocess, sys, threading, time


def fill(w):
    os.set_blocking(w, False)
    try:
        while True:
            os.write(w, b"f" * 4096)
    except BlockingIOError:
        pass
    os.set_blocking(w, True)


def main():
    how, limit, cmd = sys.argv[1], float(sys.argv[2]), sys.argv[4:]
    got = bytearray()
    stop = threading.Event()
    if how.startswith("fifo:"):
        path = how[5:]
        os.mkfifo(path)
        r = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        w = os.open(path, os.O_WRONLY)
        fill(w)
        err = subprocess.DEVNULL
    else:
        r, w = os.pipe()
        fill(w)
        err = w
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stderr=err, stdout=subprocess.DEVNULL)
    if how == "slow":
        def drain():
            os.set_blocking(r, False)
            while not stop.is_set():
                try:
                    got.extend(os.read(r, 256))
                except BlockingIOError:
                    pass
                time.sleep(0.02)
            os.set_blocking(r, False)
            try:
                while True:
                    b = os.read(r, 65536)
                    if not b:
                        break
                    got.extend(b)
            except BlockingIOError:
                pass
        th = threading.Thread(target=drain)
        th.start()
    try:
        rc = p.wait(timeout=limit)
        rc = 128 - rc if rc < 0 else rc
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        rc = "hang"
    secs = time.monotonic() - t0
    if how == "slow":
        stop.set()
        th.join()
    print(f"rc {rc} secs {secs:.1f}")
    if how == "slow":
        sys.stdout.write(got.lstrip(b"f").decode("utf-8", "replace"))


main()

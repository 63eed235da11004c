"""The fuzz runner: one worker subprocess under a memory cap, watched by this process.

``python -m tests.fuzz --budget 600 --seed 1 --target all`` runs mutants of the seeds
through the targets for 600 s. The worker runs inputs in-process (cheap: no process per
input) with two limits per input:

* time: a CPU-time alarm (``ITIMER_PROF``, ``--timeout`` seconds, default 2) interrupts an
  input that runs too long — a *hang* finding; an input stuck in C code that the alarm
  cannot interrupt is caught by this process, which watches the worker's progress counter
  and kills it (``SIGKILL``) after ``timeout + 3`` s, records the hang and restarts the
  worker after that input;
* memory: ``RLIMIT_AS`` (``--mem-mb``, default 1024) makes an allocation bomb a
  ``MemoryError`` — a *memory* finding — instead of eating the machine.

Any exception that is not a ``BinlogError`` is a *crash* finding; a decoded event that
re-encodes differently is an *infidelity* finding; the export writing outside its output
directory is an *escape*, two readers of the same bytes that disagree a *disagreement*
(tests/fuzz/oracles.py). Each distinct finding (target, kind,
exception type, innermost project frame) is minimized in the worker and written to
``--findings`` (default ``./fuzz-findings``) as ``<target>/<kind>-<signature>.bin``; copy it
to ``tests/fuzz/corpus/<target>/`` to keep it as a regression test.

``--replay DIR`` runs every corpus file once under the same limits instead (what the
pytest test does); exit status 1 when any finding remains.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import mmap
import os
import resource
import signal
import struct
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

_PROGRESS = struct.Struct("<qq")  # current index, inputs run (minimizing tries included)
KINDS = ("crash", "hang", "memory", "infidelity", "unlocated", "escape", "disagreement")
"""Finding kinds (docs/fuzzing.md)."""


class _Timeout(BaseException):
    """Raised by the CPU-time alarm inside an input (BaseException: no target catches it)."""


def _on_alarm(signum, frame):  # noqa: ANN001
    raise _Timeout()


def _signature(target: str, kind: str, exc: BaseException | None) -> tuple[str, str]:
    """(short signature, description) of a finding: exception type and innermost frame of
    the project where it was raised."""
    if exc is None:
        return hashlib.sha1(f"{target}:{kind}".encode()).hexdigest()[:10], kind
    where = ""
    for fs in traceback.extract_tb(exc.__traceback__):
        if "binlogwriter" in fs.filename or "generators" in fs.filename:
            where = f"{Path(fs.filename).name}:{fs.lineno}"
    desc = f"{type(exc).__name__} at {where}: {str(exc)[:200]}"
    key = f"{target}:{kind}:{type(exc).__name__}:{where}"
    if kind == "infidelity":
        key = f"{target}:{kind}:{str(exc).split(' ')[0]}"
    elif kind in ("disagreement", "escape"):  # the rule broken, without numbers and names
        rule = str(exc).split(":", 1)[0]
        key = f"{target}:{kind}:{''.join(c for c in rule if not c.isdigit())[:80]}"
    elif type(exc).__name__ == "Unlocated":  # the message kind, without numbers and paths
        line = str(exc).split(":offset: ", 1)[-1]
        key = f"{target}:{kind}:{''.join(c for c in line.split(' - ')[0] if not c.isdigit())[:60]}"
    return hashlib.sha1(key.encode()).hexdigest()[:10], desc


def located(exc: BaseException, path: str) -> bool:
    """Whether a typed error raised while reading ``path`` names its place: a
    :class:`DecodeError` with the file and an absolute offset (docs/fuzzing.md)."""
    from binlogwriter.errors import DecodeError

    return isinstance(exc, DecodeError) and exc.file == path and exc.offset is not None


# ----------------------------------------------------------------------------- worker
class _Worker:
    def __init__(self, args: argparse.Namespace) -> None:
        from tests.fuzz.targets import TARGETS

        self.args = args
        self.targets = TARGETS
        self.out = os.fdopen(os.dup(1), "w", buffering=1)
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - targets print; messages go to self.out
        self.path = os.path.join(args.tmp, "input.bin")
        self.prog = None
        self.beat = 0
        """Inputs run, minimizing tries included: the parent sees a long minimization progress."""
        if args.progress:
            fd = os.open(args.progress, os.O_RDWR)
            self.prog = mmap.mmap(fd, _PROGRESS.size)
            os.close(fd)
        signal.signal(signal.SIGPROF, _on_alarm)
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent stops the run
        if args.mem_mb:
            cap = args.mem_mb << 20
            resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    def send(self, **msg) -> None:
        self.out.write(json.dumps(msg) + "\n")

    def one(self, target, data) -> tuple[str | None, BaseException | None]:
        """Run one input: (finding kind or None, exception)."""
        from binlogwriter.errors import BinlogError
        from tests.fuzz.oracles import Disagreement, Escape
        from tests.fuzz.targets import Infidelity, Unlocated, run_target

        signal.setitimer(signal.ITIMER_PROF, self.args.timeout, 0.05)  # re-fires if swallowed
        try:
            run_target(target, data, self.path)
        except _Timeout as exc:
            return "hang", exc
        except BinlogError as exc:
            if target.kind == "binlog" and not located(exc, self.path):
                return "unlocated", exc
            return None, None
        except Infidelity as exc:
            return "infidelity", exc
        except Unlocated as exc:
            return "unlocated", exc
        except Escape as exc:
            return "escape", exc
        except Disagreement as exc:
            return "disagreement", exc
        except MemoryError as exc:
            return "memory", exc
        except RecursionError as exc:
            return "crash", exc
        except Exception as exc:  # noqa: BLE001 - an untyped exception is what we look for
            return "crash", exc
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
        return None, None

    def minimize(self, target, data, kind: str, sig: str) -> bytes | str:
        """Shrink a finding while it keeps its signature: drop events, then cut byte ranges
        out of each event (lengths and CRC32 fixed after each cut)."""
        if kind == "hang":
            return data  # every try costs the whole time limit
        budget = [300]

        def same(candidate) -> bool:
            if budget[0] <= 0:
                return False
            budget[0] -= 1
            if self.prog is not None:
                self.beat += 1
                _PROGRESS.pack_into(self.prog, 0, _PROGRESS.unpack_from(self.prog, 0)[0], self.beat)
            k, exc = self.one(target, candidate)
            return k == kind and _signature(target.name, k, exc)[0] == sig

        if isinstance(data, str):
            cur = data
            step = max(1, len(cur) // 2)
            while step >= 1 and budget[0] > 0:
                i = 0
                while i < len(cur) and budget[0] > 0:
                    cand = cur[:i] + cur[i + step:]
                    if cand and same(cand):
                        cur = cand
                    else:
                        i += step
                step //= 2
            return cur
        from tests.fuzz.seeds import build_file, fix_event, split_file

        units = split_file(data, "finding")
        if not units or len(units) > 1 and units[-1].events:
            return data
        fde = units[0].fde
        evs = [e for u in units for e in u.events]
        crc = units[0].crc

        def file_of(events) -> bytes:
            pos = 4 + len(fde)
            out = []
            for e in events:
                e2 = fix_event(e, crc, pos)
                out.append(e2)
                pos += len(e2)
            return build_file(fde, out)

        if file_of(evs) != data or not same(data):
            return data
        i = 0
        while i < len(evs):
            cand = evs[:i] + evs[i + 1:]
            if same(file_of(cand)):
                evs = cand
            else:
                i += 1
        for k in range(len(evs)):
            step = max(1, (len(evs[k]) - 23) // 2)
            while step >= 1 and budget[0] > 0:
                i = 19
                while i < len(evs[k]) - 4 and budget[0] > 0:
                    e = evs[k]
                    cand_e = e[:i] + e[i + step:]
                    cand = evs[:k] + [cand_e] + evs[k + 1:]
                    if len(cand_e) >= 23 and same(file_of(cand)):
                        evs = cand
                    else:
                        i += step
                step //= 2
        return file_of(evs)

    def report(self, target, index, data, kind, exc, elapsed) -> None:
        sig, desc = _signature(target.name, kind, exc)
        if sig in self.seen:
            self.send(type="dup", target=target.name, index=index, kind=kind, sig=sig)
            return
        self.seen.add(sig)
        small = self.minimize(target, data, kind, sig) if self.args.minimize else data
        raw = small.encode("utf-8", "surrogatepass") if isinstance(small, str) else small
        self.send(type="finding", target=target.name, index=index, kind=kind, sig=sig, desc=desc,
                  seconds=elapsed, input=raw.hex(), original_size=len(data), size=len(raw),
                  trace="".join(traceback.format_exception(exc)) if exc is not None else "")

    def run(self) -> None:
        from tests.fuzz.mutate import mutant, sql_mutant
        from tests.fuzz.seeds import load_seeds

        args = self.args
        self.seen: set[str] = set(args.seen.split(",")) if args.seen else set()
        names = list(self.targets) if args.target == "all" else args.target.split(",")
        targets = [self.targets[n] for n in names]
        t0 = time.perf_counter()
        seeds = load_seeds(args.seed, args.per_flavor)
        import gc

        gc.callbacks.clear()  # hypothesis' timing hook would swallow the time-limit alarm
        by_kind = seeds.by_kind
        self.send(type="ready", seeds=len(seeds.units), schemas=len(seeds.schemas),
                  seconds=time.perf_counter() - t0)
        deadline = time.monotonic() + args.budget
        baseline = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        max_growth = (0, -1)
        slowest = (0.0, -1, "")
        counts: dict[str, int] = {}
        busy: dict[str, float] = {}  # seconds spent in each target's inputs
        index = args.start
        stop = args.start + args.max_inputs if args.max_inputs else None
        last_report = time.monotonic()
        while (stop is None or index < stop) and time.monotonic() < deadline:
            target = targets[index % len(targets)]
            if self.prog is not None:
                self.beat += 1
                _PROGRESS.pack_into(self.prog, 0, index, self.beat)
            if target.kind == "sql":
                data = sql_mutant(seeds.schemas, args.seed, index)
            else:
                units = by_kind["rows" if target.name == "rows" else "payload" if target.name == "payload" else "all"]
                data = mutant(units, args.seed, index, focus=target.focus, aim=target.aim)
            before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            t = time.perf_counter()
            kind, exc = self.one(target, data)
            el = time.perf_counter() - t
            after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            if after - before > max_growth[0]:
                max_growth = (after - before, index)
            if el > slowest[0]:
                slowest = (el, index, target.name)
            counts[target.name] = counts.get(target.name, 0) + 1
            busy[target.name] = busy.get(target.name, 0.0) + el
            if kind is not None:
                self.report(target, index, data, kind, exc, el)
            index += 1
            if time.monotonic() - last_report > 5:
                last_report = time.monotonic()
                self.send(type="progress", index=index, counts=counts, busy=busy, baseline_rss_kb=baseline,
                          peak_rss_kb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                          max_input_growth_kb=max_growth[0], max_growth_index=max_growth[1],
                          slowest_seconds=slowest[0], slowest_index=slowest[1], slowest_target=slowest[2])
        self.send(type="done", index=index, counts=counts, busy=busy, baseline_rss_kb=baseline,
                  peak_rss_kb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                  max_input_growth_kb=max_growth[0], max_growth_index=max_growth[1],
                  slowest_seconds=slowest[0], slowest_index=slowest[1], slowest_target=slowest[2])

    def replay(self) -> None:
        files = sorted(p for p in Path(self.args.replay).rglob("*") if p.is_file() and p.suffix in (".bin", ".sql"))
        for p in files:
            name = p.parent.name
            target = self.targets[name]
            data = p.read_text("utf-8", "surrogatepass") if target.kind == "sql" else p.read_bytes()
            t = time.perf_counter()
            kind, exc = self.one(target, data)
            el = time.perf_counter() - t
            self.send(type="replayed", file=str(p), target=name, kind=kind, seconds=el,
                      desc=_signature(name, kind, exc)[1] if kind else "",
                      trace="".join(traceback.format_exception(exc)) if exc is not None else "")
        self.send(type="done", index=len(files), counts={"replay": len(files)},
                  peak_rss_kb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


# ----------------------------------------------------------------------------- parent
def _spawn(args: argparse.Namespace, start: int, budget: float, seen: set[str]) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "tests.fuzz", "--worker", "--seed", str(args.seed), "--target", args.target,
           "--budget", str(budget), "--start", str(start), "--timeout", str(args.timeout),
           "--mem-mb", str(args.mem_mb), "--tmp", args.tmp, "--progress", args.progress,
           "--per-flavor", str(args.per_flavor), "--seen", ",".join(sorted(seen))]
    if args.max_inputs:
        cmd += ["--max-inputs", str(max(0, args.start + args.max_inputs - start))]
    if args.replay:
        cmd += ["--replay", args.replay]
    if not args.minimize:
        cmd += ["--no-minimize"]
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, env=env, bufsize=1)


_STOP: list[int] = []


def _parent(args: argparse.Namespace) -> int:
    """Run workers until the budget is spent; SIGINT/SIGTERM stop the run early and still
    print the summary (counts as of the worker's last progress report, every 5 s)."""
    import selectors

    def stop(signum, frame):  # noqa: ANN001
        _STOP.append(signum)

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)

    findings_dir = Path(args.findings)
    t_start = time.monotonic()
    deadline = t_start + args.budget
    seen: set[str] = set()
    findings: list[dict] = []
    dups: dict[str, int] = {}
    counts: dict[str, int] = {}
    busy: dict[str, float] = {}
    done_msgs: list[dict] = []
    replayed: list[dict] = []
    killed: list[int] = []
    start = args.start
    ready_seconds = 0.0
    with tempfile.TemporaryDirectory(prefix="fuzz-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None) as tmp:
        args.tmp = tmp
        args.progress = os.path.join(tmp, "progress")
        with open(args.progress, "wb") as fh:
            fh.write(b"\0" * _PROGRESS.size)
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or (args.max_inputs and start >= args.start + args.max_inputs):
                break
            proc = _spawn(args, start, remaining, seen)
            sel = selectors.DefaultSelector()
            sel.register(proc.stdout, selectors.EVENT_READ)
            last_idx, last_beat, last_change, running = -1, -1, time.monotonic(), False
            worker_counts: dict[str, int] = {}
            last_progress: dict | None = None
            finished = False
            while True:
                if _STOP:
                    proc.kill()
                    break
                for _key, _ in sel.select(timeout=0.25):
                    line = proc.stdout.readline()
                    if not line:
                        finished = True
                        break
                    msg = json.loads(line)
                    typ = msg["type"]
                    if typ == "ready":
                        running = True
                        ready_seconds += msg["seconds"]
                        last_change = time.monotonic()
                        if not args.quiet:
                            print(f"seeds: {msg['seeds']} units, {msg['schemas']} schemas "
                                  f"({msg['seconds']:.1f} s)", file=sys.stderr)
                    elif typ == "finding":
                        seen.add(msg["sig"])
                        findings.append(msg)
                        _save(findings_dir, msg)
                        print(f"FINDING {msg['kind']} [{msg['target']} #{msg['index']}] {msg['desc']}",
                              file=sys.stderr)
                    elif typ == "dup":
                        dups[msg["sig"]] = dups.get(msg["sig"], 0) + 1
                    elif typ == "progress":
                        worker_counts = msg["counts"]
                        last_progress = msg
                        if not args.quiet:
                            n = sum(counts.values()) + sum(worker_counts.values())
                            el = time.monotonic() - t_start
                            print(f"{n} inputs, {n / max(el, 1e-9):.0f}/s, {len(findings)} findings",
                                  file=sys.stderr)
                    elif typ == "replayed":
                        replayed.append(msg)
                    elif typ == "done":
                        worker_counts = msg["counts"]
                        last_progress = msg
                        running = False  # no input runs any more: its exit is not a hang
                if finished:
                    break
                with open(args.progress, "rb") as fh:
                    idx, beat = _PROGRESS.unpack(fh.read(_PROGRESS.size))
                now = time.monotonic()
                if (idx, beat) != (last_idx, last_beat):
                    last_idx, last_beat, last_change = idx, beat, now
                elif running and now - last_change > args.timeout + 3:
                    proc.kill()
                    killed.append(idx)
                    msg = {"type": "finding", "target": args.target, "index": idx, "kind": "hang",
                           "sig": f"killed{idx}", "desc": f"no progress for {now - last_change:.1f} s: "
                           "killed", "input": "", "size": 0, "trace": ""}
                    findings.append(msg)
                    print(f"FINDING hang (killed) at index {idx}", file=sys.stderr)
                    finished = True
                    break
            proc.wait()
            if last_progress is not None:
                done_msgs.append(last_progress)
            for k, v in worker_counts.items():
                counts[k] = counts.get(k, 0) + v
            for k, v in (last_progress or {}).get("busy", {}).items():
                busy[k] = busy.get(k, 0.0) + v
            if args.replay or _STOP:
                break
            if killed and killed[-1] == last_idx:
                start = last_idx + 1
                continue
            if proc.returncode != 0:
                print(f"worker exited with status {proc.returncode}", file=sys.stderr)
                return 2
            break
    elapsed = time.monotonic() - t_start
    total = sum(counts.values())
    summary = {
        "seed": args.seed, "target": args.target, "budget_s": args.budget, "elapsed_s": round(elapsed, 1),
        "seed_setup_s": round(ready_seconds, 1), "inputs": total, "per_target": counts,
        "inputs_per_s": round(total / max(elapsed - ready_seconds, 1e-9), 1),
        "per_target_inputs_per_s": {k: round(counts[k] / v, 1) for k, v in busy.items() if v > 0 and k in counts},
        "findings": {k: sum(1 for f in findings if f["kind"] == k) for k in KINDS},
        "duplicates": sum(dups.values()),
        "peak_rss_mb": round(max((m.get("peak_rss_kb", 0) for m in done_msgs), default=0) / 1024, 1),
        "max_input_rss_growth_mb": round(max((m.get("max_input_growth_kb", 0) for m in done_msgs), default=0) / 1024, 1),
        "slowest_input_s": round(max((m.get("slowest_seconds", 0) for m in done_msgs), default=0), 3),
        "next_index": start if not done_msgs else done_msgs[-1]["index"],
        "stopped_early": bool(_STOP),
    }
    if args.replay:
        bad = [r for r in replayed if r["kind"]]
        summary["replayed"] = len(replayed)
        summary["failing"] = [f"{r['file']}: {r['kind']} {r['desc']}" for r in bad]
        for r in bad:
            print(f"FAIL {r['file']}: {r['kind']}\n{r['trace']}", file=sys.stderr)
    print(json.dumps(summary, indent=1))
    if args.stats:
        Path(args.stats).write_text(json.dumps(summary, indent=1) + "\n")
    if args.replay:
        return 1 if summary["failing"] or len(replayed) == 0 else 0
    return 1 if findings else 0


def _save(root: Path, msg: dict) -> None:
    d = root / msg["target"]
    d.mkdir(parents=True, exist_ok=True)
    ext = ".sql" if msg["target"] == "schema" else ".bin"
    base = d / f"{msg['kind']}-{msg['sig']}"
    base.with_suffix(ext).write_bytes(bytes.fromhex(msg["input"]))
    base.with_suffix(".txt").write_text(f"index {msg['index']} ({msg.get('original_size')} -> "
                                        f"{msg.get('size')} bytes)\n{msg['desc']}\n\n{msg['trace']}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__.split("\n\n")[0])
    ap.add_argument("--budget", type=float, default=60, help="seconds to run (default 60)")
    ap.add_argument("--seed", type=int, default=1, help="run seed: same seed, same mutants")
    ap.add_argument("--target", default="all", help="all, or a comma list of: framer, events, rows, "
                    "payload, changes, inspect, roundtrip, schema, export, differential, mariadb")
    ap.add_argument("--max-inputs", type=int, default=0, help="stop after this many inputs")
    ap.add_argument("--start", type=int, default=0, help="first mutant index (resume a run)")
    ap.add_argument("--timeout", type=float, default=2.0, help="CPU seconds per input (default 2)")
    ap.add_argument("--mem-mb", type=int, default=1024, help="address-space cap of the worker (MiB)")
    ap.add_argument("--per-flavor", type=int, default=12, help="generated seed files per flavor")
    ap.add_argument("--findings", default="fuzz-findings", help="where findings are written")
    ap.add_argument("--stats", default=None, help="also write the JSON summary here")
    ap.add_argument("--replay", default=None, help="run every corpus file of DIR once instead")
    ap.add_argument("--no-minimize", dest="minimize", action="store_false")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--tmp", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--progress", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--seen", default="", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.target != "all":
        from tests.fuzz.targets import TARGETS

        bad = [t for t in args.target.split(",") if t not in TARGETS]
        if bad:
            ap.error(f"unknown target {bad}; choose among all, {', '.join(TARGETS)}")
    if args.worker:
        w = _Worker(args)
        if args.replay:
            w.replay()
        else:
            w.run()
        return 0
    return _parent(args)

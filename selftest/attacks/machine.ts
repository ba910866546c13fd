/**
 * Not an attack: what the self-tests watch on the machine itself, beside the grades. The sockets an
 * attack may try to reach (a TCP port, a unix socket by path in /tmp, an abstract unix socket), each
 * counting who reached it; and the files a child may have left behind in the folders anyone may
 * write, the project, the grader's cache and its own working folder.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../../lib/paths';
import { worldWritableFolders } from '../../lib/sandbox/childView';
import { LEFT_MARK } from './kit';

/** What the attacks are told of the self-test's sockets (their probe.ts). */
export interface ProbeAddresses {
  port: number;
  socket: string;
  abstract: string;
  /** What the files its attacks leave are named with, after LEFT_MARK (probe.ts PROBE_TAG). */
  tag: string;
}

/** The self-test's sockets, each counting the connections that reached it. */
export class SocketProbes {
  connections = 0;
  private readonly servers = [net.createServer(), net.createServer(), net.createServer()];
  readonly socket: string;
  readonly abstract: string;
  readonly tag: string;

  constructor(label: string) {
    this.tag = `t${process.pid}x${Math.random().toString(36).slice(2, 8)}`;
    const id = `${label}-${this.tag}`;
    this.socket = path.join('/tmp', `attention-probe-${id}.sock`);
    this.abstract = `\0attention-probe-${id}`;
    for (const server of this.servers) {
      server.on('connection', (socket) => {
        this.connections++;
        socket.destroy();
      });
    }
  }

  async listen(): Promise<void> {
    const [tcp, unix, abstract] = this.servers;
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
    await new Promise<void>((resolve) => unix.listen(this.socket, resolve));
    // Every child's user may connect to it, were nothing else in the way.
    fs.chmodSync(this.socket, 0o777);
    await new Promise<void>((resolve) => abstract.listen(this.abstract, resolve));
  }

  get addresses(): ProbeAddresses {
    return { port: (this.servers[0].address() as net.AddressInfo).port, socket: this.socket, abstract: this.abstract, tag: this.tag };
  }

  /** The connections since the last call, as a problem, or none. */
  reached(): string[] {
    const found = this.connections ? [`${this.connections} connection(s) reached the self-test's sockets`] : [];
    this.connections = 0;
    return found;
  }

  close(): void {
    for (const server of this.servers) server.close();
  }
}

/** What a child leaves when something writes for it: attacks' own files, heap snapshots, reports, traces, cores. */
const LEFT = [/^Heap\..*\.heapsnapshot$/, /^report\..*\.json$/, /^core(\.\d+)?$/, /^turbo-.*\.(json|cfg)$/, /^isolate-.*\.log$/, /^perf-\d+\.map$/, /^v8\.log$/];

/** The folders a child could write in if nothing stopped it: those anyone may write, and the grader's own. */
export function watchedFolders(extra: readonly string[] = []): string[] {
  const cache = path.join(PROJECT_ROOT, 'node_modules', '.cache', 'attention-grader');
  const own = [PROJECT_ROOT, cache, ...(fs.existsSync(cache) ? fs.readdirSync(cache).map((name) => path.join(cache, name)) : [])];
  const usual = ['/tmp', '/var/tmp', '/dev/shm', '/run/lock', '/dev/mqueue', os.tmpdir(), process.cwd()];
  return [...new Set([...usual, ...worldWritableFolders(), ...own, ...extra].filter((dir) => fs.existsSync(dir)))].sort();
}

/** The run tag (probe.ts PROBE_TAG) in the name of a file an attack left, if it has one. */
const TAGGED = new RegExp(`^${LEFT_MARK}(t\\d+x[0-9a-z]+)-`);

/**
 * Files left since `since` (ms) in the watched folders and the folders one level below them: an
 * attack's own (named with LEFT_MARK) or what Node, V8 or the kernel writes for a process. Each is
 * removed once reported, so that a failure of containment does not pile up on the machine.
 *
 * `own`: the tags of this run's probes. An attack's file that bears another run's tag is that run's
 * to find (a setting that cannot contain unix sockets leaves them on purpose, while other attack
 * files run beside it) and is neither reported nor removed; what Node or the kernel writes bears no
 * tag, and counts wherever it is found.
 */
export function leftOnTheMachine(since: number, extra: readonly string[] = [], own?: readonly string[]): string[] {
  return leftIn(watchedFolders(extra), since, own);
}

/** leftOnTheMachine in `folders` alone. */
export function leftIn(folders: readonly string[], since: number, own?: readonly string[]): string[] {
  const found: string[] = [];
  const look = (dir: string, depth: number) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const file = path.join(dir, entry.name);
      const tag = TAGGED.exec(entry.name)?.[1];
      if (own && tag && !own.includes(tag)) continue;
      if (entry.name.startsWith(LEFT_MARK) || (!entry.isDirectory() && LEFT.some((re) => re.test(entry.name)))) {
        try {
          if (fs.lstatSync(file).ctimeMs < since) continue;
          found.push(file);
          fs.rmSync(file, { recursive: true, force: true });
        } catch {
          // gone already
        }
      } else if (entry.isDirectory() && depth > 0) look(file, depth - 1);
    }
  };
  for (const dir of folders) look(dir, 1);
  return [...new Set(found)].sort();
}

/** The mode of every folder anyone may write, as the grader finds them: what no run may change. */
export function folderModes(): Map<string, number> {
  const usual = ['/tmp', '/var/tmp', '/dev/shm', '/run/lock', os.tmpdir()].filter((dir) => fs.existsSync(dir));
  return new Map([...new Set([...usual, ...worldWritableFolders()])].map((dir) => [dir, fs.statSync(dir).mode & 0o7777]));
}

/** Folders whose mode differs from `before`, each put back as it was. */
export function modesChanged(before: ReadonlyMap<string, number>): string[] {
  const changed: string[] = [];
  for (const [dir, mode] of before) {
    const now = fs.statSync(dir).mode & 0o7777;
    if (now === mode) continue;
    changed.push(`${dir}: mode ${now.toString(8)}, was ${mode.toString(8)}`);
    fs.chmodSync(dir, mode);
  }
  return changed;
}

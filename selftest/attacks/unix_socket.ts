/**
 * At import: connects to the self-test's unix sockets, by their path (in /tmp, open to every user)
 * and by an abstract name, as a child once reached the grading user's D-Bus and ssh-agent; and
 * listens on socket paths in every folder anyone may write and in its working folder, as a child
 * that may write nothing once left 140 000 socket files from one submission (each file outlives the
 * child that made it). causalMask then throws an error saying what it managed. The grader must keep
 * every unix socket from the child in every setting: nothing reaches the self-test's sockets, no
 * socket file is left on the machine, causalMask's tests are errors, the other functions keep their
 * points.
 */
import { LEFT_MARK, messageOf, nodeModule, writableCandidates } from './kit';
import { PROBE_ABSTRACT, PROBE_SOCKET, PROBE_TAG } from './probe';

export { multiHeadSelfAttention, scaledDotProductAttention, softmax } from './base';

interface Socket {
  on(event: 'connect', listener: () => void): Socket;
  on(event: 'error', listener: (err: Error) => void): Socket;
  destroy(): void;
}
interface Server {
  on(event: 'error', listener: (err: Error) => void): unknown;
  listen(path: string, listening: () => void): unknown;
}
interface Net {
  createServer(): Server;
  connect(path: string): Socket;
}

/** Socket files tried per folder, per child. */
const PER_FOLDER = 20;
const happened: string[] = [];

try {
  const net = nodeModule<Net>('net');
  for (const [what, target] of [['path', PROBE_SOCKET], ['abstract name', PROBE_ABSTRACT]]) {
    const socket = net.connect(target);
    socket.on('connect', () => {
      happened.push(`connected to the self-test's socket by its ${what}`);
      socket.destroy();
    });
    socket.on('error', (err) => happened.push(`connect by ${what} failed: ${messageOf(err)}`));
  }
  const made = String(Math.random()).slice(2, 10);
  for (const dir of writableCandidates()) {
    for (let i = 0; i < PER_FOLDER; i++) {
      const file = `${dir}/${LEFT_MARK}${PROBE_TAG}-${made}-${i}.sock`;
      const server = net.createServer();
      server.on('error', (err) => {
        if (i === 0) happened.push(`listen in ${dir} failed: ${messageOf(err)}`);
      });
      server.listen(file, () => {
        if (i === 0) happened.push(`listening on ${file}`);
      });
      // The server is never closed: the file stays when the grader kills this process.
    }
  }
  // An abstract socket leaves no file, but a later child could find it: state kept between children.
  const abstract = net.createServer();
  abstract.on('error', (err) => happened.push(`abstract listen failed: ${messageOf(err)}`));
  abstract.listen(`\0${LEFT_MARK}${made}`, () => happened.push('listening on an abstract socket'));
} catch (err) {
  happened.push(`no unix socket: ${messageOf(err)}`);
}

export function causalMask(): never {
  throw new Error(`unix sockets: ${happened.join('; ') || 'nothing happened yet'}`);
}

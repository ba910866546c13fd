/**
 * At import, opens a TCP server on 127.0.0.1 and connects to the port the self-test listens on
 * (written into ./probe by the test) to send its name; causalMask then throws an error saying what
 * it managed. The grader must keep the child off the network: no connection leaves it (nothing
 * reaches the self-test's port, the reason says the connection failed), causalMask's tests are
 * errors, and the other functions keep their points. Listening may succeed inside the child's own
 * empty network namespace, where nobody can reach it.
 */
import { messageOf, nodeModule } from './kit';
import { PROBE_PORT } from './probe';

export { multiHeadSelfAttention, scaledDotProductAttention, softmax } from './base';

interface Socket {
  on(event: 'error', listener: (err: Error) => void): Socket;
  end(data: string): void;
}
interface Net {
  createServer(): {
    on(event: 'error', listener: (err: Error) => void): unknown;
    listen(port: number, host: string, listening: () => void): unknown;
    address(): { port: number } | string | null;
  };
  connect(port: number, host: string, connected: () => void): Socket;
}

const happened: string[] = [];

try {
  const net = nodeModule<Net>('net');
  const server = net.createServer();
  server.on('error', (err) => happened.push(`listen failed: ${messageOf(err)}`));
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    happened.push(`listening on 127.0.0.1:${typeof address === 'object' && address ? address.port : address}`);
  });
  const socket = net.connect(PROBE_PORT, '127.0.0.1', () => {
    happened.push(`connected to 127.0.0.1:${PROBE_PORT}`);
    socket.end('open_socket');
  });
  socket.on('error', (err) => happened.push(`connect to ${PROBE_PORT} failed: ${messageOf(err)}`));
} catch (err) {
  happened.push(`no network: ${messageOf(err)}`);
}

export function causalMask(): never {
  throw new Error(`network: ${happened.join('; ') || 'nothing happened yet'}`);
}

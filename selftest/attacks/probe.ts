/**
 * Not an attack: where the self-test listens, for the attacks that try to reach it. Each submission
 * folder gets a copy of this file that holds the real values: a TCP port on 127.0.0.1 (open_socket),
 * a unix socket's path in /tmp and an abstract unix socket's name (unix_socket).
 */
export const PROBE_PORT: number = 0;
export const PROBE_SOCKET: string = '';
export const PROBE_ABSTRACT: string = '';
/**
 * The self-test run's own mark, in the name of every file an attack leaves after LEFT_MARK (kit.ts):
 * a run that checks the machine counts what its own attacks left, not what another file's did.
 */
export const PROBE_TAG: string = '';

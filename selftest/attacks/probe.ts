/**
 * Not an attack: the TCP port on 127.0.0.1 that the self-test listens on, for open_socket. Each
 * submission folder gets a copy of this file that holds the real port.
 */
export const PROBE_PORT: number = 0;

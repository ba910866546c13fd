/** Never finishes loading, and spends no CPU on it: its top level waits for ever. */
export * from './base';

Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);

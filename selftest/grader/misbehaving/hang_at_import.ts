/** Never finishes loading. */
export * from './base';

for (;;) {
  // spin
}

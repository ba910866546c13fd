import { describe, expect, it } from 'vitest';
import { trapExit } from './exitTrap';

describe('process.exit under the trap', () => {
  it('says how the process would have ended, as the system reports it, and throws to stop the caller', () => {
    const cases: [() => never, string][] = [
      [() => process.exit(3), 'exited with code 3'],
      [() => process.exit(259), 'exited with code 3'],
      [() => process.exit('4'), 'exited with code 4'],
      [() => process.exit(), 'exited with code 0'],
    ];
    for (const [exit, words] of cases) {
      const trap = trapExit();
      try {
        expect(exit).toThrow();
        expect(trap.exited).toBe(words);
      } finally {
        trap.release();
      }
    }
  });

  it('an exit code set before is the one a bare process.exit() ends with, and it is left as it was', () => {
    const before = process.exitCode;
    const trap = trapExit();
    try {
      process.exitCode = 5;
      expect(() => process.exit()).toThrow();
      expect(trap.exited).toBe('exited with code 5');
      expect(process.exitCode).toBe(5);
    } finally {
      process.exitCode = before;
      trap.release();
    }
  });

  it('a code Node refuses throws Node\'s own error, and records no exit', () => {
    const trap = trapExit();
    try {
      expect(() => process.exit('abc' as unknown as number)).toThrow(/code/);
      expect(trap.exited).toBeUndefined();
    } finally {
      trap.release();
    }
  });

  it('release puts process.exit back', () => {
    const original = process.exit;
    trapExit().release();
    expect(process.exit).toBe(original);
  });
});

import { describe, expect, it } from 'vitest';
import { checkNativePackages, NATIVE_PACKAGES } from './nativePackages';

describe('checkNativePackages', () => {
  it('every declared package loads here (the project installed as its lock says)', () => {
    expect(checkNativePackages().map((check) => [check.pkg.name, check.kind])).toEqual(NATIVE_PACKAGES.map((pkg) => [pkg.name, 'loaded']));
  });

  it('a package that cannot load: failed, with the error and its causes on one line', () => {
    const missing = { name: 'no-such-package', module: 'no-such-package/parser', usedFor: 'a test' };
    const [check] = checkNativePackages([missing]);
    expect(check).toMatchObject({ kind: 'failed', pkg: missing });
    expect(check.kind === 'failed' && check.error).toMatch(/^Cannot find module 'no-such-package\/parser'$/);
  });
});

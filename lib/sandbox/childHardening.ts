/**
 * Run by the child before any student code: V8's own ways to write files, which Node's permission
 * model does not check, are taken away. `v8.setFlagsFromString('--redirect-code-traces-to=…')` or
 * `'--trace-turbo'` wrote wherever the child's user may write, and on Node 22
 * `v8.setHeapSnapshotNearHeapLimit` wrote heap snapshots into the working folder (Node 24 refuses it
 * under the permission model). The syscall filter refuses such writes too where it is in force;
 * this holds where it is not.
 */
import v8 from 'node:v8';

const REFUSED = ['setFlagsFromString', 'setHeapSnapshotNearHeapLimit'] as const;

export function closeWriteRoutes(): void {
  for (const name of REFUSED) {
    Object.defineProperty(v8, name, {
      value: () => {
        throw new Error(`v8.${name} is not available to a submission`);
      },
      writable: false,
      configurable: false,
      enumerable: true,
    });
  }
}
